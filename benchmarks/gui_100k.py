"""The GUI and the report at 100 000 cells (design.md §13).

Targets: the run page loads in about a second and weighs under 2 MB (the verdict table pages
through the API; ``GET /api/runs/{name}`` does not inline every verdict), report.html stays
under 5 MB. Before: a 20 MB page in 3.6 s, a 29 MB API response, a 21 MB report. Beside the
page time, the time to load the run's files alone (``load_run``) in the same process, and the
first (cold) request, which includes that load; ``touchstone gui`` makes that load in the
background at start. The overview reads each run's ``scorecard.json`` instead.
Then the overview of three runs of one big pack (issue 21: every overview parsed every run's
pack again, 36-43 s per request at 40,000 prompts): the first request parses them, a repeat
must not (4,000 prompts here: a 40,000-prompt pack takes 15-30 s to parse on this machine).
Run: uv run python benchmarks/gui_100k.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, report, write_run
from fastapi.testclient import TestClient

from touchstone.gui.app import create_app
from touchstone.stages.run.manifest import now_iso
from touchstone.stages.view import load_run, write_report

PORT = 8642


def timed_get(client: TestClient, path: str) -> tuple[float, int]:
    started = time.monotonic()
    response = client.get(path)
    elapsed = time.monotonic() - started
    assert response.status_code == 200, (path, response.status_code, response.text[:300])
    return elapsed, len(response.content)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs"
        cells = write_run(runs / "gross", models=10, repeats=185, judged=True)
        started = time.monotonic()
        view = load_run(runs / "gross")
        load_s = time.monotonic() - started
        started = time.monotonic()
        write_report(view, view.scorecard())
        report_s = time.monotonic() - started
        report_mb = (runs / "gross" / "report.html").stat().st_size / 1e6
        print(f"cells: {cells}; load_run alone: {load_s:.2f} s; write_report: {report_s:.2f} s")
        # The GUI reads a run's pack only inside its working dir: the one the pack lies in.
        app = create_app(runs, workdir=BUERO.parent.parent, port=PORT)
        with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as client:
            overview_s, _ = timed_get(client, "/")
            cold_s, _ = timed_get(client, "/runs/gross")
            page_s, page_bytes = timed_get(client, "/runs/gross")
            api_s, api_bytes = timed_get(client, "/api/runs/gross")
            table_s, table_bytes = timed_get(
                client, "/api/runs/gross/verdicts?model=model-3&sort=score&order=desc"
            )
            prompt_s, prompt_bytes = timed_get(client, "/api/runs/gross/prompts/C1")
        print(f"first request of the run page (loads the run): {cold_s:.2f} s")
        report(
            "overview before the run is loaded (reads scorecard.json)",
            overview_s,
            "s",
            f"< 1/5 of the first run page ({cold_s / 5:.2f} s)",
            overview_s < cold_s / 5,
        )
        report(
            "run page",
            page_s,
            f"s, {page_bytes / 1e6:.2f} MB",
            "~1 s, < 2 MB",
            page_s < 1.5 and page_bytes < 2e6,
        )
        report(
            "GET /api/runs/gross", api_s, f"s, {api_bytes / 1e6:.2f} MB", "< 2 MB", api_bytes < 2e6
        )
        report(
            "a filtered, sorted page of verdicts",
            table_s,
            f"s, {table_bytes / 1e3:.0f} kB",
            "< 1 s",
            table_s < 1,
        )
        report(
            "a prompt with all its answers",
            prompt_s,
            f"s, {prompt_bytes / 1e6:.2f} MB",
            "< 1 s",
            prompt_s < 1,
        )
        report("report.html", report_mb, "MB", "< 5 MB", report_mb < 5)
        overview_of_big_packs(Path(tmp) / "big", prompts=4_000, runs=3)


def overview_of_big_packs(root: Path, *, prompts: int, runs: int) -> None:
    pack = root / "gross.yaml"
    root.mkdir()
    lines = "".join(f"      - {{id: P{i}, text: 'Frage {i}?'}}\n" for i in range(prompts))
    pack.write_text(
        f"id: gross\ntitle: Gross\ncategories:\n  - id: A\n    title: A\n    prompts:\n{lines}",
        encoding="utf-8",
    )
    for n in range(runs):
        run = root / "runs" / f"gross-{n}"
        run.mkdir(parents=True)
        manifest = {
            "name": run.name,
            "pack_id": "gross",
            "pack_path": str(pack),
            "pack_abspath": str(pack),
            "models": ["m"],
            "variants": ["none"],
            "created_at": now_iso(),
        }
        (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
        (run / "scorecard.json").write_text('{"rows": []}', encoding="utf-8")  # written last
    app = create_app(root / "runs", workdir=root, port=PORT)
    with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as client:
        first_s, _ = timed_get(client, "/api/runs")
        repeat_s, _ = timed_get(client, "/api/runs")
    print(f"overview of {runs} runs of a {prompts}-prompt pack, first request: {first_s:.2f} s")
    report(
        "the same overview again (parses no pack)",
        repeat_s,
        "s",
        f"< 0.1 s and < 1/20 of the first ({first_s / 20:.2f} s)",
        repeat_s < 0.1 and repeat_s < first_s / 20,
    )


if __name__ == "__main__":
    main()
