"""Judging and answering against a rate-limited server (design.md §12).

Target: with concurrency 16 against a server that takes 4 parallel calls and answers 429 +
Retry-After to the rest, every cell is scored (every answer recorded), no judge errors, in at
most twice the time concurrency 4 takes against the same server. 96 cells, L = 50 ms; the
simulator runs in its own process (``touchstone sim --capacity 4``).
Run: uv run python benchmarks/rate_limit.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, answered_cells, report, sim_process

from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.judge.passes import judge_responses
from touchstone.pack import load_pack
from touchstone.stages.run.run import execute_run

CELLS = 96
LATENCY_S = 0.05


def judge_seconds(url: str, concurrency: int) -> tuple[float, int, int]:
    pack = load_pack(BUERO)
    cells = answered_cells(CELLS, [(c.id, p.id) for c, p in pack.all_prompts()])
    backend = JudgeConfig(JudgeEndpoint(url), f"sim-judge@{LATENCY_S}", call_timeout_s=30).backend()
    started = time.monotonic()
    verdicts = judge_responses(backend, cells, pack, concurrency=concurrency)
    elapsed = time.monotonic() - started
    errors = sum(v.judge_error for v in verdicts)
    unscored = sum(v.unscored for v in verdicts)
    return elapsed, errors, unscored


def run_seconds(url: str, concurrency: int, out: Path) -> tuple[float, int]:
    started = time.monotonic()
    outcome = execute_run(
        pack_path=BUERO,
        models=[f"sim-gut@{LATENCY_S}", f"sim-mittel@{LATENCY_S}"],
        out=out,
        base_url=url,
        concurrency=concurrency,
    )
    return time.monotonic() - started, outcome.summary.left


def main() -> None:
    with sim_process(extra=["--capacity", "4"]) as url, tempfile.TemporaryDirectory() as tmp:
        four, _, _ = judge_seconds(url, 4)
        sixteen, errors, unscored = judge_seconds(url, 16)
        print(f"judge: c=4 {four:.2f} s, c=16 {sixteen:.2f} s ({CELLS} cells, capacity 4)")
        report(
            "judge c=16 vs c=4 on a server taking 4",
            sixteen / four,
            f"x the time (judge errors {errors}, unscored {unscored})",
            "<= 2, no judge errors",
            sixteen <= 2 * four and errors == 0 and unscored == 0,
        )
        four, _ = run_seconds(url, 4, Path(tmp) / "r4")
        sixteen, left = run_seconds(url, 16, Path(tmp) / "r16")
        print(f"run: c=4 {four:.2f} s, c=16 {sixteen:.2f} s (2 models x 2 variants x 27 prompts)")
        report(
            "run c=16 vs c=4 on a server taking 4",
            sixteen / four,
            f"x the time (cells left {left})",
            "<= 2, every cell recorded",
            sixteen <= 2 * four and left == 0,
        )


if __name__ == "__main__":
    main()
