"""The Chinese lessons' labkit: the course's one labkit (notebooks/labkit), speaking Chinese.

A lesson's kernel starts in the lesson's folder, so `from labkit import ...` in notebooks/zh/
finds this package first. It puts the real labkit in its own place and switches it to Chinese,
so both languages run exactly the same checks (and learner/zh/ works the same way).
"""

import sys
from pathlib import Path

del sys.modules[__name__]
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import labkit  # noqa: E402  (now the course's labkit: its folder is first on the path)

labkit.language.use("zh")
