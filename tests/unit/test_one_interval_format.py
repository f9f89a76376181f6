"""One interval format everywhere (issue 36): "[2,32 – 2,72]" beside "0 %–60 %", "+0,6 bis +2,4"
and "(95 %: 0,10–0,50)". Every interval a user reads is its value, then its bounds in brackets
with a spaced en dash ("[-0,33 – -0,16]": the bounds' minus signs never touch the dash), as
``german.bounds`` writes them; and one row label, "model · variant", as the scorecard, compare
and the GUI write a row (the spot check wrote "sim-gut (none)")."""

from __future__ import annotations

import io
import re

from rich.console import Console

from tests.unit.spot.test_human import rating, verdict
from touchstone.pack import Scale
from touchstone.quality.length import LengthEffect
from touchstone.spot.agreement import human_agreement
from touchstone.spot.card import card_view, render_human_card
from touchstone.stats.intervals import Interval
from touchstone.versus.gate import diff_text

NUMBER = r"[-+]?\d[\d.]*(?:,\d+)?(?: %)?"
# Anything that reads as the bounds of an interval: "0 %–60 %", "0,6 bis +2,4", "[a – b]".
BOUNDS_LIKE = re.compile(rf"{NUMBER}\s*(?:–|bis)\s*{NUMBER}")
ONE_FORMAT = re.compile(rf"\[{NUMBER} – {NUMBER}\]")


def assert_one_format(text: str) -> None:
    """Every pair of bounds in ``text`` stands as ``[low – high]``."""
    found = [m for m in BOUNDS_LIKE.finditer(text)]
    assert found, text
    for match in found:
        start, end = match.span()
        assert ONE_FORMAT.fullmatch(text[start - 1 : end + 1]), (match.group(), text)


def spot_card():  # type: ignore[no-untyped-def]
    verdicts, ratings = [], []
    for i in range(40):
        v = verdict(
            ("alpha", "beta")[i % 2], f"p{i}", 1 + (i * 7) % 5, variant=("a", "b")[i % 4 // 2]
        )
        verdicts.append(v)
        ratings.append(rating(v, 1 + (i * 3) % 5))
    card = human_agreement(ratings, verdicts, Scale(min=0, max=5))
    assert card is not None
    return card


def test_the_spot_checks_card_writes_its_intervals_and_rows_as_the_scorecard_does() -> None:
    card = spot_card()
    console = Console(width=300, record=True, file=io.StringIO())
    console.print(render_human_card(card))
    terminal = console.export_text()
    assert_one_format(terminal)
    view = card_view(card)
    figures = " · ".join(value for _, value in view["figures"])  # type: ignore[attr-defined]
    assert_one_format(figures)
    labels = [line.label for line in view["rows"]]  # type: ignore[attr-defined]
    assert labels == ["alpha · a", "alpha · b", "beta · a", "beta · b"], labels


def test_the_length_effect_writes_its_interval_as_the_scorecard_does() -> None:
    for low, high in ((0.1, 0.5), (-0.2, 0.1)):
        summary = LengthEffect(0.3, low, high, prompts=8, cells=96, adjusted={}).summary_de()
        assert_one_format(summary)
    effect = LengthEffect(-0.05, -0.2, 0.1, prompts=8, cells=96, adjusted={})
    assert "[-0,20 – +0,10]" in effect.summary_de()


def test_the_gates_difference_is_written_like_any_interval() -> None:
    assert diff_text(Interval(mean=-0.85, low=-1.2, high=-0.6, n=9)) == "-0,85 [-1,20 – -0,60]"
    assert diff_text(Interval(mean=0.0, low=-0.16, high=0.16, n=9)) == "+0,00 ±0,16"
