"""Runs held in memory between requests: a 100k-cell run is loaded once, not per page.

An entry is valid while the run's files keep their size and modification time; a job that
appends an answer or a verdict changes them, and the next request loads the run again.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from touchstone.scorecard import Scorecard
from touchstone.stages import RunView, load_run
from touchstone.store import SCORECARD_JSON, Stamp, input_stamps


@dataclass
class LoadedRun:
    view: RunView
    card: Scorecard


class RunCache:
    """The last ``size`` runs, loaded (``load_run``) and scored (``build_scorecard``)."""

    def __init__(self, size: int = 3, *, pack_within: Path | None = None) -> None:
        self.size = size
        self.pack_within = pack_within
        self._entries: OrderedDict[Path, tuple[tuple[Stamp, ...], LoadedRun]] = OrderedDict()
        self._lock = threading.Lock()
        # One load per run at a time: two requests for a big run must not load it twice.
        self._loading: dict[Path, threading.Lock] = {}

    def get(self, path: Path) -> LoadedRun:
        """The run at ``path``; ``InputError`` when it cannot be read (bad input)."""
        with self._lock:
            gate = self._loading.setdefault(path, threading.Lock())
        with gate:
            stamp = input_stamps(path)
            with self._lock:
                entry = self._entries.get(path)
                if entry is not None and entry[0] == stamp:
                    self._entries.move_to_end(path)
                    return entry[1]
            view = load_run(path, pack_within=self.pack_within)
            loaded = LoadedRun(view, view.scorecard())
            with self._lock:
                self._entries[path] = (stamp, loaded)
                self._entries.move_to_end(path)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
            return loaded


def is_fresh(path: Path, written_name: str) -> bool:
    """Whether the file ``written_name`` of the run at ``path`` (scorecard.json,
    report.html) exists and no file it is built from changed after it was written."""
    try:
        written = (path / written_name).stat().st_mtime_ns
    except OSError:
        return False
    return all(stamp[0] <= written for stamp in input_stamps(path))


def fresh_scorecard(path: Path) -> dict[str, Any] | None:
    """The run's ``scorecard.json`` if nothing it was built from changed since, else None.

    The judge stage and ``touchstone report`` write it; the overview reads it instead of
    loading every verdict of every run.
    """
    if not is_fresh(path, SCORECARD_JSON):
        return None
    try:
        data = json.loads((path / SCORECARD_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    rows = data.get("rows")
    if not isinstance(rows, list) or not all(_summary_row(row) for row in rows):
        return None
    return {"rows": rows}


def _summary_row(row: object) -> bool:
    """A row the overview can read (anything else: the run is loaded instead). A row without
    ``n_failed`` was written before failed answers counted (issue 22): its mean is stale."""
    return (
        isinstance(row, dict)
        and all(isinstance(row.get(key), int) for key in ("cells", "n_scored", "n_failed"))
        and isinstance(row.get("unscored"), dict)
        and all(isinstance(n, int) for n in row["unscored"].values())
        and all(isinstance(row.get(key), str) for key in ("model", "variant"))
        and all(
            isinstance(row.get(key), float | int | None) for key in ("mean", "ci_low", "ci_high")
        )
    )
