"""A big ``human.jsonl``: the agreement card of ``rate`` and the GUI's run page (issue 35).

Before: 10,000 ratings took ``rate`` 19 s and 713 MB and the GUI's run page 13 s; 200,000
(35 MB) had ``rate`` still running after 300 s. The card bootstrapped 2,000 resamples of
every pair one by one, and the mean differences' cluster bootstrap kept 1,000 resamples of
every pair as index tuples. Now, beyond ``stats.bootstrap.RESAMPLED_UNITS`` pairs, each
round weighs the kinds of pair (design.md §17).

Per size: the ceiling, measured in the same run: reading ``human.jsonl`` alone (every line
validated, ``iter_jsonl``), and ``load_run`` of the run alone; then ``rate``'s end to end in
process (load the run, the sample, the card; the person quits at once), and the GUI's run page
after a new rating (the run is loaded; the card is built anew from the changed file) and
again (the card is kept). Time is the process's CPU time (other sessions share the cores:
wall time would measure them); memory is the peak of Python's allocations (``tracemalloc``)
during the step, in a second pass.
Targets: beyond its ceiling the card costs at most about as much again and a second (its
bootstraps are a constant; the rest are passes over the pairs), under 150 MB; a kept card
is served in well under half a second.
Run: uv run python benchmarks/human_ratings.py
"""

from __future__ import annotations

import datetime as dt
import io
import json
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, report, write_run
from fastapi.testclient import TestClient
from rich.console import Console

from touchstone.cli.rate import run_spot_check
from touchstone.gui.app import create_app
from touchstone.stages.view import load_run
from touchstone.store.jsonl import iter_jsonl
from touchstone.store.ratings import HUMAN, HumanRating

PORT = 8643
SIZES = (10_000, 200_000)
START = dt.datetime(2026, 12, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=1)))
# What the card may cost beyond its ceiling (reading the file and the run): its bootstraps,
# a constant once they weigh kinds of pair, and a few passes over the pairs, as many as the
# reading's own: at most twice the ceiling and this.
BEYOND_S = 1.0
MAX_MB = 150


def measured(step: Callable[[], Any]) -> tuple[float, float]:
    """CPU seconds of ``step``, then its peak of allocations in MB (a second call)."""
    started = time.process_time()
    step()
    seconds = time.process_time() - started
    tracemalloc.start()
    try:
        step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return seconds, peak / 2**20


def write_ratings(run: Path, total: int) -> int:
    """``total`` ratings of the run's cells: each rater rates every cell (a close person);
    returns the bytes written."""
    cells = [json.loads(line) for line in (run / "judgements.jsonl").open(encoding="utf-8")]
    lines = []
    for i in range(total):
        cell = cells[i % len(cells)]
        rating = {
            "model": cell["model"],
            "variant": cell["variant"],
            "prompt_id": cell["prompt_id"],
            "repeat": cell["repeat"],
            "score": max(0, min(5, cell["score"] + (i % 3) - 1)),
            "red_flag": cell["score"] == 0,
            "note": "",
            "rater": f"person-{i // len(cells)}",
            # A second apart, as people rate: each line's time is its own.
            "rated_at": (START + dt.timedelta(seconds=i)).isoformat(),
        }
        lines.append(json.dumps(rating, ensure_ascii=False) + "\n")
    text = "".join(lines)
    (run / HUMAN).write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


def read_only(path: Path) -> None:
    for _ in iter_jsonl(path, HumanRating, lambda _: None):
        pass


def rate_quits(run: Path) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=100, color_system=None)
    run_spot_check(run, n=30, rater="person-0", console=console, ask=lambda _: "q")
    assert "Übereinstimmung" in buffer.getvalue() or "Judge" in buffer.getvalue()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs"
        run = runs / "bewertet"
        cells = write_run(run, models=3, repeats=5, judged=True)
        load_s, load_mb = measured(lambda: load_run(run))
        print(f"run: {cells} cells; load_run alone: {load_s:.2f} s CPU, {load_mb:.0f} MB")
        app = create_app(runs, workdir=BUERO.parent.parent, port=PORT)
        with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as client:
            for total in SIZES:
                size = write_ratings(run, total)
                read_s, read_mb = measured(lambda: read_only(run / HUMAN))
                print(
                    f"\n{total:,} ratings ({size / 1e6:.1f} MB): reading human.jsonl alone "
                    f"{read_s:.2f} s CPU, {read_mb:.0f} MB"
                )
                rate_s, rate_mb = measured(lambda: rate_quits(run))
                ceiling = read_s + load_s
                report(
                    f"rate (load, sample, card) at {total:,}",
                    rate_s,
                    f"s CPU, {rate_mb:.0f} MB",
                    f"< 2 x reading the file and the run + {BEYOND_S:.0f} s "
                    f"({2 * ceiling + BEYOND_S:.2f} s), < {MAX_MB} MB",
                    rate_s < 2 * ceiling + BEYOND_S and rate_mb < MAX_MB,
                )
                assert client.get("/runs/bewertet").status_code == 200  # the run is loaded

                def new_card() -> None:
                    # A new rating (person-0 again on the first cell): the card is built anew.
                    with (run / HUMAN).open("r+", encoding="utf-8") as handle:
                        first = handle.readline()
                        handle.seek(0, 2)
                        handle.write(first)
                    response = client.get("/runs/bewertet")
                    assert response.status_code == 200, response.text[:300]

                page_s, page_mb = measured(new_card)
                report(
                    f"GUI run page with a changed human.jsonl at {total:,}",
                    page_s,
                    f"s CPU, {page_mb:.0f} MB",
                    f"< 2 x reading the file + {BEYOND_S:.0f} s "
                    f"({2 * read_s + BEYOND_S:.2f} s), < {MAX_MB} MB",
                    page_s < 2 * read_s + BEYOND_S and page_mb < MAX_MB,
                )
                kept_s, _ = measured(lambda: client.get("/runs/bewertet"))
                report(
                    f"GUI run page again at {total:,} (the card is kept)",
                    kept_s,
                    "s CPU",
                    "< 0.5 s",
                    kept_s < 0.5,
                )


if __name__ == "__main__":
    main()
