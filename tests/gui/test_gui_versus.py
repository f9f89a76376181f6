"""Compare in the GUI (issue 26 §3): "Vergleichen mit …" on the run page, a page with its own
URL and the CLI's table and intervals, in German, on a desktop and a phone.

The runs' truth is known (tests/versus_support.py): in "neu" one model is made worse, one is
unchanged, one slightly worse; "umbenannt" has a renamed model; "anderer-judge" was judged
by another judge; "anderes-paket" belongs to another pack.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.gui_support import ARTIFACTS, chromium, gui_client, gui_process, job_manager
from tests.gui.test_gui_phone import PHONE, RIGHT_EDGE_JS, watch
from tests.unit.versus.versus_support import (
    BASELINE,
    BUERO,
    BUERO65,
    buero_workdir,
    every_fourth_worse,
    make_run,
    noise_runs,
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gui-versus")
    pack = buero_workdir(root)
    other = root / "packs" / "anders.yaml"
    other.write_text(
        BUERO.read_text(encoding="utf-8").replace("id: buero", "id: anders", 1), encoding="utf-8"
    )
    runs = root / "runs"
    make_run(runs / "basis", BASELINE, pack=pack)
    make_run(
        runs / "neu",
        {"stabil": 5, "verschlechtert": 3, "leicht": every_fourth_worse},
        pack=pack,
    )
    make_run(runs / "umbenannt", {"stabil-neu": 5, "leicht": 5}, pack=pack)
    make_run(runs / "anderer-judge", BASELINE, pack=pack, judge="anderer-judge")
    make_run(runs / "anderes-paket", BASELINE, pack=other)
    # Noise only, buero's 65 prompts and 6 rows (seed 7, as
    # tests/unit/versus/test_versus_family.py): in sim-mittel · none the category
    # "Kaufmännisches Rechnen" lies above 0 at 95 % alone.
    full = root / "packs" / "buero-voll.yaml"
    full.write_text(
        BUERO65.read_text(encoding="utf-8").replace("id: buero", "id: buero-voll", 1),
        encoding="utf-8",
    )
    noise_runs(7, full, runs / "rauschen-neu", runs / "rauschen-alt")
    # Answered, not yet judged: nothing to compare.
    shutil.copytree(runs / "basis", runs / "unbewertet", ignore=shutil.ignore_patterns("jobs"))
    (runs / "unbewertet" / "judgements.jsonl").write_text("", encoding="utf-8")
    return root


@pytest.fixture
def client(workdir: Path) -> Iterator[TestClient]:
    with gui_client(workdir, jobs=job_manager(workdir, {"PATH": ""})) as test_client:
        yield test_client


def test_the_run_page_offers_the_other_runs_of_its_pack(client: TestClient) -> None:
    page = client.get("/runs/neu").text
    form = page[page.index('data-testid="compare-form"') :]
    form = form[: form.index("</form>")]
    assert "Vergleichen mit …" in form
    options = re.findall(r"<option([^>]*)>([^<]*)</option>", form)
    offered = {name for attrs, name in options if "disabled" not in attrs}
    assert {"basis", "umbenannt", "anderer-judge"} <= offered
    assert "anderes-paket" not in form and ">neu<" not in form
    # A run without verdicts would end in a 422: listed, not chosen, and why.
    assert 'disabled value="unbewertet">unbewertet (noch keine Bewertungen)<' in form
    assert form.index("unbewertet") > max(form.index(name) for name in offered)
    # A run without verdicts offers no comparison at all.
    assert 'data-testid="compare-form"' not in client.get("/runs/unbewertet").text
    chosen = client.get("/runs/neu/compare", params={"baseline": "basis"}, follow_redirects=False)
    assert chosen.status_code == 303 and chosen.headers["location"] == "/runs/neu/compare/basis"


def test_the_comparison_page_has_the_cli_s_table_and_intervals(client: TestClient) -> None:
    reply = client.get("/runs/neu/compare/basis")
    assert reply.status_code == 200
    page = reply.text
    assert "<title>Vergleich neu gegen basis – touchstone</title>" in page
    api = client.get("/api/runs/neu/compare/basis").json()
    rows = {row["new"][0]: row for row in api["rows"]}
    assert rows["verschlechtert"]["better"] == "baseline" and rows["stabil"]["better"] is None
    assert {"excluded_prompts", "judges_differ"} <= set(api) and api["judges_differ"] is False
    worse = rows["verschlechtert"]
    # The same numbers as the CLI's JSON, German on the page.
    low, high = (f"{v:+.2f}".replace(".", ",") for v in (worse["ci_low"], worse["ci_high"]))
    assert f"[{low} – {high}]" in page
    table = page[page.index('data-testid="versus"') :]
    table = table[: table.index("</table>")]
    assert table.count("<tr>") == 4 and "schlechter" in table and "nicht unterscheidbar" in table
    # The worse model's mean went from about 4,7 to 2 or 3 (what the simulator reads back).
    assert re.search(r"4,\d\d → [23],\d\d", table), table
    assert 'data-testid="versus-categories"' in page and "Kaufmännisches Rechnen" in page
    assert "judges-differ" not in page


def test_categories_are_marked_over_their_row_as_the_cli_marks_them(client: TestClient) -> None:
    """Issue 33 §3: a category whose own 95 % interval lies above 0 in an unchanged row is
    not marked ▲ (decided over the row's 8 categories, Bonferroni); the page says so."""
    reply = client.get("/runs/rauschen-neu/compare/rauschen-alt")
    assert reply.status_code == 200, reply.text
    page = reply.text
    api = client.get("/api/runs/rauschen-neu/compare/rauschen-alt").json()
    row = next(r for r in api["rows"] if r["new"] == ["sim-mittel", "none"])
    alone = row["categories"]["C"]
    assert alone["ci_low"] > 0 and alone["better"] is None
    table = page[page.index('data-testid="versus-categories"') :]
    table = table[: table.index("</table>")]
    assert "▲" not in table and "▼" not in table
    low, high = (f"{v:+.2f}".replace(".", ",") for v in (alone["ci_low"], alone["ci_high"]))
    assert f"[{low} – {high}]" in table
    rule = page[page.index('data-testid="category-rule"') :]
    rule = " ".join(rule[: rule.index("</p>")].split())
    assert "95 % je Kategorie, explorativ" in rule
    assert "Bonferroni über die Kategorien der Zeile: bei 8 Kategorien 99,4-%-Intervalle" in rule


def test_different_judges_say_so_in_gui_words(client: TestClient) -> None:
    page = client.get("/runs/neu/compare/anderer-judge").text
    note = page[page.index('data-testid="judges-differ"') :]
    note = note[: note.index("</p>")]
    assert "verschiedene Judges" in note and "anderer-judge" in note
    assert "„alle neu“ bewerten" in note and "im Baseline-Run selbst" in note
    assert "touchstone judge" not in note and "--" not in note


def test_a_renamed_model_is_paired_in_the_page(client: TestClient) -> None:
    page = client.get("/runs/umbenannt/compare/basis").text
    assert "Ohne Gegenstück" in page and 'data-testid="pair-form"' in page
    assert '<option value="stabil-neu=stabil" selected>' in page
    paired = client.get("/runs/umbenannt/compare/basis", params={"pair": "stabil-neu=stabil"})
    assert paired.status_code == 200 and "(vorher <span" in paired.text
    assert "im neuen Run stabil-neu" in page and "im neuen Run" not in paired.text
    assert "in der Baseline verschlechtert · none" in paired.text


def test_bad_input_is_said_on_the_page(client: TestClient) -> None:
    unknown = client.get("/runs/neu/compare/gibt-es-nicht")
    assert unknown.status_code == 404
    nothing = client.get("/runs/umbenannt/compare/basis", params={"pair": "stabil-neu=weg"})
    assert nothing.status_code == 422 and "kein Modell „weg“ in der Baseline" in nothing.text
    api = client.get("/api/runs/umbenannt/compare/basis", params={"pair": "stabil-neu=weg"})
    assert api.status_code == 422 and "weg" in api.json()["detail"]


def test_in_the_browser_at_1280_and_390(workdir: Path) -> None:
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    problems: list[str] = []
    with gui_process(workdir) as base, chromium() as browser:
        desktop = browser.new_page(viewport={"width": 1280, "height": 900})
        watch(desktop, problems)
        desktop.goto(f"{base}/runs/neu")
        desktop.get_by_test_id("baseline").select_option("anderer-judge")
        desktop.get_by_test_id("compare-form").get_by_role("button").click()
        desktop.wait_for_url(f"{base}/runs/neu/compare/anderer-judge")
        expect(desktop.get_by_test_id("judges-differ")).to_contain_text("verschiedene Judges")
        desktop.goto(f"{base}/runs/neu/compare/basis")
        expect(desktop.get_by_test_id("versus")).to_contain_text("schlechter")
        desktop.screenshot(path=str(ARTIFACTS / "compare-desktop.png"), full_page=True)
        phone = browser.new_page(viewport=PHONE)
        watch(phone, problems)
        phone.goto(f"{base}/runs/neu/compare/basis")
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        # Name, difference and verdict in view; the rest scrolls.
        for header in ("Modell · Variante", "neu − Baseline (95 %)", "Urteil"):
            right = phone.evaluate(RIGHT_EDGE_JS, ["table.versus", header])
            assert right is not None and right <= PHONE["width"], (header, right)
        phone.screenshot(path=str(ARTIFACTS / "compare-phone.png"), full_page=True)
    assert problems == []
