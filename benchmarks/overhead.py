"""Harness overhead per verdict: everything but the judge's own time (design.md §10).

A judge that answers instantly judges ~10 000 cells through the same `execute_judge` the CLI
runs: prompt building, cache keys, reply parsing, verdicts appended with a flush each, the
clean rewrite and the holistic pass. Target: under 1 ms per verdict.
Run: uv run python benchmarks/overhead.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import report, write_run

from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.stages.judge.judge import execute_judge
from touchstone.transport.fake import FakeChat, SentCall

HOLISTIC = (
    '{"korrektheit": {"score": 4, "rationale": "a"}, "sicherheit": {"score": 4, "rationale": "b"}, '
    '"sprache": {"score": 4, "rationale": "c"}, "nutzbarkeit": {"score": 4, "rationale": "d"}}'
)


class InstantJudge(FakeChat):
    """Answers at once, so that only the harness is measured."""

    def __init__(self) -> None:
        super().__init__(model="instant")

    async def reply(self, sent: SentCall) -> str:
        if "Dimension-IDs:" in sent.user:
            return HOLISTIC
        return '{"score": 4, "red_flag": false, "rationale": "Sofort bewertet."}'


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        cells = write_run(run, models=4, repeats=46, judged=False)
        config = JudgeConfig(JudgeEndpoint("http://127.0.0.1:9/v1"), "instant")
        started = time.monotonic()
        outcome = execute_judge(run, config=config, backend=InstantJudge(), use_cache=False)
        elapsed = time.monotonic() - started
        assert outcome.new_verdicts == cells
        per_verdict_ms = elapsed / cells * 1000
        print(f"cells: {cells}, total {elapsed:.2f} s")
        report("harness overhead", per_verdict_ms, "ms/verdict", "< 1 ms", per_verdict_ms < 1)


if __name__ == "__main__":
    main()
