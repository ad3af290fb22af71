"""The house rules of docs/architecture.md, checked on the source (issue 47): no import cycles, no module reaching
into another's private names, few long functions, no long modules.

Read from the syntax tree, so every import counts, including the ones inside functions that once held cycles
together; only `if TYPE_CHECKING:` imports are left out (they never run).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import ROOT

PACKAGE = ROOT / "anonymizer"

#: A function this long no longer fits on a screen; a few may stay while they read as one table or one pass.
LONG_FUNCTION_LINES = 80
MAX_LONG_FUNCTIONS = 5
LONG_MODULE_LINES = 800
#: Modules that are data tables (word lists, gazetteer rows), where length is content, not logic.
DATA_TABLES: frozenset[str] = frozenset()

# Ratchets (issue 47): what the house still has. A new entry fails its test, and so does one that was fixed but
# is still listed; test_the_goals_hold keeps the goals (no cycle, no private crossing, no long module, at most
# MAX_LONG_FUNCTIONS long functions) reached.
#: Import cycles, each as its modules (under anonymizer.).
KNOWN_CYCLES: frozenset[str] = frozenset()
#: A module using another module's private name.
KNOWN_PRIVATE_CROSSINGS: frozenset[str] = frozenset()
#: Functions over LONG_FUNCTION_LINES lines.
KNOWN_LONG_FUNCTIONS: frozenset[str] = frozenset(
    {
        "anonymizer/location/protection.py evaluate_protection",
    }
)
#: Modules over LONG_MODULE_LINES lines that are not data tables.
KNOWN_LONG_MODULES: frozenset[str] = frozenset()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, tuple[Path, ast.Module]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        found[_module_name(path)] = (path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return found


SOURCES = _sources()


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node except those under `if TYPE_CHECKING:`."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _base(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def _imports(module: str) -> Iterator[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for every runtime import of an `anonymizer` module."""
    path, tree = SOURCES[module]
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in SOURCES:
                    yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, path, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in SOURCES:
                    yield f"{base}.{alias.name}", None, node.lineno
                elif base in SOURCES:
                    yield base, alias.name, node.lineno


def _graph() -> dict[str, set[str]]:
    return {module: {target for target, _, _ in _imports(module) if target != module} for module in SOURCES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def _package_reexports(graph: dict[str, set[str]], component: list[str]) -> bool:
    """A package's `__init__` importing its own submodules (to re-export them) and a submodule importing a sibling
    through the package is not a cycle a reader has to untangle: skip components held only by such edges."""
    members = set(component)
    for module in component:
        for target in graph[module] & members:
            if not (target.startswith(module + ".") or module.startswith(target + ".")):
                return False
    return True


def _found_cycles() -> set[str]:
    graph = _graph()
    return {
        " <-> ".join(m.removeprefix("anonymizer.") for m in c)
        for c in _cycles(graph)
        if not _package_reexports(graph, c)
    }


def _compare(found: set, known: set, what: str, fix: str) -> None:
    """Found must equal known: a new entry is a regression, a vanished one must leave the list (a ratchet)."""
    new = sorted(map(str, found - known))
    fixed = sorted(map(str, known - found))
    assert not new and not fixed, (f"new {what} ({fix}):\n  " + "\n  ".join(new) + "\n" if new else "") + (
        f"{what} no longer found: remove them from the list in tests/test_house.py:\n  " + "\n  ".join(fixed)
        if fixed
        else ""
    )


def test_no_import_cycles():
    _compare(_found_cycles(), KNOWN_CYCLES, "import cycles", "move the shared part below both modules")


def _module_aliases(module: str) -> dict[str, str]:
    """Local names bound to `anonymizer` modules by imports in `module` (`from . import runner` -> runner)."""
    path, tree = SOURCES[module]
    aliases = {}
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in SOURCES and alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, path, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in SOURCES:
                    aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
    return aliases


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_crossings() -> set[str]:
    crossings = set()
    for module, (path, tree) in SOURCES.items():
        where = path.relative_to(ROOT)
        for target, name, _ in _imports(module):
            if name and _private(name):
                crossings.add(f"{where} imports {target}.{name}")
        aliases = _module_aliases(module)
        for node in _runtime_nodes(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _private(node.attr)
            ):
                crossings.add(f"{where} uses {aliases[node.value.id]}.{node.attr}")
    return crossings


def test_no_module_uses_another_modules_private_names():
    _compare(
        _private_crossings(),
        KNOWN_PRIVATE_CROSSINGS,
        "private names used across modules",
        "make the name public, or move it to where it is used",
    )


def _long_functions() -> dict[str, int]:
    found = {}
    for path, tree in SOURCES.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > LONG_FUNCTION_LINES:
                    found[f"{path.relative_to(ROOT)} {node.name}"] = lines
    return found


def test_few_long_functions():
    found = _long_functions()
    _compare(
        set(found),
        KNOWN_LONG_FUNCTIONS,
        f"functions over {LONG_FUNCTION_LINES} lines",
        "split it into steps with names",
    )


def _long_modules() -> set[str]:
    return {
        str(path.relative_to(ROOT))
        for module, (path, _) in SOURCES.items()
        if module not in DATA_TABLES and len(path.read_text(encoding="utf-8").splitlines()) > LONG_MODULE_LINES
    }


def test_no_long_modules():
    _compare(
        _long_modules(),
        KNOWN_LONG_MODULES,
        f"modules over {LONG_MODULE_LINES} lines",
        "split it by what each part does",
    )


def test_the_checks_see_what_they_check():
    """The checks above would pass on an empty tree; make sure they read the real one."""
    assert len(SOURCES) > 150
    graph = _graph()
    assert "anonymizer.location.model" in graph["anonymizer.location.deidentify"] or any(
        "anonymizer.location" in target for target in graph["anonymizer.location.deidentify"]
    )
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_goals_hold():
    assert not KNOWN_CYCLES and not KNOWN_PRIVATE_CROSSINGS and not KNOWN_LONG_MODULES
    assert len(KNOWN_LONG_FUNCTIONS) <= MAX_LONG_FUNCTIONS
