"""The progress bar of a stage on stderr, fed by the stage's events (``cli.ui`` shows the rest)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from touchstone import german
from touchstone.cli import ui
from touchstone.cli.open_cells import open_text
from touchstone.events import in_flight_text
from touchstone.plain import plain

# Run cells that end without a saved answer: a call failed for a later run (``left``), or
# its model had stopped (``skipped``).
OPEN_OUTCOMES = ("left", "skipped")


class ProgressView:
    """Turns pipeline events into a rich progress bar on stderr.

    The bar appears with the stage's first event, when the work begins: bad input fails
    before that, and its message stands alone, not under an empty "0/?" bar.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.errors = 0
        self.open: Counter[str] = Counter()
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            console=ui.stderr,
            transient=False,
        )
        self.task = self.progress.add_task(label, total=None, note="")
        self.started = False

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if not self.started:
            self.started = True
            self.progress.start()
        if kind == "start":
            self.progress.update(self.task, total=data.get("total"))
            done = data.get("already_done")
            if done is None and "todo" in data:
                done = int(data["total"]) - int(data["todo"])
            self.progress.update(self.task, completed=done or 0)
        elif kind == "progress":
            outcome = data.get("outcome")
            if outcome in OPEN_OUTCOMES:
                # Not saved: the bar must not look finished when nothing landed.
                self.open[outcome] += 1
                self.progress.update(self.task, note=self._open_note())
            elif outcome != "done":
                self.progress.advance(self.task)
        elif kind == "judge_error":
            # Failed calls, as the Judge-Bilanz and the stop count them: cells that shared
            # one call are one failure. The bar counts saved verdicts only (as `run` counts
            # saved answers): the failures stand beside it.
            self.errors += 0 if data.get("shared") else 1
            failed = german.counted(self.errors, "Judge-Aufruf", "Judge-Aufrufe")
            self.progress.update(self.task, note=f"[yellow]⚠ {failed} fehlgeschlagen")
        elif kind == "in_flight":
            # Life while nothing completes: "Bewertungen – 2 Aufrufe laufen, ältester seit …"
            text = in_flight_text(data["calls"], data["oldest_s"], data["deadline_s"])
            self.progress.update(self.task, description=f"{self.label} – {text}")
        elif kind == "judge_fitness":
            # The last judge-check found the judge unfit: said before the first call.
            self.progress.console.print(plain(f"⚠ {data['message']}", style="bold red"))
        elif kind == "judge_dropped":
            # A jury member tripped its guard: said at once, the others go on.
            self.progress.console.print(plain(f"⚠ {data['message']}", style="yellow"))
            total = self.progress.tasks[self.task].total
            if total is not None and isinstance(data.get("left"), int):
                self.progress.update(self.task, total=max(0, total - data["left"]))
        elif kind in ("done", "aborted"):
            self.progress.update(self.task, description=self.label)

    def _open_note(self) -> str:
        return f"[yellow]⚠ {open_text(self.open['left'], self.open['skipped'])}"

    def __enter__(self) -> ProgressView:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.started:
            self.progress.stop()
