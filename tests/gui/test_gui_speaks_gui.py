"""The GUI speaks GUI (issue 23 §5): pages with their own titles, a German 404 page, a score
filter that explains itself, the CLI's default judge config first, job messages that offer
buttons instead of CLI commands."""

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import ORIGIN, finished
from touchstone.gui.job_notice import for_browser
from touchstone.gui.job_state import job_progress
from touchstone.sim import SimServer

# What a browser user cannot do: type a command, a flag, read a signal's name.
CLI_WORDS = re.compile(r"`touchstone|--[a-z]|README|SIGTERM|Strg-C|Derselbe Befehl")


def title(html: str) -> str:
    match = re.search(r"<title>(.*?)</title>", html, re.S)
    assert match, html[:300]
    return match.group(1).strip()


def test_every_page_has_its_own_title(client: TestClient) -> None:
    titles = {
        path: title(client.get(path).text)
        for path in ("/", "/runs/tiny", "/runs/tiny/prompts/S1", "/gibt-es-nicht")
    }
    assert len(set(titles.values())) == 4, titles
    assert "Runs" in titles["/"]
    assert "tiny" in titles["/runs/tiny"] and "S1" in titles["/runs/tiny/prompts/S1"]
    assert "nicht gefunden" in titles["/gibt-es-nicht"].lower()


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/gibt-es-nicht", "Seite nicht gefunden"),
        ("/runs/nope", "Unbekannter Run: nope"),
        ("/runs/tiny/prompts/X9", "Unbekannter Prompt: X9"),
    ],
)
def test_an_unknown_page_is_a_german_html_page_with_a_way_back(
    client: TestClient, path: str, says: str
) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert says in response.text and 'href="/"' in response.text
    assert "script-src" in response.headers["content-security-policy"]


def test_the_api_still_answers_404_in_json(client: TestClient) -> None:
    for path in ("/api/runs/nope", "/api/gibt-es-nicht"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("application/json")
        assert isinstance(response.json()["detail"], str)


def judge(workspace: Path, sim: SimServer) -> None:
    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge

    execute_judge(
        workspace / "runs" / "tiny", config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge")
    )


def test_the_score_filter_takes_decimals(client: TestClient, workspace: Path, sim: SimServer):  # type: ignore[no-untyped-def]
    judge(workspace, sim)
    every = client.get("/api/runs/tiny/verdicts").json()["items"]
    response = client.get("/api/runs/tiny/verdicts", params={"min": "2.5"})
    assert response.status_code == 200, response.text
    kept = response.json()["items"]
    assert kept and {v["score"] for v in kept} == {v["score"] for v in every if v["score"] >= 2.5}
    page = client.get("/runs/tiny").text
    # The browser lets a decimal through, and knows the scale.
    assert re.search(r'name="min"[^>]*inputmode="decimal"', page) and 'max="5"' in page


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"min": "4", "max": "2"}, "„von“ (4) ist größer als „bis“ (2)"),
        ({"min": "9"}, "außerhalb der Skala 0–5"),
        ({"max": "-1"}, "außerhalb der Skala 0–5"),
    ],
)
def test_an_impossible_score_filter_is_a_german_message(
    client: TestClient, workspace: Path, sim: SimServer, params: dict[str, str], says: str
) -> None:
    judge(workspace, sim)
    # The table and its CSV download alike: never "0 Bewertungen" or a CSV of nothing.
    for url in ("/api/runs/tiny/verdicts", "/api/runs/tiny/verdicts.csv"):
        response = client.get(url, params=params)
        assert response.status_code == 422, url
        assert says in response.json()["detail"]


def test_the_judge_select_prefers_judge_yaml_as_the_cli_does(
    client: TestClient, workspace: Path
) -> None:
    (workspace / "judge.yaml").write_text((workspace / "judge-gut.yaml").read_text())
    page = client.get("/runs/tiny").text
    start = page.index('name="config"')
    select = page[start : page.index("</select>", start)]
    assert re.findall(r"<option[^>]*>([^<]*)<", select)[0] == "judge.yaml"


# -- job messages ----------------------------------------------------------------------------
KINDS = [
    "auth",
    "not_found",
    "quota",
    "connection",
    "rate_limit",
    "server",
    "bad_request",
    "refused",
    "too_large",
    "malformed",
    "unparseable",
    "timeout",
    "reasoning_only",
]


def judge_record(state: str, message: str, code: int | None) -> dict:
    return {
        "id": "20260101-000000-abcdef",
        "run": "tiny",
        "command": ["-m", "touchstone", "judge", "/w/runs/tiny", "--config", "/w/judge-gut.yaml"],
        "state": state,
        "exit_code": code,
        "message": message,
    }


@pytest.mark.parametrize("kind", KINDS)
def test_a_stopped_judge_says_what_to_click_not_what_to_type(kind: str) -> None:
    cli = "Judge abgebrochen: 2 Fehler in Folge. `touchstone judge` bewertet …"
    facts = {"ending": "judge_stopped", "cause": kind, "model": "sim-jugde", "open_cells": 3}
    events = [{"event": "aborted", "message": cli, "exit_code": 1, **facts}]
    shown = for_browser(judge_record("failed", cli, 1), job_progress(events))
    assert not CLI_WORDS.search(shown["notice"]), shown["notice"]
    assert shown["notice"].startswith("Judge abgebrochen")
    # After a 404, a refused key or a judge thinking past its deadline without one verdict
    # the same job fails the same way: no "Fortsetzen".
    hopeless = kind in ("auth", "not_found", "timeout", "reasoning_only", "other")
    assert ("Fortsetzen" in shown["notice"]) is not hopeless, shown["notice"]
    assert shown["actions"] == (["other_model"] if hopeless else ["resume", "other_model"])
    assert cli in shown["details"]  # the CLI's own words stay, behind "Details"


def test_a_cancelled_job_is_abgebrochen_with_fortsetzen() -> None:
    cli = "Beendet (SIGTERM): alles bisher Gespeicherte bleibt erhalten."
    shown = for_browser(judge_record("cancelled", cli, 143), {})
    assert shown["notice"] == (
        "Abgebrochen: alles bisher Gespeicherte bleibt erhalten. "
        "„Fortsetzen“ bewertet die offenen Zellen."
    )
    assert shown["actions"] == ["resume"]


def test_an_incomplete_run_offers_fortsetzen_instead_of_the_command() -> None:
    cli = "Run unvollständig: 3 Zellen offen. Derselbe Befehl mit --out /w/runs/tiny holt sie nach."
    facts = {
        "ending": "run_incomplete",
        "open_cells": 3,
        "run_models": ["sim-gut"],
        "left": [{"cause": "server", "calls": 3, "server_busy": False}],
    }
    events = [{"event": "aborted", "message": cli, "exit_code": 1, **facts}]
    record = {**judge_record("failed", cli, 1), "command": ["-m", "touchstone", "run"]}
    shown = for_browser(record, job_progress(events))
    assert shown["notice"] == (
        "Run unvollständig: 3 Zellen offen. 3 Aufrufe ohne Antwort – Serverfehler. "
        "„Fortsetzen“ holt die offenen Zellen nach."
    )
    assert shown["actions"] == ["resume", "open_run"]


def test_a_finished_run_job_points_to_the_run_and_the_judge() -> None:
    record = {**judge_record("done", "", 0), "command": ["-m", "touchstone", "run"]}
    assert for_browser(record, {})["actions"] == ["open_run", "judge_run"]


def test_the_api_gives_the_gui_wording_and_the_log_behind_details(client: TestClient) -> None:
    body = {"config": "judge-runaway.yaml"}
    job = client.post("/api/runs/tiny/judge", json=body, headers=ORIGIN).json()["job"]
    state = finished(client, job)
    assert state["state"] == "failed"
    assert "Judge abgebrochen" in state["notice"] and not CLI_WORDS.search(state["notice"])
    assert "other_model" in state["actions"]
    # The CLI's text and its log: the exit line it printed is there.
    assert state["message"] in state["details"]
    assert "Judge abgebrochen:" in state["details"].split(state["message"], 1)[1]
    assert state["resume"] == {
        "command": "judge",
        "config": "judge-runaway.yaml",
        "model": None,
        "rejudge": "none",
    }
    page = client.get("/runs/tiny").text
    assert "<summary>Details</summary>" in page
