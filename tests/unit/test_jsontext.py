"""``jsontext.loads``: every way JSON from outside can fail is one error, worded in German."""

from __future__ import annotations

import json

import pytest

from touchstone import jsontext

# One digit more than Python converts to an int (``sys.get_int_max_str_digits``).
HUGE = "7" * 4301


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (f'{{"a":\n  {HUGE}}}', "eine Zahl mit mehr als 4300 Ziffern (Zeile 2, Spalte 3)"),
        (f'{{"a": {HUGE}}}'.encode(), "eine Zahl mit mehr als 4300 Ziffern (Zeile 1, Spalte 7)"),
        ("[" * 100_000, "zu tief verschachtelt"),
        ('{"a": ]', "Wert erwartet (Zeile 1, Spalte 7)"),
        ("{a: 1}", "Schlüssel in doppelten Anführungszeichen erwartet (Zeile 1, Spalte 2)"),
        ("\ufeff{}", "UTF-8-Byte-Order-Mark (BOM)"),
    ],
)
def test_every_parse_failure_is_a_json_error_worded_in_german(text: str | bytes, said: str) -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        jsontext.loads(text)
    assert said in str(caught.value) and said in jsontext.problem(caught.value)
    assert "Exceeds" not in str(caught.value) and "Expecting" not in str(caught.value)


def test_a_long_digit_run_in_a_string_is_text_and_shorter_integers_load() -> None:
    assert jsontext.loads(f'{{"a": "{HUGE}", "b": {HUGE[:4300]}}}')["a"] == HUGE


def test_what_the_hook_raises_and_bytes_that_are_no_text_pass_unchanged() -> None:
    class Refused(ValueError):
        pass

    def refuse(pairs: list[tuple[str, object]]) -> object:
        raise Refused

    with pytest.raises(Refused):
        jsontext.loads(f'{{"a": "{HUGE}"}}', object_pairs_hook=refuse)
    with pytest.raises(UnicodeDecodeError) as caught:
        jsontext.loads(b'{"a": "\xff"}')
    assert jsontext.problem(caught.value) == "kein UTF-8 (Byte 0xff an Stelle 8)"
