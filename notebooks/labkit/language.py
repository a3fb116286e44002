"""The language a lesson speaks: English (notebooks/) or Chinese (notebooks/zh/).

Every text a learner reads from labkit is written in both languages where it is used,
`say("English", "中文")`, so a translation sits beside the sentence it renders and cannot drift
away from it unnoticed. The Chinese lessons import labkit through notebooks/zh/labkit, which
switches the language to "zh"; the graph explorer follows (its legend, panel and step texts),
and so do matplotlib's fonts.
"""

from __future__ import annotations

LANGUAGES = ("en", "zh")
_current = ["en"]


def use(lang: str) -> None:
    """Speak `lang` from now on, in labkit's feedback and in the explorer's texts."""
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {lang!r}")
    _current[0] = lang
    import widgets

    widgets.set_language(lang)
    if lang == "zh":
        from . import chinese_fonts

        chinese_fonts.use()


def current() -> str:
    return _current[0]


def say(en: str, zh: str) -> str:
    """The text in the lesson's language."""
    return zh if _current[0] == "zh" else en
