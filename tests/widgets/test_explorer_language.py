"""The explorer in Chinese (`lang="zh"`): every word a learner reads from a drawing or a player,
in the kernel's texts and in the front end's catalog, and English left exactly as it was."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from explorer_graphs import abc, lib, libraries, recorded_mlp

import widgets
from widgets import draw_graph, record_backward
from widgets.labels import full_text, summarize
from widgets.texts import TEXTS, front_end

CJK = re.compile(r"[\u4e00-\u9fff]")
# three words of English in a row: what a Chinese reader should never meet outside API names
ENGLISH = re.compile(r"\b[A-Za-z][a-z]+(?:[ -][a-z]+){2,}\b")
# what the engine itself says (PyTorch's own error message) is quoted, not translated
ENGINE_MESSAGE = re.compile(r"Trying to backward.*")
PLAYER_JS = (widgets.__file__.rsplit("/", 1)[0]) + "/player.js"


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    widgets.set_language("en")


def words_of(markup: str) -> str:
    """The text of an HTML/SVG output: tags and data URIs gone, entities decoded."""
    text = re.sub(r'src="data:[^"]*"', "", markup)
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def assert_no_english(text: str, where: str) -> None:
    found = ENGLISH.findall(ENGINE_MESSAGE.sub("", text))
    assert not found, f"{where}: English {found} in {text!r}"


def assert_chinese(text: str, where: str) -> None:
    assert CJK.search(text), f"{where}: no Chinese in {text!r}"
    assert_no_english(text, where)


def hooked_trace(torch, lang=None):
    """A backward with a tensor hook, retain_grad, a node pre-hook and a second, failing pass."""
    a, b, y = abc(torch)
    h = a * 3
    h.register_hook(lambda g: g * 2)
    h.retain_grad()
    z = (h * b).sum() + y
    z.grad_fn.register_prehook(lambda go: None)
    with record_backward(z, names={"a": a, "b": b, "h": h}, catch=True) as trace:
        z.backward()
        z.backward()
    return trace.player(lang=lang), trace


@pytest.mark.parametrize("name", libraries())
def test_a_chinese_backward_player_says_everything_in_chinese(name):
    player, trace = hooked_trace(lib(name), lang="zh")
    kinds = {f["kind"] for f in player.frames}
    assert {"backward_start", "edge", "ready", "node_start", "hook", "accumulate", "error"} <= kinds
    for frame in player.frames:  # `a.grad: None + [1.] → [1.]` needs no words at all
        assert_no_english(frame["text"], f"step {frame['kind']}")
        if "hook" in frame:
            assert_chinese(frame["hook"]["text"], "hook")
    for kind in ("backward_start", "edge", "ready", "node_start", "error", "backward_end"):
        assert_chinese(next(f["text"] for f in player.frames if f["kind"] == kind), kind)
    assert_chinese(player.summary, "summary")
    assert_chinese(words_of(player.picture_html()), "picture")
    assert player.lang == "zh" and player.texts == front_end("zh")
    for key, words in player.texts.items():
        if words != front_end("en")[key] and key != "colon":  # API names (AccumulateGrad) stay
            assert_chinese(words, f"front end {key}")


def test_forward_player_and_collapsed_modules_in_chinese():
    fwd, loss = recorded_mlp(lib("minigrad"))
    player = fwd.player(lang="zh", collapse=True)
    for frame in player.frames:
        assert_chinese(frame["text"], f"step {frame['kind']}")
    assert "已自动折叠" not in player.summary and "已折叠" in player.summary
    boxed = fwd.draw(collapse=True, lang="zh")
    svg = boxed.svg()
    assert "内含" in svg and "折叠的模块" in svg  # box label and its tooltip
    assert_chinese(words_of(boxed.html()), "drawing")
    cut = draw_graph(loss, max_nodes=6, lang="zh")
    assert "另外 17 个节点收在一个框里" in cut.summary() and "另有 17 个节点" in cut.svg()


def test_draw_graph_speaks_the_default_language_until_told_otherwise():
    _, _, y = abc(lib("minigrad"))
    assert draw_graph(y).summary().startswith("13 nodes, 13 edges: 1 non-leaf tensor, 2 leaves")
    widgets.set_language("zh")
    chinese = draw_graph(y)
    assert chinese.summary().startswith("13 个节点，13 条边：1 个非叶子张量，2 个需要梯度的叶子")
    assert "2 个 AccumulateGrad" in chinese.summary() and "需要梯度的叶子" in chinese.html()
    svg = chinese.svg()  # unnamed tensors are named by what they are, in the same language
    assert ">输出<" in svg and ">常量<" in svg and ">保存的 other<" in svg and ">output<" not in svg
    assert ">output<" in draw_graph(y, lang="en").svg()
    assert draw_graph(y, lang="en").summary().startswith("13 nodes")
    with pytest.raises(ValueError, match="lang must be one of"):
        draw_graph(y, lang="fr")
    with pytest.raises(ValueError, match="lang must be one of"):
        widgets.set_language("de")


def test_array_summaries_keep_numpy_words_and_translate_the_rest():
    a = np.arange(20.0)
    a[0] = np.nan
    assert summarize(a, "zh").endswith("1 nan；其中 19 个有限值：min 1 max 19 mean 10")
    assert summarize(a, "en").endswith("1 nan; the 19 finite: min 1 max 19 mean 10")
    assert full_text(np.zeros(20_000), "zh").startswith(
        "[20000] float64，按行优先顺序的前 10,000 个值"
    )


def test_save_html_of_a_chinese_player_is_a_chinese_page(tmp_path):
    player, _ = hooked_trace(lib("minigrad"), lang="zh")
    page = player.save_html(tmp_path / "replay.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in page and "反向传播播放器" in page


def test_both_languages_have_every_text_and_the_front_end_uses_only_catalog_keys():
    assert all(len(pair) == 2 and all(pair) for pair in TEXTS.values())
    for key, (en, zh) in TEXTS.items():  # Chinese has no plurals: it may leave `*_word` out
        english, chinese = (set(re.findall(r"\{(\w+)", text)) for text in (en, zh))
        assert chinese <= english and all(f.endswith("word") for f in english - chinese), key
    js = open(PLAYER_JS, encoding="utf-8").read()
    catalog = set(front_end("en"))
    used = set(re.findall(r'say\([\w.]+, "([\w.-]+)"', js)) | set(
        re.findall(r'\bt\("([\w.-]+)"\)', js)
    )
    assert used and used <= catalog, used - catalog
    composed = {
        f"section.{k}"
        for k in re.findall(r'"(\w+)"', js.split("const FORWARD_SECTIONS")[1].split(";\n\n")[0])
    }
    assert composed <= catalog, composed - catalog
    assert not re.search(r'h\("[a-z]+", "[\w -]+", "[A-Za-z][a-z]+ [a-z]', js), "words in player.js"
