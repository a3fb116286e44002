"""How the method-check tests read a check's verdict: passed, or failed naming the problem in the
lesson's language, never with a traceback (the `lang` and `witness_on` fixtures: conftest.py)."""

from __future__ import annotations

from test_chinese_lessons import chinese_only


def _said(capsys, check, *args, **kwargs) -> str:
    check(*args, **kwargs)
    return capsys.readouterr().out


def _fails(out: str, en: str, zh: str, lang: str) -> None:
    assert out.startswith("✗") and "Traceback" not in out, out
    assert (zh if lang == "zh" else en) in out, out
    if lang == "zh":
        chinese_only(out)


def _passes(out: str) -> None:
    assert out.startswith("✓"), out
