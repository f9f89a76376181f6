"""Shared helpers of the benchmark scripts (not a test: they print figures and targets)."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from touchstone.judge.rubric import RubricHashes
from touchstone.pack import load_pack
from touchstone.results import EvalResponse, Verdict
from touchstone.stages.run.manifest import now_iso

REPO = Path(__file__).resolve().parent.parent
BUERO = REPO / "packs" / "buero.yaml"


def rss_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform != "darwin" else peak / 1024 / 1024


def verdict_for(
    resp: EvalResponse, score: int, judge_model: str = "sim-judge", rubric_hash: str = ""
) -> Verdict:
    cell = {name: getattr(resp, name) for name in ("model", "variant", "prompt_id", "repeat")}
    return Verdict(
        **cell,
        category=resp.category,
        score=score,
        red_flag=score == 0,
        rationale=f"Simulierte Begründung für {resp.prompt_id}, Wertung {score}.",
        judge_model=judge_model,
        rubric_hash=rubric_hash,
    )


def write_run(
    run: Path,
    *,
    models: int,
    repeats: int,
    judged: bool,
    pack_path: Path = BUERO,
    variants: list[str] | None = None,
) -> int:
    """A run dir on ``pack_path`` (``buero``) with answers (and verdicts when ``judged``) for
    ``variants`` (all of the pack's); returns the cells."""
    pack = load_pack(pack_path)
    rubrics = RubricHashes(pack)
    run.mkdir(parents=True)
    variants = list(pack.variants) if variants is None else variants
    manifest = {
        "name": run.name,
        "pack_id": pack.id,
        "pack_path": str(pack_path),
        "pack_abspath": str(pack_path),
        "pack_sha256": "",
        "models": [f"model-{m}" for m in range(models)],
        "variants": variants,
        "repeats": repeats,
        "created_at": now_iso(),
    }
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    cells = 0
    with (
        (run / "responses.jsonl").open("w", encoding="utf-8") as answers,
        (run / "judgements.jsonl").open("w", encoding="utf-8") as verdicts,
    ):
        for m in range(models):
            for variant in variants:
                for repeat in range(1, repeats + 1):
                    for category, prompt in pack.all_prompts():
                        resp = EvalResponse(
                            model=f"model-{m}",
                            variant=variant,
                            prompt_id=prompt.id,
                            repeat=repeat,
                            category=category.id,
                            response_text=f"Antwort {m}/{repeat} auf {prompt.id}: " + "x" * 300,
                            ok=True,
                            content_empty=False,
                            reasoning_chars=0,
                            finish_reason="stop",
                            latency_s=1.2,
                        )
                        answers.write(json.dumps(resp.as_dict(), ensure_ascii=False) + "\n")
                        if judged:
                            score = (m + repeat + len(prompt.id)) % 6
                            verdict = verdict_for(resp, score, rubric_hash=rubrics(prompt, variant))
                            verdicts.write(json.dumps(verdict.as_dict(), ensure_ascii=False) + "\n")
                        cells += 1
    return cells


def report(name: str, value: float, unit: str, target: str, ok: bool) -> None:
    mark = "OK " if ok else "MISS"
    print(f"[{mark}] {name}: {value:.3f} {unit}   (target: {target})")


def pin_apart(server_pid: int) -> str:
    """Give the server the last core and this process the others (Linux, 2+ cores).

    A real judge runs on hardware of its own; a simulator sharing the harness's cores bills
    its own CPU, and the scheduler moving both around, to the harness. Returns a note saying
    what was done, for the benchmark's output.
    """
    if not hasattr(os, "sched_setaffinity"):
        return "no core pinning on this platform"
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        return "one core: simulator and harness share it"
    os.sched_setaffinity(server_pid, {cores[-1]})
    os.sched_setaffinity(0, set(cores[:-1]))
    return f"simulator pinned to core {cores[-1]}, harness to cores {cores[:-1]}"


@contextlib.contextmanager
def sim_process(pinned: bool = False, extra: list[str] | None = None) -> Iterator[str]:
    """The simulator in its own process (so it does not share our GIL); yields its base URL.

    ``pinned``: the simulator gets a core of its own (``pin_apart``) before it starts any
    thread, so every thread it makes inherits the pinning.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "touchstone", "sim", "--port", str(port), *(extra or [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if pinned:
        print(f"({pin_apart(proc.pid)})")
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def answered_cells(n: int, pack_prompts: list[tuple[str, str]]) -> list[EvalResponse]:
    """``n`` distinct answered cells cycling through the pack's prompts."""
    cells = []
    for index in range(n):
        category, prompt_id = pack_prompts[index % len(pack_prompts)]
        cells.append(
            EvalResponse(
                model=f"model-{index % 4}",
                variant="none",
                prompt_id=prompt_id,
                repeat=index // len(pack_prompts) + 1,
                category=category,
                response_text=f"Simulierte Antwort (sim-gut, Qualitätsstufe 4/5) Nr. {index}",
                ok=True,
                content_empty=False,
                reasoning_chars=0,
            )
        )
    return cells
