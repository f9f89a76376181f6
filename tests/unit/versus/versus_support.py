"""Runs of known truth for the comparison tests: answers of a stated quality, judged by the
simulator's judge in-process (it reads the quality back), so that which row got worse, and
by how much, is known before the comparison says it."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from touchstone.errors import ModelCallError
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.pack import Pack, load_pack
from touchstone.results import EvalResponse, Verdict
from touchstone.sim.catalogue import simulated_answer
from touchstone.sim.judges import simulated_dimensions, simulated_verdict
from touchstone.sim.scored import known_quality_run
from touchstone.stages.view import RunView
from touchstone.store import RunDir
from touchstone.transport.fake import FakeChat, SentCall
from touchstone.transport.replies import ChatReply

REPO = Path(__file__).resolve().parents[3]
# buero as it was with 27 prompts: the known truths below (which row is significantly worse)
# hold for that many prompts; the growing pack would move them.
BUERO = REPO / "tests" / "fixtures" / "buero27.yaml"
# buero as it ships, with its 65 prompts.
BUERO65 = REPO / "packs" / "buero.yaml"
# A baseline of three models at the top quality: "stabil" stays so, "verschlechtert" is made
# worse, "leicht" slightly worse in the new runs of the tests.
BASELINE = {"stabil": 5, "verschlechtert": 5, "leicht": 5}
# The simulator's answerers by the quality they state.
_BY_QUALITY = {5: "sim-gut", 4: "sim-old", 3: "sim-mittel", 1: "sim-schwach"}

Quality = int | Callable[[str], int]


class StatedQuality(FakeChat):
    """Answers as the simulator's model of the quality ``qualities`` gives the row's model
    (a number, or one per prompt text)."""

    def __init__(self, qualities: Mapping[str, Quality]) -> None:
        super().__init__(model="")
        self.qualities = qualities

    async def reply(self, sent: SentCall) -> str | ChatReply:
        user = sent.user
        quality = self.qualities[sent.model]
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


class InProcessSimJudge(FakeChat):
    """The simulator's judge without HTTP: the same verdicts as ``sim-judge`` behind SimServer."""

    def __init__(self, model: str = "sim-judge") -> None:
        super().__init__(model=model)

    async def reply(self, sent: SentCall) -> str | ChatReply:
        if "Dimension-IDs" in sent.user:
            return json.dumps(simulated_dimensions(sent.user))
        return json.dumps(simulated_verdict(sent.user))


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
    from touchstone.stages.judge.judge import execute_judge
    from touchstone.stages.run.run import execute_run

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


# Runs of noise only (issue 33): scores drawn as the scorecard's coverage benchmark draws
# them (benchmarks/ci_coverage.py): the row's quality, plus the prompt's difficulty (the
# same in both runs: the same prompts), plus the noise of one answer and its verdict,
# rounded and clipped to 0..5. Two runs of the same qualities differ by noise alone.
# buero's rows: 3 models x 2 variants.
SIX_ROWS = {
    (model, variant): quality
    for model, quality in (("sim-gut", 3.8), ("sim-mittel", 3.2), ("sim-schwach", 2.4))
    for variant in ("none", "sachlich")
}


def difficulties(rng: random.Random, pack: Pack, rows: Iterable[Pair]) -> dict[Cell, float]:
    """Each row's difficulty per prompt: drawn once, shared by the runs compared."""
    return {(*row, p.id): rng.gauss(0, 1.0) for row in rows for _, p in pack.all_prompts()}


Cell = tuple[str, str, str]
Pair = tuple[str, str]


def noisy_cells(
    rng: random.Random,
    pack: Pack,
    rows: Mapping[Pair, float],
    difficulty: Mapping[Cell, float],
    *,
    repeats: int = 1,
) -> tuple[list[EvalResponse], list[Verdict]]:
    """A judged run's answers and verdicts: every row at its quality, noise drawn anew."""
    prompts = [(prompt.id, category.id) for category, prompt in pack.all_prompts()]
    return known_quality_run(
        rng, rows, prompts, lambda row, prompt: difficulty[(*row, prompt)], repeats=repeats
    )


def view_of(name: str, pack: Pack, cells: tuple[list[EvalResponse], list[Verdict]]) -> RunView:
    """A run in memory as ``load_run`` gives it (nothing on disk: compare reads no file)."""
    responses, verdicts = cells
    return RunView(RunDir(Path("/nicht-auf-der-platte") / name), pack, {}, responses, verdicts, [])


def noise_runs(seed: int, pack_path: Path, *outs: Path) -> None:
    """Judged run dirs ``outs`` of ``SIX_ROWS`` on ``pack_path``, noise only: the prompts'
    difficulties drawn once (``random.Random(seed)``), each run's noise anew."""
    rng = random.Random(seed)
    pack = load_pack(pack_path)
    drawn = difficulties(rng, pack, SIX_ROWS)
    for out in outs:
        write_cells(out, pack_path, noisy_cells(rng, pack, SIX_ROWS, drawn))


def buero_workdir(root: Path) -> Path:
    """``root/packs/buero.yaml``, a copy of ``BUERO`` for a GUI's working dir; returns it."""
    (root / "packs").mkdir(parents=True)
    pack = root / "packs" / "buero.yaml"
    shutil.copy(BUERO, pack)
    return pack


def write_cells(
    out: Path, pack_path: Path, cells: tuple[list[EvalResponse], list[Verdict]]
) -> Path:
    """A judged run dir of ``cells`` on ``pack_path``, for the CLI."""
    responses, verdicts = cells
    out.mkdir(parents=True)
    models = list(dict.fromkeys(r.model for r in responses))
    variants = list(dict.fromkeys(r.variant for r in responses))
    manifest = {
        "name": out.name,
        "pack_id": load_pack(pack_path).id,
        "pack_path": str(pack_path),
        "pack_abspath": str(pack_path),
        "pack_sha256": "",
        "models": models,
        "variants": variants,
        "repeats": max(r.repeat for r in responses),
        "created_at": "2026-12-01T12:00:00+00:00",
    }
    (out / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    for name, items in (("responses.jsonl", responses), ("judgements.jsonl", verdicts)):
        lines = (json.dumps(item.as_dict(), ensure_ascii=False) + "\n" for item in items)
        (out / name).write_text("".join(lines), encoding="utf-8")
    return out
