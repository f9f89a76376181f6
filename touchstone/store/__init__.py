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
    SCORECARD_JSON,
    VERDICTS_CSV,
    RunDir,
)

__all__ = [
    "JUDGEMENTS",
    "LOCK",
    "MANIFEST",
    "REPORTS",
    "REPORT_HTML",
    "RESPONSES",
    "SCORECARD_JSON",
    "VERDICTS_CSV",
    "RunDir",
    "atomic_write_text",
]
