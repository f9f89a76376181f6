"""The ground floor stays the ground floor: ``touchstone/stats`` imports nothing of
touchstone outside itself (imports inside functions counted, ``TYPE_CHECKING`` ones too),
so every part above may use it and none can pull it into a circle."""

import ast
from pathlib import Path

STATS = Path(__file__).resolve().parents[2] / "touchstone" / "stats"


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
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
