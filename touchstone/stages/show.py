"""What ``touchstone show RUN PROMPT_ID`` prints, as data: per cell of one prompt its answer,
its verdict and each judge's last raw reply from judge-replies.jsonl (design.md §26).

The same facts as the GUI's prompt page; a bad filter (an unknown prompt id, a model, variant
or repeat the run does not have) is an ``InputError`` with the close names of the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from touchstone.advice import close_names
from touchstone.errors import InputError
from touchstone.jury.aggregate import judges_named
from touchstone.results import EvalResponse, Verdict, VerdictKey, cell_key
from touchstone.stages.view import RunView
from touchstone.store.judge_replies import JudgeReply, replies_of_prompt


@dataclass(slots=True)
class ShownCell:
    answer: EvalResponse
    verdict: Verdict | None
    # (judge model, its last reply or None when judge-replies.jsonl has none for the cell,
    # whether it judged the cell: a jury member that failed on it gave no verdict).
    replies: list[tuple[str, JudgeReply | None, bool]] = field(default_factory=list)


def _known(what: str, value: str, available: Sequence[str]) -> None:
    if value in available:
        return
    close = close_names(value, list(available))
    guess = f" Meinten Sie {', '.join(f'„{name}“' for name in close)}?" if close else ""
    shown = ", ".join(available[:10]) + (" …" if len(available) > 10 else "")
    raise InputError(f"{what} „{value}“ gibt es in diesem Run nicht.{guess} Vorhanden: {shown}")


def prompt_cells(
    view: RunView,
    prompt_id: str,
    *,
    model: str | None = None,
    variant: str | None = None,
    repeat: int | None = None,
) -> list[ShownCell]:
    """The cells of ``prompt_id`` in the run by model, variant and repeat, narrowed."""
    prompts = [prompt.id for _, prompt in view.pack.all_prompts()]
    _known("Die Prompt-ID", prompt_id, prompts)
    answers = [a for a in view.responses if a.prompt_id == prompt_id]
    for what, value, names in (
        ("Das Modell", model, sorted({a.model for a in view.responses})),
        ("Die Variante", variant, sorted({a.variant for a in view.responses})),
        (
            "Die Wiederholung",
            None if repeat is None else str(repeat),
            [str(n) for n in sorted({a.repeat for a in view.responses})],
        ),
    ):
        if value is not None:
            _known(what, value, names)
    answers = [
        a
        for a in sorted(answers, key=lambda a: (a.model, a.variant, a.repeat))  # as the GUI
        if (model is None or a.model == model)
        and (variant is None or a.variant == variant)
        and (repeat is None or a.repeat == repeat)
    ]
    verdicts = {cell_key(v): v for v in view.verdicts if v.prompt_id == prompt_id}
    replies: dict[VerdictKey, dict[str, JudgeReply]] = {}
    for line in replies_of_prompt(view.run_dir, prompt_id):
        replies.setdefault(VerdictKey(*line.cell), {})[line.judge_model] = line
    members = {(cell_key(v), v.judge_model) for v in view.member_lines if v.prompt_id == prompt_id}
    shown = []
    for answer in answers:
        key = cell_key(answer)
        verdict = verdicts.get(key)
        cell = ShownCell(answer, verdict)
        if verdict is not None:
            found = replies.get(key, {})
            names = judges_named(verdict.judge_model)
            cell.replies = [
                (name, found.get(name), view.jury is None or (key, name) in members)
                for name in names
            ]
        shown.append(cell)
    return shown
