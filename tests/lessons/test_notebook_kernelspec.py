"""Every notebook of the course names the kernel as JupyterLab writes it, so that opening one
(the instructors' notebooks, and the learner's copies made from them) leaves it unmodified.

If this fails after a notebook was added or re-executed with another kernelspec:
`python scripts/normalise_kernelspec.py notebooks/*.ipynb notebooks/zh/*.ipynb`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
    (ROOT / "notebooks" / "zh").glob("*.ipynb")
)
sys.path.insert(0, str(ROOT / "scripts"))
import normalise_kernelspec  # noqa: E402


@pytest.fixture(scope="module")
def ipykernel_spec() -> dict[str, str]:
    """The python3 kernelspec as `jupyter kernelspec list` reports it here."""
    listed = subprocess.run(
        [sys.executable, "-m", "jupyter", "kernelspec", "list", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    spec = json.loads(listed)["kernelspecs"]["python3"]["spec"]
    return {"display_name": spec["display_name"], "language": spec["language"], "name": "python3"}


def test_the_script_writes_what_jupyter_lists(ipykernel_spec):
    assert normalise_kernelspec.kernelspec() == ipykernel_spec
    assert ipykernel_spec["display_name"] == "Python 3 (ipykernel)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT / "notebooks")))
def test_every_notebook_has_ipykernels_kernelspec(path, ipykernel_spec):
    metadata = json.loads(path.read_text(encoding="utf-8"))["metadata"]
    assert metadata.get("kernelspec") == ipykernel_spec, (
        f"{path.name}: {metadata.get('kernelspec')}; run scripts/normalise_kernelspec.py on it"
    )
    info = metadata.get("language_info", {})
    assert info.get("name") == "python" and info.get("pygments_lexer") == "ipython3", path.name


def test_the_script_changes_only_the_kernelspec(tmp_path, ipykernel_spec):
    source = ROOT / "notebooks" / "01_start_here.ipynb"
    nb = json.loads(source.read_text(encoding="utf-8"))
    nb["metadata"]["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    target = tmp_path / source.name
    target.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", "utf-8")
    assert normalise_kernelspec.main(["--check", str(target)]) == 1
    assert normalise_kernelspec.main([str(target)]) == 0
    assert normalise_kernelspec.main(["--check", str(target)]) == 0
    after = json.loads(target.read_text(encoding="utf-8"))
    assert after["metadata"]["kernelspec"] == ipykernel_spec
    nb["metadata"]["kernelspec"] = ipykernel_spec
    assert after == nb
