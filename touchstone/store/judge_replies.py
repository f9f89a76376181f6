"""judge-replies.jsonl: the raw reply of each judge call a cell's verdict came from.

One line per cell and call that gave it a verdict or an unreadable outcome (design.md §4):
``{"cell": [model, variant, prompt_id, repeat], "cache_key", "judge_model", "finish_reason",
"reply", "cut"}``. Cells that share one call (the same judge prompt) get a line each, with the
same reply, so a cell's reply is found by the cell alone. ``reply`` is bounded to
``REPLY_KEPT_BYTES`` of UTF-8 and ``cut`` says when it was cut there. Lines are appended as
the verdicts land (as judgements.jsonl's); a re-judge appends, the last line of a cell and
judge is its current reply. What was sent is not stored: it is rebuilt from pack and answer
(``judge.cells.CellTask``), as the judge built it.

Evidence for a reader who doubts a verdict, not an input of any figure: a corrupt line is
reported where the replies are shown (``InputError`` naming file and line), nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from touchstone.regular import open_regular
from touchstone.results import VerdictKey
from touchstone.store.jsonl import JsonlAppender, parse_jsonl_line
from touchstone.store.rundir import RunDir

JUDGE_REPLIES = "judge-replies.jsonl"
# A judge's verdict is a few hundred bytes; a reasoning judge's reply may be far longer.
REPLY_KEPT_BYTES = 16 * 1024


@dataclass(slots=True)
class JudgeReply:
    cell: tuple[str, str, str, int]
    cache_key: str
    judge_model: str
    finish_reason: str
    reply: str
    cut: bool = False


def bounded(text: str) -> tuple[str, bool]:
    """``text`` cut to ``REPLY_KEPT_BYTES`` of UTF-8 (never inside a character), and whether
    it was cut."""
    data = text.encode("utf-8")
    if len(data) <= REPLY_KEPT_BYTES:
        return text, False
    return data[:REPLY_KEPT_BYTES].decode("utf-8", "ignore"), True


def reply_line(
    cell: VerdictKey, *, cache_key: str, judge_model: str, finish_reason: str, reply: str
) -> dict[str, object]:
    """The line of ``judge-replies.jsonl`` for a cell's judge reply."""
    kept, cut = bounded(reply)
    return {
        "cell": list(cell),
        "cache_key": cache_key,
        "judge_model": judge_model,
        "finish_reason": finish_reason,
        "reply": kept,
        "cut": cut,
    }


def reply_appender(run: RunDir) -> JsonlAppender:
    return JsonlAppender(run.file(JUDGE_REPLIES))


def replies_of_prompt(run: RunDir, prompt_id: str) -> Iterator[JudgeReply]:
    """The lines of the cells of ``prompt_id``, in file order. Only their lines are parsed:
    a prompt page of a 100,000-cell run reads the file once and decodes a few lines. A last
    line cut short (a killed judge) is skipped; any other bad line raises ``InputError``."""
    path = run.file(JUDGE_REPLIES)
    try:
        handle = open_regular(path)
    except FileNotFoundError:
        return
    # The id as it stands in a line's cell (json.dumps of an id: no escapes, ids are plain).
    needle = f'"{prompt_id}"'.encode()
    with handle:
        for number, raw in enumerate(handle, start=1):
            if needle not in raw or not raw.endswith(b"\n"):
                continue
            line = parse_jsonl_line(path, number, raw, JudgeReply)
            if line.cell[2] == prompt_id:
                yield line
