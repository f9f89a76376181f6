"""Numbers in the messages about a bad option are German (issue 36): "--max-reply-mb muss …
höchstens 1024 sein, ist -1.0", "höchstens 86400 (ein Tag)" and "z. B. --margin 0.3" in a
German message, where touchstone writes "-1", "86.400" and "0,3" everywhere else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.unit.test_absurd_numbers import refused
from tests.unit.versus.versus_support import BUERO
from touchstone.errors import InputError
from touchstone.versus.gate import check_margin

DECIMAL_POINT = re.compile(r"\d\.\d{1,2}\b")  # "-1.0", "0.3"; not the thousands point "86.400"


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--max-reply-mb", "-1", "höchstens 1.024 sein, ist -1."),
        ("--call-timeout-s", "-1", "höchstens 86.400 (ein Tag) sein, ist -1."),
        ("--max-reply-mb", "2000,5", "ist 2.000,5."),
    ],
)
def test_a_refused_number_reads_german(option: str, value: str, said: str, tmp_path: Path) -> None:
    text = refused(
        "run", "--pack", str(BUERO), "--model", "m", "--out", str(tmp_path / "r"), option, value
    )
    assert said in text and not DECIMAL_POINT.search(text), text


def test_the_margins_example_is_written_as_touchstone_writes_numbers() -> None:
    with pytest.raises(InputError) as info:
        check_margin(-1.0, 5)
    text = str(info.value)
    assert "z. B. --margin 0,3" in text and "ist -1." in text and not DECIMAL_POINT.search(text)
