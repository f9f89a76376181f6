"""Resume a run of ~100 000 judged cells, with the user-level verdict cache on (design.md §10).

Each resume is what a user starts: a fresh ``python -m touchstone judge RUN --config ...``
process, so its import time counts. Its figures stand beside the floor for reading at all,
measured in the same run: a fresh interpreter that only ``json.loads`` every line of the two
JSONL files (machines are noisy: ratios, not absolute times).

- A first resume (every cell has its verdict, but no ``judge-state.json``: a run judged by an
  older touchstone, or whose files were touched since) reads every record: at most 3× the
  floor, and under 2 s.
- A settled resume (the judge run that judged it left ``judge-state.json``, store/settled.py)
  reads no record; it hashes the run's files to know they are unchanged: at most 0.6× the
  floor, and under 0.5 s (design.md §16). The time of that hashing alone is printed beside it.
- Under 300 MB RSS (the largest resume process), with the verdict cache on (the default)
  holding 300 000 entries.

Before them, for the record, the resume with the holistic pass left (its 20 calls go to the
simulator on loopback). touchstone's bytecode is compiled first, as an install leaves it
(with ``PYTHONDONTWRITEBYTECODE`` set, every fresh process would compile every module again,
which is no user's start-up). Each figure is the least of ``ROUNDS`` rounds: on a shared
machine the least is the one the others' work disturbed least. The ratios are given in wall-clock
time (the target, on a quiet machine) and in CPU time (what a busy machine disturbs least).
Run: uv run python benchmarks/resume_100k.py
"""

from __future__ import annotations

import compileall
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, report, write_run

import touchstone
from touchstone.judge.cache import VerdictCache
from touchstone.pack import load_pack
from touchstone.sim import SimServer
from touchstone.store import JUDGE_STATE, JUDGEMENTS, REPORTS, RESPONSES, input_stamps
from touchstone.store.verdict_cache import default_cache_path

CELLS = 100_000
MODELS = 10
CACHE_ENTRIES = 300_000
ROUNDS = 5
FIRST_RATIO = 3.0
SETTLED_RATIO = 0.6

# The floor: a fresh interpreter that parses both files and does nothing else.
FLOOR_SCRIPT = """
import json, sys
for name in sys.argv[1:]:
    with open(name, "rb") as handle:
        for line in handle:
            json.loads(line)
"""


Clocks = tuple[float, float]  # wall-clock and CPU seconds


@dataclass(frozen=True)
class Child:
    seconds: float
    cpu_seconds: float
    rss_mb: float
    stdout: str


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


def repeats_for(cells: int) -> int:
    """The repeats that make about ``cells`` cells of ``MODELS`` models on ``buero`` (it grows)."""
    pack = load_pack(BUERO)
    per_repeat = MODELS * len(pack.variants) * sum(1 for _ in pack.all_prompts())
    return max(1, round(cells / per_repeat))


def child(args: list[str]) -> Child:
    """``args`` run by a fresh interpreter: its wall-clock time from start to exit, its CPU
    time and peak RSS (from ``wait4``, this child's alone) and what it printed; it must exit
    0."""
    started = time.monotonic()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        proc = subprocess.Popen([sys.executable, *args], stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited {proc.returncode}:\n{text}")
    rss = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 1024 / 1024
    return Child(elapsed, usage.ru_utime + usage.ru_stime, rss, text)


def resume(run: Path, config: Path) -> Child:
    done = child(["-m", "touchstone", "judge", str(run), "--config", str(config)])
    assert "0 neue Bewertungen" in done.stdout, done.stdout
    assert (run / REPORTS).exists() and (run / JUDGE_STATE).exists()
    return done


def hash_seconds(run: Path) -> float:
    started = time.monotonic()
    input_stamps(run)
    return time.monotonic() - started


def least(name: str, children: list[Child]) -> Clocks:
    """The least wall-clock and the least CPU time of ``children``."""
    print(f"       {name}: " + ", ".join(f"{c.seconds:.3f} s" for c in children))
    print("         CPU: " + ", ".join(f"{c.cpu_seconds:.3f} s" for c in children))
    return min(c.seconds for c in children), min(c.cpu_seconds for c in children)


def ratios(name: str, seconds: Clocks, floor: Clocks, most: float) -> None:
    for clock, mine, base in (("wall", seconds[0], floor[0]), ("CPU", seconds[1], floor[1])):
        ratio = mine / base
        report(f"{name} / floor ({clock})", ratio, "×", f"≤ {most:g}×", ratio <= most)


def main() -> None:
    compileall.compile_dir(Path(touchstone.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as tmp, SimServer() as sim:
        os.environ["TOUCHSTONE_CACHE_DIR"] = str(Path(tmp) / "cache")
        cache = fill_cache(CACHE_ENTRIES)
        run = Path(tmp) / "gross"
        cells = write_run(run, models=MODELS, repeats=repeats_for(CELLS), judged=True)
        print(f"cells: {cells}, verdict cache: {CACHE_ENTRIES} entries in {cache}")
        config = Path(tmp) / "judge.yaml"
        config.write_text(
            f"endpoint:\n  base_url: {sim.base_url}\nmodel: sim-judge\ncall_timeout_s: 30\n",
            encoding="utf-8",
        )
        holistic = resume(run, config)
        print(f"[REF ] resume, the holistic pass left: {holistic.seconds:.3f} s (20 calls)")
        floors, firsts, settleds = [], [], []
        for _ in range(ROUNDS):
            floors.append(child(["-c", FLOOR_SCRIPT, str(run / RESPONSES), str(run / JUDGEMENTS)]))
            (run / JUDGE_STATE).unlink()
            firsts.append(resume(run, config))
            settleds.append(resume(run, config))
        print(f"rounds ({ROUNDS}, the least counts):")
        floor = least("floor (fresh python, json.loads of both files)", floors)
        first = least("first resume (no judge-state.json, reads every record)", firsts)
        settled = least("settled resume (judge-state.json, files hashed)", settleds)
        print(f"[REF ] floor: a fresh interpreter's json.loads of both files: {floor[0]:.3f} s")
        report("first resume", first[0], "s", "< 2 s", first[0] < 2)
        ratios("first resume", first, floor, FIRST_RATIO)
        report("settled resume", settled[0], "s", "< 0.5 s", settled[0] < 0.5)
        ratios("settled resume", settled, floor, SETTLED_RATIO)
        print(f"[REF ] hashing the run's files alone (in process): {hash_seconds(run):.3f} s")
        peak = max(c.rss_mb for c in [holistic, *firsts, *settleds])
        report("peak RSS of a resume", peak, "MB", "< 300 MB", peak < 300)


if __name__ == "__main__":
    main()
