import json
from pathlib import Path

from tests.conftest import run_cli
from touchstone.jury.verdicts import member_verdicts
from touchstone.scorecard.build import build_scorecard
from touchstone.stages.view import load_run


def test_demo_runs_end_to_end_and_shows_the_guard(tmp_path: Path) -> None:
    result = run_cli("demo", "--runs-dir", str(tmp_path / "runs"), cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "Judge abgebrochen:" in result.stderr
    assert "Scorecard" in result.stdout and "Simulator" in result.stdout
    # The judge check rejects the gullible judge and passes the good one.
    assert "Judge-Check: sim-gullible" in result.stdout and "Urteil: ungeeignet" in result.stdout
    assert "Judge-Check: sim-judge" in result.stdout and "Urteil: geeignet" in result.stdout
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert (run_dir / "report.html").is_file()
    view = load_run(run_dir)
    card = build_scorecard(
        view.responses, view.verdicts, view.reports, scale_min=view.pack.scale.min
    )
    assert all(row.open == 0 and not row.unscored for row in card.rows)
    means = {(r.model, r.variant): r.mean for r in card.rows}
    for variant in ("none", "sachlich"):
        good, mid, weak = (means[(m, variant)] for m in ("sim-gut", "sim-mittel", "sim-schwach"))
        assert good is not None and mid is not None and weak is not None
        assert good > mid > weak
    assert all(not r.degraded for r in view.reports)
    # The simulated spot check: a person stricter with sim-gut than the judge.
    assert "Urteil: Judge weicht ab: " in result.stdout and "bewertet sim-gut" in result.stdout
    assert len((run_dir / "human.jsonl").read_text("utf-8").splitlines()) == 30
    human = json.loads((run_dir / "scorecard.json").read_text("utf-8"))["human_agreement"]
    assert human["n"] == 30 and human["verdict"] == "weicht ab"
    rows = {(row["model"], row["variant"]): row for row in human["rows"]}
    # The judge (since step 5 the jury's median) is milder than the person with sim-gut in
    # at least one variant: the per-model bias the card is for.
    assert any(rows[("sim-gut", v)]["ci_low"] > 0 for v in ("none", "sachlich"))
    # The jury step: the runaway member is dropped, the jury completes with quorum 2, and
    # the cells' verdicts are the jury's (each backed by both remaining members).
    assert "Judge sim-think-endless ausgeschieden: 3 Judge-Aufrufe in Folge" in result.stdout
    assert "2 von 3 Judges bewertet (Quorum 2)" in result.stdout
    assert all(v.judge_model.startswith("Jury (") for v in view.verdicts)
    members = member_verdicts(view.run_dir)
    assert all(len(said) == 2 for said in members.values())
    jury = view.scorecard().jury
    assert jury is not None and [m.dropped is not None for m in jury.members] == [
        False,
        False,
        True,
    ]
