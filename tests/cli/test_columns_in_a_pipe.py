"""An explicit ``COLUMNS`` is honoured in a pipe, as rich does (issue 36): the output wraps as
a terminal of that width shows it, prose at words and a word longer than the line (a path)
folded at the width. Without ``COLUMNS`` a pipe keeps each message on one line, to be
searched (``tests/unit/scorecard/test_terminal_widths.py``). Read when the CLI starts, so an
in-process test never inherits the test process's width."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from touchstone.started import ENV


def _piped(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "COLUMNS"))}
    return subprocess.run(
        [sys.executable, "-m", "touchstone", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, **env},
    )


def test_a_pipe_with_columns_80_gets_no_longer_line(tmp_path: Path) -> None:
    done = _piped("demo", cwd=tmp_path, COLUMNS="80")
    assert done.returncode == 0, done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    assert [line for line in lines if len(line) > 80] == []
    # The scorecard's table fits too, and the last hint is still whole when joined.
    assert any(line.startswith(("┏", "╭", "┌")) for line in lines)


def test_a_hint_wraps_at_words_in_a_narrow_pipe(answered_run: Path) -> None:
    done = _piped("report", str(answered_run), cwd=answered_run.parent, COLUMNS="50", **{ENV: "x"})
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) > 3 and all(len(line) <= 50 for line in lines), lines
    said = " ".join(done.stderr.split())
    assert "Noch keine Bewertungen – zuerst `x judge" in said, said
