"""Where numba keeps compiled kernels, decided before the first kernel module is imported.

numba looks in NUMBA_CACHE_DIR, then beside the source (`kernels/__pycache__`, right for an
editable install and for CI's checkout), then in the user's cache directory, and refuses to
load a `cache=True` function when none is writable (e.g. a read-only site-packages with a
read-only home). That last case falls back to a per-user temporary directory here.
"""

from __future__ import annotations

import os
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def configure() -> str:
    """Make sure numba has a writable cache directory; return the one it will use."""
    from numba.core import config  # lazily, like kernels/jit.py: numba is slow to import
    from numba.misc.appdirs import AppDirs  # (the same reason)

    if config.CACHE_DIR:
        return config.CACHE_DIR
    in_tree = os.path.join(HERE, "__pycache__")
    if _writable(in_tree):
        return in_tree
    user_wide = AppDirs(appname="numba", appauthor=False).user_cache_dir
    if _writable(user_wide):
        return user_wide
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    config.CACHE_DIR = os.path.join(tempfile.gettempdir(), f"minigrad-numba-{uid}")
    return config.CACHE_DIR
