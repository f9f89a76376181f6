"""The packs shipped with touchstone: in the wheel (``touchstone/_packs``), or in the
repository checkout (``packs/``). Their content is touchstone's own and public, so the GUI
reads one a run names wherever the GUI was started (the demo's run names one)."""

from __future__ import annotations

from pathlib import Path

import touchstone
from touchstone.errors import InputError


def _places(name: str) -> tuple[Path, Path]:
    package = Path(touchstone.__file__).resolve().parent
    return package / "_packs" / f"{name}.yaml", package.parent / "packs" / f"{name}.yaml"


def bundled_pack(name: str) -> Path:
    """A pack shipped with touchstone: in the wheel, or in the repository checkout."""
    for candidate in _places(name):
        if candidate.is_file():
            return candidate
    raise InputError(f"Das mitgelieferte Paket „{name}“ wurde nicht gefunden.")


def is_bundled(path: Path) -> bool:
    """Whether ``path`` (resolved) is a pack shipped with touchstone."""
    return path.suffix == ".yaml" and path in _places(path.stem) and path.is_file()
