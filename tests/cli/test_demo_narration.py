"""The demo's narration says what the cards beside it say (issue 36): which jury member is
stricter, to which rows the judge is milder than the simulated person, what the stopped
judge left behind. Each claim is checked against the run's scorecard.json."""

import json
import re
from pathlib import Path

from tests.conftest import run_cli
from touchstone import german


def test_each_claim_of_the_demo_holds_for_its_card(tmp_path: Path) -> None:
    result = run_cli("demo", "--runs-dir", str(tmp_path / "runs"), cwd=tmp_path, timeout=90)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    (run_dir,) = (tmp_path / "runs").iterdir()
    card = json.loads((run_dir / "scorecard.json").read_text("utf-8"))

    # Step 3: the stopped judge kept nothing; all cells are open for the next judge run.
    cells = sum(row["cells"] for row in card["rows"])
    assert "keine Bewertung gespeichert" in out
    assert f"der nächste Judge-Durchgang bewertet die {german.count(cells)} offenen Zellen" in out

    # Step 5: the stricter member is the one with the lower mean, with the card's figures.
    active = [m for m in card["jury"]["members"] if m["dropped"] is None]
    strict, mild = sorted(active, key=lambda m: m["mean"])[:: len(active) - 1]
    assert strict["mean"] < mild["mean"]
    assert (
        f"Strenger ist {strict['model']}: im Mittel {german.number(strict['mean'])} gegen "
        f"{german.number(mild['mean'])} bei {mild['model']}."
    ) in out
    assert f"jede der {german.count(cells)} Zellen mit 2 von 3 Judges bewertet" in out

    # Step 6: the narration names exactly the rows whose interval lies above (milder) or
    # below (stricter) zero, and nothing it does not show.
    (finding,) = [line for line in out.splitlines() if line.startswith("→ Laut Karte:")]
    rows = card["human_agreement"]["rows"]
    milder = [german.row(r["model"], r["variant"]) for r in rows if (r["ci_low"] or 0) > 0]
    stricter = [
        german.row(r["model"], r["variant"])
        for r in rows
        if r["ci_high"] is not None and r["ci_high"] < 0
    ]
    assert milder, "the simulated person is stricter with sim-gut: the card must show it"
    assert f"bewertet {', '.join(milder)} milder als die Person" in finding
    assert ("strenger als die Person" in finding) == bool(stricter)
    named = set(re.findall(r"sim-\w+ · \w+", finding))
    assert named == set(milder) | set(stricter)
    assert "Die simulierte Strenge mit sim-gut ist damit gefunden." in finding
    # No fixed claim of who is stricter before the card is computed.
    assert "ist sie strenger als der Judge" not in out
