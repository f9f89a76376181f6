"""Cost in the run form (issue 36): price, max_tokens, budget and concurrency reach the run job
as the CLI's flags, checked as the CLI checks them (a German 422 naming the field, nothing
created), and the run's own answer cap stays when the field is empty."""

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import ORIGIN, finished, workspace_run
from tests.unit.stages.test_extend import manifest
from touchstone.sim import SimServer
from touchstone.store import RunDir


def new_run(base_url: str, **fields: object) -> dict[str, object]:
    return {**workspace_run(base_url), "name": "kosten", "models": ["sim-gut"], **fields}


def stopped_by_budget(
    client: TestClient, path: str, body: dict[str, object], max_tokens: int
) -> dict[str, Any]:
    """The job ``body`` starts at ``path`` (price 0,15/0,60, budget 0,0001, concurrency 2),
    its command holding them as the CLI's flags, ended by its budget; its state."""
    started = client.post(path, json=body, headers=ORIGIN)
    assert started.status_code == 202, started.text
    state = finished(client, started.json()["job"])
    flags = {
        "--price-per-million": "0.15,0.6",
        "--max-tokens": str(max_tokens),
        "--budget": "0.0001",
        "--concurrency": "2",
    }
    command = state["command"]
    assert {flag: command[command.index(flag) + 1] for flag in flags} == flags, command
    assert state["state"] == "failed" and "Budget erreicht" in state["notice"], state
    return state


def test_run_form_passes_price_cap_budget_and_concurrency_to_the_job(
    client: TestClient, sim: SimServer, workspace: Path
) -> None:
    # The worst case of one call (400 output tokens at 0,60 per million) is over the budget:
    # the job stops before its first call, as `run --budget` does.
    body = new_run(
        sim.base_url, price_per_million="0,15/0,60", max_tokens=400, budget="0,0001", concurrency=2
    )
    stopped_by_budget(client, "/api/runs", body, 400)
    run = workspace / "runs" / "kosten"
    assert manifest(run)["max_tokens"] == 400
    assert not [r for r in RunDir(run).load_responses() if r.ok]


def test_run_form_with_enough_budget_answers_and_says_what_it_spent(
    client: TestClient, sim: SimServer, workspace: Path
) -> None:
    body = new_run(sim.base_url, price_per_million="0.15,0.60", max_tokens=200, budget="1")
    state = finished(client, client.post("/api/runs", json=body, headers=ORIGIN).json()["job"])
    assert state["state"] == "done", state
    assert len(RunDir(workspace / "runs" / "kosten").load_responses()) == 3
    assert state["notice"].startswith("Budget: 0,0") and " von 1," in state["notice"]


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"max_tokens": 0}, "„max_tokens“ muss mindestens 1 sein"),
        ({"max_tokens": 10_000_001}, "„max_tokens“ muss höchstens 10.000.000 sein"),
        ({"concurrency": 0}, "„concurrency“ muss mindestens 1 sein"),
        ({"concurrency": 257}, "„concurrency“ muss höchstens 256 sein"),
        ({"budget": "1.000,5"}, "„budget“: „1.000,5“ ist keine Zahl"),
        ({"budget": "0,00001"}, "„budget“ muss mindestens 0,0001 sein"),
        ({"price_per_million": "0,15,0,60"}, "„price_per_million“: Preis erwartet zwei Preise"),
        ({"price_per_million": "1e308,1"}, "Preis muss eine Zahl von 0 bis 1.000.000 sein"),
        ({"price_per_million": "0.1,\n0.2"}, "„price_per_million“: enthält Steuerzeichen"),
        (
            {"budget": "0,01", "max_tokens": 100},
            "„budget“: ein Budget braucht einen Preis (Feld „Preis je Million Tokens“)",
        ),
        (
            {"budget": "0,01", "price_per_million": "0,15/0,60"},
            "„budget“: ein Budget braucht max_tokens",
        ),
    ],
)
def test_run_form_refuses_cost_fields_the_cli_refuses(
    client: TestClient, sim: SimServer, workspace: Path, fields: dict[str, object], words: str
) -> None:
    refused = client.post("/api/runs", json=new_run(sim.base_url, **fields), headers=ORIGIN)
    assert refused.status_code == 422, refused.text
    assert words in refused.json()["detail"]
    assert not (workspace / "runs" / "kosten").exists()


def test_budget_on_a_run_with_a_cap_needs_no_max_tokens_field(
    client: TestClient, sim: SimServer, workspace: Path
) -> None:
    first = new_run(sim.base_url, max_tokens=64)
    assert finished(client, client.post("/api/runs", json=first, headers=ORIGIN).json()["job"])
    again = new_run(sim.base_url, price_per_million="0.15,0.60", budget="1")
    state = finished(client, client.post("/api/runs", json=again, headers=ORIGIN).json()["job"])
    assert state["state"] == "done", state
    assert state["command"][state["command"].index("--max-tokens") + 1] == "64"
    assert manifest(workspace / "runs" / "kosten")["max_tokens"] == 64


def test_another_cap_on_an_existing_run_is_refused_naming_both(
    client: TestClient, sim: SimServer
) -> None:
    first = new_run(sim.base_url, max_tokens=64)
    assert finished(client, client.post("/api/runs", json=first, headers=ORIGIN).json()["job"])
    refused = client.post("/api/runs", json=new_run(sim.base_url, max_tokens=128), headers=ORIGIN)
    assert refused.status_code == 409
    assert "Antwortlänge (max_tokens): gespeichert 64, verlangt 128" in refused.json()["detail"]


def test_run_form_has_the_cost_fields(client: TestClient) -> None:
    page = client.get("/").text
    for name in ("price_per_million", "max_tokens", "budget", "concurrency"):
        assert f'name="{name}"' in page
