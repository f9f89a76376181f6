"""What a run's input files hold, in a few bytes: the key of every view built from them.

The settled state (``store/settled.py``) and the GUI's run cache (``gui/cache.py``) keep a
view of a run while its input files keep their stamps. A stamp is a file's length and the
SHA-256 of its bytes, never its times: a same-size edit within a filesystem's timestamp
granularity (2 s on FAT/exFAT, 1 s on HFS+), a restore from a backup or a tool that keeps
the modification time leave size, mtime and inode as they were, and the old view would be
shown for the new content.

Hashing reads every byte, but in C and in large chunks: the ~110 MB of a 100 000-cell run
take about a tenth of a second (SHA-256 runs at GB/s where the CPU has SHA extensions,
which the parse that a stamp saves never does).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from touchstone.errors import InputError
from touchstone.regular import open_regular
from touchstone.store.manifest import MANIFEST
from touchstone.store.rundir import JUDGEMENTS, REPORTS, RESPONSES

# The files every view of a run is built from: while they keep their stamps, so does it.
INPUTS = (MANIFEST, RESPONSES, JUDGEMENTS, REPORTS)
Stamp = tuple[int, str]  # length in bytes, SHA-256 (hex) of the content
MISSING: Stamp = (-1, "")
# Not a regular file (a FIFO, a directory, a symbolic link): never read here, so a FIFO cannot
# block and a link cannot make the GUI hash a file anywhere; reading the run names it, and no
# view of it is ever kept.
NOT_A_FILE: Stamp = (-2, "")
_CHUNK = 1 << 20  # large enough that the loop's Python overhead vanishes beside the hashing


def file_stamp(path: Path) -> Stamp:
    """The stamp of the file at ``path`` as it is now (``MISSING`` if there is none).

    Opened as every run-dir file is (``regular.open_regular``: regular files only, no link
    followed). The length is what was hashed, not what ``stat`` said: a file appended to while
    it is read gets a stamp that matches its content up to where the read ended.
    """
    try:
        handle = open_regular(path)
    except FileNotFoundError:
        return MISSING
    except InputError:
        return NOT_A_FILE
    with handle:
        digest = hashlib.sha256()
        length = 0
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            length += len(chunk)
    return length, digest.hexdigest()


def input_stamps(path: Path) -> tuple[Stamp, ...]:
    """The stamps of the ``INPUTS`` of the run at ``path``, in that order."""
    return tuple(file_stamp(path / name) for name in INPUTS)


def input_mtimes(path: Path) -> tuple[int, ...]:
    """The modification times (ns) of the ``INPUTS`` of the run at ``path``; 0 for a missing
    one. Only to tell whether a file written from them is older than they are."""
    mtimes = []
    for name in INPUTS:
        try:
            mtimes.append((path / name).stat().st_mtime_ns)
        except FileNotFoundError:
            mtimes.append(0)
    return tuple(mtimes)
