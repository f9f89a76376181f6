"""``compare`` of two runs of a million cells each, beside the scorecard of such a run
(issue 35: "compare stays within the time and memory the scorecard of such a run takes").

Both runs are built in memory (``buero``: 65 prompts x 2 variants, 10 models, 770 repeats:
1,001,000 judged cells each; the new run's scores shifted for one model), so that the figures
are of the computation, not of reading 400 MB of JSONL (``load_run`` is the same for both and
measured by ``resume_100k.py``). Measured in this process, alternately, ``ROUNDS`` times each:

- the scorecard of the new run (``RunView.scorecard``: what ``report`` and the end of every
  ``judge`` compute), time and peak memory the computation allocates (tracemalloc, in a pass
  of its own: tracing slows the code);
- ``compare_runs`` of the new run against the old and the gate over it (``--fail-on worse
  --margin 0.3``), the same.

Target: compare's time and peak memory at most the scorecard's (ratio <= 1).
Run: uv run python benchmarks/compare_1m.py [CELLS_PER_ROW_REPEATS]
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BUERO, report

from touchstone.judge.rubric import RubricHashes
from touchstone.pack import Pack, load_pack
from touchstone.results import EvalResponse, Verdict
from touchstone.stages.view import RunView
from touchstone.store import RunDir
from touchstone.store.manifest import Manifest
from touchstone.versus import compare_runs, gate

MODELS = 10
REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 770
ROUNDS = 3


def in_memory_run(name: str, pack: Pack, *, worse_model: int | None) -> RunView:
    """A judged run of MODELS x variants x prompts x REPEATS cells, in memory."""
    rubrics = RubricHashes(pack)
    models = [f"model-{m}" for m in range(MODELS)]
    responses: list[EvalResponse] = []
    verdicts: list[Verdict] = []
    text = "Antwort " + "x" * 300  # one string shared: the memory is the records'
    for m, model in enumerate(models):
        for variant in pack.variants:
            for category, prompt in pack.all_prompts():
                rubric = rubrics(prompt, variant)
                for repeat in range(1, REPEATS + 1):
                    cell = {
                        "model": model,
                        "variant": variant,
                        "prompt_id": prompt.id,
                        "repeat": repeat,
                        "category": category.id,
                    }
                    responses.append(
                        EvalResponse(
                            **cell,
                            response_text=text,
                            ok=True,
                            content_empty=False,
                            reasoning_chars=0,
                            finish_reason="stop",
                            latency_s=1.2,
                        )
                    )
                    score = (m + repeat + len(prompt.id)) % 6
                    if m == worse_model:
                        score = max(0, score - 1)
                    verdicts.append(
                        Verdict(
                            **cell,
                            score=score,
                            red_flag=score == 0,
                            rationale="Simulierte Begründung.",
                            judge_model="sim-judge",
                            rubric_hash=rubric,
                        )
                    )
    manifest = Manifest(
        name=name, pack_id=pack.id, models=models, variants=list(pack.variants), repeats=REPEATS
    )
    return RunView(RunDir(Path("/im-speicher") / name), pack, manifest, responses, verdicts, [])


def timed(work: Callable[[], object]) -> float:
    gc.collect()
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def peak_mb(work: Callable[[], object]) -> float:
    """The peak of what ``work`` allocates beyond what was there, in MB."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        work()
        return (tracemalloc.get_traced_memory()[1] - base) / 1e6
    finally:
        tracemalloc.stop()


def main() -> None:
    pack = load_pack(BUERO)
    started = time.perf_counter()
    old = in_memory_run("alt", pack, worse_model=None)
    new = in_memory_run("neu", pack, worse_model=3)
    print(
        f"two runs of {len(new.verdicts):,} judged cells each, built in "
        f"{time.perf_counter() - started:.1f} s ({MODELS} models x {len(pack.variants)} "
        f"variants x {sum(1 for _ in pack.all_prompts())} prompts x {REPEATS} repeats)"
    )

    def card() -> object:
        return new.scorecard()

    def versus() -> object:
        comparison = compare_runs(new, old)
        return gate(comparison, fail_on_worse=True, margin=0.3)

    card_s: list[float] = []
    compare_s: list[float] = []
    for _ in range(ROUNDS):
        card_s.append(timed(card))
        compare_s.append(timed(versus))
    card_mb, compare_mb = peak_mb(card), peak_mb(versus)
    result = versus()
    print(f"gate: exit {result.exit_code}")  # type: ignore[attr-defined]
    card_t, compare_t = statistics.median(card_s), statistics.median(compare_s)
    print(
        f"scorecard: {card_t:.2f} s (rounds {', '.join(f'{s:.2f}' for s in card_s)}), "
        f"peak {card_mb:.0f} MB"
    )
    print(
        f"compare + gate: {compare_t:.2f} s (rounds {', '.join(f'{s:.2f}' for s in compare_s)}), "
        f"peak {compare_mb:.0f} MB"
    )
    report("compare / scorecard, time", compare_t / card_t, "x", "<= 1", compare_t <= card_t)
    report(
        "compare / scorecard, peak memory", compare_mb / card_mb, "x", "<= 1", compare_mb <= card_mb
    )


if __name__ == "__main__":
    main()
