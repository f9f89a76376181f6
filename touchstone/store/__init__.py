"""Persistence: the run directory and the files in it.

files.py    atomic writes, the inside-a-directory check
jsonl.py    JSON Lines reading and appending
manifest.py run.json: the typed ``Manifest``, read and written
rundir.py   RunDir: manifest, streams, reports, lock
stamps.py   content stamps of a run's input files (what a kept view is keyed by)
"""

from touchstone.store.files import atomic_write_text, resolve_inside
from touchstone.store.manifest import MANIFEST, Manifest
from touchstone.store.rundir import (
    JUDGE_STATE,
    JUDGEMENTS,
    LOCK,
    REPORT_HTML,
    REPORTS,
    RESPONSES,
    SCORECARD_JSON,
    VERDICTS_CSV,
    RunDir,
)
from touchstone.store.stamps import Stamp, input_mtimes, input_stamps

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
    "Manifest",
    "RunDir",
    "Stamp",
    "atomic_write_text",
    "input_mtimes",
    "input_stamps",
    "resolve_inside",
]
