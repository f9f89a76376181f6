"""``touchstone rate``: the blind spot check in the terminal, fed through stdin."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from tests.unit.versus.versus_support import make_run
from touchstone.cli import app
from touchstone.cli.rate import run_spot_check
from touchstone.errors import InputError
from touchstone.stages.view import load_run
from touchstone.store.ratings import HUMAN

MODELS = {"sim-gut": 5, "sim-mittel": 3, "sim-schwach": 1}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("rate") / "run", MODELS)


def fresh(judged: Path, tmp_path: Path) -> Path:
    """A copy of the judged run: each test rates its own."""
    import shutil

    target = tmp_path / "run"
    shutil.copytree(judged, target)
    return target


def console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=80, color_system=None), buffer


def scripted(entries: list[str]):  # type: ignore[no-untyped-def]
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        if not entries:
            raise EOFError
        return entries.pop(0)

    return ask, prompts


def test_the_terminal_rates_blind_saves_each_rating_and_quits(judged: Path, tmp_path: Path) -> None:
    run = fresh(judged, tmp_path)
    out, buffer = console()
    # Cell 1: a wrong entry, then 4, red flag "j", a note; cell 2 skipped; cell 3: 2, n; q.
    ask, prompts = scripted(["x", "9", "4", "j", "zu lang", "s", "2", "", "", "q"])
    run_spot_check(run, n=5, rater="anna", console=out, ask=ask)
    text = buffer.getvalue()
    assert "Zelle 1 von 5" in text and "Aufgabe" in text and "Erwartungen" in text
    assert "Bitte eine ganze Zahl von 0 bis 5, z, s oder q." in text
    # Blind: no model's name, no judge's rationale or verdict in what the person saw before
    # the card (the simulated answers name their model in the text: those are cut here).
    before_card = text.split("2 Wertungen gespeichert")[0]
    shown = re.sub(r"Simulierte Antwort \([^)]*\)", "", before_card)
    assert "Simulierte Antwort" in before_card
    assert not any(model in shown for model in MODELS), shown
    assert "Simulierter Judge" not in before_card, before_card
    assert prompts[0].startswith("Wertung (0–5; z = zurück, s = überspringen, q = beenden)")
    lines = [json.loads(line) for line in (run / HUMAN).read_text("utf-8").splitlines()]
    assert [(r["score"], r["red_flag"], r["note"], r["rater"]) for r in lines] == [
        (4, True, "zu lang", "anna"),
        (2, False, "", "anna"),
    ]
    # The line names the file: a long temporary path wraps it at 80 columns.
    flat = " ".join(text.split())
    assert "2 Wertungen gespeichert" in flat and "1 übersprungen" in flat
    # Too few for a verdict, but the card is there.
    assert "zu wenige Bewertungen (2 von mindestens 10)" in " ".join(text.split())


def test_rating_more_extends_the_same_sample(judged: Path, tmp_path: Path) -> None:
    run = fresh(judged, tmp_path)
    out, buffer = console()
    ask, _ = scripted(["3", "n", ""] * 3)
    run_spot_check(run, n=3, rater="anna", console=out, ask=ask)
    first = [json.loads(line) for line in (run / HUMAN).read_text("utf-8").splitlines()]
    ask, _ = scripted(["3", "n", ""] * 3)
    out, buffer = console()
    run_spot_check(run, n=6, rater="anna", console=out, ask=ask)
    assert "3 Zellen zu bewerten (3 schon bewertet)" in " ".join(buffer.getvalue().split())
    assert "Zelle 4 von 6" in buffer.getvalue()
    every = [json.loads(line) for line in (run / HUMAN).read_text("utf-8").splitlines()]
    assert every[:3] == first and len(every) == 6
    keys = {(r["model"], r["prompt_id"]) for r in every}
    assert len(keys) == 6
    # Another rater gets the same sample from its start.
    out, buffer = console()
    ask, _ = scripted(["q"])
    run_spot_check(run, n=6, rater="bernd", console=out, ask=ask)
    assert "Zelle 1 von 6" in buffer.getvalue()


def test_bad_input_is_named(judged: Path, tmp_path: Path) -> None:
    run = fresh(judged, tmp_path)
    out, _ = console()
    with pytest.raises(InputError, match="--n muss"):
        run_spot_check(run, n=0, rater="anna", console=out, ask=input)
    (run / HUMAN).write_text('{"model": "sim-gut"\n{"a": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"human\.jsonl, Zeile 1: kein gültiges JSON"):
        run_spot_check(run, n=3, rater="anna", console=out, ask=input)


def test_rate_on_the_command_line_with_stdin_and_the_card_in_report(
    judged: Path, tmp_path: Path
) -> None:
    run = fresh(judged, tmp_path)
    runner = CliRunner()
    entries = "".join(f"{score}\nn\n\n" for score in (5, 4, 3, 2, 1, 0, 5, 4, 3, 2, 1, 0))
    result = runner.invoke(app, ["rate", str(run), "--n", "12", "--rater", "anna"], input=entries)
    assert result.exit_code == 0, result.output
    assert "12 Wertungen gespeichert" in result.output
    assert "Urteil: Judge" in result.output
    assert len((run / HUMAN).read_text("utf-8").splitlines()) == 12
    # report: the card in the terminal, in report.html and in scorecard.json.
    result = runner.invoke(app, ["report", str(run)])
    assert result.exit_code == 0, result.output
    assert "Stichprobe: stimmt der Judge mit Ihnen überein?" in result.output
    html = (run / "report.html").read_text("utf-8")
    assert 'data-testid="human-card"' in html and "Stimmt der Judge mit Ihnen überein?" in html
    data = json.loads((run / "scorecard.json").read_text("utf-8"))
    human = data["human_agreement"]
    assert human["n"] == 12 and human["verdict"] in ("bestätigt", "weicht ab")
    assert human == load_run(run).human().as_dict()  # type: ignore[union-attr]
    # A hand-broken line: exit 2, file and line named, no traceback.
    with (run / HUMAN).open("a", encoding="utf-8") as handle:
        handle.write('{"model": 3}\n{"x": 1}\n')
    result = runner.invoke(app, ["report", str(run)])
    assert result.exit_code == 2
    assert "human.jsonl, Zeile 13" in result.output and "Traceback" not in result.output


def test_the_judge_stage_shows_the_card_settled_or_not(
    judged: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.unit.versus.versus_support import InProcessSimJudge
    from touchstone.cli import ui
    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge

    run = fresh(judged, tmp_path)
    out, _ = console()
    entries = [x for score in (5, 4, 3, 2, 1, 0, 5, 4, 3, 2, 1) for x in (str(score), "n", "")]
    ask, _ = scripted(entries)
    run_spot_check(run, n=11, rater="anna", console=out, ask=ask)
    config = JudgeConfig(JudgeEndpoint("http://127.0.0.1:9/v1"), "sim-judge")
    # The run is fully judged: this judge run is a settled resume that calls nothing.
    outcome = execute_judge(run, config=config, backend=InProcessSimJudge(), use_cache=False)
    assert outcome.new_verdicts == 0
    assert outcome.human is not None and outcome.human.n == 11
    assert outcome.human.verdict != "zu wenige"
    data = json.loads((run / "scorecard.json").read_text("utf-8"))
    assert data["human_agreement"] == outcome.human.as_dict()
    buffer = io.StringIO()
    monkeypatch.setattr(ui, "stdout", Console(file=buffer, width=80, color_system=None))
    ui.show_judge_outcome(outcome)
    shown = buffer.getvalue()
    assert "Stichprobe: stimmt der Judge mit Ihnen überein?" in shown
    assert "Urteil: Judge" in shown
    # Re-judged (not settled): the card is built from the new verdicts.
    outcome = execute_judge(
        run, config=config, backend=InProcessSimJudge(), use_cache=False, rejudge="all"
    )
    assert outcome.human is not None and outcome.human.n == 11


def test_a_broken_human_file_is_a_warning_at_the_end_of_judge(judged: Path, tmp_path: Path) -> None:
    from tests.unit.versus.versus_support import InProcessSimJudge
    from touchstone.judge.config import JudgeConfig, JudgeEndpoint
    from touchstone.stages.judge.judge import execute_judge

    run = fresh(judged, tmp_path)
    (run / HUMAN).write_text("kaputt\n", encoding="utf-8")
    config = JudgeConfig(JudgeEndpoint("http://127.0.0.1:9/v1"), "sim-judge")
    outcome = execute_judge(run, config=config, backend=InProcessSimJudge(), use_cache=False)
    assert outcome.human is None
    (warning,) = [w for w in outcome.run_dir.warnings if HUMAN in w]
    assert "Zeile 1: kein gültiges JSON" in warning and "Stichprobe fehlt" in warning
    assert "human_agreement" not in json.loads((run / "scorecard.json").read_text("utf-8"))


def test_a_run_without_verdicts_has_nothing_to_rate(judged: Path, tmp_path: Path) -> None:
    run = fresh(judged, tmp_path)
    (run / "judgements.jsonl").write_text("", encoding="utf-8")
    result = CliRunner().invoke(app, ["rate", str(run), "--rater", "anna"], input="3\n")
    assert result.exit_code == 2
    assert "Keine bewerteten Antworten" in result.output and "touchstone judge" in result.output
    assert not (run / HUMAN).exists()
