"""The player's front end as the one ES module both the widget and a saved replay run.

player.js imports its engine state from player_state.mjs (so that file can be tested on its own
under node --test); anywidget and a replay page load a single module, so the import line is
replaced by the state module itself, its `export`s dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).parent
STATE_IMPORT = 'import { emptyState, fold, hookOf } from "./player_state.mjs";'


def player_module() -> str:
    """player.js with player_state.mjs inlined where it is imported."""
    player = (HERE / "player.js").read_text(encoding="utf-8")
    if STATE_IMPORT not in player:
        raise ValueError(f"player.js no longer imports its state with {STATE_IMPORT!r}")
    state = (HERE / "player_state.mjs").read_text(encoding="utf-8")
    return player.replace(STATE_IMPORT, re.sub(r"^export ", "", state, flags=re.MULTILINE))
