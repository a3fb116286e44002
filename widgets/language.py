"""The language of the explorer's texts: legend, panel titles, step texts, controls.

"en" or "zh". Every drawing and player takes `lang=`; without it they use the default set here,
which the Chinese lessons switch to "zh" (through labkit) so their code reads like the English.
"""

from __future__ import annotations

LANGUAGES = ("en", "zh")
_default = ["en"]


def set_language(lang: str) -> None:
    """Make `lang` the default for every drawing and player made from now on."""
    _default[0] = resolve(lang)


def resolve(lang: str | None = None) -> str:
    """`lang`, or the default when None; anything else is refused by name."""
    if lang is None:
        return _default[0]
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, not {lang!r}")
    return lang
