"""Exports beside ``report.html``: ``scorecard.json`` for scripts and CI gates, and
``verdicts.csv``, every verdict with its answer (DESIGN §13)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence

from touchstone.results import EvalResponse, Verdict
from touchstone.scorecard import Scorecard
from touchstone.store.stamps import INPUTS, Stamp

CSV_COLUMNS = (
    "model",
    "variant",
    "prompt_id",
    "category",
    "repeat",
    "score",
    "red_flag",
    "safety_critical",
    "unscored",
    "unscored_reason",
    "rationale",
    "judge_model",
    "cached",
    "answer",
    "answer_error",
    "reasoning_chars",
    "latency_s",
    "completion_tokens",
)


def scorecard_json(card: Scorecard, inputs: Sequence[Stamp] = ()) -> str:
    """``scorecard.json``; ``inputs``: the stamps of the run files it was built from
    (``store.INPUTS``), by which a reader tells whether it still says what they say."""
    data = card.as_dict()
    if inputs:
        data["inputs"] = {
            name: {"bytes": size, "sha256": digest}
            for name, (size, digest) in zip(INPUTS, inputs, strict=True)
        }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def recorded_inputs(data: dict[str, object]) -> tuple[Stamp, ...] | None:
    """The input stamps a ``scorecard.json`` records (``scorecard_json``), or None."""
    inputs = data.get("inputs")
    if not isinstance(inputs, dict):
        return None
    stamps = []
    for name in INPUTS:
        entry = inputs.get(name)
        if not isinstance(entry, dict):
            return None
        size, digest = entry.get("bytes"), entry.get("sha256")
        if not isinstance(size, int) or not isinstance(digest, str):
            return None
        stamps.append((size, digest))
    return tuple(stamps)


def _csv_text(values: Sequence[object]) -> str:
    # The writer quotes a field that holds a character of its line terminator, and no other
    # line break: with "\n" alone a bare CR stayed unquoted, and a reader (a spreadsheet,
    # the csv module) started a new row there. Written with "\r\n", ended with "\n".
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerow(values)
    return buffer.getvalue()[:-2] + "\n"


# A spreadsheet runs a cell that starts with = + - @ as a formula, and strips a leading tab
# or CR before it looks (OWASP, "CSV injection").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> object:
    if isinstance(value, str) and value[:1] in _FORMULA_STARTS:
        return "'" + value
    return value


def verdict_csv_lines(
    verdicts: Iterable[Verdict], responses: Iterable[EvalResponse]
) -> Iterator[str]:
    """``verdicts.csv`` line by line (a header first): it streams, 100k rows never sit whole."""
    answers = {r.key: r for r in responses}
    yield _csv_text(CSV_COLUMNS)
    for v in verdicts:
        answer = answers.get(v.key)
        row = (
            v.model,
            v.variant,
            v.prompt_id,
            v.category,
            v.repeat,
            "" if v.unscored else v.score,
            v.red_flag,
            v.safety_critical,
            v.unscored,
            v.unscored_reason,
            v.rationale,
            v.judge_model,
            v.cached,
            answer.response_text if answer else "",
            answer.error if answer else "",
            answer.reasoning_chars if answer else "",
            answer.latency_s if answer else "",
            answer.completion_tokens if answer and answer.completion_tokens else "",
        )
        yield _csv_text([_cell(value) for value in row])
