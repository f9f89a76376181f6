"""The GUI's JSON API and guards through FastAPI's TestClient; jobs are real CLI processes."""

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import (
    ORIGIN,
    PORT,
    finished,
    gui_client,
    job_manager,
    job_state,
    offline_env,
    start_job,
    wait_for,
    workspace_run,
)
from touchstone.gui.app import create_app
from touchstone.gui.jobs import JobManager
from touchstone.sim import SimServer

SECRET = "sk-test-geheim-4711"


@pytest.fixture
def client(workspace: Path) -> Iterator[TestClient]:
    jobs = job_manager(workspace, offline_env(workspace, OPENAI_API_KEY=SECRET))
    with gui_client(workspace, jobs=jobs) as test_client:
        yield test_client


def test_lists_runs_and_shows_scorecard(client: TestClient) -> None:
    runs = client.get("/api/runs").json()
    assert [(r["name"], r["cells"], r["judged"]) for r in runs] == [("tiny", 6, 0)]
    detail = client.get("/api/runs/tiny").json()
    assert {row["model"] for row in detail["scorecard"]["rows"]} == {"sim-gut", "sim-schwach"}
    assert detail["scorecard"]["rows"][0]["open"] == 3
    page = client.get("/runs/tiny")
    assert page.status_code == 200 and "Scorecard" in page.text and "judge-gut.yaml" in page.text
    assert client.get("/").status_code == 200


@pytest.mark.parametrize("name", ["nope", "..", "...", ".hidden", "tiny%2F..", "%2e%2e"])
def test_unknown_or_escaping_run_names_are_404(client: TestClient, name: str) -> None:
    assert client.get(f"/api/runs/{name}").status_code == 404


def test_foreign_host_and_missing_origin_are_forbidden(client: TestClient) -> None:
    assert client.get("/api/runs", headers={"Host": "evil.example"}).status_code == 403
    assert client.get("/api/runs", headers={"Host": f"127.0.0.1:{PORT + 1}"}).status_code == 403
    body = {"config": "judge-gut.yaml"}
    assert client.post("/api/runs/tiny/judge", json=body).status_code == 403
    evil = {"Origin": "http://evil.example"}
    assert client.post("/api/runs/tiny/judge", json=body, headers=evil).status_code == 403
    assert client.get("/api/runs", headers={"Host": f"localhost:{PORT}"}).status_code == 200


@pytest.mark.parametrize("config", ["../judge-gut.yaml", "/etc/passwd", "fehlt.yaml"])
def test_config_must_be_a_file_inside_the_working_dir(client: TestClient, config: str) -> None:
    response = client.post("/api/runs/tiny/judge", json={"config": config}, headers=ORIGIN)
    assert response.status_code == 400


def test_judge_job_sentinel_goes_from_running_to_done(client: TestClient, workspace: Path) -> None:
    response = client.post(
        "/api/runs/tiny/judge", json={"config": "judge-gut.yaml"}, headers=ORIGIN
    )
    assert response.status_code == 202
    job = response.json()["job"]
    sentinel = workspace / "runs" / "tiny" / "jobs" / f"{job}.json"
    assert json.loads(sentinel.read_text(encoding="utf-8"))["state"] in ("running", "done")
    state = finished(client, job)
    assert (state["state"], state["exit_code"]) == ("done", 0)
    assert state["progress"]["done"] == 6 and state["progress"]["health"]["calls"] == 8
    assert json.loads(sentinel.read_text(encoding="utf-8"))["state"] == "done"
    assert client.get("/api/runs").json()[0]["judged"] == 6
    assert client.get("/api/runs").json()[0]["last_job"]["state"] == "done"


def test_runaway_judge_job_fails_with_the_message(client: TestClient) -> None:
    job = start_job(client, "/api/runs/tiny/judge", "judge-runaway.yaml")
    state = finished(client, job)
    assert (state["state"], state["exit_code"]) == ("failed", 1)
    assert state["message"].startswith("Judge abgebrochen:")
    assert state["progress"]["errors"] == 2 and state["progress"]["streak"] == 2


def test_cancel_ends_a_job_as_cancelled(client: TestClient) -> None:
    job = start_job(client, "/api/runs/tiny/judge", "judge-haengt.yaml")
    wait_for(lambda: job_state(client, job)["progress"]["stage"] == "judge")
    assert client.post(f"/api/jobs/{job}/cancel", headers=ORIGIN).json() == {"cancelled": True}
    state = finished(client, job)
    assert (state["state"], state["exit_code"]) == ("cancelled", 143)


def test_job_whose_process_vanished_is_failed(client: TestClient, workspace: Path) -> None:
    jobs = workspace / "runs" / "tiny" / "jobs"
    jobs.mkdir()
    record = {
        "id": "20260101-000000-abcdef",
        "run": "tiny",
        "command": ["-m", "touchstone", "judge"],
        "state": "running",
        "exit_code": None,
        "message": "",
        "pid": 2**22 + 12345,
    }
    (jobs / "20260101-000000-abcdef.json").write_text(json.dumps(record), encoding="utf-8")
    state = job_state(client, "20260101-000000-abcdef")
    assert state["state"] == "failed" and "Prozess verschwunden" in state["message"]
    assert client.get("/api/jobs/unbekannt").status_code == 404


def test_start_a_run_job_and_no_api_key_reaches_browser_or_log(
    client: TestClient, workspace: Path, sim: SimServer
) -> None:
    body = workspace_run(sim.base_url, name="neu", models=["sim-gut"])
    response = client.post("/api/runs", json=body, headers=ORIGIN)
    assert response.status_code == 202
    state = finished(client, response.json()["job"])
    assert state["state"] == "done", state
    assert client.get("/api/runs/neu").json()["scorecard"]["rows"][0]["cells"] == 3
    assert (
        client.post("/api/runs", json={**body, "name": "../x"}, headers=ORIGIN).status_code == 400
    )
    seen = [client.get(url).text for url in ("/", "/runs/neu", "/api/runs", "/api/runs/neu")]
    seen.append(json.dumps(state))
    seen += [p.read_text(encoding="utf-8") for p in (workspace / "runs").rglob("*") if p.is_file()]
    assert not any(SECRET in text for text in seen)


# -- hostile input and jobs that tell the truth (issue 12) ------------------------------------


def test_request_bodies_over_1mb_get_413(client: TestClient) -> None:
    body = {"config": "judge-gut.yaml", "model": "x" * 2_000_000}
    response = client.post("/api/runs/tiny/judge", json=body, headers=ORIGIN)
    assert response.status_code == 413
    assert "1 MB" in response.json()["detail"]


@pytest.mark.parametrize("name", ["nl\n", "nl\r", " nl", "a/b", "-x", ".x"])
def test_run_names_must_be_ids_in_full(client: TestClient, workspace: Path, name: str) -> None:
    body = {
        "name": name,
        "pack": "packs/tiny.yaml",
        "base_url": "http://127.0.0.1:9/v1",
        "models": ["m"],
    }
    assert client.post("/api/runs", json=body, headers=ORIGIN).status_code == 400
    assert sorted(p.name for p in (workspace / "runs").iterdir()) == ["tiny"]


def test_a_failed_run_job_shows_the_cli_message_and_counts_model_errors(
    client: TestClient, sim: SimServer, workspace: Path
) -> None:
    body = workspace_run(sim.base_url, name="tippfehler", models=["sim-gut", "sim-gutt"])
    state = finished(client, client.post("/api/runs", json=body, headers=ORIGIN).json()["job"])
    assert (state["state"], state["exit_code"]) == ("failed", 1)
    assert "sim-gutt" in state["message"] and "gestoppt" in state["message"]
    assert "Exit-Code" not in state["message"]
    progress = state["progress"]
    assert progress["errors"] >= 1 and 0 <= progress["done"] <= progress["total"] == 6
    # The run's events end with the CLI's message, not only its log (a GUI restarted later
    # settles the job from them).
    (events,) = (workspace / "runs" / "tippfehler" / "jobs").glob("*.events")
    last = json.loads(events.read_text(encoding="utf-8").splitlines()[-1])
    assert last["event"] == "aborted" and last["exit_code"] == 1
    assert "sim-gutt" in last["message"]


def test_a_job_that_failed_before_run_json_existed_stays_reachable(
    client: TestClient, workspace: Path
) -> None:
    (workspace / "packs" / "kaputt.yaml").write_text("id: [\n", encoding="utf-8")
    body = {
        "name": "kaputt",
        "pack": "packs/kaputt.yaml",
        "base_url": "http://127.0.0.1:9/v1",
        "models": ["m"],
    }
    state = finished(client, client.post("/api/runs", json=body, headers=ORIGIN).json()["job"])
    assert (state["state"], state["exit_code"]) == ("failed", 2)
    assert "kein gültiges YAML" in state["message"]
    runs = {r["name"]: r for r in client.get("/api/runs").json()}
    assert runs["kaputt"]["last_job"]["state"] == "failed"
    assert "kein gültiges YAML" in runs["kaputt"]["last_job"]["message"]
    assert "kein gültiges YAML" in client.get("/").text


def test_progress_never_shows_an_impossible_count(client: TestClient, sim: SimServer) -> None:
    # The run dir "tiny" already holds 6 cells of two other models: a third extends it.
    body = {
        "name": "tiny",
        "pack": "packs/tiny.yaml",
        "base_url": sim.base_url,
        "models": ["sim-mittel"],
        "variants": ["none"],
        "extend": True,
    }
    state = finished(client, client.post("/api/runs", json=body, headers=ORIGIN).json()["job"])
    assert state["state"] == "done"
    assert (state["progress"]["done"], state["progress"]["total"]) == (3, 3)


def write_job(workspace: Path, job_id: str, events: list[dict], pid: int) -> None:
    jobs = workspace / "runs" / "tiny" / "jobs"
    jobs.mkdir(exist_ok=True)
    record = {
        "id": job_id,
        "run": "tiny",
        "command": ["-m", "touchstone", "judge"],
        "state": "running",
        "exit_code": None,
        "message": "",
        "pid": pid,
    }
    (jobs / f"{job_id}.json").write_text(json.dumps(record), encoding="utf-8")
    (jobs / f"{job_id}.events").write_text(
        "".join(json.dumps(e) + "\n" for e in events), encoding="utf-8"
    )


@pytest.mark.parametrize(
    ("last", "state", "words"),
    [
        ({"event": "done", "stage": "judge", "health": {"cells_left": 0}}, "done", ""),
        (
            {"event": "aborted", "message": "Beendet (SIGTERM): x", "exit_code": 143},
            "cancelled",
            "SIGTERM",
        ),
        (
            {"event": "aborted", "message": "Judge abgebrochen: 3 in Folge", "exit_code": 1},
            "failed",
            "Judge abgebrochen",
        ),
    ],
)
def test_a_job_that_ended_while_the_gui_was_down_reads_its_events(
    client: TestClient, workspace: Path, last: dict, state: str, words: str
) -> None:
    start = {"event": "start", "stage": "judge", "total": 6, "todo": 6}
    write_job(workspace, "20260101-000000-abcdef", [start, last], pid=2**22 + 12345)
    job = job_state(client, "20260101-000000-abcdef")
    assert job["state"] == state and words in job["message"]
    assert "verschwunden" not in job["message"]


@pytest.mark.parametrize("relative", [False, True], ids=["absolute", "relative-runs-dir"])
def test_a_job_still_running_after_a_gui_restart_can_be_cancelled(
    workspace: Path, client: TestClient, monkeypatch: pytest.MonkeyPatch, relative: bool
) -> None:
    job = start_job(client, "/api/runs/tiny/judge", "judge-haengt.yaml")
    wait_for(lambda: job_state(client, job)["progress"]["stage"] == "judge")
    env = {"PATH": "", "TOUCHSTONE_CACHE_DIR": str(workspace / "cache")}
    # `touchstone gui` is started with the default `--runs-dir runs`, relative to its cwd.
    monkeypatch.chdir(workspace)
    runs = Path("runs") if relative else workspace / "runs"
    restarted = create_app(
        runs, workdir=workspace, port=PORT, jobs=JobManager(runs, workspace, child_env=env)
    )
    with TestClient(restarted, base_url=f"http://127.0.0.1:{PORT}") as again:
        assert again.get(f"/api/jobs/{job}").json()["state"] == "running"
        assert again.post(f"/api/jobs/{job}/cancel", headers=ORIGIN).json() == {"cancelled": True}
        state = finished(again, job)
    assert (state["state"], state["exit_code"]) == ("cancelled", 143)


def test_a_tampered_run_json_is_a_422_with_the_message(client: TestClient, workspace: Path) -> None:
    manifest = workspace / "runs" / "tiny" / "run.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps({**data, "repeats": "abc"}), encoding="utf-8")
    response = client.get("/api/runs/tiny")
    assert response.status_code == 422 and "„repeats“" in response.json()["detail"]
    assert client.get("/runs/tiny").status_code == 422
    assert "„repeats“" in client.get("/api/runs").json()[0]["error"]


def test_credentials_in_a_base_url_stay_out_of_job_files_and_api(
    client: TestClient, workspace: Path, sim: SimServer
) -> None:
    url = sim.base_url.replace("http://", "http://nutzer:GEHEIM-0815@")
    body = {
        "name": "mitkey",
        "pack": "packs/tiny.yaml",
        "base_url": url,
        "models": ["sim-gut"],
        "variants": ["none"],
    }
    state = finished(client, client.post("/api/runs", json=body, headers=ORIGIN).json()["job"])
    assert state["state"] == "done", state
    seen = [client.get(u).text for u in ("/", "/runs/mitkey", "/api/runs", "/api/runs/mitkey")]
    seen += [p.read_text(encoding="utf-8") for p in (workspace / "runs").rglob("*") if p.is_file()]
    assert not any("GEHEIM" in text for text in seen)


# -- answers you can read side by side (issue 14) ---------------------------------------------


@pytest.fixture
def judged(client: TestClient) -> TestClient:
    job = start_job(client, "/api/runs/tiny/judge", "judge-gut.yaml")
    assert finished(client, job)["state"] == "done"
    return client


def test_the_run_api_pages_verdicts_instead_of_inlining_them(judged: TestClient) -> None:
    detail = judged.get("/api/runs/tiny").json()
    assert "verdicts" not in detail and detail["verdict_count"] == 6
    row = detail["scorecard"]["rows"][0]
    assert row["ci_low"] <= row["mean"] <= row["ci_high"] and row["rank"] == 1
    assert detail["scorecard"]["comparisons"][0]["better"] == "a"  # sim-gut beats sim-schwach
    page = judged.get("/api/runs/tiny/verdicts", params={"limit": 4}).json()
    assert (page["total"], len(page["items"]), page["offset"]) == (6, 4, 0)


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"model": "sim-gut"}, 3),
        ({"category": "S"}, 2),
        ({"min": 3}, 3),
        ({"max": 2, "model": "sim-schwach"}, 3),
        ({"unscored": "true"}, 0),
        ({"q": "Qualitätsstufe 5/5"}, 3),
        ({"q": "gibt es nicht"}, 0),
    ],
)
def test_verdict_filters(judged: TestClient, params: dict, expected: int) -> None:
    assert judged.get("/api/runs/tiny/verdicts", params=params).json()["total"] == expected


def test_verdicts_sort_by_any_column_and_bad_filters_are_422(judged: TestClient) -> None:
    scores = [
        item["score"]
        for item in judged.get(
            "/api/runs/tiny/verdicts", params={"sort": "score", "order": "desc"}
        ).json()["items"]
    ]
    assert scores == sorted(scores, reverse=True)
    prompts = judged.get("/api/runs/tiny/verdicts", params={"sort": "prompt_id"}).json()["items"]
    assert [i["prompt_id"] for i in prompts] == sorted(i["prompt_id"] for i in prompts)
    assert judged.get("/api/runs/tiny/verdicts", params={"sort": "rationale__"}).status_code == 422
    assert judged.get("/api/runs/tiny/verdicts", params={"limit": 100000}).status_code == 422


def test_a_prompt_with_its_rubric_and_every_answer(judged: TestClient) -> None:
    detail = judged.get("/api/runs/tiny/prompts/S1").json()
    assert detail["prompt"]["text"] == "Neue IBAN per Mail – was tun?"
    assert (
        detail["prompt"]["red_flags"] == ["ändert die IBAN"] and detail["prompt"]["safety_critical"]
    )
    assert [(a["model"], a["repeat"]) for a in detail["answers"]] == [
        ("sim-gut", 1),
        ("sim-schwach", 1),
    ]
    assert all(
        a["answer"].startswith("Simulierte Antwort") and a["verdict"] for a in detail["answers"]
    )
    assert judged.get("/api/runs/tiny/prompts/X9").status_code == 404
    page = judged.get("/runs/tiny/prompts/S1")
    assert page.status_code == 200 and "ändert die IBAN" in page.text


def test_verdicts_export_as_csv_with_their_answers(judged: TestClient) -> None:
    import csv
    import io

    response = judged.get("/api/runs/tiny/verdicts.csv")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    text = response.content.decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text, newline=""), delimiter=";"))
    assert len(rows) == 6 and all(r["Antwort"].startswith("Simulierte Antwort") for r in rows)


def test_the_overview_shows_date_best_row_cells_and_report(
    judged: TestClient, workspace: Path
) -> None:
    (summary,) = judged.get("/api/runs").json()
    assert summary["created_at"] and (summary["cells"], summary["expected"]) == (6, 6)
    assert summary["best"]["model"] == "sim-gut"
    assert summary["best"]["ci_low"] <= summary["best"]["mean"] <= summary["best"]["ci_high"]
    # No report.html written yet: the link shows the run's report as it is now, rendered
    # for the request (the GUI writes nothing into a run dir).
    run = workspace / "runs" / "tiny"
    assert summary["report"] is False
    rendered = judged.get("/runs/tiny/report.html")
    assert rendered.status_code == 200 and "touchstone-Bericht" in rendered.text
    assert "sim-gut" in rendered.text and not (run / "report.html").exists()
    from touchstone.stages.view import load_run, write_report

    view = load_run(run)
    write_report(view, view.scorecard())
    (run / "report.html").write_text(
        (run / "report.html").read_text(encoding="utf-8") + "<!-- written -->", encoding="utf-8"
    )
    assert judged.get("/api/runs").json()[0]["report"] is True
    # A written, current report.html is still not served: the file may be anyone's
    # (test_gui_hostile.py); the link shows the same report, rendered.
    report = judged.get("/runs/tiny/report.html")
    assert report.status_code == 200 and "<!-- written -->" not in report.text
    assert report.text == rendered.text
    # New verdicts make the written report stale.
    later = (run / "report.html").stat().st_mtime_ns + 10**9
    os.utime(run / "judgements.jsonl", ns=(later, later))
    assert judged.get("/api/runs").json()[0]["report"] is False


def test_the_overview_reads_the_same_from_scorecard_json_as_from_the_run(
    judged: TestClient, workspace: Path
) -> None:
    run = workspace / "runs" / "tiny"
    assert (run / "scorecard.json").is_file(), "the judge stage writes scorecard.json"
    (from_card,) = judged.get("/api/runs").json()
    (run / "scorecard.json").unlink()
    (from_run,) = judged.get("/api/runs").json()
    assert from_card == from_run and from_card["judged"] == 6


def test_an_overview_after_new_answers_counts_them(judged: TestClient, workspace: Path) -> None:
    responses = workspace / "runs" / "tiny" / "responses.jsonl"
    lines = responses.read_text(encoding="utf-8").splitlines(keepends=True)
    extra = json.loads(lines[0]) | {"repeat": 2}
    responses.write_text("".join(lines) + json.dumps(extra) + "\n", encoding="utf-8")
    (summary,) = judged.get("/api/runs").json()
    assert (summary["cells"], summary["judged"]) == (7, 6)


# -- judge check and agreement (issue 15) ------------------------------------------------------


def test_a_judge_check_job_shows_its_card(client: TestClient) -> None:
    job = start_job(client, "/api/runs/tiny/judge-check", "judge-gut.yaml")
    state = finished(client, job)
    assert (state["state"], state["exit_code"]) == ("done", 0)
    card = state["progress"]["card"]
    assert card["suitable"] is True and card["verdict"] == "geeignet"
    assert card["judge_model"] == "sim-judge" and len(card["criteria"]) == 10
    # The check writes no verdict: the run is still unjudged.
    assert client.get("/api/runs").json()[0]["judged"] == 0


def test_a_gullible_judge_ends_its_check_job_with_the_reasons(client: TestClient) -> None:
    job = start_job(client, "/api/runs/tiny/judge-check", "judge-leichtglaeubig.yaml")
    state = finished(client, job)
    # The check did its work (exit 1 says "unfit" to a script): a finished job with a verdict.
    assert (state["state"], state["exit_code"]) == ("done", 1)
    assert state["message"].startswith("Judge-Check: ungeeignet:")
    assert "Nicht-Antworten" in state["message"]
    card = state["progress"]["card"]
    assert card["suitable"] is False
    assert {c["name"].split(" (")[0] for c in card["criteria"] if c["passed"] is False} == {
        "Gegenbeispiele niedrig",
        "Gegenbeispiele mit Warnsignal",
        "Nicht-Antworten unten",
        "Eingeschleuste Anweisungen abgewehrt",
    }
    page = client.get("/runs/tiny")
    assert "Judge prüfen" in page.text and "Urteil: ungeeignet" in page.text


def test_rejudging_all_from_the_gui_shows_the_agreement(judged: TestClient) -> None:
    body = {"config": "judge-gut.yaml", "model": "sim-constant", "rejudge": "all"}
    job = judged.post("/api/runs/tiny/judge", json=body, headers=ORIGIN).json()["job"]
    state = finished(judged, job)
    assert state["state"] == "done", state["message"]
    assert "--rejudge" in state["command"]
    agreement = state["progress"]["agreement"]
    assert agreement.startswith("Übereinstimmung mit dem bisherigen Judge (sim-judge) auf 6 ")
    assert agreement in judged.get("/runs/tiny").text


def test_rejudge_takes_only_known_choices(client: TestClient) -> None:
    body = {"config": "judge-gut.yaml", "rejudge": "alles"}
    assert client.post("/api/runs/tiny/judge", json=body, headers=ORIGIN).status_code == 422


def test_the_judge_select_keeps_the_last_choice_and_leaves_out_the_example(
    client: TestClient, workspace: Path
) -> None:
    (workspace / "judge.example.yaml").write_text("model: m\n", encoding="utf-8")

    def options() -> list[str]:
        page = client.get("/runs/tiny").text
        select = page[
            page.index('name="config"') : page.index("</select>", page.index('name="config"'))
        ]
        return [part.split("<", 1)[0] for part in select.split("<option>")[1:]]

    assert options()[0] == "judge-gut.yaml" and "judge.example.yaml" not in options()
    body = {"config": "judge-leichtglaeubig.yaml"}
    job = client.post("/api/runs/tiny/judge-check", json=body, headers=ORIGIN).json()["job"]
    finished(client, job)
    # After a reload the select offers the judge the user just picked first.
    assert options()[0] == "judge-leichtglaeubig.yaml"
    assert sorted(options()) == sorted(p.name for p in workspace.glob("judge-*.yaml"))


def test_a_judge_job_shows_its_calls_in_flight(client: TestClient, workspace: Path) -> None:
    # The job box of a judge whose calls hang says they run and for how long, before the
    # deadline (2 s) ends them, instead of "0 / 2 · Fehler: 0" for the whole wait.
    config = workspace / "judge-haengt-kurz.yaml"
    config.write_text(
        (workspace / "judge-haengt.yaml")
        .read_text(encoding="utf-8")
        .replace("call_timeout_s: 30", "call_timeout_s: 2\nconcurrency: 2"),
        encoding="utf-8",
    )
    job = client.post("/api/runs/tiny/judge", json={"config": config.name}, headers=ORIGIN).json()[
        "job"
    ]
    running = wait_for(lambda: (s := job_state(client, job))["progress"]["in_flight"] and s)
    assert running["state"] == "running"
    assert running["progress"]["in_flight"].startswith("2 Aufrufe laufen, ältester seit ")
    assert running["progress"]["in_flight"].endswith("(Frist 2\u00a0s)")
    client.post(f"/api/jobs/{job}/cancel", headers=ORIGIN)
    assert finished(client, job)["progress"]["in_flight"] == ""


def test_job_ids_sort_by_creation_within_one_second() -> None:
    # The run page lists a run's jobs newest first by id; ids of whole seconds sorted two
    # jobs of one second by their random part (an old failed job's advice shown on top).
    from touchstone.gui.jobs import new_job_id

    ids = [new_job_id() for _ in range(50)]
    assert ids == sorted(ids)
