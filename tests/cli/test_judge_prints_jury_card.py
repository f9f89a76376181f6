"""`touchstone judge` with a jury prints the jury card as `report` does, with the verdict of a
jury whose members disagree (issue 36): before, it printed no card and the agreement only
came with `report`."""

from pathlib import Path

from tests.conftest import run_cli
from touchstone.sim import SimServer


def jury_yaml(folder: Path, base_url: str, *models: str) -> Path:
    """A jury config of ``models`` at ``base_url``, in ``folder``."""
    config = folder / "jury.yaml"
    entries = (f"  - {{endpoint: {{base_url: '{base_url}'}}, model: {m}}}\n" for m in models)
    config.write_text("judges:\n" + "".join(entries), encoding="utf-8")
    return config


def test_judge_with_a_jury_prints_its_card_and_calls_a_split_jury_so(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    config = jury_yaml(tmp_path, sim.base_url, "sim-judge", "sim-gullible")
    done = run_cli("judge", str(answered_run), "--config", str(config), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "Jury: 2 von 2 Judges aktiv · Übereinstimmung α = -" in said
    assert "Kappa je Paar (quadratisch gewichtet): sim-judge ↔ sim-gullible: " in said
    assert (
        "Jury uneinig: α = -" in said and "von 12 Zellen strittig – Wertung nicht belastbar" in said
    )
