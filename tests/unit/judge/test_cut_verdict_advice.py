""" "max_tokens erhöhen" only where a reply cut at ``max_tokens`` began a verdict (issue 37 §2,
design.md §26): a cut reply of prose or reasoning is not helped by more tokens."""

from __future__ import annotations

import pytest

from tests.conftest import FakeJudge, make_response
from touchstone.errors import JudgeAborted
from touchstone.gui.job_notice import for_browser
from touchstone.judge.passes import judge_responses
from touchstone.pack import Pack
from touchstone.transport.replies import ChatReply

BEGUN = '{"score": 4, "red_flag": false, "rationale": "Die Antwort nennt den Betrag, aber'
PROSE = "Nun, zuerst sollte man bedenken, dass die Aufgabe mehrere Teile hat, und dann"


def cut(content: str) -> ChatReply:
    return ChatReply(content=content, reasoning="", finish_reason="length", latency_s=0.01)


def stop_of(tiny_pack: Pack, content: str) -> tuple[JudgeAborted, list[str]]:
    judge = FakeJudge([cut(content)] * 30)
    rationales: list[str] = []
    with pytest.raises(JudgeAborted) as caught:
        judge_responses(
            judge,
            [make_response("R1", repeat=i + 1) for i in range(30)],
            tiny_pack,
            on_verdict=lambda v: rationales.append(v.rationale),
            max_failure_ratio=0.5,
        )
    assert caught.value.kind == "unparseable"
    return caught.value, rationales


def gui_notice(stop: JudgeAborted) -> str:
    record = {"command": ["-m", "touchstone", "judge", "r", "--config", "/w/j.yaml"]}
    end = {key: value for key, value in stop.facts.items() if value is not None}
    health = {"calls": 20, "successes": 0, "unparseable": 20}
    return str(for_browser({**record, "state": "failed"}, {"end": end, "health": health})["notice"])


def test_a_verdict_cut_at_max_tokens_advises_more_max_tokens(tiny_pack: Pack) -> None:
    stop, rationales = stop_of(tiny_pack, BEGUN)
    assert "erhöhen Sie `max_tokens` in der Judge-Konfiguration" in str(stop)
    assert rationales and all("max_tokens des Judges erhöhen" in r for r in rationales)
    assert "erhöhen Sie „max_tokens“ in der Judge-Konfiguration „j.yaml“" in gui_notice(stop)


def test_prose_cut_at_max_tokens_is_not_advised_more_max_tokens(tiny_pack: Pack) -> None:
    stop, rationales = stop_of(tiny_pack, PROSE)
    assert "max_tokens" not in str(stop)
    assert rationales and not any("max_tokens" in r for r in rationales)
    assert "abgeschnitten" in rationales[0]
    assert "max_tokens" not in gui_notice(stop)
