"""Atomic file writes: readers see the old file or the new one, never half of one; and the
one check that a path named by someone else stays inside a directory.

A rewrite keeps the mode of the file it replaces; a new file gets ``0666 & ~umask`` like any
file a program creates (a temp file alone would be 0600, unreadable for a shared report
directory). Reading is ``touchstone.regular``'s.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO


def _read_umask() -> int:
    # The only portable way to read the umask is to set it; done once, at import, before any
    # thread could create a file in between.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~_UMASK


def atomic_write(path: Path, write: Callable[[IO[str]], object]) -> None:
    """Let ``write`` fill a temp file beside ``path``, then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.filename is None:  # a failed write names no file: name the one we write
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda handle: handle.write(text))


def save_json_noting(path: Path, data: object, notes: list[str], what: str, then: str) -> None:
    """``data`` as indented JSON at ``path`` (its folders made); a file that cannot be
    written costs the note "``what`` nicht gespeichert (path: error); ``then``", never the
    caller (a cache dir the user cannot write)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    except OSError as exc:
        notes.append(f"{what} nicht gespeichert ({path}: {exc}); {then}")


def resolve_inside(base: Path, name: str | Path) -> Path | None:
    """``name`` (relative to ``base``, or absolute) with every symlink resolved, if that lies
    inside ``base``; else None. ``base`` must be resolved already."""
    try:
        path = (base / name).resolve()
    except (OSError, ValueError, RuntimeError):  # a NUL byte, a symlink loop
        return None
    return path if path.is_relative_to(base) else None
