"""A run whose answers of one model are cut at ``--max-tokens`` (issue 37 §4): sim-gut's short
answers end with "stop", sim-ausufernd's long ones are cut at the cap ("length")."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import TINY_PACK, run_on_sim
from touchstone.sim import SimServer

CAP = 200
CUT_MODEL = "sim-ausufernd"


def truncated_workspace(root: Path, sim: SimServer) -> Path:
    """``root`` with packs/tiny.yaml and runs/tiny: sim-gut and sim-ausufernd, variant none,
    3 prompts each at ``--max-tokens CAP``, judged by sim-judge."""
    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge

    (root / "packs").mkdir(parents=True)
    pack = root / "packs" / "tiny.yaml"
    pack.write_text(TINY_PACK, encoding="utf-8")
    run = root / "runs" / "tiny"
    run_on_sim(
        sim,
        pack_path=pack,
        models=["sim-gut", CUT_MODEL],
        variants=["none"],
        out=run,
        max_tokens=CAP,
    )
    execute_judge(run, config=JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge"))
    return root
