"""Resume a run of ~100 000 judged cells: only the holistic pass is left (DESIGN §10).

Target: under 2 s and under 300 MB RSS. The judge is the simulator's, on loopback.
Run: uv run python benchmarks/resume_100k.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import report, rss_mb, write_run

from touchstone.judge import JudgeConfig, JudgeEndpoint
from touchstone.sim import SimServer
from touchstone.stages import execute_judge


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, SimServer() as sim:
        run = Path(tmp) / "gross"
        cells = write_run(run, models=10, repeats=185, judged=True)
        config = JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge", call_timeout_s=30)
        before = rss_mb()
        started = time.monotonic()
        outcome = execute_judge(run, config=config, use_cache=False)
        elapsed = time.monotonic() - started
        assert outcome.new_verdicts == 0 and len(outcome.verdicts) == cells
        print(f"cells: {cells}, holistic calls: {outcome.health.calls}")
        report("resume time", elapsed, "s", "< 2 s", elapsed < 2)
        peak = rss_mb()
        report("peak RSS", peak, "MB", "< 300 MB", peak < 300)
        print(f"(RSS before the resume, after writing the data: {before:.0f} MB)")


if __name__ == "__main__":
    main()
