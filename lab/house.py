"""The house's measurements (issue 40): file tree with line counts, long functions, long CLI command
bodies, duplicates and the import graph's circles. Run from the repository root:

    python lab/house.py > house.txt

Needs grimp (import-linter brings it) and the `duplicates` tool on PATH for those two sections.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "paperplay"
LONG_FUNCTION = 80
LONG_COMMAND = 60


def tree() -> list[str]:
    """Every module of the package with its line count, folder by folder."""
    lines = []
    total = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        count = len(path.read_text(encoding="utf-8").splitlines())
        total += count
        lines.append(f"{count:6d}  {path.relative_to(ROOT)}")
    lines.append(f"{total:6d}  total ({len(lines)} modules)")
    return lines


def _body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function's body: from its first statement after the docstring to its end."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str) and len(body) > 1:
        body = body[1:]
    return (body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1


def _functions(path: Path) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    tree_ = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree_, "")
    return found


def long_functions(limit: int = LONG_FUNCTION) -> list[str]:
    """Function bodies (docstring aside) over `limit` lines."""
    rows = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for name, node in _functions(path):
            n = _body_lines(node)
            if n > limit:
                rows.append(f"{n:5d}  {path.relative_to(ROOT)}:{node.lineno} {name}")
    return rows or ["(none)"]


def _command_names() -> set[str]:
    """The CLI's commands: the keys of cli/common.SHORT_HELP (each command's line in --help)."""
    tree_ = ast.parse((PACKAGE / "cli" / "common.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree_):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SHORT_HELP"
                                                for t in node.targets) and isinstance(node.value, ast.Dict):
            return {k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return set()


def long_commands(limit: int = LONG_COMMAND) -> list[str]:
    """CLI command bodies (options and help, i.e. signature and docstring, aside) over `limit` lines,
    and cli/app.main."""
    names = _command_names()
    rows = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        for name, node in _functions(path):
            if name in names or (path.name == "app.py" and name == "main"):
                rows.append((_body_lines(node), f"{path.relative_to(ROOT)}:{node.lineno} {name}"))
    rows.sort(reverse=True)
    over = [f"{n:5d}  {where}" for n, where in rows if n > limit]
    rest = ", ".join(f"{where.rsplit(' ', 1)[1]} {n}" for n, where in rows if n <= limit)
    return (over or ["(none)"]) + [f"  (the others: {rest})"]


def duplicates() -> list[str]:
    tool = shutil.which("duplicates")
    if tool is None:
        return ["(the duplicates tool is not on PATH)"]
    run = subprocess.run([tool, "--repo", "paperplay", "--most", "40"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    return run.stdout.splitlines()


def circles() -> list[str]:
    """Import circles between modules of the package (pairs importing each other, directly or not)."""
    try:
        import grimp
    except ImportError:
        return ["(grimp is not installed: pip install import-linter)"]
    sys.path.insert(0, str(ROOT))
    graph = grimp.build_graph("paperplay", cache_dir=None)
    modules = sorted(graph.modules)
    rows = []
    seen: set[frozenset[str]] = set()
    for a in modules:
        for b in graph.find_modules_directly_imported_by(a):
            if b == a or frozenset((a, b)) in seen:
                continue
            if graph.chain_exists(importer=b, imported=a):
                seen.add(frozenset((a, b)))
                chain = graph.find_shortest_chain(importer=b, imported=a) or ()
                rows.append(f"{a} -> {b} -> ... -> {a}   (back: {' -> '.join(chain)})")
    return rows or ["(no circles)"]


def main() -> None:
    for title, section in [
        ("File tree (lines)", tree),
        (f"Function bodies over {LONG_FUNCTION} lines", long_functions),
        (f"CLI command bodies over {LONG_COMMAND} lines", long_commands),
        ("duplicates --repo paperplay --most 40", duplicates),
        ("Import circles", circles),
    ]:
        print(f"## {title}")
        for line in section():
            print(line)
        print()


if __name__ == "__main__":
    main()
