"""The CLI as a user (or the GUI) starts it: exit codes, messages, what stays on disk."""

import csv
import json
import re
import time
from pathlib import Path

import pytest

from tests.conftest import TINY_PACK, coarse, run_args, run_cli, stage_seconds
from touchstone.jury.verdicts import run_cells
from touchstone.sim import SimServer
from touchstone.store import JUDGEMENTS, RunDir


def judge_config(path: Path, sim: SimServer, model: str, **keys: object) -> Path:
    lines = [f"endpoint: {{base_url: '{sim.base_url}'}}", f"model: {model}"]
    lines += [f"{k}: {json.dumps(v)}" for k, v in keys.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def assert_clean_failure(result, code: int) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr + result.stdout


@pytest.mark.parametrize("runaway", ["sim-hang", "sim-trickle", "sim-reasoning"])
def test_runaway_judge_aborts_fast_and_a_good_judge_finishes_the_run(
    sim: SimServer, answered_run: Path, tmp_path: Path, runaway: str
) -> None:
    bad = judge_config(tmp_path / "bad.yaml", sim, runaway, call_timeout_s=1, max_tokens=256)
    events = tmp_path / "events.jsonl"
    started = time.monotonic()
    result = run_cli(
        "judge", str(answered_run), "--config", str(bad), "--events", str(events), cwd=tmp_path
    )
    assert_clean_failure(result, 1)
    assert "Judge abgebrochen:" in result.stderr and "3 Judge-Aufrufe in Folge" in result.stderr
    # Three deadlines of 1 s, plus 1 s (design.md §10): seconds, not the SDK's half hour.
    assert stage_seconds(events) < coarse(3 * 1 + 1)
    assert time.monotonic() - started < 60
    judgements = answered_run / JUDGEMENTS
    assert not judgements.exists() or '"judge_error": true' not in judgements.read_text(
        encoding="utf-8"
    )

    good = judge_config(tmp_path / "good.yaml", sim, "sim-judge", call_timeout_s=5)
    result = run_cli("judge", str(answered_run), "--config", str(good), cwd=tmp_path)
    assert_clean_failure(result, 0)
    verdicts = run_cells(RunDir(answered_run)).cells
    assert len(verdicts) == 12 and not any(v.unscored for v in verdicts)
    assert {v.judge_model for v in verdicts} == {"sim-judge"}
    assert "Scorecard" in result.stdout

    calls_before = sim.calls.get("sim-judge", 0)
    result = run_cli("judge", str(answered_run), "--config", str(good), cwd=tmp_path)
    assert_clean_failure(result, 0)
    # Nothing new and nothing changed: no call at all, not even for the holistic pass.
    assert sim.calls.get("sim-judge", 0) - calls_before == 0
    assert len(run_cells(RunDir(answered_run)).cells) == 12


def test_judge_with_some_errors_finishes_and_says_what_is_left(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    flaky = judge_config(
        tmp_path / "flaky.yaml", sim, "sim-flaky", call_timeout_s=5, max_failure_ratio=0
    )
    result = run_cli("judge", str(answered_run), "--config", str(flaky), cwd=tmp_path)
    assert_clean_failure(result, 0)
    persisted = run_cells(RunDir(answered_run)).cells
    assert 0 < len(persisted) < 12
    left = 12 - len(persisted)
    assert f"{left} Zellen blieben wegen Judge-Fehlern unbewertet" in result.stdout
    raw = (answered_run / JUDGEMENTS).read_text(encoding="utf-8")
    assert '"judge_error": true' not in raw

    good = judge_config(tmp_path / "good.yaml", sim, "sim-judge")
    result = run_cli(
        "judge", str(answered_run), "--config", str(good), "--model", "sim-judge", cwd=tmp_path
    )
    assert_clean_failure(result, 0)
    assert len(run_cells(RunDir(answered_run)).cells) == 12


def test_report_is_self_contained_and_marks_flags(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    good = judge_config(tmp_path / "good.yaml", sim, "sim-judge")
    assert run_cli("judge", str(answered_run), "--config", str(good), cwd=tmp_path).returncode == 0
    result = run_cli("report", str(answered_run), cwd=tmp_path)
    assert_clean_failure(result, 0)
    html = (answered_run / "report.html").read_text(encoding="utf-8")
    assert "Kategorien × Modelle" in html and "Gesamtbewertung" in html
    assert "bar-err" in html and "Zeile − Spalte" in html  # error bars, matrix
    text = re.sub(r"<[^>]+>", "", html)  # numbers are held together by markup
    assert re.search(r"\d,\d\d (±\d,\d\d|\[\d,\d\d – \d,\d\d\])", text)  # mean with interval
    assert "Was sind 19 % von 100 €?" in html and "falsche Zahl" in html  # prompt and rubric
    assert 'src="http' not in html and 'href="http' not in html and "<script" not in html
    assert html.count("Simulierter Judge: Qualitätsstufe") >= 12
    assert "sim-schwach" in html and "sim-gut" in html
    assert str(answered_run / "report.html") in result.stdout
    card = json.loads((answered_run / "scorecard.json").read_text(encoding="utf-8"))
    assert card["rows"][0]["model"] == "sim-gut"
    assert all(row["ci_low"] <= row["mean"] <= row["ci_high"] for row in card["rows"])
    with (answered_run / "verdicts.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter=";"))
    assert len(rows) == 12 and all(row["Antwort"].startswith("Simulierte Antwort") for row in rows)


def test_run_exits_1_when_cells_are_left(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    result = run_cli(
        *run_args(tiny_pack_path, sim.base_url, out, "sim-gut", "sim-500", variants=["none"]),
        cwd=tmp_path,
    )
    assert_clean_failure(result, 1)
    assert "Run unvollständig: 3 Zellen offen" in result.stderr
    assert len(RunDir(out).load_responses()) == 3


def test_extra_body_that_swaps_the_judge_model_exits_2_before_any_call(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    config = judge_config(
        tmp_path / "judge.yaml", sim, "sim-judge", extra_body={"model": "sim-gut"}
    )
    before = dict(sim.calls)
    result = run_cli("judge", str(answered_run), "--config", str(config), cwd=tmp_path)
    assert_clean_failure(result, 2)
    assert str(config) in result.stderr and "extra_body" in result.stderr
    assert "„model“" in result.stderr
    assert dict(sim.calls) == before
    assert not (answered_run / JUDGEMENTS).exists()


def test_bad_input_exits_2_with_a_german_message(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    result = run_cli("run", "--pack", "fehlt.yaml", "--model", "m", cwd=tmp_path)
    assert_clean_failure(result, 2)
    assert "Paket nicht gefunden: fehlt.yaml" in result.stderr

    typo = tmp_path / "typo.yaml"
    typo.write_text(
        TINY_PACK.replace("judge_instructions:", "judge_instructons:"), encoding="utf-8"
    )
    result = run_cli("run", "--pack", str(typo), "--model", "m", cwd=tmp_path)
    assert_clean_failure(result, 2)
    assert str(typo) in result.stderr and "judge_instructons" in result.stderr

    result = run_cli("judge", str(tmp_path / "kein-run"), "--config", str(typo), cwd=tmp_path)
    assert_clean_failure(result, 2)

    result = run_cli("judge", str(answered_run), cwd=tmp_path)
    assert_clean_failure(result, 2)
    assert "judge.yaml" in result.stderr and "judge.example.yaml" in result.stderr

    bad_config = tmp_path / "bad.yaml"
    bad_config.write_text(
        f"endpoint: {{base_url: '{sim.base_url}'}}\nmodel: sim-judge\ncall_timeout: 5\n",
        encoding="utf-8",
    )
    result = run_cli("judge", str(answered_run), "--config", str(bad_config), cwd=tmp_path)
    assert_clean_failure(result, 2)
    assert "unbekannter Schlüssel „call_timeout“" in result.stderr

    responses = answered_run / "responses.jsonl"
    lines = responses.read_text(encoding="utf-8").splitlines()
    lines[1] = "{kaputt"
    responses.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = responses.read_bytes()
    good = judge_config(tmp_path / "good.yaml", sim, "sim-judge")
    result = run_cli("judge", str(answered_run), "--config", str(good), cwd=tmp_path)
    assert_clean_failure(result, 2)
    assert "responses.jsonl, Zeile 2" in result.stderr
    assert responses.read_bytes() == before
    assert not (answered_run / JUDGEMENTS).exists()

    result = run_cli("report", str(tmp_path / "nirgends"), cwd=tmp_path)
    assert_clean_failure(result, 2)
    assert "Run-Verzeichnis nicht gefunden" in result.stderr
