"""Judge throughput against a simulated judge with fixed latency L = 50 ms (DESIGN §10).

Target: at least 85 % of concurrency / L verdicts per second, for concurrency 1, 4 and 16.
96 distinct cells, judged through the real transport (openai SDK over HTTP on loopback) by
the same `judge_responses` the CLI uses; the simulator runs in its own process.

Beside each figure, a reference: the same judge prompts sent by the bare openai SDK (one
asyncio loop, one AsyncOpenAI client per concurrent call, no harness at all). It is the
ceiling any harness built on the SDK can reach on this machine, so the gap between the two
lines is what touchstone itself costs. The simulator gets a core of its own (Linux, 2+ cores):
a real judge runs elsewhere, and a server sharing the harness's core bills its own CPU to it.
Run: uv run python benchmarks/throughput.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import openai
from _common import BUERO, answered_cells, report, sim_process
from touchstone.concurrency import CallPool

from touchstone.judge import (
    OpenAIJudgeBackend,
    judge_responses,
    judge_system_prompt,
    judge_user_prompt,
)
from touchstone.pack import Pack, load_pack
from touchstone.results import EvalResponse

LATENCY_S = 0.05
CELLS = 96
MODEL = f"sim-judge@{LATENCY_S}"


def harness_rate(url: str, pack: Pack, cells: list[EvalResponse], concurrency: int) -> float:
    with OpenAIJudgeBackend(url, "", MODEL, timeout=30) as backend:
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
    return CELLS / elapsed


def sdk_alone_rate(url: str, pack: Pack, cells: list[EvalResponse], concurrency: int) -> float:
    """The same judge prompts through the bare SDK: ``concurrency`` clients on one loop."""
    system = judge_system_prompt(pack)
    users = [judge_user_prompt(cell, pack.prompt(cell.prompt_id), pack) for cell in cells]

    async def measure() -> float:
        clients = [
            openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0, timeout=30)
            for _ in range(concurrency)
        ]

        async def ask(client: openai.AsyncOpenAI, user: str) -> None:
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            body = {"model": MODEL, "messages": messages, "temperature": 0.0}
            reply = await client.post("/chat/completions", body=body, cast_to=object)
            assert isinstance(reply, dict) and reply["choices"]

        async def lane(client: openai.AsyncOpenAI, share: list[str]) -> None:
            for user in share:
                await ask(client, user)

        await asyncio.gather(*(ask(client, "Skala: 0 bis 5") for client in clients))
        started = time.monotonic()
        lanes = [users[i::concurrency] for i in range(concurrency)]
        await asyncio.gather(*(lane(c, share) for c, share in zip(clients, lanes, strict=True)))
        elapsed = time.monotonic() - started
        for client in clients:
            await client.close()
        return CELLS / elapsed

    return asyncio.run(measure())


def main() -> None:
    pack = load_pack(BUERO)
    cells = answered_cells(CELLS, [(c.id, p.id) for c, p in pack.all_prompts()])
    with sim_process(pinned=True) as url:
        for concurrency in (1, 4, 16):
            ideal = concurrency / LATENCY_S
            rate = harness_rate(url, pack, cells, concurrency)
            report(
                f"throughput c={concurrency:2d}",
                rate,
                "verdicts/s",
                f">= {0.85 * ideal:.0f}/s (85 % of {ideal:.0f}/s)",
                rate >= 0.85 * ideal,
            )
            ceiling = sdk_alone_rate(url, pack, cells, concurrency)
            print(
                f"[REF ] openai SDK alone c={concurrency:2d}: {ceiling:.3f} calls/s   "
                f"(same prompts, no harness: {ceiling / ideal:.0%} of {ideal:.0f}/s)"
            )


if __name__ == "__main__":
    main()
