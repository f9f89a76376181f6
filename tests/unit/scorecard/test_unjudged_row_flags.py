"""A row with nothing judged (0/27) shows "–" for its red flags, not "⚑ 0" (issue 36): a count
of nothing reads as a result ("no red flags"), as compare's rows did before issue 35. The
terminal scorecard and the report's table (the GUI's run page shares it) say the same."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from tests.unit.versus.test_gate_unjudged import keep_verdicts
from tests.unit.versus.versus_support import make_run
from touchstone.scorecard.terminal import render_run_scorecard
from touchstone.stages.view import RunView, load_run, report_html


@pytest.fixture(scope="module")
def half_judged(tmp_path_factory: pytest.TempPathFactory) -> RunView:
    root = tmp_path_factory.mktemp("unjudged-row")
    judged = make_run(root / "judged", {"geprueft": 1, "wartet": 5})
    return load_run(keep_verdicts(judged, root / "half", "wartet", keep=0))


def test_the_terminal_row_without_verdicts_shows_no_count_of_red_flags(
    half_judged: RunView,
) -> None:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(render_run_scorecard(half_judged.pack, half_judged.scorecard()))
    lines = console.export_text().splitlines()
    (unjudged,) = [line for line in lines if re.search(r"\bwartet\b.*\b0/27\b", line)]
    (judged,) = [line for line in lines if re.search(r"\bgeprueft\b.*\b27/27\b", line)]
    # After n/N: the mean, then ⚑ and ⚑ krit.; the open cells stay a count (27).
    assert unjudged.split("0/27", 1)[1].split()[:4] == ["–", "–", "–", "27"], unjudged
    assert judged.split("27/27", 1)[1].split()[2:4] == ["5", "1"], judged


def test_the_report_row_without_verdicts_shows_no_count_of_red_flags(
    half_judged: RunView,
) -> None:
    html = report_html(half_judged, half_judged.scorecard())
    table = html[html.index('<table class="scorecard"') :]
    table = table[: table.index("</table>")]
    (row,) = [r for r in table.split("<tr>") if ">wartet<" in r]
    flags = re.findall(r'<td class="num[^"]*">([^<]*)</td>', row)
    # rank, ⚑, ⚑ krit. (the mean is bold, the count has its own markup)
    assert flags[:3] == ["–", "–", "–"], row
