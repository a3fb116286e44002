"""Write student copies of the lessons: solutions replaced by stubs, outputs cleared.

The lessons keep their solutions in the notebooks so that `pytest --nbval` can run every exercise.
A learner should not see them, so this script copies each lesson to `student/` with the code
between `# BEGIN SOLUTION` and `# END SOLUTION` replaced by stubs that keep what the check cell
needs: every name the solution assigns stays assigned (`answer = ...  # your code here`), and every
function it defines keeps its signature. The check cell then reports "still `...`" until the
learner fills it in. The solutions themselves go, in both languages, to `labkit/solutions.json`
in the copy: `solution()` shows one when the learner asks for it twice (labkit/solutions.py).

The explorer demo and the next-steps notebook (no exercises) are copied beside the lessons, and
every copy carries the kernel metadata JupyterLab would write (scripts/normalise_kernelspec.py),
so opening a copy leaves it unmodified.

    python scripts/make_student_copies.py            # notebooks/NN_*.ipynb -> student/
    python scripts/make_student_copies.py --out DIR  # somewhere else
"""

from __future__ import annotations

import argparse
import ast
import shutil
import sys
import textwrap
from pathlib import Path

import nbformat

if str(Path(__file__).resolve().parent) not in sys.path:  # (loaded by path, as tests do)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from normalise_kernelspec import normalise  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"
STUB_COMMENT = "# your code here"
LESSON_GLOB = "[0-9][0-9]_*.ipynb"
COMPANIONS = ("explorer_demo.ipynb", "next_steps.ipynb")  # no exercises, but the learner's too


class MarkerError(ValueError):
    """A `solution` cell whose markers are missing or unbalanced: refuse rather than leak code."""


def _stub_for(solution: str) -> list[str]:
    """Stub lines for one solution block (without indentation).

    Assignments keep their targets, function definitions keep their signatures; a block that
    returns (the body of a function the learner writes) and anything else (a bare call, say)
    becomes a single `...` line, so the block still parses.
    """
    try:
        tree = ast.parse(textwrap.dedent(solution))
    except SyntaxError:
        return [f"...  {STUB_COMMENT}"]
    if any(isinstance(node, ast.Return) for node in tree.body):
        # a function body to write: its local names are the learner's choice, not a contract
        return [f"...  {STUB_COMMENT}"]
    lines: list[str] = []
    seen: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = ast.unparse(node.args)
            lines.append(f"def {node.name}({args}):")
            lines.append(f"    ...  {STUB_COMMENT}")
            lines.append("")
            continue
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        for target in _flatten(targets):
            text = ast.unparse(target)
            if text not in seen:
                seen.add(text)
                lines.append(f"{text} = ...  {STUB_COMMENT}")
    while lines and not lines[-1]:
        lines.pop()
    return lines or [f"...  {STUB_COMMENT}"]


def _flatten(targets: list[ast.expr]) -> list[ast.expr]:
    """`(a, b) = ...` would fail to unpack `...`: stub each name of a tuple target on its own."""
    flat: list[ast.expr] = []
    for target in targets:
        if isinstance(target, ast.Tuple | ast.List):
            flat.extend(_flatten(list(target.elts)))
        elif isinstance(target, ast.Starred):
            flat.extend(_flatten([target.value]))
        else:
            flat.append(target)
    return flat


def strip_solutions(source: str) -> str:
    """Replace every marked solution block in a cell's source by its stub."""
    out: list[str] = []
    block: list[str] | None = None
    indent = ""
    for line in source.splitlines():
        stripped = line.strip()
        if stripped == BEGIN:
            if block is not None:
                raise MarkerError(f"nested {BEGIN}")
            block, indent = [], line[: len(line) - len(line.lstrip())]
        elif stripped == END:
            if block is None:
                raise MarkerError(f"{END} without {BEGIN}")
            # an indented block is a body (of a function, a loop) the learner writes whole:
            # its local names are the learner's choice, so only top-level blocks keep targets
            stub = _stub_for("\n".join(block)) if not indent else [f"...  {STUB_COMMENT}"]
            out.extend(indent + s if s else "" for s in stub)
            block = None
        elif block is not None:
            block.append(line)
        else:
            out.append(line)
    if block is not None:
        raise MarkerError(f"{BEGIN} without {END}")
    return "\n".join(out)


def student_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `nb` with solutions stubbed, outputs and widget state removed, and the kernel
    metadata JupyterLab writes when it opens it (so opening it changes nothing)."""
    nb = nbformat.from_dict(nb)  # deep copy
    nb.metadata.pop("widgets", None)
    normalise(nb, with_language_info=True)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs, cell.execution_count = [], None
        cell.metadata.pop("execution", None)
        tags = cell.metadata.get("tags", [])
        if "solution" in tags:
            if BEGIN not in cell.source or END not in cell.source:
                raise MarkerError("a `solution` cell lacks its BEGIN/END SOLUTION markers")
            cell.source = strip_solutions(cell.source)
        elif BEGIN in cell.source:
            raise MarkerError("solution markers in a cell not tagged `solution`")
    return nb


def course_notebooks(src: Path) -> list[Path]:
    """The notebooks a learner gets: the lessons, then the explorer demo and the next steps."""
    return sorted(src.glob(LESSON_GLOB)) + [src / n for n in COMPANIONS if (src / n).exists()]


def write_solutions(labkit: Path, src: Path) -> Path | None:
    """Store the solutions of `src`'s lessons (and of `src/zh`'s) in the copied `labkit`, for
    `solution()`. Nothing for the Chinese shim (`notebooks/zh/labkit`): the labkit it loads has
    them."""
    if not (src / "labkit" / "hints.py").exists():
        return None
    try:
        import labkit.solutions as solutions
    except ImportError:
        sys.path.insert(0, str(src))
        import labkit.solutions as solutions
    return solutions.write(labkit, src)


def copy_labkit(src: Path, out: Path) -> None:
    """`src/labkit` to `out/labkit` (the course's code: always replaced), with the solutions."""
    labkit = out / "labkit"
    if labkit.exists():
        shutil.rmtree(labkit)
    shutil.copytree(src / "labkit", labkit, ignore=shutil.ignore_patterns("__pycache__"))
    write_solutions(labkit, src)


def write_student_copies(out: Path, src: Path = NB_DIR) -> list[Path]:
    """Copy every lesson and companion notebook (and the labkit package the checks need) into
    `out`."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in course_notebooks(src):
        try:
            nb = student_notebook(nbformat.read(path, as_version=4))
        except MarkerError as err:
            raise MarkerError(f"{path.name}: {err}") from None
        target = out / path.name
        nbformat.write(nb, target)
        written.append(target)
    copy_labkit(src, out)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "student")
    parser.add_argument("--src", type=Path, default=NB_DIR)
    args = parser.parse_args(argv)
    written = write_student_copies(args.out, args.src)
    print(f"wrote {len(written)} student notebooks to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
