"""Persistence: the run directory and the files in it.

files.py    atomic writes, the inside-a-directory check
jsonl.py    JSON Lines reading and appending
rundir.py   RunDir: manifest, streams, reports, lock
"""

from touchstone.store.files import atomic_write_text, resolve_inside
from touchstone.store.rundir import (
    JUDGE_STATE,
    JUDGEMENTS,
    LOCK,
    MANIFEST,
    REPORT_HTML,
    REPORTS,
    RESPONSES,
    SCORECARD_JSON,
    VERDICTS_CSV,
    RunDir,
    Stamp,
    input_stamps,
)

__all__ = [
    "JUDGEMENTS",
    "JUDGE_STATE",
    "LOCK",
    "MANIFEST",
    "REPORTS",
    "REPORT_HTML",
    "RESPONSES",
    "SCORECARD_JSON",
    "VERDICTS_CSV",
    "RunDir",
    "Stamp",
    "atomic_write_text",
    "input_stamps",
    "resolve_inside",
]
