"""An existing run is never changed silently: resume, extend on request, or refuse (#23 design.md
§3)."""

import json
from pathlib import Path

import pytest

from tests.conftest import PackRun
from touchstone.errors import InputError
from touchstone.stages.run.run import execute_run
from touchstone.stages.view import load_run
from touchstone.store import MANIFEST, RunDir


def first_run(tiny_run: PackRun) -> Path:
    """sim-gut and sim-schwach, variant none, one repeat: 6 cells in ``tiny_run.out``."""
    tiny_run("sim-gut", "sim-schwach", variants=["none"])
    return tiny_run.out


def manifest(out: Path) -> dict:
    return json.loads((out / MANIFEST).read_text(encoding="utf-8"))


def open_by_row(out: Path) -> dict[tuple[str, str], int]:
    return {(r.model, r.variant): r.open for r in load_run(out).scorecard().rows}


def test_same_settings_resume_and_a_subset_resumes_those(tiny_run: PackRun) -> None:
    out = first_run(tiny_run)
    before = manifest(out)
    again = tiny_run("sim-gut", "sim-schwach", variants=["none"])
    assert (again.summary.recorded, again.summary.already_done) == (0, 6)
    subset = tiny_run("sim-gut")
    # No --variant, no --repeats on an existing run: the run's own, not all of the pack's.
    assert (subset.summary.recorded, subset.summary.already_done) == (0, 3)
    after = manifest(out)
    assert {k: v for k, v in after.items() if k != "updated_at"} == {
        k: v for k, v in before.items() if k != "updated_at"
    }


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"repeats": 2}, "Wiederholungen: gespeichert 1, verlangt 2"),
        ({"models": ["sim-gut", "sim-mittel"]}, "Modelle: neu sim-mittel"),
        ({"variants": ["none", "knapp"]}, "Varianten: neu knapp"),
        ({"base_url": "http://127.0.0.1:9/v1"}, "Endpunkt: gespeichert http"),
    ],
)
def test_conflicting_settings_are_refused_naming_the_difference(
    tiny_run: PackRun, change: dict, named: str
) -> None:
    out = first_run(tiny_run)
    before = (out / MANIFEST).read_text(encoding="utf-8")
    answers = len(RunDir(out).load_responses())
    with pytest.raises(InputError) as refused:
        execute_run(**tiny_run.options("sim-gut", "sim-schwach", variants=["none"]) | change)
    assert named in str(refused.value) and "--extend" in str(refused.value)
    assert (out / MANIFEST).read_text(encoding="utf-8") == before
    assert len(RunDir(out).load_responses()) == answers


def test_a_new_run_takes_any_settings(tiny_run: PackRun) -> None:
    outcome = tiny_run("sim-gut", variants=["none"], repeats=2, max_tokens=500)
    assert outcome.summary.recorded == 6 and outcome.open_in_run == {}
    assert (manifest(tiny_run.out)["repeats"], manifest(tiny_run.out)["max_tokens"]) == (2, 500)


def test_extending_repeats_opens_the_new_cells_of_every_model(tiny_run: PackRun) -> None:
    out = first_run(tiny_run)
    # Only sim-schwach is asked now; sim-gut's second repeat is open all the same.
    outcome = tiny_run("sim-schwach", variants=["none"], repeats=2, extend=True)
    assert outcome.summary.recorded == 3 and outcome.summary.complete
    assert outcome.open_in_run == {"sim-gut": 3}
    assert manifest(out)["repeats"] == 2
    # Nothing is judged: open = every planned cell, answered or not.
    assert open_by_row(out) == {("sim-gut", "none"): 6, ("sim-schwach", "none"): 6}
    card = load_run(out).scorecard()
    assert {r.model: r.unanswered for r in card.rows} == {"sim-gut": 3, "sim-schwach": 0}
    assert card.as_dict()["rows"][0]["open"] == 6


def test_extending_by_a_variant_and_a_model_opens_their_rows(tiny_run: PackRun) -> None:
    out = first_run(tiny_run)
    outcome = tiny_run("sim-mittel", variants=["knapp"], extend=True)
    assert manifest(out)["models"] == ["sim-gut", "sim-schwach", "sim-mittel"]
    assert manifest(out)["variants"] == ["none", "knapp"]
    assert outcome.open_in_run == {"sim-gut": 3, "sim-schwach": 3, "sim-mittel": 3}
    rows = open_by_row(out)
    assert rows[("sim-gut", "knapp")] == 3 and rows[("sim-mittel", "none")] == 3


def test_a_changed_pack_or_answer_cap_is_refused_even_with_extend(
    tiny_run: PackRun, tiny_pack_path: Path
) -> None:
    first_run(tiny_run)
    asked = tiny_run.options("sim-gut", variants=["none"])
    with pytest.raises(InputError, match=r"Antwortlänge.*gespeichert keine Grenze, verlangt 50"):
        execute_run(max_tokens=50, extend=True, **asked)
    tiny_pack_path.write_text(
        tiny_pack_path.read_text(encoding="utf-8").replace("19 %", "20 %"), encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"Paket: .*geändert") as refused:
        execute_run(extend=True, **asked)
    assert "--extend" in str(refused.value) and "--out" in str(refused.value)


# -- GUI ----------------------------------------------------------------------------------


def test_a_misspelt_model_is_added_with_extend_and_a_wrong_url_needs_nothing(
    tiny_run: PackRun, tmp_path: Path
) -> None:
    """run.json records a model once it answered: a misspelt one is not part of the run, so
    the right name is a new model (--extend, as the advice says); a run nobody answered yet
    has no endpoint to differ from."""
    out = tiny_run.out
    typo = tiny_run("sim-gut", "sim-gutt", variants=["none"])
    assert manifest(out)["models"] == ["sim-gut"]
    assert "--model und --extend setzt" in typo.unfinished()
    with pytest.raises(InputError, match="Modelle: neu sim-mittel"):
        tiny_run("sim-mittel")
    fixed = tiny_run("sim-mittel", extend=True)
    assert fixed.summary.recorded == 3 and manifest(out)["models"] == ["sim-gut", "sim-mittel"]

    dead = tmp_path / "tot"
    dead.mkdir()  # made before (as the GUI does): kept without an answer
    tiny_run(
        "sim-gut", variants=["none"], out=dead, base_url="http://127.0.0.1:9/v1", call_timeout_s=1
    )
    assert manifest(dead)["models"] == []
    right = tiny_run("sim-gut", variants=["none"], out=dead)
    assert right.summary.recorded == 3


def test_the_same_command_resumes_a_model_that_had_not_answered_yet(
    tiny_pack_path: Path, tmp_path: Path
) -> None:
    """A run stopped before a later model answered (a dropped connection, Ctrl-C, the budget)
    is resumed by the same command, as its advice says: no --extend for a model it asked."""
    from tests.unit.stages.test_run_stage import ScriptedAnswers

    out = tmp_path / "run"
    asked = {"pack_path": tiny_pack_path, "models": ["ok", "later"], "variants": ["none"]}
    down = ScriptedAnswers({"later": "connection"})
    first = execute_run(out=out, backend=down, **asked)
    assert manifest(out)["models"] == ["ok"]
    assert "derselbe Befehl mit --out" in first.unfinished()
    # Not part of the run's table while it has no answer (no eternal "0 / 3").
    assert set(open_by_row(out)) == {("ok", "none")}
    again = execute_run(out=out, backend=ScriptedAnswers({}), **asked)
    assert again.summary.recorded == 3
    assert manifest(out)["models"] == ["ok", "later"]
