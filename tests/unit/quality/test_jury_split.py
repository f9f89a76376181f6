"""When a jury is "uneinig" (docs/jury.md): its α interval lies below 0,4, or its members
contradict each other (a fifth or more of the cells they share are disputed)."""

from rich.console import Console

from tests.unit.quality.test_jury_card import GEMMA, QWEN, Member
from touchstone.quality.jury_build import build_jury_card
from touchstone.quality.jury_card import JuryCard, JuryLines, MemberKey
from touchstone.results import VerdictKey

PAIRS = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (1, 1), (4, 4), (2, 2), (3, 3)]


def card_of(pairs: list[tuple[int, int]]) -> JuryCard:
    cells: dict[VerdictKey, dict[MemberKey, float]] = {
        VerdictKey("m", "base", f"P{i}", 1): {QWEN: float(a), GEMMA: float(b)}
        for i, (a, b) in enumerate(pairs)
    }
    return build_jury_card([Member(*QWEN), Member(*GEMMA)], cells, low=0, high=5)


def test_members_that_agree_get_no_verdict() -> None:
    card = card_of(PAIRS)
    assert card.split_reasons() == [] and card.verdict_text() is None
    assert card.as_dict()["verdict"] is None


def test_one_disputed_cell_in_ten_is_no_contradiction() -> None:
    card = card_of([*PAIRS[:9], (0, 2)])
    assert len(card.disputed) == 1 and card.verdict_text() is None


def test_a_fifth_of_the_cells_disputed_is_a_contradiction_even_with_a_good_alpha() -> None:
    card = card_of([*PAIRS[:8], (0, 2), (3, 5)])
    assert card.alpha_ci is not None and card.alpha_ci[1] >= 0.4
    assert card.split_reasons() == ["disputed"]
    assert card.verdict_text() == (
        f"Jury uneinig: {card.alpha_text()}, 2 von 10 Zellen strittig – Wertung nicht belastbar"
    )


def test_an_alpha_interval_below_0_4_is_no_agreement() -> None:
    # The second member reverses the first on the middle of the scale: never 2 points apart
    # enough to be disputed often, but no better than chance.
    card = card_of([(2, 3), (3, 2), (2, 3), (3, 2), (2, 2), (3, 3), (2, 3), (3, 2), (2, 3), (3, 2)])
    assert card.alpha_ci is not None and card.alpha_ci[1] < 0.4
    assert card.split_reasons() == ["alpha"]
    text = card.verdict_text()
    assert text is not None and text.startswith("Jury uneinig: α = ")
    assert "[" in text and " – " in text and "0 von 10 Zellen strittig" in text


def test_the_terminal_card_shows_the_verdict_under_its_headline_in_80_columns() -> None:
    card = card_of([(0, 5), (5, 0), (1, 4), (4, 1), (2, 3), (3, 2), (0, 4), (5, 1)])
    console = Console(width=80, record=True)
    console.print(JuryLines(card))
    lines = console.export_text().splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    assert lines[0].startswith("Jury: 2 von 2 Judges aktiv")
    said = " ".join(line.strip() for line in lines)
    assert card.verdict_text() in said
    # Under the headline (and its "strittig"), above the members.
    split = next(i for i, line in enumerate(lines) if line.startswith("Jury uneinig: α = -"))
    assert "strittig: 6 Zellen" in lines[split - 1] and lines[split + 2].startswith("  ✓ ")
