"""``scorecard.json``'s content: a scorecard with the run's spot check (design.md §17), for scripts
and CI gates. Its file format, and ``verdicts.csv``'s, are the store's (``store.exports``)."""

from __future__ import annotations

from collections.abc import Sequence

from touchstone.scorecard.build import Scorecard
from touchstone.spot.agreement import HumanAgreement
from touchstone.store.exports import scorecard_text
from touchstone.store.stamps import Stamp


def scorecard_json(
    card: Scorecard, inputs: Sequence[Stamp] = (), human: HumanAgreement | None = None
) -> str:
    """``scorecard.json``; ``inputs``: the stamps of the run files it was built from
    (``store.INPUTS``), by which a reader tells whether it still says what they say;
    ``human``: the agreement card of the run's spot check (``human_agreement``, design.md §17)."""
    data = card.as_dict()
    if human is not None:
        data["human_agreement"] = human.as_dict()
    return scorecard_text(data, inputs)
