"""``--price-per-million`` with decimal commas (issue 36): ``0,15/0,60`` or ``0,15;0,60``;
``0.15,0.60`` as before; ``0,15,0,60`` is ambiguous and refused, saying how to write it."""

from __future__ import annotations

import pytest

from touchstone.errors import InputError
from touchstone.transport.budget import Price, parse_price


@pytest.mark.parametrize(
    "text", ["0.15,0.60", "0,15/0,60", "0,15;0,60", "0.15/0.6", " 0,15 / 0,6 "]
)
def test_both_decimal_forms_give_the_same_price(text: str) -> None:
    assert parse_price(text) == Price(0.15, 0.6)


@pytest.mark.parametrize("text", ["0,15,0,60", "1.000,5/2", "0,1/0,2/0,3", "a/b"])
def test_an_ambiguous_price_says_how_to_write_decimals(text: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_price(text)
    message = str(caught.value)
    assert message.startswith("--price-per-million ") and f"„{text}“" in message
    assert "0.15,0.60" in message and "0,15/0,60" in message
