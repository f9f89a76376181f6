import json

import pytest

from touchstone.judge import parse_dimensions_reply, parse_verdict_reply
from touchstone.pack import Scale
from touchstone.transport import split_think

SCALE = Scale(min=0, max=5)


@pytest.mark.parametrize(
    "reply",
    [
        '{"score": 4, "red_flag": false, "rationale": "gut"}',
        '```json\n{"score": 4, "red_flag": false, "rationale": "gut"}\n```',
        'Hier meine Bewertung:\n{"score": 4, "red_flag": false, "rationale": "gut"}\nViele Grüße',
        '{"score": 4.0, "red_flag": false, "rationale": "gut", "confidence": 0.9}',
        'Vorher {kein json} dann {"score": 4, "red_flag": false, "rationale": "gut"}',
    ],
)
def test_verdict_parser_tolerates_fences_text_and_extra_keys(reply: str) -> None:
    assert parse_verdict_reply(reply, SCALE) == (4, False, "gut")


@pytest.mark.parametrize(
    "reply",
    [
        '{"score": 6, "red_flag": false, "rationale": "zu hoch"}',
        '{"score": -1, "red_flag": false, "rationale": "zu tief"}',
        '{"score": 3.5, "red_flag": false, "rationale": "keine ganze Zahl"}',
        '{"score": "4", "red_flag": false, "rationale": "Text statt Zahl"}',
        '{"score": true, "red_flag": false, "rationale": "bool"}',
        '{"score": 4, "red_flag": "nein", "rationale": "kein bool"}',
        "Die Antwort ist gut, 4 von 5.",
        "",
    ],
)
def test_verdict_parser_rejects_out_of_scale_and_malformed(reply: str) -> None:
    assert parse_verdict_reply(reply, SCALE) is None


def test_a_rationale_over_the_limit_is_unparseable_not_stored() -> None:
    from touchstone.judge.replies import MAX_RATIONALE_CHARS

    def reply(chars: int) -> str:
        return json.dumps({"score": 4, "red_flag": False, "rationale": "x" * chars})

    assert parse_verdict_reply(reply(MAX_RATIONALE_CHARS), SCALE) is not None
    assert parse_verdict_reply(reply(MAX_RATIONALE_CHARS + 1), SCALE) is None


def test_verdict_parser_respects_other_scales() -> None:
    ten = Scale(min=1, max=10)
    assert parse_verdict_reply('{"score": 9, "red_flag": true, "rationale": ""}', ten) == (
        9,
        True,
        "",
    )
    assert parse_verdict_reply('{"score": 0, "red_flag": true, "rationale": ""}', ten) is None


def test_dimension_parser_plain_wrapped_and_invalid() -> None:
    dims = ["a", "b"]
    plain = '{"a": {"score": 4.5, "rationale": "x"}, "b": {"score": 2, "rationale": "y"}}'
    assert parse_dimensions_reply(plain, dims, SCALE) == (
        {"a": 4.5, "b": 2.0},
        {"a": "x", "b": "y"},
    )
    wrapped = f'Ergebnis: {{"dimensions": {plain}, "note": 1}}'
    assert parse_dimensions_reply(wrapped, dims, SCALE) == parse_dimensions_reply(
        plain, dims, SCALE
    )
    assert parse_dimensions_reply('{"a": {"score": 4, "rationale": "x"}}', dims, SCALE) is None
    out_of_scale = plain.replace("4.5", "7")
    assert parse_dimensions_reply(out_of_scale, dims, SCALE) is None


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("<think>erst denken</think>Antwort", ("Antwort", "erst denken")),
        ("nur gedacht</think>\nAntwort", ("Antwort", "nur gedacht")),
        ("<think>denkt und denkt", ("", "denkt und denkt")),
        ("ohne Denken", ("ohne Denken", "")),
    ],
)
def test_inline_think_is_split_from_content(content: str, expected: tuple[str, str]) -> None:
    assert split_think(content) == expected


def test_usage_with_reasoning_tokens_from_a_reply_and_from_a_stream() -> None:
    from touchstone.transport.replies import StreamReader, reply_from_json

    usage = {
        "prompt_tokens": 11,
        "completion_tokens": 40,
        "completion_tokens_details": {"reasoning_tokens": 30},
    }
    body = {"choices": [{"message": {"content": "{}"}, "finish_reason": "stop"}], "usage": usage}
    reply = reply_from_json(body, 0.1)
    assert (reply.prompt_tokens, reply.completion_tokens, reply.reasoning_tokens) == (11, 40, 30)

    reader = StreamReader()
    chunks = [
        {"choices": [{"delta": {"content": "{}"}, "finish_reason": "stop"}]},
        {"choices": [], "usage": usage},
    ]
    for chunk in chunks:
        reader.feed("data: " + json.dumps(chunk))
        reader.feed("")
    reader.feed("data: [DONE]")
    reader.feed("")
    streamed = reader.reply(0.1)
    assert (streamed.completion_tokens, streamed.reasoning_tokens) == (40, 30)
    assert streamed.content == "{}"
    # Usage without details (most local servers): no reasoning figure, not a zero.
    del usage["completion_tokens_details"]
    assert reply_from_json(body, 0.1).reasoning_tokens is None
