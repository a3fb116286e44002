"""The player's engine state (widgets/player_state.mjs) is tested in JavaScript, by Node's own
test runner (tests/js/); this runs it with the rest of the suite, and checks that the widget and a
saved replay get it inlined into the one module they load."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from widgets.front_end import STATE_IMPORT, player_module

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (node --test)")
def test_the_state_fold_passes_its_node_tests():
    done = subprocess.run(
        ["node", "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout


def test_the_front_end_is_one_module_with_the_state_inlined():
    js = player_module()
    assert STATE_IMPORT not in js and "function fold(state, f)" in js
    modules = re.findall(r"^[ \t]*(?:import|export) .*$", js, re.MULTILINE)
    assert modules == ["export default { render };"]  # no import left, one export
