"""touchstone starts on Linux, macOS and Windows, and declares every package it imports."""

import ast
import importlib.metadata
import sys
import tomllib
from collections.abc import Iterable, Iterator

from tests.conftest import REPO

# Modules that exist on POSIX only: an import of one at module level breaks Windows.
POSIX_ONLY = ("fcntl", "resource", "termios", "pwd", "grp", "tty", "pty", "syslog", "crypt")


def _top_level_names(nodes: Iterable[ast.AST]) -> set[str]:
    """The top-level module names that the absolute imports among ``nodes`` import."""
    names = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _module_level_nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """The nodes run when the module loads (not those inside functions)."""
    for node in tree.body:
        for inner in ast.walk(node):
            if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                break
            yield inner


def _module_level_imports(tree: ast.Module) -> set[str]:
    """Top-level module names imported when the module loads (not inside functions)."""
    return _top_level_names(_module_level_nodes(tree))


def test_no_posix_only_module_is_imported_at_module_level() -> None:
    offenders = {}
    for path in sorted((REPO / "touchstone").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = _module_level_imports(tree) & set(POSIX_ONLY)
        if found:
            offenders[str(path.relative_to(REPO))] = sorted(found)
    assert not offenders, offenders


def _imported_top_level_names() -> set[str]:
    trees = (ast.parse(p.read_text(encoding="utf-8")) for p in (REPO / "touchstone").rglob("*.py"))
    return _top_level_names(node for tree in trees for node in ast.walk(tree))


def test_every_imported_package_is_a_declared_dependency() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {
        requirement.split(">")[0].split("=")[0].split("[")[0].strip().lower()
        for requirement in project["dependencies"]
    }
    distributions = importlib.metadata.packages_distributions()
    third_party = {
        name
        for name in _imported_top_level_names()
        if name not in sys.stdlib_module_names and name != "touchstone"
    }
    undeclared = {
        name: distributions.get(name)
        for name in third_party
        if not {d.lower() for d in distributions.get(name, [name])} & declared
    }
    assert not undeclared, undeclared


def test_the_ci_install_is_byte_compiled_once() -> None:
    # With PYTHONDONTWRITEBYTECODE set (as on many CI machines) an install that is not compiled
    # makes every CLI start compile the openai SDK from source again. Compiled at install, not
    # by [tool.uv] compile-bytecode, which compiles everything again on every `uv run`
    # (tests/cli/test_uv_start.py).
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "compile-bytecode" not in pyproject.get("tool", {}).get("uv", {})
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "uv sync --frozen --compile-bytecode\n" in ci
