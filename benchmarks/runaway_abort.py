"""Time from start to a clean abort with a runaway judge (design.md §10).

Bound: call_timeout_s * ceil(k / concurrency) + 1 s, for a silent (hanging) and a trickling
judge, here with k = 3 and T = 1 s at concurrency 1 and 3. Measured around the judge stage
(`execute_judge`, the same code the CLI runs). The whole CLI is timed too, for information:
it adds the interpreter start and importing the openai SDK (over a second on its own).
Run: uv run python benchmarks/runaway_abort.py
"""

from __future__ import annotations

import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, report, sim_process

from touchstone.errors import JudgeAborted
from touchstone.judge.config import load_judge_config
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.run.run import execute_run

K, T = 3, 1.0


def main() -> None:
    with sim_process() as url, tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        execute_run(pack_path=BUERO, models=["sim-gut"], variants=["none"], out=run, base_url=url)
        for model in ("sim-hang", "sim-trickle"):
            for concurrency in (1, 3):
                config = Path(tmp) / f"{model}-{concurrency}.yaml"
                config.write_text(
                    f"endpoint: {{base_url: '{url}'}}\nmodel: {model}\n"
                    f"call_timeout_s: {T}\nmax_consecutive_failures: {K}\n"
                    f"concurrency: {concurrency}\n",
                    encoding="utf-8",
                )
                started = time.monotonic()
                try:
                    execute_judge(run, config=load_judge_config(config), use_cache=False)
                except JudgeAborted:
                    elapsed = time.monotonic() - started
                else:
                    raise AssertionError("the runaway judge did not trip the guard")
                bound = T * math.ceil(K / concurrency) + 1
                report(
                    f"abort {model:12s} c={concurrency}",
                    elapsed,
                    "s",
                    f"<= {bound:.1f} s",
                    elapsed <= bound,
                )
                started = time.monotonic()
                result = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "touchstone",
                        "judge",
                        str(run),
                        "--config",
                        str(config),
                        "--no-cache",
                    ],
                    capture_output=True,
                    text=True,
                )
                cli = time.monotonic() - started
                assert result.returncode == 1 and "Judge abgebrochen" in result.stderr, (
                    result.stderr
                )
                print(f"       whole CLI incl. interpreter start and imports: {cli:.2f} s, exit 1")


if __name__ == "__main__":
    main()
