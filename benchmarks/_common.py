"""Shared helpers of the benchmark scripts (not a test: they print figures and targets)."""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

from touchstone.pack import load_pack
from touchstone.pipeline import now_iso
from touchstone.results import EvalResponse, Verdict

REPO = Path(__file__).resolve().parent.parent
BUERO = REPO / "packs" / "buero.yaml"


def rss_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform != "darwin" else peak / 1024 / 1024


def verdict_for(resp: EvalResponse, score: int, judge_model: str = "sim-judge") -> Verdict:
    return Verdict(
        model=resp.model,
        variant=resp.variant,
        prompt_id=resp.prompt_id,
        repeat=resp.repeat,
        category=resp.category,
        score=score,
        red_flag=score == 0,
        rationale=f"Simulierte Begründung für {resp.prompt_id}, Wertung {score}.",
        judge_model=judge_model,
    )


def write_run(run: Path, *, models: int, repeats: int, judged: bool) -> int:
    """A run dir on ``buero`` with answers (and verdicts when ``judged``); returns the cells."""
    pack = load_pack(BUERO)
    run.mkdir(parents=True)
    manifest = {
        "name": run.name,
        "pack_id": pack.id,
        "pack_path": str(BUERO),
        "pack_abspath": str(BUERO),
        "pack_sha256": "",
        "models": [f"model-{m}" for m in range(models)],
        "variants": list(pack.variants),
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
            for variant in pack.variants:
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
                            verdict = verdict_for(resp, score)
                            verdicts.write(json.dumps(verdict.as_dict(), ensure_ascii=False) + "\n")
                        cells += 1
    return cells


def report(name: str, value: float, unit: str, target: str, ok: bool) -> None:
    mark = "OK " if ok else "MISS"
    print(f"[{mark}] {name}: {value:.3f} {unit}   (target: {target})")
