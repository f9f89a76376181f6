import json
from pathlib import Path

import pytest

from tests.conftest import FakeJudge, make_response
from tests.unit.store.fifo_support import make_fifo, needs_fifo, within
from touchstone.errors import InputError
from touchstone.results import ModelReport, Verdict
from touchstone.store import JUDGE_STATE, JUDGEMENTS, MANIFEST, REPORTS, RESPONSES, RunDir


def verdict(prompt_id: str = "R1", **overrides: object) -> Verdict:
    fields: dict[str, object] = dict(
        model="m",
        variant="none",
        prompt_id=prompt_id,
        repeat=1,
        category="R",
        score=4,
        red_flag=False,
        rationale="ok",
    )
    fields.update(overrides)
    return Verdict(**fields)  # type: ignore[arg-type]


def test_verdict_round_trips_and_old_lines_load_with_defaults() -> None:
    v = verdict(judge_model="j", error_kind="timeout", unscored_reason="judge_error", unscored=True)
    assert v.judge_error and v.as_dict()["judge_error"] is True
    assert Verdict.from_dict(v.as_dict()) == v
    old_line = {
        k: v.as_dict()[k]
        for k in (
            "model",
            "variant",
            "prompt_id",
            "repeat",
            "category",
            "score",
            "red_flag",
            "rationale",
        )
    }
    loaded = Verdict.from_dict(old_line)
    assert (loaded.unscored, loaded.judge_error, loaded.judge_model, loaded.error_kind) == (
        False,
        False,
        "",
        "",
    )
    newer_line = {**v.as_dict(), "field_from_the_future": 1}
    assert Verdict.from_dict(newer_line) == v


def test_truncated_last_line_is_skipped_with_warning_and_cut_before_next_append(
    tmp_path: Path,
) -> None:
    run = RunDir(tmp_path)
    with run.response_appender() as out:
        out.append(make_response("R1").as_dict())
        out.append(make_response("R2").as_dict())
    path = tmp_path / RESPONSES
    path.write_bytes(path.read_bytes() + b'{"model": "m", "varia')  # killed mid-write
    assert [r.prompt_id for r in run.load_responses()] == ["R1", "R2"]
    assert "unvollständig" in run.warnings[0] and "Zeile 3" in run.warnings[0]

    with run.response_appender() as out:
        out.append(make_response("S1").as_dict())
    fresh = RunDir(tmp_path)
    assert [r.prompt_id for r in fresh.load_responses()] == ["R1", "R2", "S1"]
    assert fresh.warnings == []


def test_corrupt_middle_line_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / JUDGEMENTS
    lines = [json.dumps(verdict("R1").as_dict()), "{kaputt", json.dumps(verdict("R2").as_dict())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        RunDir(tmp_path).read_judgements()
    assert str(path) in str(info.value) and "Zeile 2" in str(info.value)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"model": "m"', "die Zeile endet mitten im Objekt"),
        ('{"model": ', "die Zeile endet, bevor ein Wert kommt"),
        ("kaputt", "Spalte 1: Wert erwartet"),
        ('{"model": "m"} x', "Spalte 16: überzählige Zeichen nach dem Objekt"),
        ("{model: 1}", "Spalte 2: Schlüssel in doppelten Anführungszeichen erwartet"),
        ('{"a": 1 "b": 2}', "Spalte 9: Komma oder schließende Klammer erwartet"),
        ('{"a": 1,}', "Spalte 9: Komma vor der schließenden Klammer"),
        ('{"a": 01}', "Spalte 8: ungültige Zahl"),
    ],
)
def test_a_line_that_is_no_json_says_where_and_why_in_german(
    tmp_path: Path, line: str, reason: str
) -> None:
    path = tmp_path / JUDGEMENTS
    path.write_text(f"{json.dumps(verdict('R1').as_dict())}\n{line}\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        RunDir(tmp_path).read_judgements()
    assert f"{path}, Zeile 2: kein gültiges JSON ({reason})." in str(info.value)
    told = str(info.value).removeprefix(str(path))
    assert "Invalid" not in told and "line" not in told


def test_line_missing_required_fields_is_an_error(tmp_path: Path) -> None:
    (tmp_path / RESPONSES).write_text('{"model": "m"}\n{"model": "m"}\n', encoding="utf-8")
    with pytest.raises(
        InputError, match="Zeile 1: fehlerhafter Datensatz: Pflichtfeld „variant“ fehlt"
    ):
        RunDir(tmp_path).load_responses()


def test_rewrite_is_clean_deduplicated_and_never_holds_judge_errors(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    with run.verdict_appender() as out:
        out.append(verdict("R1", score=1).as_dict())
        out.append(verdict("R1", score=3).as_dict())
        out.append(verdict("R2", unscored_reason="judge_error", unscored=True).as_dict())
    loaded = run.read_judgements().verdicts
    assert [(v.prompt_id, v.score) for v in loaded] == [("R1", 3)]
    run.rewrite_verdicts(
        [*loaded, verdict("S1", unscored_reason="judge_error", unscored=True)], member_lines=[]
    )
    text = (tmp_path / JUDGEMENTS).read_text(encoding="utf-8")
    assert text.count("\n") == 1 and '"judge_error": true' not in text
    assert not list(tmp_path.glob(".*.tmp"))


def test_reports_round_trip(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    reports = [ModelReport("m", "none", {"a": 4.5}, {"a": "gut"}, "j")]
    run.write_reports(reports)
    assert run.load_reports() == reports


def test_unknown_run_dir_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="Run-Verzeichnis nicht gefunden"):
        RunDir.existing(tmp_path / "gibt-es-nicht")
    with pytest.raises(InputError, match=r"run\.json fehlt"):
        RunDir.existing(tmp_path)


# -- only regular files are read (issue 21) ----------------------------------------------------


@needs_fifo
@pytest.mark.parametrize("name", [RESPONSES, JUDGEMENTS, REPORTS, MANIFEST])
def test_a_fifo_in_a_run_dir_is_bad_input_naming_it_not_a_hang(
    answered_run: Path, name: str
) -> None:
    from touchstone.stages.view import load_run

    fifo = make_fifo(answered_run / name)
    with pytest.raises(InputError) as info:
        within(3, lambda: load_run(answered_run), fifo)
    assert str(fifo) in str(info.value) and "keine reguläre Datei" in str(info.value)


@needs_fifo
def test_appending_to_a_fifo_is_bad_input_not_a_hang(tmp_path: Path) -> None:
    fifo = make_fifo(tmp_path / RESPONSES)
    with pytest.raises(InputError, match="keine reguläre Datei"):
        within(3, lambda: RunDir(tmp_path).response_appender().close(), fifo)


@needs_fifo
def test_a_fifo_as_judge_state_is_bad_input_not_a_hang(answered_run: Path) -> None:
    from touchstone.scorecard.build import Scorecard
    from touchstone.stages.run.manifest import pack_of_run
    from touchstone.store.settled import read_settled

    run = RunDir.existing(answered_run)
    pack = pack_of_run(run)
    fifo = make_fifo(run.file(JUDGE_STATE))
    with pytest.raises(InputError, match="keine reguläre Datei"):
        within(3, lambda: read_settled(run, pack, Scorecard), fifo)


@needs_fifo
@pytest.mark.parametrize("name", [RESPONSES, JUDGEMENTS])
def test_the_judge_stage_on_a_run_with_a_fifo_is_bad_input_and_calls_nobody(
    answered_run: Path, name: str
) -> None:
    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge

    fifo = make_fifo(answered_run / name)
    judge = FakeJudge()
    config = JudgeConfig(JudgeEndpoint("http://127.0.0.1:9/v1"), "unused")
    with pytest.raises(InputError, match="keine reguläre Datei"):
        within(3, lambda: execute_judge(answered_run, config=config, backend=judge), fifo)
    assert judge.history == []


# -- symbolic links: a run dir someone shared may point its files anywhere ----------------------


def test_a_dangling_link_as_judgements_is_refused_and_nothing_is_written_through_it(
    answered_run: Path, tmp_path: Path
) -> None:
    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge

    victim = tmp_path / "anderswo" / "angelegt.txt"
    victim.parent.mkdir()
    (answered_run / JUDGEMENTS).unlink(missing_ok=True)
    (answered_run / JUDGEMENTS).symlink_to(victim)
    judge = FakeJudge()
    config = JudgeConfig(JudgeEndpoint("http://127.0.0.1:9/v1"), "unused")
    with pytest.raises(InputError, match="symbolischer Link"):
        execute_judge(answered_run, config=config, backend=judge)
    assert not victim.exists() and judge.history == []
