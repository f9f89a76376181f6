"""The run form's estimate before "starten" (issue 36): ``POST /api/runs/estimate`` answers what
``run --dry-run`` prints (calls, tokens, price, whether the budget holds) and starts nothing.
The browser's view of it is in ``test_gui_cost_browser.py``."""

from pathlib import Path

from fastapi.testclient import TestClient

from tests.gui.gui_support import ORIGIN, workspace_run
from tests.gui.test_gui_run_cost import new_run
from touchstone.sim import SimServer

PRICED = {"price_per_million": "0,15/0,60", "max_tokens": 400}


def estimate(client: TestClient, body: dict[str, object]) -> dict[str, object]:
    answer = client.post("/api/runs/estimate", json=body, headers=ORIGIN)
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def test_estimate_of_a_new_run_shows_the_dry_run_figures_and_starts_nothing(
    client: TestClient, sim: SimServer, workspace: Path
) -> None:
    figures = estimate(client, new_run(sim.base_url, **PRICED, budget="0,01"))
    lines = figures["lines"]
    assert isinstance(lines, list)
    assert lines[0] == "Aufrufe: 3"
    assert (
        lines[2]
        == "Ausgabe: höchstens 1.200 Tokens (max_tokens 400 je Aufruf; noch nichts gemessen)"
    )
    assert lines[3].startswith("Kosten: höchstens etwa 0,0007")
    assert "0,15 Eingabe, 0,60 Ausgabe" in lines[3]
    assert lines[-1] == "Budget: 0,0100 – reicht nach dieser Schätzung."
    assert figures["calls"] == 3 and figures["output_tokens"] == 1200 and figures["fits"] is True
    assert not (workspace / "runs" / "kosten").exists()


def test_estimate_says_when_the_budget_does_not_hold(client: TestClient, sim: SimServer) -> None:
    figures = estimate(client, new_run(sim.base_url, **PRICED, budget="0,0002"))
    assert figures["fits"] is False
    assert figures["lines"][-1].startswith("Budget: 0,00020 – reicht nach dieser Schätzung nicht")  # type: ignore[index]


def test_estimate_without_a_price_says_the_price_is_needed(
    client: TestClient, sim: SimServer
) -> None:
    figures = estimate(client, new_run(sim.base_url, max_tokens=400))
    assert figures["price_needed"] is True and figures["cost"] is None
    assert "Kosten: unbekannt – kein Preis (Feld „Preis je Million Tokens“)" in figures["lines"]  # type: ignore[operator]


def test_estimate_of_the_existing_run_counts_its_open_cells_by_its_answers(
    client: TestClient, sim: SimServer, workspace: Path
) -> None:
    run = workspace / "runs" / "tiny"
    before = sorted((p.name, p.stat().st_mtime_ns) for p in run.iterdir())
    # The run has no answer cap: an empty max_tokens field keeps that.
    priced = {"price_per_million": PRICED["price_per_million"]}
    done = estimate(client, workspace_run(sim.base_url, **priced))
    assert done["lines"] == ["Aufrufe: 0 – nichts zu tun: alle Zellen beantwortet"]
    assert done["price_needed"] is False
    more = estimate(client, workspace_run(sim.base_url, repeats=2, extend=True, **priced))
    assert more["calls"] == 6
    assert more["lines"][2].startswith("Ausgabe: ≈ ")  # type: ignore[index]
    assert "(Mittel früherer Antworten in diesem Run)" in more["lines"][2]  # type: ignore[index]
    assert more["lines"][3].startswith("Kosten: ≈ 0,0")  # type: ignore[index]
    # The form's words, not the CLI's options.
    assert more["lines"][4].endswith("(gemessene Latenz früherer Antworten, Parallele Aufrufe: 1)")  # type: ignore[index]
    assert sorted((p.name, p.stat().st_mtime_ns) for p in run.iterdir()) == before


def test_estimate_refuses_what_the_run_job_would_refuse(
    client: TestClient, sim: SimServer, workspace: Path
) -> None:
    changed = client.post(
        "/api/runs/estimate", json=workspace_run(sim.base_url, repeats=2), headers=ORIGIN
    )
    assert changed.status_code == 409
    assert "Wiederholungen: gespeichert 1, verlangt 2" in changed.json()["detail"]
    unpriced = client.post(
        "/api/runs/estimate", json=new_run(sim.base_url, budget="0,01"), headers=ORIGIN
    )
    assert unpriced.status_code == 422
    assert "„budget“: ein Budget braucht einen Preis" in unpriced.json()["detail"]
    assert not (workspace / "runs" / "kosten").exists()
