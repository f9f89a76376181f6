"""Layout on a phone (390 px) and a desktop (1280 px), measured in headless Chromium (issue 23
design.md §5, §6): the scorecard's deciding columns, red flags and safety-critical ones included,
fit
without a sideways scroll; names and a number with its unit never break inside, in the
server's HTML and in what the page's script writes; the legends read one entry a line."""

import json
import urllib.request
from pathlib import Path

from tests.gui.gui_support import ARTIFACTS, chromium, gui_process, wait_for
from tests.gui.test_gui_phone import (
    BROKEN_JS,
    DESKTOP,
    PHONE,
    RIGHT_EDGE_JS,
    judged_workspace,
    watch,
)
from touchstone.sim import SimServer

# Text a reader must see whole, written outside a no-wrap span: a hyphenated name or id
# ("sim-judge", a job id), a number with its unit ("100 %", "2,00 s").
LOOSE_JS = r"""
(selector) => {
  const whole = /[\p{L}\p{N}_.%\/:]+(?:-[\p{L}\p{N}_.%\/:]+)+|\d[\d.,]*\s(?:%|s\b|ms\b|Tok\/s)/u;
  const loose = [];
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // A job's log (pre) is the CLI's own text, shown as it was printed.
      const kept = node.parentElement.closest(".nowrap, .name, td.num, pre");
      if (!kept && whole.test(node.textContent)) { loose.push(node.textContent); }
    }
  }
  return loose;
}
"""
PROSE = (
    "[data-job] b, [data-job] .muted, [data-job] .flag, [data-testid=agreement],"
    " [data-testid=health], [data-testid=fitness-card], #current-job"
)


def post(base: str, path: str, body: dict[str, object]) -> str:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Origin": base},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return str(json.loads(reply.read())["job"])


def finished(base: str, job: str) -> None:
    def ended() -> bool:
        with urllib.request.urlopen(f"{base}/api/jobs/{job}", timeout=10) as reply:
            return json.loads(reply.read())["state"] != "running"

    wait_for(ended, timeout=60)


def test_a_phone_shows_red_flags_and_keeps_names_and_numbers_whole(
    tmp_path: Path, sim: SimServer
) -> None:
    workdir = judged_workspace(tmp_path, sim)
    ARTIFACTS.mkdir(exist_ok=True)
    problems: list[str] = []
    with gui_process(workdir) as base, chromium() as browser:
        # A judge-check (its card says "100 %") and a rejudge (its agreement line).
        finished(base, post(base, "/api/runs/tiny/judge-check", {"config": "judge-gut.yaml"}))
        finished(
            base, post(base, "/api/runs/tiny/judge", {"config": "judge-gut.yaml", "rejudge": "all"})
        )
        for viewport, size in ((PHONE, "phone"), (DESKTOP, "desktop")):
            page = browser.new_page(viewport=viewport)
            watch(page, problems)
            for path in ("/runs/tiny", "/runs/tiny/report.html", "/", "/runs/tiny/prompts/R1"):
                page.goto(base + path)
                page.wait_for_timeout(600)
                width = viewport["width"]
                assert page.evaluate("document.documentElement.scrollWidth") <= width, path
                scored = path in ("/runs/tiny", "/runs/tiny/report.html")
                if scored:
                    # Model, mean, red flags and the safety-critical ones: no sideways scroll.
                    for header in ("Modell", "Mittel (95 %)", "⚑", "⚑ krit."):
                        right = page.evaluate(RIGHT_EDGE_JS, ["table.scorecard", header])
                        assert right is not None and right <= width, (size, path, header, right)
                    # The variant tells rows of one model apart; it is shown on a phone too.
                    variants = page.locator("table.scorecard tbody tr").first.inner_text()
                    assert "none" in variants, variants
                assert page.evaluate(BROKEN_JS, ".name, .nowrap, .matrix th") == [], (size, path)
                loose = page.evaluate(LOOSE_JS, PROSE + ", article h3, p.verdict")
                assert loose == [], (size, path, loose)
                loose = page.evaluate(LOOSE_JS, "h1 + p, p.meta")
                assert loose == [], (size, path, loose)
                # Legends: one entry a line, each whole on a desktop.
                if scored:
                    entries = page.locator("ul.legend li")
                    assert entries.count() >= 5, path
                    if size == "desktop":
                        assert page.evaluate(BROKEN_JS, "ul.legend li") == [], path
                name = path.strip("/").replace("/", "-").replace(".", "-") or "overview"
                page.screenshot(path=str(ARTIFACTS / f"layout-{size}-{name}.png"), full_page=True)
    assert problems == []
