"""A pack that grows keeps the runs made with it (design.md §20, #28 design.md §3).

``buero`` grew from 27 to more prompts. A run made on the 27 keeps its answers and verdicts:
judging it with the grown pack judges nothing again, the new prompts are the run's open cells,
and ``run --extend`` answers them. A pack that changed what the stored answers were asked (a
prompt's text) is refused even when extending.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO, FakeJudge, run_on_sim
from touchstone.errors import InputError
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.jury.verdicts import run_cells
from touchstone.pack import Pack, load_pack
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.run.extend import AskedRun, answer_inputs, differences
from touchstone.stages.run.run import execute_run
from touchstone.stages.view import load_run
from touchstone.store import MANIFEST, RunDir
from touchstone.store.manifest import ANSWER_INPUTS, Manifest

BUERO = REPO / "packs" / "buero.yaml"
# The prompts of the first buero (27): their rubrics are what existing runs were judged by.
FIRST = [f"{c}{n}" for c, count in zip("ABCDEF", (4, 4, 6, 4, 5, 4), strict=True) for n in
         range(1, count + 1)]  # fmt: skip
FIRST_RUBRICS = "493ae79f26b889bd"


def rubrics_of_first(pack: Pack) -> str:
    """A digest of all a verdict on the first 27 prompts depends on in the pack."""
    parts: list[Any] = [pack.judge_instructions, pack.variants, pack.scale.model_dump()]
    for prompt_id in FIRST:
        prompt = pack.prompt(prompt_id)
        parts.append([pack.category_title(prompt.category), prompt.model_dump()])
    text = json.dumps(parts, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def test_the_first_27_prompts_keep_their_rubrics() -> None:
    # Changing one of them (a wrong figure fixed) re-judges that prompt in every run: then
    # this digest changes on purpose, and the change says which prompt and why.
    assert rubrics_of_first(load_pack(BUERO)) == FIRST_RUBRICS


def write_first_pack(path: Path) -> None:
    """buero as it was: the grown pack without the prompts added since."""
    data = yaml.safe_load(BUERO.read_text(encoding="utf-8"))
    for category in data["categories"]:
        category["prompts"] = [p for p in category["prompts"] if p["id"] in FIRST]
    data["categories"] = [c for c in data["categories"] if c["prompts"]]
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    assert rubrics_of_first(load_pack(path)) == FIRST_RUBRICS


def per_answer_calls(judge: FakeJudge) -> list[str]:
    return [
        call.user.split("\n", 1)[0] for call in judge.history if call.user.startswith("## Aufgabe ")
    ]


@pytest.fixture
def judged_on_the_first_pack(sim: SimServer, tmp_path: Path) -> tuple[Path, Path]:
    """A run of sim-gut (variant none) on the 27 prompts, judged; and its pack's path."""
    pack, out = tmp_path / "packs" / "buero.yaml", tmp_path / "run"
    pack.parent.mkdir()
    write_first_pack(pack)
    run_on_sim(sim, pack_path=pack, models=["sim-gut"], variants=["none"], out=out)
    judge = FakeJudge()
    execute_judge(out, config=JudgeConfig(JudgeEndpoint(sim.base_url), "j"), backend=judge)
    assert len(per_answer_calls(judge)) == len(FIRST)
    return pack, out


def test_a_grown_pack_judges_nothing_again_and_opens_only_the_new_prompts(
    sim: SimServer, judged_on_the_first_pack: tuple[Path, Path]
) -> None:
    pack, out = judged_on_the_first_pack
    verdicts_before = run_cells(RunDir(out)).cells
    pack.write_text(BUERO.read_text(encoding="utf-8"), encoding="utf-8")  # as a git pull does
    grown = load_pack(pack).prompt_count
    config = JudgeConfig(JudgeEndpoint(sim.base_url), "j")

    judge = FakeJudge()
    outcome = execute_judge(out, config=config, backend=judge)
    assert per_answer_calls(judge) == [] and outcome.stale == 0 and outcome.new_verdicts == 0
    warned = " ".join(" ".join(outcome.run_dir.warnings).split())
    assert f"um {grown - len(FIRST)} Prompts gewachsen" in warned and "run --extend" in warned
    assert {(v.prompt_id, v.score) for v in run_cells(RunDir(out)).cells} == {
        (v.prompt_id, v.score) for v in verdicts_before
    }
    (row,) = load_run(out).scorecard().rows
    assert row.open == grown - len(FIRST)

    asked: dict[str, Any] = {
        "pack_path": pack, "models": ["sim-gut"], "variants": ["none"], "out": out,
        "base_url": sim.base_url,
    }  # fmt: skip
    with pytest.raises(InputError) as refused:
        execute_run(**asked)
    message = " ".join(str(refused.value).split())
    assert f"neu: {grown - len(FIRST)} Prompts (A5, A6" in message and "--extend" in message
    assert len(RunDir(out).load_responses()) == len(FIRST)

    extended = execute_run(**asked, extend=True)
    assert (extended.summary.recorded, extended.summary.already_done) == (
        grown - len(FIRST),
        len(FIRST),
    )
    judge = FakeJudge()
    execute_judge(out, config=config, backend=judge)
    new = {line.split()[2] for line in per_answer_calls(judge)}
    assert new == {p.id for _, p in load_pack(pack).all_prompts()} - set(FIRST)
    (row,) = load_run(out).scorecard().rows
    assert row.open == 0 and row.cells == grown


def test_a_changed_prompt_text_is_refused_even_when_extending(
    sim: SimServer, judged_on_the_first_pack: tuple[Path, Path]
) -> None:
    pack, out = judged_on_the_first_pack
    manifest = (out / MANIFEST).read_text(encoding="utf-8")
    grown = BUERO.read_text(encoding="utf-8")
    pack.write_text(grown.replace("Frau Jana Keller", "Frau Jana Kellner", 1), encoding="utf-8")
    with pytest.raises(InputError) as refused:
        run_on_sim(sim, pack_path=pack, models=["sim-gut"], variants=["none"], out=out, extend=True)
    message = " ".join(str(refused.value).split())
    assert "Prompt-Text geändert: A1" in message and "auch --extend ändert das nicht" in message
    assert (out / MANIFEST).read_text(encoding="utf-8") == manifest
    # Read with the changed pack, the run warns that its pack changed, not that it grew.
    warned = " ".join(load_run(out).run_dir.warnings)
    assert "wurde seit dem Run geändert (andere Prüfsumme)" in warned and "gewachsen" not in warned


def test_a_rubric_only_change_resumes_and_rejudges_that_prompt(
    sim: SimServer, judged_on_the_first_pack: tuple[Path, Path]
) -> None:
    pack, out = judged_on_the_first_pack
    text = pack.read_text(encoding="utf-8")
    old = "Umsatzsteuer 465,50 €"
    assert text.count(old) == 1
    pack.write_text(text.replace(old, "Umsatzsteuer 465,50 € (19 %)"), encoding="utf-8")
    again = run_on_sim(sim, pack_path=pack, models=["sim-gut"], variants=["none"], out=out)
    assert (again.summary.recorded, again.summary.already_done) == (0, len(FIRST))
    judge = FakeJudge()
    outcome = execute_judge(
        out, config=JudgeConfig(JudgeEndpoint(sim.base_url), "j"), backend=judge
    )
    assert outcome.stale == 1 and per_answer_calls(judge) == [
        "## Aufgabe C1 (Kategorie: Kaufmännisches Rechnen)"
    ]


@pytest.mark.parametrize(
    "stored",
    [None, "x", {"prompts": ["A1"], "variants": {}}, {"prompts": {"A1": 1}, "variants": {}}],
)
def test_fingerprints_missing_or_malformed_in_run_json_refuse_the_changed_pack(
    stored: object,
) -> None:
    # A run from before the fingerprints, or a run.json someone edited: the change cannot be
    # told a growth, so it is refused as any changed pack was.
    data: dict[str, object] = {"pack_id": "buero", "pack_sha256": "a" * 64, "variants": ["none"]}
    if stored is not None:
        data[ANSWER_INPUTS] = stored
    manifest = Manifest.model_validate(data)
    asked = AskedRun(
        pack_id="buero",
        pack_sha256="b" * 64,
        base_url="http://127.0.0.1:9/v1",
        models=[],
        variants=None,
        repeats=None,
        max_tokens=None,
        answer_inputs=answer_inputs(load_pack(BUERO)),
    )
    (found,) = differences(manifest, asked)
    assert not found.extendable and "Prüfsumme gespeichert aaaaaaaaaaaa…" in found.text


def forget_fingerprints(out: Path) -> None:
    """run.json as touchstone wrote it before it kept ``answer_inputs``."""
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    del manifest[ANSWER_INPUTS]
    (out / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")


def test_an_older_judged_run_extends_by_what_its_verdicts_vouch_for(
    sim: SimServer, judged_on_the_first_pack: tuple[Path, Path]
) -> None:
    pack, out = judged_on_the_first_pack
    forget_fingerprints(out)
    pack.write_text(BUERO.read_text(encoding="utf-8"), encoding="utf-8")
    grown = load_pack(pack).prompt_count
    outcome = run_on_sim(
        sim, pack_path=pack, models=["sim-gut"], variants=["none"], out=out, extend=True
    )
    assert outcome.summary.recorded == grown - len(FIRST)
    assert ANSWER_INPUTS in json.loads((out / MANIFEST).read_text(encoding="utf-8"))


def test_an_older_run_with_an_unjudged_answer_is_refused_as_before(
    sim: SimServer, judged_on_the_first_pack: tuple[Path, Path]
) -> None:
    pack, out = judged_on_the_first_pack
    forget_fingerprints(out)
    run = RunDir(out)
    kept = [v for v in run_cells(run).cells if v.prompt_id != "A1"]
    (out / "judgements.jsonl").write_text(
        "".join(json.dumps(v.as_dict(), ensure_ascii=False) + "\n" for v in kept),
        encoding="utf-8",
    )
    pack.write_text(BUERO.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(InputError, match="Prüfsumme gespeichert"):
        run_on_sim(sim, pack_path=pack, models=["sim-gut"], variants=["none"], out=out, extend=True)
