"""The GUI words a job's end itself (issue 23 §5), from the facts of the CLI's events: the
cause, the model, the names the endpoint offers, the open cells. It offers the action that
helps (never "Fortsetzen" where resuming fails the same way) and keeps the CLI's text behind
"Details". Jobs here are real CLI processes against the simulator."""

import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import ORIGIN, finished, wait_for
from touchstone.gui.job_notice import for_browser
from touchstone.gui.job_state import job_progress
from touchstone.sim import SimServer

# What a browser user cannot do: type a command, a flag, read a signal's name.
CLI_WORDS = re.compile(r"`touchstone|--[a-z]|README|SIGTERM|Strg-C|Derselbe Befehl|run\.json")


def ended(client: TestClient, url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(url, json=body, headers=ORIGIN)
    assert response.status_code == 202, response.text
    job = response.json()["job"]
    state: dict[str, Any] = finished(client, job)
    assert not CLI_WORDS.search(state["notice"]), state["notice"]
    # The CLI's own words stay, behind "Details".
    assert state["message"] and state["message"] in state["details"]
    return state


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_body(sim: SimServer, **changes: Any) -> dict[str, Any]:
    body = {"name": "neu", "pack": "packs/tiny.yaml", "base_url": sim.base_url}
    return {**body, "models": ["sim-gut"], **changes}


# -- run jobs ----------------------------------------------------------------------------------


def test_a_misspelt_run_model_says_meinten_sie_and_offers_the_fix(
    client: TestClient, sim: SimServer
) -> None:
    state = ended(client, "/api/runs", run_body(sim, models=["sim-gutt"]))
    assert state["state"] == "failed"
    notice = state["notice"]
    assert "„sim-gutt“" in notice and "Meinten Sie „sim-gut“?" in notice, notice
    # The same run again would fail the same way: no "Fortsetzen", the settings instead.
    assert "Fortsetzen" not in notice and "Feld „Modelle“" in notice
    assert state["actions"] == ["edit_settings"]
    assert state["fix"] == {"field": "models", "replace": {"sim-gutt": "sim-gut"}, "extend": False}
    # The overview says it in a few words and leads to the run page, where the notice and
    # its buttons are (none of them on the overview).
    cell = last_job_cell(client)
    assert "fehlgeschlagen: Modell nicht gefunden" in " ".join(re.sub("<[^>]+>", "", cell).split())
    assert 'href="/runs/neu#jobs"' in cell and "Meinten Sie" not in cell
    # Corrected and finished: the old advice is gone from the run page (it has no field
    # „Modelle“); the old job stays, muted, with its state.
    job = client.post("/api/runs", json=run_body(sim), headers=ORIGIN).json()["job"]
    done = finished(client, job)
    assert done["state"] == "done", done
    page = client.get("/runs/neu").text
    assert "Korrigieren Sie" not in page  # the CLI's log stays behind a click
    # The run form keeps the endpoint the last job used, not the default's.
    assert f'name="base_url" size="40" value="{sim.base_url}"' in client.get("/").text
    old = re.search(r'<details class="box old-job[^>]*>(.*?)</summary>', page, re.S)
    assert old and "fehlgeschlagen: Modell nicht gefunden" in " ".join(
        re.sub("<[^>]+>", "", old[1]).split()
    )


def last_job_cell(client: TestClient, run: str = "neu") -> str:
    """The overview's last-job cell of ``run`` (the workspace's other runs may sort first
    when they were made in the same second)."""
    rows = re.findall(r"<tr>(.*?)</tr>", client.get("/").text, re.S)
    row = next((r for r in rows if f'href="/runs/{run}"' in r), "")
    found = re.search(r'<td data-testid="last-job">(.*?)</td>', row, re.S)
    assert found, f"no last job of {run} on the overview"
    return found[1]


def test_a_misspelt_model_added_to_a_run_asks_for_run_erweitern(
    client: TestClient, sim: SimServer
) -> None:
    body = run_body(sim, name="tiny", models=["sim-gut", "sim-schwach", "sim-mitel"])
    state = ended(client, "/api/runs", {**body, "variants": ["none"], "extend": True})
    assert "Meinten Sie „sim-mittel“?" in state["notice"]
    assert "„Run erweitern“" in state["notice"]
    assert state["fix"]["extend"] is True


def test_a_misspelt_model_corrected_to_one_in_the_run_needs_no_extend(
    client: TestClient, sim: SimServer
) -> None:
    body = run_body(sim, name="tippfehler", models=["sim-gut", "sim-gutt"], variants=["none"])
    state = ended(client, "/api/runs", body)
    assert "Meinten Sie „sim-gut“?" in state["notice"]
    assert "Run erweitern" not in state["notice"] and state["fix"]["extend"] is False


def test_a_run_refused_access_names_the_key_of_the_gui_not_fortsetzen(
    client: TestClient, sim: SimServer
) -> None:
    state = ended(client, "/api/runs", run_body(sim, models=["sim-401"]))
    assert "API-Schlüssel" in state["notice"] and "OPENAI_API_KEY" in state["notice"]
    assert "Fortsetzen" not in state["notice"] and "resume" not in state["actions"]


def test_a_run_without_a_server_asks_whether_it_runs_and_offers_fortsetzen(
    client: TestClient, sim: SimServer
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    state = ended(client, "/api/runs", run_body(sim, base_url=url))
    notice = state["notice"]
    assert f"Keine Verbindung zum Server unter {url}" in notice, notice
    assert "Feld „Endpunkt“" in notice and "„Fortsetzen“" in notice
    assert state["actions"][0] == "resume" and "edit_settings" in state["actions"]
    assert state["fix"] == {"field": "base_url", "replace": {}, "extend": False}


# -- judge jobs --------------------------------------------------------------------------------


def test_a_runaway_judge_says_thinking_off_and_offers_another_model(client: TestClient) -> None:
    state = ended(client, "/api/runs/tiny/judge", {"config": "judge-runaway.yaml"})
    notice = state["notice"]
    assert notice.startswith("Judge abgebrochen"), notice
    assert "Frist" in notice and "ohne Thinking/Reasoning" in notice
    # The CLI's advice by cause: thinking off; a longer deadline only lets it think longer.
    assert "„thinking: off“ in der Judge-Konfiguration „judge-runaway.yaml“ ab" in notice
    assert "call_timeout_s" not in notice and "Fortsetzen" not in notice
    assert "„Judge mit anderem Modell“ bewertet die 6 offenen Zellen" in notice
    assert state["actions"] == ["other_model"]


def _judge_stopped(cause: str, successes: int, **facts: Any) -> dict[str, Any]:
    record = {"command": ["-m", "touchstone", "judge", "r", "--config", "/w/j.yaml"]}
    end = {"cause": cause, "model": "sim-x", "base_url": "http://h/v1", "open_cells": 4, **facts}
    health = {"calls": 3, "successes": successes, "failures": {cause: 3}}
    return for_browser({**record, "state": "failed"}, {"end": end, "health": health})


@pytest.mark.parametrize("cause", ["timeout", "reasoning_only"])
def test_a_judge_thinking_without_end_is_not_offered_the_same_judge_again(cause: str) -> None:
    shown = _judge_stopped(cause, successes=0)
    assert shown["actions"] == ["other_model"], shown
    assert "mit „thinking: off“ in der Judge-Konfiguration „j.yaml“ ab" in shown["notice"]
    assert "call_timeout_s" not in shown["notice"]


def test_a_judge_that_gave_verdicts_before_its_deadline_stop_may_go_on() -> None:
    assert _judge_stopped("timeout", successes=5)["actions"] == ["resume", "other_model"]


@pytest.mark.parametrize("cause", ["rate_limit", "connection", "server"])
def test_a_busy_or_dropped_server_keeps_fortsetzen(cause: str) -> None:
    shown = _judge_stopped(cause, successes=0, server_busy=cause == "connection")
    assert shown["actions"] == ["resume", "other_model"], shown
    assert "„Fortsetzen“ bewertet die 4 offenen Zellen" in shown["notice"]


def test_a_misspelt_judge_model_says_meinten_sie_and_no_fortsetzen(client: TestClient) -> None:
    body = {"config": "judge-gut.yaml", "model": "sim-jugde"}
    state = ended(client, "/api/runs/tiny/judge", body)
    notice = state["notice"]
    assert "„sim-jugde“" in notice and "Meinten Sie „sim-judge“?" in notice, notice
    assert "Fortsetzen" not in notice and "bewertet die" not in notice
    assert state["actions"] == ["other_model"]


def test_a_judge_without_a_server_names_its_base_url(client: TestClient, workspace: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    (workspace / "judge-weg.yaml").write_text(
        f"endpoint: {{base_url: '{url}'}}\nmodel: sim-judge\ncall_timeout_s: 2\n"
    )
    state = ended(client, "/api/runs/tiny/judge", {"config": "judge-weg.yaml"})
    notice = state["notice"]
    assert f"Keine Verbindung zum Server unter {url}" in notice, notice
    assert "„Fortsetzen“ bewertet die 6 offenen Zellen" in notice
    assert state["actions"] == ["resume", "other_model"]


def test_a_judge_refused_access_says_check_the_key_not_fortsetzen(
    client: TestClient, workspace: Path, sim: SimServer
) -> None:
    (workspace / "judge-401.yaml").write_text(
        f"endpoint: {{base_url: '{sim.base_url}'}}\nmodel: sim-401\n"
    )
    state = ended(client, "/api/runs/tiny/judge", {"config": "judge-401.yaml"})
    notice = state["notice"]
    assert "API-Schlüssel" in notice and "judge-401.yaml" in notice, notice
    assert "Fortsetzen" not in notice and "resume" not in state["actions"]


def test_a_cancelled_judge_is_abgebrochen_not_sigterm(client: TestClient) -> None:
    response = client.post(
        "/api/runs/tiny/judge", json={"config": "judge-haengt.yaml"}, headers=ORIGIN
    )
    job = response.json()["job"]
    wait_for(lambda: client.get(f"/api/jobs/{job}").json()["progress"]["stage"] == "judge")
    assert client.post(f"/api/jobs/{job}/cancel", headers=ORIGIN).status_code == 200
    state = finished(client, job)
    assert state["state"] == "cancelled"
    assert state["notice"].startswith("Abgebrochen: alles bisher Gespeicherte bleibt erhalten.")
    assert "„Fortsetzen“ bewertet die offenen Zellen" in state["notice"]
    assert "SIGTERM" in state["details"] and "SIGTERM" not in state["notice"]


def test_a_judge_check_of_a_misspelt_model_fails_without_fortsetzen(client: TestClient) -> None:
    body = {"config": "judge-gut.yaml", "model": "sim-jugde"}
    state = ended(client, "/api/runs/tiny/judge-check", body)
    assert state["state"] == "failed"
    assert "Meinten Sie „sim-judge“?" in state["notice"]
    assert "Fortsetzen" not in state["notice"] and state["actions"] == ["other_model"]


def test_an_unfit_judge_is_a_finished_check_with_its_verdict_once(client: TestClient) -> None:
    state = ended(client, "/api/runs/tiny/judge-check", {"config": "judge-leichtglaeubig.yaml"})
    # The check did its work: it found the judge unfit. No failed job, no second verdict.
    assert (state["state"], state["exit_code"]) == ("done", 1)
    assert state["notice"] == ""
    assert state["progress"]["fitness"] == "unfit"
    assert state["progress"]["card"]["verdict"].startswith("ungeeignet:")
    assert state["actions"] == ["other_model"]
    page = client.get("/runs/tiny").text
    box = page[page.index(f'data-job="{state["id"]}"') :]
    box = box[: box.index("<details>")]  # the CLI's text behind "Details" says it again
    assert 'class="box done"' in page and box.count("ungeeignet") == 1, box
    assert 'class="verdict unfit"' in box


# -- events without facts (an older CLI) -------------------------------------------------------


def test_an_end_without_facts_points_to_the_details(tmp_path: Path) -> None:
    events = [{"event": "aborted", "message": "Judge abgebrochen: x. `touchstone judge` …"}]
    record = {
        "command": ["-m", "touchstone", "judge", "/w/runs/tiny"],
        "state": "failed",
        "exit_code": 1,
        "message": events[0]["message"],
    }
    shown = for_browser(record, job_progress(events))
    assert shown["notice"] == "Judge abgebrochen. Was das Programm meldet, steht unter „Details“."
    assert events[0]["message"] in shown["details"]
    assert shown["actions"] == ["resume", "other_model"]


def test_the_events_of_a_stopped_judge_carry_its_facts(workspace: Path) -> None:
    from typer.testing import CliRunner

    from touchstone.cli.app import app

    events = workspace / "e.jsonl"
    config = str(workspace / "judge-gut.yaml")
    args = ["judge", str(workspace / "runs" / "tiny"), "--config", config]
    CliRunner().invoke(app, [*args, "--model", "sim-jugde", "--events", str(events)])
    last = json.loads(events.read_text(encoding="utf-8").splitlines()[-1])
    assert last["event"] == "aborted" and last["exit_code"] == 1
    assert last["message"].startswith("Judge abgebrochen:")
    facts = (last["ending"], last["cause"], last["model"])
    assert facts == ("judge_stopped", "not_found", "sim-jugde")
    assert last["suggestions"] == ["sim-judge"] and last["open_cells"] == 6


def test_a_job_without_an_event_yet_is_starting_not_stuck_at_zero() -> None:
    assert job_progress([])["started"] is False
    assert job_progress([{"event": "start", "stage": "judge", "todo": 6}])["started"] is True
