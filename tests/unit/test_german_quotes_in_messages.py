"""Names and excerpts a German message quotes stand in German quotes, „x“, never in Python's
'x' (issue 36; design.md §28): a pack's invalid id, a compare pairing, a run whose pack is
not found, an unreadable judge reply and the breaker's stop on unreadable replies, a server
reply that is no chat completion."""

import json
from pathlib import Path

import pytest

from touchstone.errors import InputError
from touchstone.judge.policy import RATIO_MIN_CALLS, Breaker
from touchstone.judge.replies import unreadable_note
from touchstone.pack import id_problem
from touchstone.stages.run.manifest import pack_of_run
from touchstone.store import MANIFEST, RunDir
from touchstone.transport.replies import MalformedReply, reply_from_json
from touchstone.versus.cells import parse_pairs


def test_an_invalid_id_is_quoted_in_german() -> None:
    assert (id_problem("A/2") or "").startswith("„A/2“ ist keine gültige ID")


def test_a_pairing_without_equals_is_quoted_in_german() -> None:
    with pytest.raises(InputError) as caught:
        parse_pairs(["gpt-neu"], ["gpt-neu"], ["gpt-alt"])
    assert str(caught.value).startswith("--pair „gpt-neu“: erwartet wird NEUES_MODELL=")


def test_a_lost_pack_is_quoted_in_german(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text(
        json.dumps({"pack_path": "weg/buero.yaml", "models": ["m"], "variants": ["none"]}),
        "utf-8",
    )
    with pytest.raises(InputError) as caught:
        pack_of_run(RunDir(tmp_path))
    assert "(run.json nennt „weg/buero.yaml“)" in str(caught.value)


def test_judge_replies_are_quoted_in_german() -> None:
    assert unreadable_note("kein Urteil", None) == "Judge-Ausgabe nicht auswertbar: „kein Urteil“"
    assert unreadable_note("halb", "length").endswith(": „halb“")
    breaker = Breaker(max_consecutive=1000, max_ratio=0.1, judge_model="j")
    stops = [breaker.unparseable("was auch immer") for _ in range(RATIO_MIN_CALLS)]
    stop = next(s for s in stops if s is not None)
    assert "letzte Antwort: „was auch immer“." in stop.message
    assert "(mehr als 10 %)" in stop.message


def test_a_reply_that_is_no_completion_is_quoted_in_german() -> None:
    with pytest.raises(MalformedReply) as caught:
        reply_from_json("<html>Gateway</html>", 0.1)
    assert str(caught.value).endswith(": „<html>Gateway</html>“")
    with pytest.raises(MalformedReply) as caught:
        reply_from_json({"hallo": 1}, 0.1)
    assert str(caught.value) == "Antwort ist keine Chat-Completion: „{'hallo': 1}“"
