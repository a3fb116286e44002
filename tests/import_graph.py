"""minigrad's import graph, counted the way Python runs imports.

Every `import` statement counts, wherever it stands (module level or inside a function), except
under `if TYPE_CHECKING:`. Importing `a.b.c` also runs the `__init__` of `a.b` (and of `a`, but
the top-level package is left out: everything inside it runs under it). `from pkg import name`
is an import of the submodule `pkg.name` when that file exists, else of `pkg` itself.

Run as a script to print the graph, its circles and the function-local imports:
`python tests/import_graph.py [package_dir]`.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class LocalImport:
    """An import inside a function, with the comment that says why it is there."""

    module: str
    line: int
    target: str
    reason: str


def module_files(package_dir: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file in the package."""
    base = package_dir.parent
    found = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_package(name: str, files: dict[str, Path]) -> bool:
    return name in files and files[name].name == "__init__.py"


def _resolve(module: str, files: dict[str, Path], level: int, target: str | None) -> str:
    """The absolute name a (possibly relative) import refers to."""
    if level == 0:
        return target or ""
    parts = module.split(".")
    here = parts if _is_package(module, files) else parts[:-1]
    anchor = here[: len(here) - (level - 1)]
    return ".".join(anchor + ([target] if target else []))


def _with_parents(name: str, importer: str, files: dict[str, Path]) -> list[str]:
    """`name` and every package `__init__` that importing it runs. The importer's own packages
    (the top one among them) have run before it, so they add no arrow."""
    parts = name.split(".")
    chain = [".".join(parts[:i]) for i in range(2, len(parts) + 1)]
    own = importer.split(".")
    ancestors = {".".join(own[:i]) for i in range(1, len(own))}
    return [m for m in chain if m in files and m not in ancestors and m != importer]


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in ast.walk(node):
                if hasattr(inner, "lineno"):
                    lines.add(inner.lineno)
    return lines


def _function_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for inner in ast.walk(node):
                if hasattr(inner, "lineno") and inner is not node:
                    lines.add(inner.lineno)
    return lines


def imports_of(module: str, files: dict[str, Path], top: str) -> list[tuple[int, str, bool]]:
    """(line, imported module, inside a function) for each import `module` makes."""
    source = files[module].read_text()
    tree = ast.parse(source)
    skip, local = _type_checking_lines(tree), _function_lines(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno in skip:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = _resolve(module, files, node.level, node.module)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                names.append(sub if sub in files else base)
        for name in names:
            if name == top or name.startswith(top + "."):
                for target in _with_parents(name, module, files):
                    found.append((node.lineno, target, node.lineno in local))
            elif node.lineno in local:  # a third-party import kept lazy (numba)
                found.append((node.lineno, name, True))
    return found


def build(package_dir: Path) -> tuple[dict[str, set[str]], list[LocalImport]]:
    """The graph (module -> modules it imports, inside the package) and the local imports."""
    files = module_files(package_dir)
    top = package_dir.name
    graph: dict[str, set[str]] = {m: set() for m in files}
    local: dict[tuple[str, int], LocalImport] = {}
    for module in files:
        lines = files[module].read_text().splitlines()
        for line, target, inside in imports_of(module, files, top):
            if target in files:
                graph[module].add(target)
            known = local.get((module, line))
            if inside and (known is None or len(target) > len(known.target)):
                text = lines[line - 1]
                reason = text.split("#", 1)[1].strip() if "#" in text else ""
                local[module, line] = LocalImport(module, line, target, reason)
    return graph, sorted(local.values(), key=lambda i: (i.module, i.line))


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def main(argv: list[str]) -> None:
    package = Path(argv[1]) if len(argv) > 1 else ROOT / "minigrad"
    graph, local = build(package.resolve())
    for module in sorted(graph):
        print(f"{module} -> {', '.join(sorted(graph[module])) or '-'}")
    found = circles(graph)
    print(f"\n{len(found)} circle(s)")
    for component in found:
        print(f"  {len(component)} modules: {', '.join(component)}")
    print(f"\n{len(local)} function-local import(s)")
    for item in local:
        print(f"  {item.module}:{item.line} -> {item.target}  # {item.reason or '(no reason)'}")


if __name__ == "__main__":
    main(sys.argv)
