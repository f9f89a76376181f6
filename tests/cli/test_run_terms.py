"""One word for each way a cell can end without a good answer (issue 36, docs/run.md
"Begriffe"): a *fehlgeschlagene Antwort* is saved (a finding about the model, counted with
the scale minimum), an *Aufruffehler* saves nothing and leaves its cell *offen*, as does a
cell *übersprungen* because its model had stopped. Progress and summary use the same words;
the progress view's own counts: ``tests/cli/test_newcomer_cli.py``."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import run_args, run_cli
from touchstone.sim import SimServer


def test_progress_and_summary_name_failed_calls_and_failed_answers_apart(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "runs" / "begriffe"
    # sim-filter's answers are refused by a content filter (saved as failed answers);
    # sim-gutt does not exist: its first calls fail, the rest of its cells are skipped.
    args = run_args(tiny_pack_path, sim.base_url, out, "sim-filter", "sim-gutt")
    done = run_cli(*args, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    said = " ".join((done.stdout + done.stderr).split())
    progress = re.search(r"6 offen \((\d+) Aufruffehler, (\d+) übersprungen\)", said)
    assert progress is not None, said
    assert int(progress[1]) + int(progress[2]) == 6
    summary = (
        f"6 Antworten gespeichert in {out} (0 waren schon da, 6 fehlgeschlagene Antworten, "
        f"6 offen ({progress[1]} Aufruffehler, {progress[2]} übersprungen))."
    )
    assert summary in said, said
    assert "Fehlschlag" not in said and " fehlgeschlagen," not in said
