"""Persistence: the run directory and the files in it.

files.py    atomic writes
jsonl.py    JSON Lines reading and appending
rundir.py   RunDir: manifest, streams, reports, lock
"""

from touchstone.store.files import atomic_write_text
from touchstone.store.rundir import (
    JUDGEMENTS,
    LOCK,
    MANIFEST,
    REPORT_HTML,
    REPORTS,
    RESPONSES,
    RunDir,
)

__all__ = [
    "JUDGEMENTS",
    "LOCK",
    "MANIFEST",
    "REPORTS",
    "REPORT_HTML",
    "RESPONSES",
    "RunDir",
    "atomic_write_text",
]
