"""Cost in the judge form (issue 36): price, max_tokens, budget and concurrency reach the judge
job as `judge`'s flags in place of the config's settings, checked before the job starts (a
German 422 naming the field), kept by "Fortsetzen"; "Kosten schätzen" answers what
`judge --dry-run` prints (``POST /api/runs/{name}/judge/estimate``), starting nothing."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import ORIGIN
from tests.gui.test_gui_run_cost import stopped_by_budget
from touchstone.sim import SimServer

JUDGE = "/api/runs/tiny/judge"
PRICED = {"config": "judge-gut.yaml", "price_per_million": "0,15/0,60", "max_tokens": 200}


def test_judge_form_passes_the_cost_fields_and_the_resume_keeps_them(
    client: TestClient, workspace: Path
) -> None:
    # One judge call's worst case (200 output tokens at 0,60 per million and the prompt) is
    # over the budget: the job stops before its first call, as `judge` with that budget does.
    body = {**PRICED, "budget": "0,0001", "concurrency": 2}
    state = stopped_by_budget(client, JUDGE, body, 200)
    verdicts = workspace / "runs" / "tiny" / "judgements.jsonl"
    assert not verdicts.exists() or not verdicts.read_text(encoding="utf-8").strip()
    resume = state["resume"]
    assert (resume["price_per_million"], resume["max_tokens"]) == ("0.15,0.6", 200)
    assert (resume["budget"], resume["concurrency"]) == ("0.0001", 2)


@pytest.fixture
def jury(sim: SimServer, workspace: Path) -> str:
    """A jury of two judges in the workspace, without prices; its config's name."""
    member = f"{{endpoint: {{base_url: '{sim.base_url}'}}, model: sim-judge}}"
    other = member.replace("sim-judge", "sim-gut")
    (workspace / "jury.yaml").write_text(f"judges: [{member}, {other}]\n", "utf-8")
    return "jury.yaml"


def test_judge_estimate_of_a_jury_shows_each_member(client: TestClient, jury: str) -> None:
    answer = client.post(f"{JUDGE}/estimate", json={"config": jury}, headers=ORIGIN)
    assert answer.status_code == 200, answer.text
    figures = answer.json()
    lines = figures["lines"]
    assert lines[0].startswith("Jury aus 2 Judges (Quorum 2)")
    assert "Judge sim-judge:" in lines and "Jury gesamt:" in lines
    assert figures["price_needed"] is True


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        (
            JUDGE,
            {"config": "judge-gut.yaml", "max_tokens": 200, "budget": "0,01"},
            "„budget“: ein Budget braucht einen Preis (Feld „Preis je Million Tokens“)",
        ),
        (
            JUDGE,
            {"config": "judge-gut.yaml", "price_per_million": "0,15/0,60", "budget": "0,01"},
            "„budget“: ein Budget braucht max_tokens",
        ),
        (JUDGE, {"config": "judge-gut.yaml", "concurrency": 0}, "„concurrency“ muss mindestens 1"),
        (JUDGE, {**PRICED, "config": "jury.yaml"}, "gelten für einen einzelnen Judge"),
        ("/api/runs/tiny/judge-check", PRICED, "gelten für „Judge starten“"),
        (f"{JUDGE}/estimate", {**PRICED, "config": "jury.yaml"}, "gelten für einen einzelnen"),
    ],
)
@pytest.mark.usefixtures("jury")
def test_judge_form_refuses_cost_fields_the_cli_refuses(
    client: TestClient, workspace: Path, path: str, body: object, words: str
) -> None:
    refused = client.post(path, json=body, headers=ORIGIN)
    assert refused.status_code == 422, refused.text
    assert words in refused.json()["detail"]
    assert not (workspace / "runs" / "tiny" / "jobs").exists()


def test_judge_estimate_shows_the_dry_run_figures(client: TestClient, workspace: Path) -> None:
    answer = client.post(f"{JUDGE}/estimate", json={**PRICED, "budget": "0,01"}, headers=ORIGIN)
    assert answer.status_code == 200, answer.text
    figures = answer.json()
    # 6 answers and the holistic pass of each (model, variant) row: 2.
    assert figures["calls"] == 8 and figures["fits"] is True
    lines = figures["lines"]
    assert lines[0] == "Aufrufe: 8"
    assert (
        lines[2]
        == "Ausgabe: höchstens 1.600 Tokens (max_tokens 200 je Aufruf; noch nichts gemessen)"
    )
    assert "Preis je Million Tokens: 0,15 Eingabe, 0,60 Ausgabe" in lines[3]
    assert "Budget: 0,0100 – reicht nach dieser Schätzung." in lines
    assert not (workspace / "runs" / "tiny" / "jobs").exists()


def test_judge_estimate_without_a_price_says_the_price_is_needed(client: TestClient) -> None:
    answer = client.post(f"{JUDGE}/estimate", json={"config": "judge-gut.yaml"}, headers=ORIGIN)
    figures = answer.json()
    assert figures["price_needed"] is True
    assert (
        "Kosten: unbekannt – kein Preis (Feld „Preis je Million Tokens“ oder price_per_million "
        "der Konfiguration)" in figures["lines"]
    )
