"""Give notebooks the kernel metadata JupyterLab writes, so opening one leaves it unmodified.

When JupyterLab opens a notebook and starts its kernel, it writes the kernel's own description
into the notebook's metadata: `kernelspec` (name, display name and language of the kernelspec,
which for ipykernel is "Python 3 (ipykernel)") and `language_info` (what the kernel reports). A
notebook stored with anything else (an older "Python 3") is marked modified on first open, and
autosave writes it: a learner's untouched copy would then look worked on.

    python scripts/normalise_kernelspec.py notebooks/*.ipynb notebooks/zh/*.ipynb
    python scripts/normalise_kernelspec.py --check notebooks/*.ipynb   # exit 1 if any differ

Only the kernelspec is rewritten in the course's notebooks, with `language_info` left as the
execution that stored the outputs reported it, unless `--language-info` is given (the learner's
copies get both, from the Python that writes them: scripts/make_student_copies.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import nbformat

KERNEL_NAME = "python3"


def kernelspec() -> dict[str, str]:
    """The kernelspec JupyterLab writes for ipykernel's python3 kernel in this environment."""
    try:
        from jupyter_client.kernelspec import KernelSpecManager

        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
        display_name, language = spec.display_name, spec.language
    except Exception:  # noqa: BLE001 - no jupyter_client or no such kernel: ipykernel's own
        from ipykernel.kernelspec import get_kernel_dict

        found = get_kernel_dict()
        display_name, language = found["display_name"], found["language"]
    return {"display_name": display_name, "language": language, "name": KERNEL_NAME}


def language_info() -> dict[str, Any]:
    """What ipykernel reports about its language (its kernel_info reply), in this Python."""
    from ipykernel.ipkernel import IPythonKernel

    info = dict(IPythonKernel.language_info)
    info["codemirror_mode"] = dict(info.get("codemirror_mode", {}))
    return info


def normalise(nb: nbformat.NotebookNode, with_language_info: bool = False) -> bool:
    """Set `nb`'s kernel metadata to JupyterLab's; True when something changed."""
    wanted = {"kernelspec": kernelspec()}
    if with_language_info:
        wanted["language_info"] = language_info()
    changed = False
    for key, value in wanted.items():
        if nb.metadata.get(key) != value:
            nb.metadata[key] = nbformat.from_dict(value)
            changed = True
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if needed")
    parser.add_argument("--language-info", action="store_true", help="language_info too")
    args = parser.parse_args(argv)
    differ = []
    for path in args.notebooks:
        nb = nbformat.read(path, as_version=4)
        if normalise(nb, args.language_info):
            differ.append(path)
            if not args.check:
                nbformat.write(nb, path)
    verb = "differ" if args.check else "rewritten"
    print(f"{len(differ)} of {len(args.notebooks)} notebook(s) {verb}: {kernelspec()}")
    for path in differ:
        print(f"  {path}")
    return 1 if args.check and differ else 0


if __name__ == "__main__":
    sys.exit(main())
