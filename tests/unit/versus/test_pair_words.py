"""A pairing that cannot be used is said in the words of the surface that made it (issue 36):
the CLI names ``--pair NEU=ALT``, the GUI what to choose ("Modell paaren"); either lists the
models of the run as models of the run, not as what "Der Endpunkt bietet"."""

from __future__ import annotations

import pytest

from touchstone.errors import InputError
from touchstone.versus.cells import Surface, parse_pairs

NEW, OLD = ["stabil-neu", "leicht"], ["stabil", "leicht", "mittel"]


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        (
            "stabil-neu=weg",
            "kein Modell „weg“ in der Baseline. Modelle dort: leicht, mittel, stabil.",
        ),
        ("stabil-neu=stabl", "Meinten Sie „stabil“?"),
        ("stabil-neu", "erwartet wird"),
        ("stabil-neu=leicht", "„leicht“"),
    ],
)
@pytest.mark.parametrize("surface", ["cli", "gui"])
def test_each_surface_says_what_to_do(spec: str, said: str, surface: Surface) -> None:
    with pytest.raises(InputError) as caught:
        parse_pairs([spec], NEW, OLD, surface)
    message = str(caught.value)
    assert said in message and "Endpunkt" not in message
    if surface == "cli":
        assert "--pair" in message
    else:
        assert "„Modell paaren“" in message and "--pair" not in message and "NEU=ALT" not in message


def test_pairing_twice_is_said_in_gui_words() -> None:
    with pytest.raises(InputError, match="zweimal gepaart; wählen Sie das Paar unter „Modell"):
        parse_pairs(["stabil-neu=stabil", "leicht=stabil"], NEW, OLD, "gui")
