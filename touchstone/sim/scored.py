"""Judged runs of known quality, for the checks of a statistical claim against a known truth
(the tests and ``benchmarks/``: coverage, false alarms, power).

Every row's score on a prompt is its quality plus the prompt's difficulty plus the noise of
one answer and its verdict, rounded and clipped to the scale: the model the benchmarks'
figures are stated for. Answers and verdicts are the records the pipeline reads
(``EvalResponse``, ``Verdict``), so a scorecard or a comparison built from them takes the
production path.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from touchstone.results import EvalResponse, Verdict

Pair = tuple[str, str]
# The noise of one answer and its verdict, in points (sd).
NOISE = 0.9


def drawn_score(
    rng: random.Random, level: float, noise: float = NOISE, scale: tuple[int, int] = (0, 5)
) -> int:
    """One score around ``level``: with the noise of one answer, rounded, on the scale."""
    return max(scale[0], min(scale[1], round(level + rng.gauss(0, noise))))


def known_quality_run(
    rng: random.Random,
    rows: Mapping[Pair, float],
    prompts: Sequence[tuple[str, str]],
    difficulty: Callable[[Pair, str], float],
    *,
    repeats: int = 1,
    noise: float = NOISE,
) -> tuple[list[EvalResponse], list[Verdict]]:
    """The answers and verdicts of ``rows`` (quality by model and variant) on ``prompts``
    (id, category), each prompt's level ``quality + difficulty(row, prompt id)``, each repeat
    scored anew (rows, then prompts, then repeats: one draw each, in that order)."""
    responses, verdicts = [], []
    for (model, variant), quality in rows.items():
        for prompt_id, category in prompts:
            level = quality + difficulty((model, variant), prompt_id)
            for repeat in range(1, repeats + 1):
                responses.append(
                    EvalResponse(
                        model=model,
                        variant=variant,
                        prompt_id=prompt_id,
                        repeat=repeat,
                        category=category,
                        response_text="x",
                        ok=True,
                        content_empty=False,
                        reasoning_chars=0,
                    )
                )
                verdicts.append(
                    Verdict(
                        model=model,
                        variant=variant,
                        prompt_id=prompt_id,
                        repeat=repeat,
                        category=category,
                        score=drawn_score(rng, level, noise),
                        red_flag=False,
                        rationale="",
                    )
                )
    return responses, verdicts
