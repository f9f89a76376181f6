"""Names from files are quoted in messages cut to about 200 characters (issue 35: a 5 MB model
name in ``human.jsonl`` was printed whole in a warning)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.spot.test_human import SCALE
from touchstone import german
from touchstone.errors import InputError
from touchstone.pack import id_problem
from touchstone.results import VerdictKey
from touchstone.stages.view import answered_verdicts
from touchstone.store import RunDir
from touchstone.store.ratings import HUMAN, load_ratings

HUGE = "m" * 5 * 2**20  # 5 MB


def rating_line(**fields: object) -> str:
    line = {
        "model": "sim-gut",
        "variant": "none",
        "prompt_id": "p1",
        "repeat": 1,
        "score": 3,
        "red_flag": False,
        "note": "",
        "rater": "anna",
        "rated_at": "2026-12-01T08:00:00+01:00",
        **fields,
    }
    return json.dumps(line) + "\n"


def short(message: str) -> None:
    assert len(message) < 1000, len(message)
    assert "m" * 200 + "…" in message and "5.242.880 Zeichen" in message


def test_a_long_name_is_cut_and_says_how_long_it_was() -> None:
    assert german.cut("sim-gut") == "sim-gut"
    assert german.cut("x" * 200) == "x" * 200
    assert german.cut(HUGE) == "m" * 200 + "… (5.242.880 Zeichen)"
    assert german.cut("abcdef", 3) == "abc… (6 Zeichen)"


def test_a_rating_of_a_model_the_run_lacks_is_warned_with_its_name_cut(tmp_path: Path) -> None:
    path = tmp_path / HUMAN
    path.write_text(rating_line(model=HUGE), encoding="utf-8")
    warnings: list[str] = []
    cells = [VerdictKey("sim-gut", "none", "p1", 1)]
    assert load_ratings(path, SCALE, warnings.append, cells) == []
    (warning,) = warnings
    short(warning)


def test_a_score_of_a_thousand_digits_is_cut_in_its_message(tmp_path: Path) -> None:
    path = tmp_path / HUMAN
    path.write_text(rating_line().replace('"score": 3', '"score": 1' + "0" * 1000), "utf-8")
    with pytest.raises(InputError) as caught:
        load_ratings(path, SCALE, lambda _: None)
    assert len(str(caught.value)) < 600 and "außerhalb der Skala" in str(caught.value)


def test_a_verdict_without_an_answer_is_warned_with_its_name_cut(tmp_path: Path) -> None:
    from tests.unit.spot.test_human import verdict

    run = RunDir(tmp_path / "run")
    assert answered_verdicts(run, [verdict(HUGE, "p1", 3)], []) == []
    (warning,) = run.warnings
    short(warning)


def test_a_doubled_answer_is_warned_with_its_name_cut(tmp_path: Path) -> None:
    from tests.conftest import make_response

    run = RunDir(tmp_path / "run")
    run.path.mkdir()
    line = json.dumps(make_response(model=HUGE, prompt_id="p1").as_dict()) + "\n"
    (run.path / "responses.jsonl").write_text(line * 2, encoding="utf-8")
    assert len(run.load_responses()) == 1
    (warning,) = run.warnings
    short(warning)


def test_a_pack_id_is_cut_like_any_name() -> None:
    problem = id_problem("ü" * 10_000)
    assert problem is not None and len(problem) < 600
