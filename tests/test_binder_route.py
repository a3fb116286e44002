"""The conda/Binder route gives a learner what `make install` gives: a CJK font for the Chinese
lessons' plots, and numba's kernels compiled before the first lesson runs (postBuild)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
WARM = "-m minigrad.utils.warm_kernels"


def test_environment_yml_brings_a_cjk_font():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    names = [d.split()[0] for d in env["dependencies"] if isinstance(d, str)]
    assert "font-ttf-noto-cjk" in names  # conda-forge's Noto Sans CJK (labkit/chinese_fonts.py)


def test_postbuild_warms_the_kernels_as_make_install_does():
    post_build = ROOT / "postBuild"  # repo2docker runs it beside environment.yml (no binder/)
    assert not (ROOT / "binder").exists() and not (ROOT / ".binder").exists()
    assert os.access(post_build, os.X_OK)
    assert WARM in post_build.read_text(encoding="utf-8")
    assert WARM in (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "bash postBuild" in (ROOT / "environment.yml").read_text(encoding="utf-8")


def test_postbuild_runs():
    said = subprocess.run(["bash", str(ROOT / "postBuild")], capture_output=True, text=True)
    assert said.returncode == 0, said.stderr
    assert "compiled into numba's cache" in said.stdout


def test_chinese_fonts_are_found_in_the_conda_environments_fonts_folder(tmp_path, monkeypatch):
    """conda-forge's font packages install into $CONDA_PREFIX/fonts, where matplotlib does not
    look: labkit adds that folder."""
    import matplotlib
    from matplotlib import font_manager

    sys.path.insert(0, str(ROOT / "notebooks"))
    from labkit import chinese_fonts

    manager = font_manager.fontManager
    cjk = [f for f in manager.ttflist if f.name in chinese_fonts.FAMILIES]
    if not cjk:
        pytest.skip("no CJK font on this machine to play conda's part")
    prefix = tmp_path / "env"
    (prefix / "fonts").mkdir(parents=True)
    (prefix / "fonts" / Path(cjk[0].fname).name).symlink_to(cjk[0].fname)
    monkeypatch.setattr(sys, "prefix", str(prefix))
    monkeypatch.setattr(manager, "ttflist", [f for f in manager.ttflist if f not in cjk])
    real = font_manager.findSystemFonts

    def only_the_environment(fontpaths=None, fontext="ttf"):
        return real(fontpaths, fontext) if fontpaths else []  # no system font has Chinese

    monkeypatch.setattr(font_manager, "findSystemFonts", only_the_environment)
    monkeypatch.setitem(
        matplotlib.rcParams, "font.family", list(matplotlib.rcParams["font.family"])
    )
    assert chinese_fonts.use()
    assert any(str(prefix) in f.fname for f in manager.ttflist)
    assert matplotlib.rcParams["font.family"][0] in chinese_fonts.FAMILIES
