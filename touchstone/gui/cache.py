"""Runs held in memory between requests: a 100k-cell run is loaded once, not per page;
and each run's line of the overview, so that a repeat overview parses no pack again.

An entry is valid while the run's files keep their content (``store.input_stamps``: length
and hash, never times); a job that appends an answer or a verdict changes it, and the next
request loads the run again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from touchstone.scorecard.build import Scorecard
from touchstone.stages.judged_by import card_fitness
from touchstone.stages.view import RunView, load_run
from touchstone.store import SCORECARD_JSON, Stamp, input_mtimes, input_stamps, stamps
from touchstone.store.exports import current_scorecard


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

    def get(self, path: Path, inputs: tuple[Stamp, ...] | None = None) -> LoadedRun:
        """The run at ``path``; ``InputError`` when it cannot be read (bad input).
        ``inputs``: the run's ``input_stamps`` when the caller has just taken them (the
        overview: hashing a big run's files twice in one request costs time)."""
        with self._lock:
            gate = self._loading.setdefault(path, threading.Lock())
        with gate:
            stamp = input_stamps(path) if inputs is None else inputs
            with self._lock:
                entry = self._entries.get(path)
                if entry is not None and entry[0] == stamp:
                    self._entries.move_to_end(path)
                    hit = entry[1]
            if entry is not None and entry[0] == stamp:
                # A judge-check since changes no run file: its verdict is read each time.
                hit.card.judge_fitness = card_fitness(hit.view.run_dir, hit.card)
                return hit
            view = load_run(path, pack_within=self.pack_within)
            loaded = LoadedRun(view, view.scorecard())
            with self._lock:
                self._entries[path] = (stamp, loaded)
                self._entries.move_to_end(path)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
            return loaded


def file_stamp(path: Path) -> Stamp:
    """``path``'s content as it is now (``store.file_stamp``); a path that cannot name a
    file (a NUL in a path named by run.json) or cannot be read is missing."""
    try:
        return stamps.file_stamp(path)
    except (OSError, ValueError):
        return stamps.MISSING


Summary = dict[str, Any]
# Builds a run's summary from its path and the ``input_stamps`` just taken of it.
SummaryBuilder = Callable[[Path, tuple[Stamp, ...]], tuple[Summary, tuple[Path, ...]]]


class SummaryCache:
    """Each run's line of the overview, kept while nothing it was built from changed: the
    run's input files, its ``scorecard.json`` and the pack files its manifest names.

    Without it every overview parsed every run's pack again for its prompt count: three
    runs of a 40,000-prompt pack took 40 s per request. A repeat now stats a few files.
    """

    def __init__(self) -> None:
        self._entries: dict[Path, tuple[tuple[Stamp, ...], tuple[Path, ...], Summary]] = {}
        self._lock = threading.Lock()

    def get(self, path: Path, build: SummaryBuilder) -> Summary:
        """The summary of the run at ``path``; ``build`` makes it (and names the pack files
        it read) when there is none or the files changed. Its errors are not kept: a
        damaged run is read again next time, as its page would.

        The run's files are stamped once per call, and ``build`` is given those stamps:
        hashing a big run's answers two or three times per overview was most of its cost."""
        with self._lock:
            entry = self._entries.get(path)
        # Taken before the run is read: a change while reading makes the next request read
        # again, never keeps a stale line.
        inputs = input_stamps(path)
        before = (*inputs, file_stamp(path / SCORECARD_JSON))
        if entry is not None:
            packs = entry[1]
            if entry[0] == (*before, *(file_stamp(pack) for pack in packs)):
                return dict(entry[2])
        summary, packs = build(path, inputs)
        stamps = (*before, *(file_stamp(pack) for pack in packs))
        with self._lock:
            self._entries[path] = (stamps, packs, summary)
        return dict(summary)

    def keep_only(self, paths: set[Path]) -> None:
        """Forget runs that are gone."""
        with self._lock:
            for path in set(self._entries) - paths:
                del self._entries[path]


def is_fresh(path: Path, written_name: str) -> bool:
    """Whether the file ``written_name`` of the run at ``path`` (scorecard.json,
    report.html) exists and no file it is built from changed after it was written."""
    try:
        written = (path / written_name).stat().st_mtime_ns
    except OSError:
        return False
    return all(mtime <= written for mtime in input_mtimes(path))


def fresh_scorecard(path: Path, inputs: tuple[Stamp, ...] | None = None) -> dict[str, Any] | None:
    """The run's ``scorecard.json`` if nothing it was built from changed since, else None.

    The judge stage and ``touchstone report`` write it; the overview reads it instead of
    loading every verdict of every run. ``inputs``: the run's ``input_stamps`` when the
    caller has just taken them.
    """
    if not is_fresh(path, SCORECARD_JSON):
        return None
    data = current_scorecard(path, inputs)
    if data is None:
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
