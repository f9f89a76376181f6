"""A run directory as a whole: its note, archiving, restoring and deleting it (design.md §4).

    runs/<name>/note.txt        the user's note on the run (UTF-8 text, at most MAX_NOTE chars)
    runs/.archiv/<name>/        an archived run: listed apart, restorable, never compared

Each step that moves or removes a run dir holds its lock (``RunDir.locked``), so no ``run``
or ``judge`` is working in it: a run dir in use is bad input (``InputError``, named).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from touchstone.errors import InputError
from touchstone.regular import open_regular
from touchstone.store.files import atomic_write_text
from touchstone.store.rundir import RunDir

NOTE = "note.txt"
MAX_NOTE = 2000
ARCHIVE = ".archiv"


def read_note(run_dir: Path) -> str:
    """The run's note; "" without one."""
    path = run_dir / NOTE
    if not path.exists():
        return ""
    try:
        # At most what a note may hold (4 bytes a character): a note.txt of gigabytes in a
        # shared run dir is read no further.
        with open_regular(path) as handle:
            head = handle.read(MAX_NOTE * 4)
        return head.decode("utf-8", "ignore")[:MAX_NOTE]
    except OSError as exc:
        raise InputError(f"Notiz {path} ist unlesbar: {exc}") from exc


def write_note(run_dir: Path, text: str) -> None:
    """Keep ``text`` as the run's note (an empty one removes it)."""
    if len(text) > MAX_NOTE:
        raise InputError(f"Die Notiz ist zu lang: höchstens {MAX_NOTE} Zeichen.")
    path = run_dir / NOTE
    if text.strip():
        atomic_write_text(path, text)
    else:
        path.unlink(missing_ok=True)


def archived(runs_dir: Path) -> list[str]:
    """The names of the archived runs, by name."""
    shelf = runs_dir / ARCHIVE
    if not shelf.is_dir():
        return []
    return sorted(p.name for p in shelf.iterdir() if p.is_dir() and not p.is_symlink())


def _move(source: Path, target: Path) -> None:
    if target.exists():
        raise InputError(f"{target} gibt es schon: erst umbenennen oder löschen.")
    target.parent.mkdir(parents=True, exist_ok=True)
    with RunDir(source).locked():
        source.rename(target)


def archive(runs_dir: Path, name: str) -> None:
    """Move run ``name`` under ``runs_dir/.archiv/``."""
    _move(runs_dir / name, runs_dir / ARCHIVE / name)


def restore(runs_dir: Path, name: str) -> None:
    """Move the archived run ``name`` back into ``runs_dir``."""
    _move(runs_dir / ARCHIVE / name, runs_dir / name)


def delete(run_dir: Path) -> None:
    """Remove the run dir and everything in it (links inside are removed, never followed)."""
    with RunDir(run_dir).locked():
        try:
            shutil.rmtree(run_dir)
        except OSError as exc:
            raise InputError(f"{run_dir} ließ sich nicht löschen: {exc}") from exc
