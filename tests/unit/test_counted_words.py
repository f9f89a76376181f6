"""Counts with their word: "1 Zelle", "2 Zellen", never "1 Zellen" (issue 23 §6)."""

import re

from touchstone.gui.job_state import final_state
from touchstone.judge.advice import after_stop

ONE_PLURAL = re.compile(r"\b1 (\w+ )?(Zellen|Bewertungen|Aufrufe|offenen)\b")


def test_after_a_stop_one_cell_is_one_cell() -> None:
    text = after_stop(open_cells=1, kept=1, unreadable=1, refused=1)
    assert not ONE_PLURAL.search(text), text
    assert "1 bisherige Bewertung behalten" in text
    assert "die offene Zelle" in text
    many = after_stop(open_cells=2, kept=2, unreadable=2, refused=2)
    assert "die 2 offenen Zellen" in many and "2 bisherige Bewertungen" in many


def test_a_finished_job_with_one_cell_left_says_one_cell() -> None:
    done = {"event": "done", "health": {"cells_left": 1}}
    message = final_state({}, [done])["message"]
    assert message.startswith("1 Zelle offen"), message
