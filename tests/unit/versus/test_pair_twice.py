"""``--pair NEW=OLD`` pairs a baseline row once (issue 35): pairing ``sim-gut`` with
``sim-schwach`` while the new run has a ``sim-schwach`` of its own (matched by name) would
pair the baseline's ``sim-schwach`` twice and leave its ``sim-gut`` out: bad input naming it;
a swap, which re-pairs both, is fine."""

from __future__ import annotations

import random

import pytest

from tests.unit.versus.versus_support import BUERO, SIX_ROWS, difficulties, noisy_cells, view_of
from touchstone.errors import InputError
from touchstone.pack import load_pack
from touchstone.stages.view import RunView
from touchstone.versus import compare_runs


@pytest.fixture(scope="module")
def views() -> tuple[RunView, RunView]:
    rng = random.Random(35)
    pack = load_pack(BUERO)
    difficulty = difficulties(rng, pack, SIX_ROWS)
    return tuple(  # type: ignore[return-value]
        view_of(name, pack, noisy_cells(rng, pack, SIX_ROWS, difficulty)) for name in ("neu", "alt")
    )


def test_a_pair_onto_a_model_matched_by_name_is_paired_twice(
    views: tuple[RunView, RunView],
) -> None:
    new, old = views
    with pytest.raises(InputError, match="„sim-schwach“ ist zweimal gepaart") as caught:
        compare_runs(new, old, ["sim-gut=sim-schwach"])
    message = str(caught.value)
    assert "sim-gut" in message and "gleichen Namen" in message


def test_a_swap_pairs_each_baseline_row_once(views: tuple[RunView, RunView]) -> None:
    new, old = views
    swapped = compare_runs(new, old, ["sim-gut=sim-schwach", "sim-schwach=sim-gut"])
    pairs = [(row.new.pair[0], row.baseline.pair[0]) for row in swapped.rows]
    assert sorted(set(pairs)) == [
        ("sim-gut", "sim-schwach"),
        ("sim-mittel", "sim-mittel"),
        ("sim-schwach", "sim-gut"),
    ]
    assert len(pairs) == 6 and not swapped.unmatched_baseline
