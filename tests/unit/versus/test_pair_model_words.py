"""A pairing with a model the run does not have lists the run's models as the run's, not as
"Der Endpunkt bietet" (issue 36): no endpoint was asked, the names come from the run."""

from __future__ import annotations

import random

import pytest

from tests.unit.versus.versus_support import BUERO, SIX_ROWS, difficulties, noisy_cells, view_of
from touchstone.errors import InputError
from touchstone.pack import load_pack
from touchstone.versus import compare_runs


@pytest.mark.parametrize(
    ("pair", "where"), [("zzz=sim-gut", "neuen Run"), ("sim-gut=zzz", "Baseline")]
)
def test_an_unknown_model_of_a_pair_lists_the_runs_models(pair: str, where: str) -> None:
    rng = random.Random(36)
    pack = load_pack(BUERO)
    difficulty = difficulties(rng, pack, SIX_ROWS)
    new, old = (
        view_of(name, pack, noisy_cells(rng, pack, SIX_ROWS, difficulty)) for name in ("neu", "alt")
    )
    with pytest.raises(InputError) as caught:
        compare_runs(new, old, [pair])
    message = str(caught.value)
    assert "Endpunkt" not in message
    assert f"Modelle {'im' if where == 'neuen Run' else 'in der'} {where}: " in message
    assert "sim-gut" in message.split(": ", 2)[-1]
