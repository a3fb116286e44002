"""Chinese plot labels: matplotlib's default font has no Chinese glyphs and draws empty boxes.

`make install` installs a CJK font (Debian: fonts-noto-cjk), environment.yml another (conda-forge:
font-ttf-noto-cjk, in the environment's own fonts/ folder, where matplotlib does not look); this
puts it first in matplotlib's list. matplotlib's font cache predates a newly installed font, so
the files are added directly.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .language import say

# Families with Chinese glyphs, the first found wins: Debian/Ubuntu, Windows, macOS.
FAMILIES = ("Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", "SimHei", "PingFang SC")
FILE_MARKS = ("NotoSansCJK", "wqy-microhei", "msyh", "simhei", "PingFang")


def use() -> bool:
    """Make matplotlib draw Chinese; False, with a line on how to fix it, when no font can."""
    import matplotlib
    from matplotlib import font_manager

    known = {font.name for font in font_manager.fontManager.ttflist}
    if not known.intersection(FAMILIES):
        conda_fonts = Path(sys.prefix) / "fonts"  # conda-forge's font packages install here
        extra = font_manager.findSystemFonts([str(conda_fonts)]) if conda_fonts.is_dir() else []
        for path in [*font_manager.findSystemFonts(), *extra]:
            if any(mark.lower() in path.lower() for mark in FILE_MARKS):
                font_manager.fontManager.addfont(path)
        known = {font.name for font in font_manager.fontManager.ttflist}
    found = [family for family in FAMILIES if family in known]
    if not found:
        print(
            say(
                "Note: no Chinese font was found, so Chinese in the plots shows as boxes. "
                "On Debian/Ubuntu run: apt-get install fonts-noto-cjk (conda: conda install "
                "-c conda-forge font-ttf-noto-cjk), then restart the kernel.",
                "提示：没有找到中文字体，图中的中文会显示成方框。"
                "Debian/Ubuntu 上请运行：apt-get install fonts-noto-cjk（conda 环境："
                "conda install -c conda-forge font-ttf-noto-cjk），然后重启内核。",
            )
        )
        return False
    # a list of families, not "sans-serif" with the CJK font first: matplotlib falls back glyph
    # by glyph only along `font.family`, and the CJK font has no ᵀ, ∂ or Σ (DejaVu Sans does)
    matplotlib.rcParams["font.family"] = [*found, "sans-serif"]
    return True
