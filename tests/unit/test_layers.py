"""The folders are the pipeline, and the code's imports say so: every top-level part of
``touchstone/`` imports only parts below it in ``FLOORS`` (imports inside functions counted;
those under ``TYPE_CHECKING`` only name types and are left out), so no two parts import each
other and nothing reaches back up. A new part joins ``FLOORS`` where it belongs; an import
that fails here means the code moved to the wrong floor, not that the list needs reordering.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "touchstone"

# Bottom to top. Each line is one part: a module (``errors``) or a package (``store``).
FLOORS = [
    # the ground floor: records, words, limits, safe reading; no feature
    "__init__",
    "german",
    "errors",
    "limits",
    "regular",
    "jsontext",
    "urls",
    "validation_words",
    "yamlfile",
    "plain",
    "started",
    "results",
    "pack",
    "bundled",
    "advice",
    "stats",
    # persistence: every on-disk format
    "store",
    # the call: deadline, streaming, concurrency, money
    "transport",
    "events",
    "sim",
    # judging
    "answers",
    "judge",
    "quality",
    "spot",
    "jury",
    # reading the verdicts
    "packs",
    "scorecard",
    "report",
    "export",
    # the application: one sub-folder per step
    "stages",
    "versus",
    # the faces
    "demo",
    "gui",
    "cli",
    "__main__",
]


def _part(module: str) -> str:
    """The top-level part a module belongs to; a name of the package itself (``__version__``)
    is the package's ``__init__``."""
    name = module.split(".")[1]
    if (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").exists():
        return name
    return "__init__"


def _typing_only(tree: ast.Module) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for inner in ast.walk(node))
    return skipped


def _imports(path: Path) -> set[str]:
    """The touchstone modules a file imports, ``from touchstone import x`` as ``touchstone.x``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _typing_only(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "touchstone":
                found.update(f"touchstone.{alias.name}" for alias in node.names)
            else:
                found.add(node.module)
    return {name for name in found if name.split(".")[0] == "touchstone" and "." in name}


@functools.cache  # four tests read the same imports: parse the package once
def _edges() -> dict[tuple[str, str], set[str]]:
    edges: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        here = rel.parts[0].removesuffix(".py")
        for module in _imports(path):
            there = _part(module)
            if there != here:
                edges[here, there].add(str(rel))
    return edges


def test_every_part_has_its_floor() -> None:
    parts = {
        p.name.removesuffix(".py")
        for p in PACKAGE.iterdir()
        if p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists())
    }
    assert parts <= set(FLOORS), sorted(parts - set(FLOORS))
    assert len(FLOORS) == len(set(FLOORS))


def test_parts_import_only_downwards() -> None:
    floor = {part: number for number, part in enumerate(FLOORS)}
    upward = sorted(
        f"{here} -> {there} ({', '.join(sorted(files))})"
        for (here, there), files in _edges().items()
        if floor[there] >= floor[here]
    )
    assert not upward, "\n".join(upward)


def test_the_statistics_import_nothing_of_touchstone_but_themselves() -> None:
    outside = {there for (here, there) in _edges() if here == "stats"}
    assert not outside, sorted(outside)


def test_the_store_knows_no_feature() -> None:
    ground = set(FLOORS[: FLOORS.index("store")])
    outside = {there for (here, there) in _edges() if here == "store"} - ground
    assert not outside, sorted(outside)


def test_no_file_name_is_used_more_than_twice() -> None:
    places: dict[str, list[str]] = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            places[path.name].append(str(path.relative_to(PACKAGE)))
    crowded = {name: where for name, where in places.items() if len(where) > 2}
    assert not crowded, crowded


def test_the_reader_sees_imports_inside_functions_and_skips_type_checking(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from touchstone.jury import x\n"
        "def f():\n    from touchstone.quality import y\n    import touchstone.store.jsonl\n"
        "from touchstone import report\n",
        encoding="utf-8",
    )
    assert _imports(module) == {"touchstone.quality", "touchstone.store.jsonl", "touchstone.report"}
    assert len(_edges()) > len(FLOORS)  # the package is read, not an empty folder
