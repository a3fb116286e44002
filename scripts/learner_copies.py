"""Keep a learner's copies of the lessons in step with the course without touching their work.

`make lab` runs this before opening JupyterLab on `learner/`. The first run writes every lesson
with its solutions stubbed (make_student_copies.py does the stubbing), the explorer demo and the
next-steps notebook, and the `labkit` package the checks import (with the solutions `solution()`
shows, in labkit/solutions.json). Later runs never write over a notebook the learner has changed:

- a notebook that is new in the course is added;
- a notebook that changed in the course replaces the learner's copy only while that copy is what
  was written last time; otherwise the new version is written beside it, as
  `NN_name.updated.ipynb`, and the learner chooses. "What was written" ignores what JupyterLab
  itself writes when a notebook is merely opened (kernelspec, language_info, cell ids, execution
  timings): a copy that was opened, or opened and saved without a change, still updates in place;
- `labkit/` (the course's own code, not the learner's) is always refreshed;
- lessons the course renumbered are renamed in the learner's folder too (never over a file that
  is there); a lesson the course retired is removed if the learner never worked on it, and
  otherwise kept under a name of its own (`old_14_capstone.ipynb`).

What was written last is remembered in `learner/.course.json` (file hashes only).

The Chinese course (`--lang zh`, `make lab LANG=zh`) goes to `learner/zh/` the same way. Its
`labkit` is the shim that loads `learner/labkit` in Chinese, so that one is refreshed too.

    python scripts/learner_copies.py                 # notebooks/ -> learner/
    python scripts/learner_copies.py --lang zh       # notebooks/zh/ -> learner/zh/
    python scripts/learner_copies.py --out DIR       # somewhere else
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import nbformat
from make_student_copies import NB_DIR, ROOT, copy_labkit, course_notebooks, student_notebook

MANIFEST = ".course.json"
UPDATED_SUFFIX = ".updated.ipynb"
# Issue 23 moved the capstone last: lessons 15, 16, 17 became 14, 15, 16 (same lessons, new
# numbers), and 14_capstone's place went to a new capstone, 17_capstone (new content).
RENAMED = {
    "15_broadcasting_and_gradients.ipynb": "14_broadcasting_and_gradients.ipynb",
    "16_memory.ipynb": "15_memory.ipynb",
    "17_forward_mode_and_functional.ipynb": "16_forward_mode_and_functional.ipynb",
}
RETIRED = {"14_capstone.ipynb": "old_14_capstone.ipynb"}  # -> where a learner's work on it goes
# kernelspecs the course once stored, which JupyterLab replaced on opening a copy
OLD_KERNELSPECS = ({"display_name": "Python 3", "language": "python", "name": "python3"},)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _core(text: str) -> str | None:
    """A notebook's hash without what JupyterLab writes on opening it (None: not a notebook)."""
    try:
        nb = json.loads(text)
    except ValueError:
        return None
    if not isinstance(nb, dict):
        return None
    nb.pop("nbformat_minor", None)
    for key in ("kernelspec", "language_info", "widgets"):
        nb.get("metadata", {}).pop(key, None)
    for cell in nb.get("cells", []):
        cell.pop("id", None)
        cell.get("metadata", {}).pop("execution", None)
        for key in ("source", "text"):
            if isinstance(cell.get(key), list):
                cell[key] = "".join(cell[key])
    return "core:" + _digest(json.dumps(nb, sort_keys=True, ensure_ascii=False))


def _fingerprints(text: str, stored: dict | None = None) -> set[str]:
    """Every hash under which `text` may have been recorded as what we wrote: its exact hash,
    its core hash and (for manifests written before core hashes) the exact hash it had before
    JupyterLab replaced the kernelspec and language_info stored with it (an old kernelspec, or
    `stored`: the course notebook's metadata, which copies once carried)."""
    found = {_digest(text), _core(text)}
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception:  # noqa: BLE001 - not a notebook: only its exact hash
        return found - {None}
    stored = stored or {}
    specs = [*OLD_KERNELSPECS, stored.get("kernelspec"), nb.metadata.get("kernelspec")]
    infos = [stored.get("language_info"), nb.metadata.get("language_info")]
    for spec in filter(None, specs):
        for info in filter(None, infos):
            nb.metadata["kernelspec"] = nbformat.from_dict(spec)
            nb.metadata["language_info"] = nbformat.from_dict(info)
            found.add(_digest(nbformat.writes(nb)))
    return found - {None}


def _untouched(path: Path, recorded: str | None, stored: dict | None = None) -> bool:
    """`path` is what we wrote (as recorded in the manifest), opened at most."""
    text = path.read_text(encoding="utf-8")
    return recorded is not None and recorded in _fingerprints(text, stored)


def _read_manifest(out: Path) -> dict[str, str]:
    try:
        found = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _free(path: Path) -> Path:
    """`path`, or `stem-2.ipynb`, `stem-3.ipynb`... whichever does not exist yet."""
    n, candidate = 2, path
    while candidate.exists():
        candidate = path.with_name(f"{path.name.removesuffix('.ipynb')}-{n}.ipynb")
        n += 1
    return candidate


def _beside(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".ipynb") + UPDATED_SUFFIX)


def migrate(out: Path, written: dict[str, str], report: dict[str, list[str]]) -> None:
    """Follow the course's renumbering in a folder made before it; nothing of the learner's is
    lost or written over."""
    for old, new in RENAMED.items():
        recorded = written.pop(old, None)
        source, target = out / old, out / new
        if not source.exists():
            continue
        if not target.exists():
            source.rename(target)
            if recorded is not None:
                written[new] = recorded
            if _beside(source).exists() and not _beside(target).exists():
                _beside(source).rename(_beside(target))
            report["renamed"].append(f"{old} -> {new}")
        elif _untouched(source, recorded):
            source.unlink()  # our copy, never worked on: the course's lesson is `new`
        else:  # both there, and the old one has the learner's work: it stays as it is
            report["left"].append(f"{old} -> {new}")
    for old, keep_as in RETIRED.items():
        recorded = written.pop(old, None)
        source = out / old
        if source.exists():
            if _untouched(source, recorded):
                source.unlink()
            else:
                kept = _free(out / keep_as)
                source.rename(kept)
                report["retired"].append(f"{old} -> {kept.name}")
        if _beside(source).exists():  # a course version nobody took: it is not the course's now
            _beside(source).rename(_free(_beside(out / keep_as)))


def sync(out: Path, src: Path = NB_DIR) -> dict[str, list[str]]:
    """Bring `out` up to date with the notebooks in `src`; returns file names by what happened:
    `added`, `updated` (in place), `beside` (a new version next to the learner's copy), `kept`,
    and from a folder made before the renumbering `renamed`, `retired` and `left` ("old -> new")."""
    out.mkdir(parents=True, exist_ok=True)
    written = _read_manifest(out)  # file name -> hash of the copy we last wrote
    report: dict[str, list[str]] = {
        key: [] for key in ("added", "updated", "beside", "kept", "renamed", "retired", "left")
    }
    migrate(out, written, report)
    for path in course_notebooks(src):
        course = nbformat.read(path, as_version=4)
        text = nbformat.writes(student_notebook(course))
        new, target = _core(text), out / path.name
        recorded = written.get(path.name)
        if not target.exists():
            report["added"].append(path.name)
        else:
            current = target.read_text(encoding="utf-8")
            if _core(current) == new:  # the same notebook, at most opened in JupyterLab
                if current != text:
                    target.write_text(text, encoding="utf-8")  # (nothing of the learner's)
                written[path.name] = new
                report["kept"].append(path.name)
                continue
            if recorded in (new, _digest(text)):  # the course's unchanged: the learner's work
                report["kept"].append(path.name)
                continue
            if not _untouched(target, recorded, course.metadata):
                beside = _beside(target)
                beside.write_text(text, encoding="utf-8")
                report["beside"].append(beside.name)
                continue  # the learner's copy stays the one the manifest does not know
            report["updated"].append(path.name)  # untouched since we wrote it: nothing lost
        target.write_text(text, encoding="utf-8")
        written[path.name] = new
    copy_labkit(src, out)
    (out / MANIFEST).write_text(json.dumps(written, indent=1, sort_keys=True), encoding="utf-8")
    return report


MESSAGES = {
    "en": {
        "added": "added {n} notebook(s) to {out}",
        "updated": "updated (you had not changed them): {names}",
        "beside": "a new version of a lesson you have worked on is beside it: {name}",
        "renamed": "the lessons were renumbered: {old} is now {new}",
        "retired": "{old} is no longer part of the course; your work on it is kept as {new}",
        "left": "{new} is the course's lesson now; your work in {old} stays there",
        "same": "your lessons in {out} are up to date",
    },
    "zh": {
        "added": "已把 {n} 个笔记本加入 {out}",
        "updated": "已更新（你没有改过这些课）：{names}",
        "beside": "你做过的一课有了新版本，放在它旁边：{name}",
        "renamed": "课程重新编号了：{old} 现在是 {new}",
        "retired": "{old} 已不在课程里；你在里面做的内容保存为 {new}",
        "left": "课程的这一课现在是 {new}；你在 {old} 里做的内容原样保留",
        "same": "{out} 里的课程已是最新",
    },
}


def describe(report: dict[str, list[str]], out: Path, lang: str = "en") -> str:
    """What `sync` did, in a few lines for the terminal, in the course's language."""
    say = MESSAGES[lang]
    lines = []
    for key in ("renamed", "retired", "left"):
        for pair in report.get(key, []):
            old, new = pair.split(" -> ")
            lines.append(say[key].format(old=old, new=new))
    if report["added"]:
        lines.append(say["added"].format(n=len(report["added"]), out=out))
    if report["updated"]:
        lines.append(say["updated"].format(names=", ".join(report["updated"])))
    for name in report["beside"]:
        lines.append(say["beside"].format(name=name))
    if not lines:
        lines.append(say["same"].format(out=out))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "learner")
    parser.add_argument("--src", type=Path, default=NB_DIR)
    parser.add_argument("--lang", choices=sorted(MESSAGES), default="en")
    args = parser.parse_args(argv)
    if args.lang == "en":
        print(describe(sync(args.out, args.src), args.out))
        return 0
    out = args.out / args.lang
    print(describe(sync(out, args.src / args.lang), out, args.lang))
    copy_labkit(args.src, args.out)  # the one the Chinese shim loads
    return 0


if __name__ == "__main__":
    sys.exit(main())
