"""Judge throughput against a simulated judge with fixed latency L = 50 ms (design.md §10).

Targets: at least 95 % of what the bare openai SDK reaches in the same run, through its
public streaming API and through its low-level ``post`` with the SSE lines unparsed (the
stricter ceiling: no chunk models), and at least 85 % of concurrency / L verdicts per second
where the SDK itself gets there; for concurrency 1, 4 and 16. 96 distinct cells are judged
through the real transport (openai SDK over HTTP on loopback), streamed as the judge streams
by default, by the same engine the CLI uses. The
simulator runs in its own process and is *not* pinned to a core: the harness's own CPU cost
must show.

The reference: the same judge prompts sent by the bare openai SDK, the way its docs stream a
chat completion (``client.chat.completions.create(..., stream=True)``), from one asyncio loop
with ``c`` lanes, each with a client of its own, no harness at all. Both sides first warm up as
many connections as calls will overlap, then (after a garbage collection) judge the cells; the
two are measured alternately, ``ROUNDS`` times each, and the medians compared.
Run: uv run python benchmarks/throughput.py
"""

from __future__ import annotations

import asyncio
import gc
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2
import openai
from _common import BUERO, answered_cells, report, sim_process

from touchstone.judge.backend import OpenAIJudgeBackend
from touchstone.judge.passes import judge_cells
from touchstone.judge.rubric import judge_system_prompt, judge_user_prompt
from touchstone.judge.session import open_session
from touchstone.pack import Pack, load_pack
from touchstone.results import EvalResponse

LATENCY_S = 0.05
CELLS = 96
ROUNDS = 5
MODEL = f"sim-judge@{LATENCY_S}"
WARM_UP = "Skala: 0 bis 5"


def cpu_s() -> float:
    """CPU time of this process so far (user and system), in seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def settle_garbage() -> None:
    """Collect what the sides measured so far left behind, before a side is measured.

    Both sides run in this process, one after the other. Without this, a full collection
    (75-140 ms with the SDK loaded, about 1.5 ms per call of a 96-call round) falls into
    whichever round happens to be running when the garbage of all the others adds up.
    """
    gc.collect()


def harness_rate(
    url: str, pack: Pack, cells: list[EvalResponse], concurrency: int
) -> tuple[float, float]:
    """Verdicts per second and CPU milliseconds per verdict of the harness."""
    backend = OpenAIJudgeBackend(url, "", MODEL, deadline_s=30)

    async def measure() -> tuple[float, float]:
        async with open_session(backend, concurrency=concurrency) as session:
            system = judge_system_prompt(pack)
            # Warm up as many connections as calls will overlap (a long run's steady state).
            warm = (session.call(system, WARM_UP, None, None) for _ in range(concurrency))
            await asyncio.gather(*warm)
            settle_garbage()
            started, cpu = time.monotonic(), cpu_s()
            verdicts = await judge_cells(session, cells, pack)
            elapsed, cpu = time.monotonic() - started, cpu_s() - cpu
        assert len(verdicts) == CELLS and not any(v.unscored for v in verdicts)
        return CELLS / elapsed, cpu * 1000 / CELLS

    return asyncio.run(measure())


def sdk_alone_rate(
    url: str, pack: Pack, cells: list[EvalResponse], concurrency: int, *, raw: bool = False
) -> tuple[float, float]:
    """The same judge prompts through the bare SDK, streamed: ``concurrency`` lanes.

    ``raw``: the SDK's low-level ``post`` with the SSE lines read as bytes arrive, no chunk
    models (what touchstone's transport does, without anything else of touchstone).
    """
    system = judge_system_prompt(pack)
    users = [judge_user_prompt(cell, pack.prompt(cell.prompt_id), pack) for cell in cells]

    async def measure() -> tuple[float, float]:
        clients = [
            openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0, timeout=30)
            for _ in range(concurrency)
        ]

        async def ask(client: openai.AsyncOpenAI, user: str) -> None:
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            if raw:
                body = {
                    "model": MODEL,
                    "messages": messages,
                    "temperature": 0.0,
                    "stream": True,
                    "stream_options": {"include_usage": True},
                }
                response = await client.post(
                    "/chat/completions", body=body, cast_to=httpx2.Response, stream=True
                )
                lines = [line async for line in response.aiter_lines()]
                await response.aclose()
                assert "score" in "".join(lines)
                return
            stream = await client.chat.completions.create(
                model=MODEL,
                messages=messages,  # type: ignore[arg-type]
                temperature=0.0,
                stream=True,
                stream_options={"include_usage": True},
            )
            content = [c.choices[0].delta.content or "" async for c in stream if c.choices]
            assert '"score"' in "".join(content)

        async def lane(client: openai.AsyncOpenAI, share: list[str]) -> None:
            for user in share:
                await ask(client, user)

        await asyncio.gather(*(ask(client, WARM_UP) for client in clients))
        settle_garbage()
        started, cpu = time.monotonic(), cpu_s()
        lanes = [users[i::concurrency] for i in range(concurrency)]
        await asyncio.gather(*(lane(c, share) for c, share in zip(clients, lanes, strict=True)))
        elapsed, cpu = time.monotonic() - started, cpu_s() - cpu
        for client in clients:
            await client.close()
        return CELLS / elapsed, cpu * 1000 / CELLS

    return asyncio.run(measure())


def main() -> None:
    pack = load_pack(BUERO)
    cells = answered_cells(CELLS, [(c.id, p.id) for c, p in pack.all_prompts()])
    print(f"{CELLS} cells, L = {LATENCY_S * 1000:.0f} ms, simulator unpinned, {ROUNDS} rounds")
    with sim_process() as url:
        for concurrency in (1, 4, 16):
            ideal = concurrency / LATENCY_S
            measured: dict[str, list[tuple[float, float]]] = {"ours": [], "sdk": [], "raw": []}
            for _ in range(ROUNDS):  # alternately, so that drift hits all alike
                measured["ours"].append(harness_rate(url, pack, cells, concurrency))
                measured["sdk"].append(sdk_alone_rate(url, pack, cells, concurrency))
                measured["raw"].append(sdk_alone_rate(url, pack, cells, concurrency, raw=True))
            ours, theirs, raws = ([r for r, _ in measured[k]] for k in ("ours", "sdk", "raw"))
            cpu_ours, cpu_raw = (
                statistics.median(c for _, c in measured[k]) for k in ("ours", "raw")
            )
            rate, ceiling = statistics.median(ours), statistics.median(theirs)
            raw = statistics.median(raws)
            print(
                f"[REF ] SDK low-level post, SSE lines unparsed c={concurrency:2d}: {raw:.1f} "
                f"calls/s (rounds {min(raws):.0f}–{max(raws):.0f}); CPU per call "
                f"{cpu_raw:.2f} ms, touchstone's {cpu_ours:.2f} ms ({cpu_raw / cpu_ours:.1%})"
            )
            report(
                f"touchstone c={concurrency:2d} vs low-level post",
                rate / raw * 100,
                "%",
                ">= 95 % of the low-level post",
                rate >= 0.95 * raw,
            )
            print(
                f"[REF ] openai SDK alone c={concurrency:2d}: {ceiling:.1f} calls/s "
                f"({ceiling / ideal:.0%} of c/L = {ideal:.0f}/s; rounds "
                f"{min(theirs):.0f}–{max(theirs):.0f})"
            )
            report(
                f"touchstone c={concurrency:2d}",
                rate,
                f"verdicts/s = {rate / ceiling:.1%} of the SDK (rounds {min(ours):.0f}–"
                f"{max(ours):.0f})",
                ">= 95 % of the SDK",
                rate >= 0.95 * ceiling,
            )
            if ceiling >= 0.85 * ideal:
                report(
                    f"touchstone c={concurrency:2d} vs c/L",
                    rate / ideal * 100,
                    "%",
                    ">= 85 % of c/L",
                    rate >= 0.85 * ideal,
                )


if __name__ == "__main__":
    main()
