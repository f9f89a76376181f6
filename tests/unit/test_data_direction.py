"""Data goes one way (issue 34): the store reads and writes what is on disk and computes no
feature's view of it (a jury's cells are made in ``jury/``). Imports inside functions count;
those under ``TYPE_CHECKING`` do not (they name a type, they load nothing)."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "touchstone"
# The parts that build on the run dir's data: the store must not reach up into any of them.
FEATURES = (
    "judge",
    "jury",
    "quality",
    "stages",
    "scorecard",
    "report",
    "export",
    "versus",
    "packs",
    "gui",
    "cli",
)


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.iter_child_nodes(tree):
        if _type_checking(node):
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        names |= _imports(node)
    return names


def reached(part: str, above: tuple[str, ...]) -> list[str]:
    """Every import of ``touchstone/<part>`` into one of the parts ``above``."""
    found = []
    for path in sorted((PACKAGE / part).glob("*.py")):
        for name in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            parts = name.split(".")
            if parts[0] == "touchstone" and len(parts) > 1 and parts[1] in above:
                if parts[1] == part:
                    continue
                found.append(f"{path.name}: {name}")
    return sorted(found)


def test_the_helper_sees_imports_inside_functions_and_skips_type_checking() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from touchstone.jury import x\n"
        "def f():\n    from touchstone.quality import y\n"
    )
    assert _imports(tree) == {"typing", "touchstone.quality"}


@pytest.mark.parametrize("part", ["store"])
def test_a_lower_part_imports_nothing_that_builds_on_it(part: str) -> None:
    assert reached(part, FEATURES) == []


def test_the_judge_reaches_up_into_no_feature_that_builds_on_it() -> None:
    """One judge's calls and verdicts are below judge quality, the jury and the stages."""
    assert reached("judge", tuple(p for p in FEATURES if p not in ("judge", "packs"))) == []
