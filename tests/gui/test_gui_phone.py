"""The GUI speaks GUI, in headless Chromium at 1280 and 390 px (issue 23 §5): job boxes offer
buttons instead of CLI commands and keep their summary, a finished run leads on to the
judge, the score filter explains itself, and a phone shows the columns that decide."""

import re
from pathlib import Path

from tests.gui.gui_support import (
    ARTIFACTS,
    chromium,
    fill_run_form,
    gui_page,
    gui_process,
    make_workspace,
)
from tests.gui.test_gui_speaks_gui import CLI_WORDS
from touchstone.sim import SimServer

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

# Elements whose text the browser laid out on more than one line.
BROKEN_JS = """
(selector) => [...document.querySelectorAll(selector)].filter((node) => {
  const range = document.createRange();
  range.selectNodeContents(node);
  const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return tops.size > 1;
}).map((node) => node.textContent)
"""
# The right edge of the header cell that reads ``text`` in the table ``selector``.
RIGHT_EDGE_JS = """
([selector, text]) => {
  const cell = [...document.querySelectorAll(`${selector} th`)].find(
    (th) => th.textContent.trim() === text);
  return cell ? cell.getBoundingClientRect().right : null;
}
"""


def watch(page, problems: list[str]) -> None:  # type: ignore[no-untyped-def]
    page.on("console", lambda m: m.type == "error" and problems.append(m.text))
    page.on("pageerror", lambda exc: problems.append(str(exc)))


def judged_workspace(tmp_path: Path, sim: SimServer) -> Path:
    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge

    workdir = make_workspace(tmp_path, sim)
    execute_judge(
        workdir / "runs" / "tiny", config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge")
    )
    return workdir


def test_a_phone_shows_the_columns_that_decide(tmp_path: Path, sim: SimServer) -> None:
    workdir = judged_workspace(tmp_path, sim)
    ARTIFACTS.mkdir(exist_ok=True)
    problems: list[str] = []
    with gui_process(workdir) as base, chromium() as browser:
        phone = browser.new_page(viewport=PHONE)
        watch(phone, problems)
        essentials = {
            "/runs/tiny": ("table.scorecard", ["Modell", "Mittel (95 %)", "⚑"]),
            "/runs/tiny/report.html": ("table.scorecard", ["Modell", "Mittel (95 %)", "⚑"]),
            "/": ("table[data-testid=runs]", ["Run", "beste Zeile (95 %) · ⚑"]),
        }
        for path, (table, headers) in essentials.items():
            phone.goto(base + path)
            phone.wait_for_timeout(300)
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390, path
            for header in headers:
                right = phone.evaluate(RIGHT_EDGE_JS, [table, header])
                assert right is not None and right <= 390, (path, header, right)
            # Names whole: "sim-schwach" never as "sim-" over "schwach".
            assert phone.evaluate(BROKEN_JS, ".name, .matrix th, .bar-label") == [], path
            shot = re.sub(r"\W+", "-", path.strip("/")) or "overview"
            phone.locator(table).first.screenshot(path=str(ARTIFACTS / f"phone-{shot}-table.png"))
        # The report's answers: the rationale as wide as the phone, not a column of 8 letters.
        phone.goto(base + "/runs/tiny/report.html")
        rationale = phone.locator("table.answers td.text").first
        box = rationale.bounding_box()
        assert box and box["width"] >= 300, box
        phone.locator("section.prompt").first.screenshot(path=str(ARTIFACTS / "phone-answers.png"))
        # The run page's scorecard scrolls to the rest with the model in view.
        phone.goto(base + "/runs/tiny")
        scroller = phone.locator("div.scroll:has(table.scorecard)")
        scroller.evaluate("(node) => { node.scrollLeft = node.scrollWidth; }")
        model = phone.locator("table.scorecard td.model").first.bounding_box()
        assert model and model["x"] >= 0, model
        scroller.screenshot(path=str(ARTIFACTS / "phone-scorecard-scrolled.png"))
        # The 404 page, on the phone and on the desktop.
        for viewport, name in ((PHONE, "phone"), (DESKTOP, "desktop")):
            page = browser.new_page(viewport=viewport)
            watch(page, problems)
            page.goto(base + "/runs/tiny/prompts/X9")
            assert page.title() == "Nicht gefunden – touchstone"
            assert "Unbekannter Prompt: X9" in page.get_by_test_id("error").inner_text()
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            page.screenshot(path=str(ARTIFACTS / f"not-found-{name}.png"))
            if name == "desktop":
                page.goto(base + "/runs/tiny/report.html")
                page.locator("section.prompt").first.screenshot(
                    path=str(ARTIFACTS / "desktop-answers.png")
                )
    # The 404 itself is a failed request in the console; nothing else may be.
    assert [p for p in problems if "404" not in p] == []


def test_job_boxes_offer_buttons_and_keep_the_summary(workspace: Path, sim: SimServer) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    with gui_page(workspace, **DESKTOP) as (base, page):
        watch(page, problems)
        page.goto(f"{base}/runs/tiny")
        page.get_by_test_id("config").select_option("judge-runaway.yaml")
        page.get_by_test_id("start-judge").click()
        box = page.locator("#current-job")
        # Before the CLI's first event: "startet …", not a stuck-looking "0 / ?".
        expect(page.get_by_test_id("job-counts")).to_have_text("startet …")
        expect(box).not_to_contain_text("Fehlerserie")
        expect(page.get_by_test_id("job-state")).to_have_text("fehlgeschlagen", timeout=20_000)
        notice = page.get_by_test_id("job-message").inner_text()
        assert "Judge abgebrochen" in notice and not CLI_WORDS.search(notice), notice
        # The CLI's words stay, behind "Details".
        details = page.get_by_test_id("job-details")
        expect(details).to_be_hidden()
        box.get_by_text("Details").click()
        expect(details).to_contain_text("Judge abgebrochen:")
        page.screenshot(path=str(ARTIFACTS / "job-failed-actions-desktop.png"), full_page=True)
        # "Judge mit anderem Modell": the form, its model field focused.
        box.get_by_role("button", name="Judge mit anderem Modell").click()
        assert page.evaluate("document.activeElement.name") == "model"
        assert page.input_value("select[name=config]") == "judge-runaway.yaml"
        # The same runaway judge again would run away again: no "Fortsetzen".
        expect(box.get_by_role("button", name="Fortsetzen")).to_have_count(0)

        # A good judge: done, the page reloads, and its summary stays in the box.
        page.get_by_test_id("config").select_option("judge-gut.yaml")
        page.get_by_test_id("start-judge").click()
        expect(page.locator("#verdicts tr[data-model]")).to_have_count(6, timeout=20_000)
        expect(page.get_by_test_id("job-state")).to_have_text("fertig")
        expect(page.get_by_test_id("job-health")).to_contain_text("Judge-Bilanz")
        page.reload()
        expect(page.get_by_test_id("job-health")).to_contain_text("Judge-Bilanz")
        expect(page.get_by_test_id("health").first).to_contain_text("Judge-Bilanz")
        page.screenshot(path=str(ARTIFACTS / "job-done-summary-desktop.png"), full_page=True)

        # A run started on the overview leads to its page and to the judge.
        page.goto(base + "/")
        fill_run_form(page, "zweiter", sim.base_url, "sim-gut", "none")
        page.get_by_test_id("start-run").click()
        expect(page.get_by_test_id("job-state")).to_have_text("fertig", timeout=30_000)
        actions = page.get_by_test_id("job-actions")
        expect(actions.get_by_role("link", name="Run ansehen")).to_have_attribute(
            "href", "/runs/zweiter"
        )
        expect(page.locator("table[data-testid=runs]")).to_contain_text("zweiter")
        page.set_viewport_size(PHONE)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=str(ARTIFACTS / "run-done-next-step-phone.png"), full_page=True)
        page.set_viewport_size(DESKTOP)
        actions.get_by_role("link", name="Judge starten").click()
        expect(page).to_have_url(f"{base}/runs/zweiter#judge")
        expect(page.locator("#judge-form input[name=model]")).to_be_focused()
    assert problems == []


def test_the_score_filter_in_the_browser(tmp_path: Path, sim: SimServer) -> None:
    from playwright.sync_api import expect

    workdir = judged_workspace(tmp_path, sim)
    problems: list[str] = []
    with gui_process(workdir) as base, chromium() as browser:
        page = browser.new_page(viewport=DESKTOP)
        watch(page, problems)
        page.goto(f"{base}/runs/tiny")
        rows = page.locator("#verdicts tbody tr")
        expect(rows).to_have_count(6)
        page.fill("#filters input[name=min]", "2.5")
        expect(page.locator("#verdict-count")).not_to_contain_text("6 Bewertungen")
        expect(page.locator("#verdict-count")).to_contain_text("Bewertungen")
        assert 0 < rows.count() < 6
        page.fill("#filters input[name=max]", "1")
        expect(page.locator("#verdict-count")).to_contain_text("größer als „bis“")
        page.fill("#filters input[name=max]", "")
        page.fill("#filters input[name=min]", "7")
        expect(page.locator("#verdict-count")).to_contain_text("außerhalb der Skala 0–5")
        page.locator("#verdict-count").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "score-filter-message.png"))
    # The page says it before asking: no refused request in the console either.
    assert problems == []
