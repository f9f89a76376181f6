"""``touchstone show RUN PROMPT_ID`` (design.md §26): per cell of a prompt the answer, the
verdict and the judge's raw reply with its finish_reason, a mark when it was cut; narrowed by
--model/--variant/--repeat; an unknown run or prompt id is a German message with exit 2;
control characters in a reply never reach the terminal raw."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.conftest import FakeJudge
from touchstone.cli import app
from touchstone.cli.ui import honour_columns
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.stages.judge.judge import execute_judge

VERDICT = '{"score": 3, "red_flag": false, "rationale": "mittel begründet"}'
HOSTILE = "\x1b[2J\x1b]0;pwned\x07" + VERDICT
LONG = "Abwägung " * 3000 + VERDICT


def judged(run: Path, reply: str) -> Path:
    config = JudgeConfig(JudgeEndpoint("http://127.0.0.1:9"), "fake-judge")
    execute_judge(run, config=config, backend=FakeJudge(default=reply))
    return run


def show(*args: str) -> tuple[int, str]:
    with honour_columns("80"):  # as main() holds it for a command: a terminal of 80 columns
        result = CliRunner().invoke(app, ["show", *args])
    return result.exit_code, result.output


def test_each_cell_of_the_prompt_with_answer_verdict_and_reply(answered_run: Path) -> None:
    run = judged(answered_run, VERDICT)
    code, out = show(str(run), "R1")
    assert code == 0, out
    # 2 models x 2 variants x 1 repeat
    assert out.count("Judge fake-judge") == 4
    assert "sim-gut · none · Wiederholung 1" in out
    assert "sim-schwach · knapp · Wiederholung 1" in out
    assert "Wertung 3 · kein Warnsignal" in out and "mittel begründet" in out
    assert "finish_reason: stop" in out
    assert VERDICT in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_narrowed_by_model_variant_repeat(answered_run: Path) -> None:
    run = judged(answered_run, VERDICT)
    code, out = show(str(run), "R1", "--model", "sim-gut", "--variant", "knapp", "--repeat", "1")
    assert code == 0, out
    assert out.count("Judge fake-judge") == 1
    assert "sim-gut · knapp · Wiederholung 1" in out
    code, out = show(str(run), "R1", "--model", "sim-mittel")
    assert code == 2
    assert "sim-mittel" in out and "Meinten Sie" in out


def test_a_cut_reply_is_marked(answered_run: Path) -> None:
    code, out = show(str(judged(answered_run, LONG)), "S1")
    assert code == 0, out
    assert "Gekürzt: gespeichert sind die ersten 16 KB" in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_control_characters_are_written_out(answered_run: Path) -> None:
    code, out = show(str(judged(answered_run, HOSTILE)), "R1")
    assert code == 0, out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[2J" in out


def test_unknown_prompt_id_names_a_near_one(answered_run: Path) -> None:
    code, out = show(str(judged(answered_run, VERDICT)), "R1x")
    assert code == 2
    assert "„R1x“" in out and "Meinten Sie „R1“?" in out
    assert "Traceback" not in out


def test_unknown_run_is_exit_2(tmp_path: Path) -> None:
    code, out = show(str(tmp_path / "fehlt"), "R1")
    assert code == 2
    assert "fehlt" in out and "Traceback" not in out


def test_a_cell_not_judged_yet_says_so(answered_run: Path) -> None:
    code, out = show(str(answered_run), "R1", "--model", "sim-gut", "--variant", "none")
    assert code == 0, out
    assert "noch nicht bewertet" in out
