"""Opening only regular files (design.md §15).

A run dir is shared between people, so anything in it may be a FIFO or a device in place of
a file: opening a FIFO blocks until someone writes to it (for ever), reading ``/dev/zero``
never ends. Every file touchstone reads from a run dir, and every pack and config, is opened
here; anything but a regular file is bad input naming it.

A module of its own, outside ``store``: ``yamlfile`` needs it, and ``store`` needs
``yamlfile``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO, Literal

from touchstone.errors import InputError

# How each mode opens: read; read and write in place; append (created if missing). Appending
# opens read-write too: a write-only open of a FIFO without a reader fails (ENXIO) instead of
# being recognised, and a read-write one never blocks.
_OPEN_FLAGS = {
    "rb": os.O_RDONLY,
    "r+b": os.O_RDWR,
    "ab": os.O_RDWR | os.O_APPEND | os.O_CREAT,
}
# Where they exist (POSIX): a FIFO opens at once instead of waiting for a writer; Windows
# has neither FIFOs in the file system nor the flag, and needs O_BINARY instead.
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)
# A symbolic link as the last part of the name is not opened (POSIX: the open fails with
# ELOOP); where the flag does not exist (Windows) the name is checked before opening.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_KINDS = (
    (stat.S_ISDIR, "ein Verzeichnis"),
    (stat.S_ISFIFO, "eine FIFO (benannte Pipe)"),
    (stat.S_ISCHR, "ein Gerät"),
    (stat.S_ISBLK, "ein Gerät"),
    (stat.S_ISSOCK, "ein Socket"),
)


def not_regular(path: Path, mode: int) -> InputError:
    """The error for ``path``, which is something else than a regular file."""
    kind = next((word for test, word in _KINDS if test(mode)), "etwas anderes")
    return InputError(
        f"{path} ist keine reguläre Datei, sondern {kind}; touchstone liest sie nicht. "
        "Ersetzen Sie sie durch die richtige Datei oder entfernen Sie sie."
    )


def linked(path: Path) -> InputError:
    """The error for ``path``, a symbolic link where touchstone follows none."""
    return InputError(
        f"{path} ist ein symbolischer Link; in einem Run-Verzeichnis folgt touchstone keinen "
        "Links (er könnte auf jede Datei des Rechners zeigen, auch zum Schreiben). Ersetzen "
        "Sie ihn durch die Datei selbst."
    )


def open_regular(
    path: Path, mode: Literal["rb", "r+b", "ab"] = "rb", *, follow_links: bool = False
) -> BinaryIO:
    """``path`` opened in ``mode`` if it is a regular file; else an ``InputError`` naming it.

    The check is made on the opened descriptor (``fstat``), not on the name before opening:
    nobody can swap a FIFO in between. Missing files raise ``FileNotFoundError`` as usual.
    A symbolic link is not followed unless ``follow_links`` (packs and configs a user named):
    in a run dir someone shared, ``judgements.jsonl`` could point anywhere, and an append
    through a dangling link would create that file.
    """
    flags = _OPEN_FLAGS[mode] | _NONBLOCK | _BINARY
    if not follow_links:
        if not _NOFOLLOW and os.path.islink(path):
            raise linked(path)
        flags |= _NOFOLLOW
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if not follow_links and os.path.islink(path):
            raise linked(path) from exc
        raise
    try:
        file_mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(file_mode):
            raise not_regular(path, file_mode)
        if _NONBLOCK:
            os.set_blocking(fd, True)  # a regular file ignores it; clear it all the same
        handle: BinaryIO = os.fdopen(fd, mode, buffering=0 if mode == "ab" else -1)
    except BaseException:
        os.close(fd)
        raise
    return handle


def read_regular(path: Path, *, follow_links: bool = False, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (see ``open_regular``); with ``limit``, at most
    that many: a file of gigabytes in a shared dir is read no further."""
    with open_regular(path, follow_links=follow_links) as handle:
        return handle.read(-1 if limit is None else limit)


def read_regular_text(path: Path, errors: str = "strict") -> str:
    """The UTF-8 text of the regular file ``path`` (see ``open_regular``)."""
    return read_regular(path).decode("utf-8", errors)
