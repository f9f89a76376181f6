"""A jury-judged run on a phone (issue 36): the run page and the prompt page do not scroll
sideways (a no-wrap "Jury (sim-judge, sim-picky, …)" made them 524 and 581 px wide at 390),
the overview's "6 / 6" stays on one line and its best row "sim-gut · knapp:" too; at 1280 px
as well. Screenshots in tests/artifacts/phone-jury-*.png."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_on_sim
from tests.gui.gui_support import ARTIFACTS, chromium, gui_process, make_workspace
from tests.gui.test_gui_phone import BROKEN_JS, DESKTOP, PHONE, watch
from tests.unit.jury.test_jury_agreement_after_judge import judged_by
from touchstone.sim import SimServer

JURY = ("sim-judge", "sim-picky", "sim-plaintext", "sim-strict", "sim-gullible")
PAGES = ("/", "/runs/varianten", "/runs/varianten/prompts/R1")


def test_a_jury_run_fits_a_phone_and_keeps_its_labels_whole(tmp_path: Path, sim: SimServer) -> None:
    root = make_workspace(tmp_path, sim)
    run = root / "runs" / "varianten"
    pack = root / "packs" / "tiny.yaml"
    run_on_sim(sim, pack_path=pack, models=["sim-gut", "sim-schwach"], variants=["knapp"], out=run)
    judged_by(sim, run, *JURY)
    ARTIFACTS.mkdir(exist_ok=True)
    problems: list[str] = []
    with gui_process(root) as base, chromium() as browser:
        for viewport in (PHONE, DESKTOP):
            page = browser.new_page(viewport=viewport)
            watch(page, problems)
            width = viewport["width"]
            for path in PAGES:
                page.goto(base + path)
                page.wait_for_timeout(600)
                assert page.evaluate("document.documentElement.scrollWidth") <= width, path
                name = path.strip("/").replace("/", "-") or "overview"
                page.screenshot(path=str(ARTIFACTS / f"phone-jury-{width}-{name}.png"))
                if path == "/":
                    counts = "table[data-testid=runs] td.num, .row-label"
                    assert page.locator(".row-label").count() == 1
                    assert page.evaluate(BROKEN_JS, counts) == [], width
                else:
                    # Each member's name whole where the jury's name wraps.
                    assert page.evaluate(BROKEN_JS, ".judge-name .nowrap") == [], (width, path)
    assert problems == []
