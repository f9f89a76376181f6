"""Resume a run of ~100 000 judged cells, with the user-level verdict cache on (DESIGN §10).

Targets: under 0.5 s (DESIGN §16) and under 300 MB RSS, with the verdict cache on (the
default) holding 300 000 entries. The target is the resume of a run that is all judged: the
judge run that judged it left ``judge-state.json`` (store/settled.py), so the resume reads
no record; it hashes the run's files to know they are unchanged. The time of that hashing
alone is printed beside it.
Beside it, for the record, two resumes that must read every record: one with the holistic
pass left (its 20 calls go to the simulator on loopback), and one with nothing left but no
stored state (a run judged by an older touchstone, or whose files were touched since). And
the floor for reading at all: the two JSONL files through ``json.loads`` alone.
Run: uv run python benchmarks/resume_100k.py
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import report, rss_mb, write_run

from touchstone.judge import JudgeConfig, JudgeEndpoint
from touchstone.judge.cache import VerdictCache
from touchstone.sim import SimServer
from touchstone.stages import execute_judge
from touchstone.store import JUDGE_STATE, JUDGEMENTS, REPORTS, RESPONSES, input_stamps
from touchstone.store.verdict_cache import default_cache_path

CACHE_ENTRIES = 300_000


def fill_cache(entries: int) -> Path:
    path = default_cache_path()
    VerdictCache(path).close()  # the schema
    now = time.time()
    rows = (
        (f"{i:064x}", i % 6, 0, f"Begründung {i}", "sim-judge", now - i) for i in range(entries)
    )
    with sqlite3.connect(path) as db:
        db.executemany("INSERT INTO verdicts VALUES (?, ?, ?, ?, ?, ?)", rows)
    return path


def floor_seconds(run: Path) -> float:
    started = time.monotonic()
    for name in (RESPONSES, JUDGEMENTS):
        with (run / name).open("rb") as handle:
            for line in handle:
                json.loads(line)
    return time.monotonic() - started


def hash_seconds(run: Path) -> float:
    started = time.monotonic()
    input_stamps(run)
    return time.monotonic() - started


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, SimServer() as sim:
        os.environ["TOUCHSTONE_CACHE_DIR"] = str(Path(tmp) / "cache")
        cache = fill_cache(CACHE_ENTRIES)
        run = Path(tmp) / "gross"
        cells = write_run(run, models=10, repeats=185, judged=True)
        print(f"cells: {cells}, verdict cache: {CACHE_ENTRIES} entries in {cache}")
        config = JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge", call_timeout_s=30)
        before = rss_mb()
        cases = [
            ("the holistic pass left", False),
            ("nothing left", False),  # the target
            ("nothing left, no stored state", True),
        ]
        for case, forget in cases:
            if forget:
                (run / JUDGE_STATE).unlink()
            started = time.monotonic()
            outcome = execute_judge(run, config=config)
            elapsed = time.monotonic() - started
            assert outcome.new_verdicts == 0 and outcome.cells == cells
            assert (run / REPORTS).exists() and (run / JUDGE_STATE).exists()
            name = f"resume, {case} ({outcome.health.calls} calls)"
            if case == "nothing left":
                report(name, elapsed, "s", "< 0.5 s", elapsed < 0.5)
                print(f"[REF ] hashing the run's files alone: {hash_seconds(run):.3f} s")
            else:
                print(f"[REF ] {name}: {elapsed:.3f} s (reads every record)")
        print(f"[REF ] json.loads of both files alone: {floor_seconds(run):.3f} s")
        peak = rss_mb()
        report("peak RSS", peak, "MB", "< 300 MB", peak < 300)
        print(f"(RSS before the resumes, after writing the data: {before:.0f} MB)")


if __name__ == "__main__":
    main()
