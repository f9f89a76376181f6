"""What the prompt page shows of how a verdict came about: the judge's raw reply per judge
(a jury: per member), from judge-replies.jsonl, and the request as the judge got it, rebuilt
from pack and answer (design.md §4; nothing of it is stored)."""

from __future__ import annotations

from typing import Any

from touchstone.errors import InputError
from touchstone.gui.cache import LoadedRun
from touchstone.judge.cells import CellTask, Judge
from touchstone.jury.aggregate import judges_named
from touchstone.pack import Prompt
from touchstone.results import EvalResponse, Verdict, VerdictKey
from touchstone.store.judge_replies import JudgeReply, replies_of_prompt

Replies = dict[VerdictKey, dict[str, JudgeReply]]


def prompt_replies(run: LoadedRun, prompt_id: str) -> tuple[Replies, str]:
    """Per cell of ``prompt_id``, the last reply of each judge model; and the problem of a
    damaged judge-replies.jsonl ("" without one): the page says it where the replies go."""
    found: Replies = {}
    try:
        for line in replies_of_prompt(run.view.run_dir, prompt_id):
            found.setdefault(VerdictKey(*line.cell), {})[line.judge_model] = line
    except InputError as exc:
        return {}, str(exc)
    return found, ""


def evidence(
    answer: EvalResponse,
    verdict: Verdict | None,
    prompt: Prompt,
    run: LoadedRun,
    replies: dict[str, JudgeReply],
) -> dict[str, Any]:
    """The request the judge got for ``answer`` and each judge's reply behind ``verdict``."""
    if verdict is None:
        return {"request": None, "replies": []}
    task = CellTask.of(answer, prompt, run.view.pack, Judge(verdict.judge_model, ""))
    if task.settled is not None:  # no call: a model error, an empty answer
        return {"request": None, "replies": []}
    request = {"system": task.system, "user": task.user}
    shown = []
    for model in judges_named(verdict.judge_model):
        line = replies.get(model)
        shown.append(
            {
                "judge_model": model,
                "reply": None if line is None else line.reply,
                "cut": line is not None and line.cut,
                "finish_reason": "" if line is None else line.finish_reason,
                "cached": verdict.cached,
            }
        )
    return {"request": request, "replies": shown}
