"""Many models: sizes and times bounded by row count as well as by cell count (design.md §13, §15).

Every pair of rows grows with rows²: 400 models x 2 prompts (800 cells) made a 20.7 MB
report.html, an 18.4 MB scorecard.json, a 20.5 MB run page and a ``report`` of 58 s. Beyond
``report.MATRIX_ROWS`` rows the report and the run page show each row against its neighbours
in the ranking, scorecard.json keeps the neighbour pairs and those that decide the ranks, and
the GUI pages one row's comparisons (``GET /api/runs/{name}/comparisons``).

Runs of 200 and 400 models, one variant, one repeat: on a pack of 2 prompts (the case above)
and on the full ``buero`` pack. ``report`` is timed as the CLI does it: load the run, build the
scorecard, write report.html, scorecard.json and verdicts.csv, print the scorecard (wall
clock, and beside it the CPU time: on a shared machine the wall clock waits for other work).
Run: uv run python benchmarks/many_models.py
"""

from __future__ import annotations

import io
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, REPO, report, write_run
from fastapi.testclient import TestClient
from rich.console import Console

from touchstone.gui.app import create_app
from touchstone.scorecard.terminal import render_run_scorecard
from touchstone.stages.view import load_run, write_report

PORT = 8642
REPORT_S = 5.0
# Two prompts, one in each category (also the pack of tests/unit/scorecard/test_many_models.py).
TWO_PROMPTS = REPO / "tests" / "fixtures" / "zwei.yaml"


def measure(runs: Path, name: str, pack: Path, models: int) -> None:
    run = runs / name
    cells = write_run(run, models=models, repeats=1, judged=True, pack_path=pack, variants=["none"])
    started, cpu = time.monotonic(), time.process_time()
    view = load_run(run)
    card = view.scorecard()
    write_report(view, card)
    Console(file=io.StringIO(), width=200).print(render_run_scorecard(view.pack, card))
    report_s, cpu_s = time.monotonic() - started, time.process_time() - cpu
    html_mb = (run / "report.html").stat().st_size / 1e6
    json_mb = (run / "scorecard.json").stat().st_size / 1e6
    print(f"\n{name}: {models} models, {cells} cells")
    report("report", report_s, f"s (CPU {cpu_s:.2f} s)", f"< {REPORT_S:.0f} s", report_s < REPORT_S)
    report("report.html", html_mb, "MB", "< 5 MB", html_mb < 5)
    report("scorecard.json", json_mb, "MB", "< 5 MB", json_mb < 5)
    app = create_app(runs, workdir=runs.parent, port=PORT)
    with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as client:
        client.get(f"/runs/{name}")  # loads the run
        started = time.monotonic()
        page = client.get(f"/runs/{name}")
        page_s = time.monotonic() - started
        api = client.get(f"/api/runs/{name}")
        row = card.ranked[len(card.ranked) // 2]
        started = time.monotonic()
        compared = client.get(
            f"/api/runs/{name}/comparisons",
            params={"model": row.model, "variant": row.variant, "better": "b", "limit": 500},
        )
        compared_s = time.monotonic() - started
    assert page.status_code == api.status_code == compared.status_code == 200
    page_mb, api_mb = len(page.content) / 1e6, len(api.content) / 1e6
    report("run page", page_mb, f"MB, {page_s:.2f} s", "< 2 MB", page_mb < 2)
    report("GET /api/runs/{name}", api_mb, "MB", "< 2 MB", api_mb < 2)
    report("one row against all others (filtered)", compared_s, "s", "< 1 s", compared_s < 1)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        two = root / "zwei.yaml"
        two.write_text(TWO_PROMPTS.read_text(encoding="utf-8"), encoding="utf-8")
        runs = root / "runs"
        runs.mkdir()
        for models in (200, 400):
            measure(runs, f"zwei-{models}", two, models)
        # The GUI reads a run's pack only inside its working directory (a shared run dir
        # must not make it read any file): the pack goes where the runs are.
        buero = root / "buero.yaml"
        buero.write_text(BUERO.read_text(encoding="utf-8"), encoding="utf-8")
        for models in (200, 400):
            measure(runs, f"buero-{models}", buero, models)


if __name__ == "__main__":
    main()
