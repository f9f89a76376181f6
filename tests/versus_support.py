"""Runs of known truth for the comparison tests: answers of a stated quality, judged by the
simulator's judge in-process (it reads the quality back), so that which row got worse, and
by how much, is known before the comparison says it."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from touchstone.errors import ModelCallError
from touchstone.judge import JudgeConfig, JudgeEndpoint
from touchstone.sim.catalogue import simulated_answer
from touchstone.sim.judges import simulated_dimensions, simulated_verdict
from touchstone.transport.replies import ChatReply

REPO = Path(__file__).resolve().parent.parent
# buero as it was with 27 prompts: the known truths below (which row is significantly worse)
# hold for that many prompts; the growing pack would move them.
BUERO = REPO / "tests" / "fixtures" / "buero27.yaml"
# The simulator's answerers by the quality they state.
_BY_QUALITY = {5: "sim-gut", 4: "sim-old", 3: "sim-mittel", 1: "sim-schwach"}

Quality = int | Callable[[str], int]


class StatedQuality:
    """Answers as the simulator's model of the quality ``qualities`` gives the row's model
    (a number, or one per prompt text)."""

    def __init__(self, qualities: Mapping[str, Quality]) -> None:
        self.qualities = qualities

    def answer(self, *, model: str, system: str, user: str) -> ChatReply:
        quality = self.qualities[model]
        level = quality(user) if callable(quality) else quality
        if level == 0:
            # Quality 0: the answer overruns its deadline (a failed answer, the scale's minimum).
            raise ModelCallError("keine Antwort innerhalb der Frist", kind="timeout")
        return ChatReply(
            content=simulated_answer(_BY_QUALITY[level], user),
            reasoning="",
            finish_reason="stop",
            latency_s=0.01,
        )


class InProcessSimJudge:
    """The simulator's judge without HTTP: the same verdicts as ``sim-judge`` behind SimServer."""

    def __init__(self, model: str = "sim-judge") -> None:
        self.model = model

    def judge(self, *, system: str, user: str) -> str:
        if "Dimension-IDs" in user:
            return json.dumps(simulated_dimensions(user))
        return json.dumps(simulated_verdict(user))


def every_fourth_worse(user: str) -> int:
    """Quality 5, but 4 on about one prompt in six (by the prompt's text)."""
    return 4 if sum(user.encode()) % 6 == 0 else 5


def fails_on_money(user: str) -> int:
    """Quality 5, but every answer about euros overruns its deadline."""
    return 0 if "€" in user else 5


def make_run(
    out: Path,
    qualities: Mapping[str, Quality],
    *,
    pack: Path = BUERO,
    judge: str = "sim-judge",
    repeats: int = 1,
) -> Path:
    from touchstone.stages import execute_judge, execute_run

    execute_run(
        pack_path=pack,
        models=list(qualities),
        variants=["none"],
        repeats=repeats,
        out=out,
        backend=StatedQuality(qualities),
        concurrency=4,
    )
    execute_judge(
        out,
        config=JudgeConfig(JudgeEndpoint("http://127.0.0.1:9/v1"), judge),
        backend=InProcessSimJudge(judge),
        use_cache=False,
        concurrency=4,
    )
    return out
