"""A jury's wall time against one member's (design.md §18): members run in parallel.

Three members of equal latency (the simulator's judges at L = 0.2 s per call, concurrency 4
each) judge the same run; one member alone judges a copy of it. Target: the jury takes at
most 1.3x the single member's wall time, not three times. No verdict cache (each run asks).
Run: uv run python benchmarks/jury.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, report, sim_process

from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.jury.config import JuryConfig
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.run.run import execute_run

LATENCY_S = 0.2
CONCURRENCY = 4
JUDGES = ("sim-judge", "sim-strict", "sim-gullible")


def member(url: str, name: str) -> JudgeConfig:
    return JudgeConfig(
        JudgeEndpoint(url), f"{name}@{LATENCY_S}", concurrency=CONCURRENCY, call_timeout_s=30
    )


def timed(run: Path, config: JudgeConfig | JuryConfig) -> float:
    started = time.perf_counter()
    execute_judge(run, config=config, use_cache=False)
    return time.perf_counter() - started


def main() -> None:
    with sim_process() as url, tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        execute_run(
            pack_path=BUERO,
            models=["sim-gut", "sim-schwach"],
            variants=["none"],
            out=base,
            base_url=url,
        )
        one, three = Path(tmp) / "one", Path(tmp) / "three"
        shutil.copytree(base, one)
        shutil.copytree(base, three)
        single = timed(one, member(url, JUDGES[0]))
        jury = timed(three, JuryConfig([member(url, name) for name in JUDGES]))
        print(f"one member: {single:.2f} s, jury of {len(JUDGES)}: {jury:.2f} s")
        ratio = jury / single
        report("jury / one member wall time", ratio, "x", "<= 1.3", ratio <= 1.3)


if __name__ == "__main__":
    main()
