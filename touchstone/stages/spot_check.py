"""The human spot check against a run: its sample, its ratings, its agreement card.

The terminal (``touchstone rate``), the GUI's "Stichprobe bewerten" and the report read and
write ratings through these functions alone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from touchstone.errors import InputError
from touchstone.jury.verdicts import run_cells
from touchstone.pack import Pack, Prompt
from touchstone.results import EvalResponse, Verdict, VerdictKey, cell_key
from touchstone.spot.agreement import HumanAgreement, human_agreement
from touchstone.spot.sample import sample_order, to_rate
from touchstone.store import RunDir
from touchstone.store.ratings import (
    HUMAN,
    HumanRating,
    append_rating,
    load_ratings,
    rating_for,
)


def run_ratings(
    run: RunDir,
    pack: Pack,
    responses: Sequence[EvalResponse] = (),
    warn: Callable[[str], None] | None = None,
) -> list[HumanRating]:
    """The run's kept ratings (warnings to ``warn``, by default into ``run.warnings``); with
    ``responses``, ratings of cells the run has no answer for are left out."""
    cells = [VerdictKey(*cell_key(r)) for r in responses]
    return load_ratings(run.file(HUMAN), pack.scale, warn or run.warnings.append, cells)


def human_card(
    run: RunDir,
    pack: Pack,
    verdicts: Sequence[Verdict] | None = None,
    responses: Sequence[EvalResponse] = (),
) -> HumanAgreement | None:
    """The agreement card of the run, or None when nobody rated it. ``verdicts``: the
    run's, when the caller has them (else read only if there are ratings)."""
    if not run.file(HUMAN).exists():
        return None
    ratings = run_ratings(run, pack, responses)
    if not ratings:
        return None
    if verdicts is None:
        verdicts = run_cells(run).cells
    return human_agreement(ratings, verdicts, pack.scale)


def judged_card(
    run: RunDir,
    pack: Pack,
    verdicts: Sequence[Verdict] | None = None,
    responses: Sequence[EvalResponse] = (),
) -> HumanAgreement | None:
    """``human_card`` for the end of a judge run: a broken ``human.jsonl`` is a warning
    naming file and line, not a failed judge run (the verdicts are saved; ``report`` and
    ``rate`` refuse the file with exit 2 until the line is mended)."""
    try:
        return human_card(run, pack, verdicts, responses)
    except InputError as exc:
        run.warnings.append(
            f"{exc} Die Übereinstimmung mit Ihrer Stichprobe fehlt, bis das behoben ist."
        )
        return None


@dataclass(frozen=True)
class SpotCell:
    """One cell to rate, as the person sees it: no model name, no verdict."""

    key: VerdictKey
    prompt: Prompt
    answer: str
    reasoning_chars: int
    position: int  # 1-based, in the sample
    total: int
    # The model's reasoning as stored (cut to ``REASONING_KEPT``): the GUI shows it collapsed.
    reasoning: str = ""


def spot_cells(
    pack: Pack,
    responses: Sequence[EvalResponse],
    verdicts: Sequence[Verdict],
    ratings: Sequence[HumanRating],
    *,
    rater: str,
    n: int,
    disputed: Collection[VerdictKey] | None = None,
) -> list[SpotCell]:
    """The cells of the first ``n`` of the sample that ``rater`` has not rated yet."""
    answers = {VerdictKey(*cell_key(r)): r for r in responses}
    # A prompt the pack no longer has cannot be shown with its task: not in the sample.
    answered = [
        v for v in verdicts if VerdictKey(*cell_key(v)) in answers and pack.has_prompt(v.prompt_id)
    ]
    order = sample_order(answered, pack.scale, disputed)
    rated = {r.cell for r in ratings if r.rater == rater}
    position = {key: index for index, key in enumerate(order[:n], start=1)}
    total = min(n, len(order))
    return [
        SpotCell(
            key=key,
            prompt=pack.prompt(key.prompt_id),
            answer=answers[key].response_text,
            reasoning_chars=answers[key].reasoning_chars,
            position=position[key],
            total=total,
            reasoning=answers[key].reasoning,
        )
        for key in to_rate(order, n, rated)
    ]


def save_rating(run: RunDir, rating: HumanRating) -> None:
    append_rating(run.path, rating)


@dataclass(frozen=True)
class Rated:
    """A person's rating of one cell, before it is stored."""

    score: int
    red_flag: bool
    note: str = ""


SKIP: Final = "skip"
QUIT: Final = "quit"
# Back to the cell before: shown again, a new rating replaces the old one (the last line of
# a rater and cell wins, store/ratings.py).
BACK: Final = "back"
Decision = Rated | Literal["skip", "quit", "back"]


@dataclass
class Tally:
    saved: int = 0
    skipped: int = 0
    quit: bool = False


def rate_cells(
    run: RunDir,
    pack: Pack,
    cells: Sequence[SpotCell],
    *,
    rater: str,
    decide: Callable[[SpotCell], Decision],
) -> Tally:
    """Ask ``decide`` for each cell and store each rating as it is given (a quit keeps
    what was rated); ``decide`` is the terminal's prompt, the demo's simulated person."""
    ended: dict[int, str] = {}  # each cell's last decision: "rated" or "skipped"
    at = 0
    while at < len(cells):
        cell = cells[at]
        decision = decide(cell)
        if decision == QUIT:
            break
        if decision == BACK:
            at = max(at - 1, 0)
            continue
        if decision == SKIP:
            ended.setdefault(at, "skipped")
            at += 1
            continue
        assert isinstance(decision, Rated)
        rating = rating_for(
            cell.key,
            score=decision.score,
            red_flag=decision.red_flag,
            note=decision.note,
            rater=rater,
            scale=pack.scale,
        )
        save_rating(run, rating)
        ended[at] = "rated"
        at += 1
    outcomes = list(ended.values())
    tally = Tally(
        saved=outcomes.count("rated"), skipped=outcomes.count("skipped"), quit=at < len(cells)
    )
    return tally
