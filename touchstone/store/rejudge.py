"""An interrupted ``judge --rejudge all`` (``rejudge.jsonl``, design.md §4): what lets the next
``--rejudge all`` with the same judge go on where it stopped instead of paying for every cell
again.

Verdicts carry no time of their own, and a re-judge by the same judge (to measure its
stability) writes verdicts like the ones it replaces: this file is the one record of which
cells a re-judge has reached. Its first line names the re-judge: the judge's identity
(``judge.backend.judge_identity``: model, endpoint, settings) and when it began; each further
line is one cell whose new verdict was saved, appended right after the verdict (a kill loses at
most that line: the cell is then judged once more). The judge stage removes the file once the
re-judge has reached every cell of the run.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from touchstone import started
from touchstone.errors import InputError
from touchstone.results import VerdictKey
from touchstone.store.jsonl import JsonlAppender, atomic_write_jsonl, iter_jsonl

if TYPE_CHECKING:
    from collections.abc import Callable

    from touchstone.store.rundir import RunDir

REJUDGE = "rejudge.jsonl"


@dataclass(slots=True)
class _Line:
    """A line of the file: the head (``judge``, ``started_at``) or one cell re-judged."""

    judge: str = ""
    started_at: str = ""
    model: str = ""
    variant: str = ""
    prompt_id: str = ""
    repeat: int = 0


@dataclass(frozen=True)
class Rejudging:
    """A re-judge that has not reached every cell yet."""

    judge: str
    started_at: str
    done: frozenset[VerdictKey]


def read_rejudge(run: RunDir) -> Rejudging | None:
    """The unfinished re-judge of ``run``, or None when there is none. A file whose first
    line names no judge is bad input, named."""
    path = run.file(REJUDGE)
    lines = list(iter_jsonl(path, _Line, run.warnings.append))
    if not lines:
        return None
    head, *cells = lines
    if not head.judge:
        raise InputError(
            f"{path}: die erste Zeile nennt keinen Judge. Entfernen Sie die Datei; dann "
            f"bewertet `{started.command('judge --rejudge all')}` wieder alle Zellen neu."
        )
    done = frozenset(
        VerdictKey(line.model, line.variant, line.prompt_id, line.repeat)
        for line in cells
        if line.model
    )
    return Rejudging(head.judge, head.started_at, done)


def start_rejudge(run: RunDir, judge: str) -> None:
    """Begin a re-judge of every cell by ``judge`` (a previous record is replaced)."""
    started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    atomic_write_jsonl(run.file(REJUDGE), [{"judge": judge, "started_at": started}])


@contextmanager
def rejudged_cells(run: RunDir) -> Iterator[Callable[[VerdictKey], None]]:
    """Appends each cell the re-judge reached, as its verdict is saved."""
    with JsonlAppender(run.file(REJUDGE)) as appender:

        def reached(key: VerdictKey) -> None:
            model, variant, prompt_id, repeat = key  # a plain tuple from ``cell_key`` too
            appender.append(
                {"model": model, "variant": variant, "prompt_id": prompt_id, "repeat": repeat}
            )

        yield reached


def end_rejudge(run: RunDir) -> None:
    """The re-judge reached every cell: nothing is left to continue."""
    run.file(REJUDGE).unlink(missing_ok=True)
