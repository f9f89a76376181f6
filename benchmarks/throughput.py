"""Judge throughput against a simulated judge with fixed latency L = 50 ms (DESIGN §10).

Target: at least 85 % of concurrency / L verdicts per second, for concurrency 1, 4 and 16.
96 distinct cells, judged through the real transport (openai SDK over HTTP on loopback) by
the same `judge_responses` the CLI uses; the simulator runs in its own process.
Run: uv run python benchmarks/throughput.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, answered_cells, report, sim_process

from touchstone.concurrency import CallPool
from touchstone.judge import OpenAIJudgeBackend, judge_responses
from touchstone.pack import load_pack

LATENCY_S = 0.05
CELLS = 96


def main() -> None:
    pack = load_pack(BUERO)
    prompts = [(c.id, p.id) for c, p in pack.all_prompts()]
    with sim_process() as url:
        for concurrency in (1, 4, 16):
            cells = answered_cells(CELLS, prompts)
            with OpenAIJudgeBackend(url, "", f"sim-judge@{LATENCY_S}", timeout=30) as backend:
                # Warm up as many connections as calls will overlap (a long run's steady state).
                list(
                    CallPool(concurrency).run(
                        range(concurrency),
                        lambda _: backend.judge(system="warm-up", user="Skala: 0 bis 5"),
                    )
                )
                started = time.monotonic()
                verdicts = judge_responses(backend, cells, pack, concurrency=concurrency)
                elapsed = time.monotonic() - started
            assert len(verdicts) == CELLS and not any(v.unscored for v in verdicts)
            rate = CELLS / elapsed
            ideal = concurrency / LATENCY_S
            report(
                f"throughput c={concurrency:2d}",
                rate,
                "verdicts/s",
                f">= {0.85 * ideal:.0f}/s (85 % of {ideal:.0f}/s)",
                rate >= 0.85 * ideal,
            )


if __name__ == "__main__":
    main()
