"""The GUI's spot check (design.md §17): "Stichprobe bewerten", blind, one cell at a time,
through TestClient and in headless Chromium with the keyboard at 1280 and 390 px."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import ARTIFACTS, ORIGIN, chromium, gui_client, gui_process, job_manager
from tests.gui.test_gui_phone import DESKTOP, PHONE, watch
from tests.unit.versus.versus_support import buero_workdir, make_run
from touchstone.store.ratings import HUMAN

MODELS = {"sim-gut": 5, "sim-mittel": 3, "sim-schwach": 1}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gui-rate")
    make_run(root / "runs" / "buero", MODELS, pack=buero_workdir(root))
    return root


@pytest.fixture
def workspace(judged: Path, tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(judged, target)
    manifest = target / "runs" / "buero" / "run.json"
    manifest.write_text(manifest.read_text("utf-8").replace(str(judged), str(target)), "utf-8")
    return target


@pytest.fixture
def client(workspace: Path) -> Iterator[TestClient]:
    with gui_client(workspace, jobs=job_manager(workspace, {"PATH": ""})) as test_client:
        yield test_client


def rate_page(client: TestClient, query: str = "rater=anna&n=12") -> str:
    response = client.get(f"/runs/buero/rate?{query}")
    assert response.status_code == 200, response.text
    return response.text


def cell_of(html: str) -> str:
    return html.split('data-cell="')[1].split('"')[0]


def test_the_page_is_blind_and_saves_through_the_api(client: TestClient, workspace: Path) -> None:
    html = rate_page(client)
    assert "Zelle 1 von 12" in html and "Aufgabe" in html and "Erwartungen" in html
    # No model, variant or verdict in the page: the answer's own text aside (the simulated
    # answers name their model), nothing says whose it is.
    main = html.split("<main>")[1].split("</main>")[0]
    page = re.sub(r'<pre class="spot-answer".*?</pre>', "", main, flags=re.DOTALL)
    assert 'class="spot-answer"' in main and "Simulierte Antwort" in main
    for model in MODELS:
        assert model not in page
    assert "Simulierter Judge" not in html
    cell = cell_of(html)
    response = client.post(
        "/api/runs/buero/ratings",
        json={
            "cell": cell,
            "score": 4,
            "red_flag": True,
            "note": "knapp",
            "rater": "anna",
            "n": 12,
        },
        headers=ORIGIN,
    )
    assert response.status_code == 201, response.text
    line = json.loads((workspace / "runs" / "buero" / HUMAN).read_text("utf-8"))
    assert (line["score"], line["red_flag"], line["note"], line["rater"]) == (
        4,
        True,
        "knapp",
        "anna",
    )
    # The same cell again: no longer open; the page goes on with the next one.
    again = client.post(
        "/api/runs/buero/ratings",
        json={"cell": cell, "score": 3, "rater": "anna", "n": 12},
        headers=ORIGIN,
    )
    assert again.status_code == 409 and "nicht (mehr) offen" in again.json()["detail"]
    assert "Zelle 2 von 12" in rate_page(client)
    # A skip is no rating: the page after position 2 shows cell 3.
    assert "Zelle 3 von 12" in rate_page(client, "rater=anna&n=12&after=2")


def test_the_models_reasoning_is_there_but_collapsed(client: TestClient, workspace: Path) -> None:
    answers = workspace / "runs" / "buero" / "responses.jsonl"
    lines = [json.loads(line) for line in answers.read_text("utf-8").splitlines()]
    thought = "Erst die Frist prüfen, dann <b>rechnen</b>."
    for line in lines:
        line.update(reasoning=thought, reasoning_chars=len(thought))
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    html = rate_page(client)
    folded = html.split('<details class="spot-reasoning"')[1].split("</details>")[0]
    assert f"Reasoning des Modells ({len(thought)} Zeichen, nicht bewertet)" in folded
    assert "Erst die Frist prüfen, dann &lt;b&gt;rechnen&lt;/b&gt;." in folded
    assert " open" not in folded.split(">")[0]
    assert thought not in html.split('class="spot-answer"')[1].split("</pre>")[0]


def test_bad_ratings_are_refused_in_german(client: TestClient) -> None:
    cell = cell_of(rate_page(client))
    bad = [
        ({"cell": cell, "score": 9, "rater": "anna"}, 422, "außerhalb der Skala 0–5"),
        ({"cell": cell, "score": 2, "rater": "a\x1bb"}, 422, "Ungültiger Name"),
        ({"cell": "0" * 24, "score": 2, "rater": "anna"}, 409, "nicht (mehr) offen"),
    ]
    for body, status, text in bad:
        response = client.post("/api/runs/buero/ratings", json=body, headers=ORIGIN)
        assert response.status_code == status, response.text
        assert text in response.json()["detail"]
    assert client.post("/api/runs/buero/ratings", json=bad[0][0]).status_code == 403
    assert client.get("/runs/buero/rate?n=0").status_code == 422


def test_the_run_page_offers_the_spot_check_and_shows_the_card(
    client: TestClient, workspace: Path
) -> None:
    run_html = client.get("/runs/buero").text
    assert 'data-testid="rate-link"' in run_html and "Stichprobe bewerten" in run_html
    assert 'data-testid="human-card"' not in run_html
    for index in range(12):
        cell = cell_of(rate_page(client))
        client.post(
            "/api/runs/buero/ratings",
            json={"cell": cell, "score": index % 6, "rater": "anna", "n": 12},
            headers=ORIGIN,
        )
    done = rate_page(client)
    assert 'data-testid="spot-done"' in done and "10 weitere bewerten" in done
    run_html = client.get("/runs/buero").text
    assert 'data-testid="human-card"' in run_html and "Urteil: <b>Judge" in run_html
    # What 95 % refers to: the rows' decision for the whole card, the intervals per row.
    assert "Modelle verglichen" in run_html and "gilt zu 95 % für die ganze Karte" in run_html
    assert "95&nbsp;% je Zeile" in run_html
    report = client.get("/runs/buero/report.html").text
    assert 'data-testid="human-card"' in report
    # A hand-broken human.jsonl: named in the card's place, the scorecard still shown.
    with (workspace / "runs" / "buero" / HUMAN).open("a", encoding="utf-8") as handle:
        handle.write("kaputt\n{}\n")
    broken = client.get("/runs/buero")
    assert broken.status_code == 200
    assert "human.jsonl, Zeile 13: kein gültiges JSON" in broken.text
    assert 'data-testid="scorecard"' in broken.text


def test_the_spot_check_by_keyboard_in_chromium(workspace: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    problems: list[str] = []
    human = workspace / "runs" / "buero" / HUMAN
    with gui_process(workspace) as base, chromium() as browser:
        page = browser.new_page(viewport=DESKTOP)
        watch(page, problems)
        page.goto(base + "/runs/buero")
        page.get_by_test_id("rate-link").click()
        page.wait_for_selector("[data-testid=spot-cell]")
        assert "Zelle 1 von 30" in page.get_by_test_id("position").inner_text()
        page.screenshot(path=str(ARTIFACTS / "rate-desktop.png"), full_page=True)
        # Enter without a score: a German hint, nothing saved.
        page.keyboard.press("Enter")
        assert "Bitte zuerst eine Wertung" in page.get_by_test_id("rate-error").inner_text()
        assert not human.exists()
        # 4, red flag, Enter: saved, the next cell.
        page.keyboard.press("4")
        page.keyboard.press("f")
        assert page.get_by_test_id("red-flag").is_checked()
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert "Zelle 2 von 30" in page.get_by_test_id("position").inner_text()
        # s skips: nothing saved, cell 3.
        with page.expect_navigation():
            page.keyboard.press("s")
        assert "Zelle 3 von 30" in page.get_by_test_id("position").inner_text()
        # A note typed with digits and an f stays a note; Enter in it saves.
        page.keyboard.press("2")
        page.get_by_test_id("note").click()
        page.keyboard.type("f 5 s")
        assert not page.get_by_test_id("red-flag").is_checked()
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert "Zelle 4 von 30" in page.get_by_test_id("position").inner_text()
        lines = [json.loads(line) for line in human.read_text("utf-8").splitlines()]
        assert [(r["score"], r["red_flag"], r["note"]) for r in lines] == [
            (4, True, ""),
            (2, False, "f 5 s"),
        ]
        # The phone: no sideways scroll, tap targets a thumb can hit.
        phone = browser.new_page(viewport=PHONE)
        watch(phone, problems)
        phone.goto(base + "/runs/buero/rate")
        phone.wait_for_selector("[data-testid=spot-cell]")
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        target = phone.locator("label.score span").first.bounding_box()
        assert target and target["width"] >= 44 and target["height"] >= 44, target
        phone.locator("label.score span").nth(3).click()
        phone.screenshot(path=str(ARTIFACTS / "rate-phone.png"), full_page=True)
        with phone.expect_navigation():
            phone.get_by_test_id("save").click()
        assert len(human.read_text("utf-8").splitlines()) == 3
    assert problems == []


def test_a_truncated_last_rating_is_warned_once_per_page(
    client: TestClient, workspace: Path
) -> None:
    for _ in range(2):
        cell = cell_of(rate_page(client))
        client.post(
            "/api/runs/buero/ratings",
            json={"cell": cell, "score": 3, "rater": "anna"},
            headers=ORIGIN,
        )
    with (workspace / "runs" / "buero" / HUMAN).open("a", encoding="utf-8") as handle:
        handle.write('{"model": "sim-gut", "var')
    for _ in range(3):
        html = client.get("/runs/buero").text
        assert html.count("ist unvollständig") == 1
        assert 'data-testid="human-card"' in html
    assert "ist unvollständig" not in json.dumps(client.get("/api/runs/buero").json()["warnings"])
    assert client.get("/runs/buero/report.html").status_code == 200


def test_the_api_returns_the_card_like_scorecard_json(client: TestClient) -> None:
    assert client.get("/api/runs/buero").json()["human_agreement"] is None
    for index in range(3):
        cell = cell_of(rate_page(client))
        client.post(
            "/api/runs/buero/ratings",
            json={"cell": cell, "score": index, "rater": "anna"},
            headers=ORIGIN,
        )
    human = client.get("/api/runs/buero").json()["human_agreement"]
    assert human["n"] == 3 and human["verdict"] == "zu wenige"


# The card's rows as wide as a phone's table gets: long model names and a variant each.
LONG_NAMES = {"Qwen2.5-14B-Instruct-GGUF": 5, "Mistral-Small-24B-Instruct-2501": 3}
FITS_JS = """
(selector) => [...document.querySelectorAll(selector)].map(
  (node) => [node.scrollWidth, node.clientWidth])
"""


def test_the_card_fits_a_phone_without_sideways_scrolling(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    run = make_run(root / "runs" / "lang", LONG_NAMES, pack=buero_workdir(root))
    lines = []
    for index, answer in enumerate(
        json.loads(line) for line in (run / "responses.jsonl").read_text("utf-8").splitlines()
    ):
        cell = {key: answer[key] for key in ("model", "variant", "prompt_id", "repeat")}
        lines.append(
            {**cell, "score": index % 6, "red_flag": False, "note": "", "rater": "anna"}
            | {"rated_at": "2026-12-01T10:00:00+01:00"}
        )
    rated = [line for name in LONG_NAMES for line in lines if line["model"] == name][::2]
    (run / HUMAN).write_text("".join(json.dumps(line) + "\n" for line in rated), "utf-8")
    problems: list[str] = []
    with gui_process(root) as base, chromium() as browser:
        phone = browser.new_page(viewport=PHONE)
        watch(phone, problems)
        phone.goto(base + "/runs/lang")
        card = phone.get_by_test_id("human-card")
        card.scroll_into_view_if_needed()
        assert "Mistral-Small-24B-Instruct-2501" in card.inner_text()
        card.screenshot(path=str(ARTIFACTS / "human-card-phone.png"))
        # The rows' table needs no swipe: every figure in view, its border too.
        widths = phone.evaluate(FITS_JS, "[data-testid=human-card] .scroll")
        assert widths and all(scroll <= client for scroll, client in widths), widths
    assert problems == []


def test_a_two_digit_score_is_typed_digit_by_digit(tmp_path: Path) -> None:
    from tests.unit.scorecard.test_bias_card import write_biased_run

    run = write_biased_run(tmp_path / "ws")  # a pack on the scale 0-10
    human = run / HUMAN
    problems: list[str] = []
    with gui_process(tmp_path / "ws") as base, chromium() as browser:
        page = browser.new_page(viewport=DESKTOP)
        watch(page, problems)
        page.goto(base + "/runs/laenge/rate?rater=anna")
        page.wait_for_selector("[data-testid=spot-cell]")
        # "1" then "0" is 10, not 0.
        page.keyboard.press("1")
        page.keyboard.press("0")
        assert page.locator("input[name=score]:checked").get_attribute("value") == "10"
        with page.expect_navigation():
            page.keyboard.press("Enter")
        # A digit that makes no score with the one before starts anew: "7", "8" is 8.
        page.keyboard.press("7")
        page.keyboard.press("8")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        # A pause ends a number: "1", wait, "0" is 0.
        page.keyboard.press("1")
        page.wait_for_timeout(1500)
        page.keyboard.press("0")
        with page.expect_navigation():
            page.keyboard.press("Enter")
    scores = [json.loads(line)["score"] for line in human.read_text("utf-8").splitlines()]
    assert scores == [10, 8, 0]
    assert problems == []
