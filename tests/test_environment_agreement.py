"""pyproject.toml and environment.yml must describe the same environment.

The conda/Binder route (environment.yml) has to provide every runtime, widgets and lessons
dependency that pip gets from pyproject.toml (as a conda-forge package or in its pip section, for
wheels conda-forge lacks, such as graphviz-pure), and torch must stay a pinned dev-only dependency.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
TORCH_PIN = "==2.13.0"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _name(requirement: str) -> str:
    """The normalized distribution name of a requirement string ("numpy>=2; ..." -> "numpy")."""
    m = _NAME.match(requirement)
    assert m, f"cannot parse requirement {requirement!r}"
    return re.sub(r"[-_.]+", "-", m.group(1)).lower()


@pytest.fixture(scope="module")
def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


@pytest.fixture(scope="module")
def conda_env() -> dict:
    with open(ROOT / "environment.yml", encoding="utf-8") as f:
        return yaml.safe_load(f)


def _conda_names(env: dict) -> set[str]:
    return {_name(dep) for dep in env["dependencies"] if isinstance(dep, str)}


def _pip_section(env: dict) -> list[str]:
    for dep in env["dependencies"]:
        if isinstance(dep, dict) and "pip" in dep:
            return list(dep["pip"])
    return []


def _spec(requirement: str) -> str:
    """The version specifier of a requirement, spaces dropped ("x ~= 0.2" -> "~=0.2")."""
    return requirement[_NAME.match(requirement).end() :].replace(" ", "")


def _pip_requirements(env: dict) -> dict[str, str]:
    """The pip section's requirements, name -> specifier (options such as "-e ." skipped)."""
    return {_name(p): _spec(p) for p in _pip_section(env) if not p.lstrip().startswith("-")}


def _extra(pyproject: dict, name: str) -> list[str]:
    extras = pyproject["project"].get("optional-dependencies", {})
    assert name in extras, f"pyproject.toml has no [{name}] extra"
    return extras[name]


def test_environment_yml_is_conda_forge_and_named(conda_env):
    assert conda_env["name"] == "autograd-lab"
    assert "conda-forge" in conda_env["channels"]


@pytest.mark.parametrize("group", ["runtime", "widgets", "lessons"])
def test_every_pip_dependency_is_in_environment_yml(pyproject, conda_env, group):
    if group == "runtime":
        reqs = pyproject["project"]["dependencies"]
    else:
        reqs = _extra(pyproject, group)
    present = _conda_names(conda_env) | set(_pip_requirements(conda_env))
    missing = sorted(_name(r) for r in reqs if _name(r) not in present)
    assert not missing, f"{group} dependencies missing from environment.yml: {missing}"


def test_pip_section_pins_agree_with_pyproject(pyproject, conda_env):
    """A wheel installed by the pip section carries the same version specifier as pyproject.toml."""
    reqs = pyproject["project"]["dependencies"] + _extra(pyproject, "lessons")
    specs = {_name(r): _spec(r) for r in reqs}
    for name, spec in _pip_requirements(conda_env).items():
        assert name in specs, f"environment.yml pip section installs {name}, not in pyproject.toml"
        assert spec == specs[name], (
            f"{name}: environment.yml {spec!r}, pyproject.toml {specs[name]!r}"
        )


def test_conda_env_installs_the_project(conda_env):
    assert "-e ." in [p.strip() for p in _pip_section(conda_env)]


def test_python_version_agrees(pyproject, conda_env):
    assert pyproject["project"]["requires-python"] == ">=3.11"
    pythons = [d for d in conda_env["dependencies"] if isinstance(d, str) and _name(d) == "python"]
    assert pythons, "environment.yml does not pin python"
    m = re.search(r"(\d+)\.(\d+)", pythons[0])
    assert m and (int(m.group(1)), int(m.group(2))) >= (3, 11), pythons[0]


def test_runtime_dependencies_are_numpy_and_numba_only(pyproject):
    names = {_name(r) for r in pyproject["project"]["dependencies"]}
    assert names == {"numpy", "numba"}


def test_torch_is_for_lessons_and_dev_only_pinned_exactly_and_cpu(pyproject, conda_env):
    """Never a runtime dependency of minigrad; the lessons run it beside minigrad, pinned, and
    every install route looks at PyTorch's CPU index (PyPI's Linux torch is the CUDA build)."""
    runtime = {_name(r) for r in pyproject["project"]["dependencies"]}
    assert "torch" not in runtime
    assert "torch" not in {_name(r) for r in _extra(pyproject, "widgets")}
    for extra in ("lessons", "dev"):
        torch_reqs = [r for r in _extra(pyproject, extra) if _name(r) == "torch"]
        assert [r.replace(" ", "") for r in torch_reqs] == ["torch" + TORCH_PIN], extra
    assert "torch" not in _conda_names(conda_env)  # conda-forge's pytorch may be a CUDA build
    assert _pip_requirements(conda_env)["torch"] == TORCH_PIN
    assert any(CPU_INDEX in p for p in _pip_section(conda_env) if p.lstrip().startswith("-"))
    assert f"TORCH_INDEX ?= {CPU_INDEX}" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_extras_nest(pyproject):
    """dev includes lessons, lessons includes widgets (listed out, not by self-reference)."""
    widgets = {_name(r) for r in _extra(pyproject, "widgets")}
    lessons = {_name(r) for r in _extra(pyproject, "lessons")}
    dev = {_name(r) for r in _extra(pyproject, "dev")}
    assert widgets <= lessons, widgets - lessons
    assert lessons <= dev, lessons - dev


def test_makefile_installs_the_same_torch_pin_first():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"TORCH_PIN := torch{TORCH_PIN}" in makefile
    torch_step = makefile.index('pip install "$(TORCH_PIN)"')
    dev_step = makefile.index('pip install -e ".[dev]"')
    assert torch_step < dev_step
