"""The ground floor stays the ground floor: ``touchstone/stats`` imports nothing of
touchstone outside itself (imports inside functions counted, ``TYPE_CHECKING`` ones too),
so every part above may use it and none can pull it into a circle. The store, one floor up,
owns the file formats and knows no feature: it imports the ground floor and itself only."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "touchstone"
STATS = PACKAGE / "stats"
STORE = PACKAGE / "store"
# What the store may import besides itself (``from touchstone import __version__`` too).
GROUND_FLOOR = (
    "errors",
    "german",
    "limits",
    "regular",
    "jsontext",
    "yamlfile",
    "plain",
    "results",
    "pack",
    "stats",
    "bundled",
)
FEATURES = ("judge", "quality", "stages", "scorecard", "report", "export", "versus", "gui", "cli")
# store/rundir.py still computes a jury's cell verdicts (jury.verdicts, jury.aggregate); that
# moves one floor up with the jury's own change (h-data, issue 34): exempt until it lands.
JURY_EXEMPT = ("touchstone.jury",)


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "touchstone" and node.level == 0:
            # ``from touchstone import jsontext``: the module named; ``__version__``: the root.
            names.update(
                f"touchstone.{alias.name}"
                if (PACKAGE / f"{alias.name}.py").exists() or (PACKAGE / alias.name).is_dir()
                else "touchstone"
                for alias in node.names
            )
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_statistics_import_nothing_of_touchstone_but_themselves() -> None:
    modules = sorted(STATS.glob("*.py"))
    assert len(modules) >= 7
    outside = {
        f"{path.name}: {name}"
        for path in modules
        for name in _imported(path)
        if name.split(".")[0] == "touchstone" and not name.startswith("touchstone.stats")
    }
    assert not outside, sorted(outside)


def _store_imports() -> set[tuple[str, str]]:
    modules = sorted(STORE.glob("*.py"))
    assert len(modules) >= 9
    return {
        (path.name, name)
        for path in modules
        for name in _imported(path)
        if name.split(".")[0] == "touchstone" and not name.startswith(JURY_EXEMPT)
    }


def test_the_store_imports_no_feature() -> None:
    features = {
        f"{module}: {name}"
        for module, name in _store_imports()
        if name.split(".")[1:2] and name.split(".")[1] in FEATURES
    }
    assert not features, sorted(features)


def test_the_store_imports_the_ground_floor_and_itself_only() -> None:
    allowed = ("touchstone.store", *(f"touchstone.{part}" for part in GROUND_FLOOR))
    above = {
        f"{module}: {name}"
        for module, name in _store_imports()
        if name != "touchstone"
        and not any(name == part or name.startswith(part + ".") for part in allowed)
    }
    assert not above, sorted(above)
