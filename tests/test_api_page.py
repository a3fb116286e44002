"""API.md lists minigrad's public names; it is generated, and must be regenerated when they
change (`python scripts/list_api.py`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_api_page_is_current() -> None:
    check = [sys.executable, str(ROOT / "scripts" / "list_api.py"), "--check"]
    result = subprocess.run(check, cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, "API.md is stale: run `python scripts/list_api.py`"
