"""An explicit ``COLUMNS`` is honoured in a pipe, as rich does (issue 36): the output wraps as
a terminal of that width shows it, prose at words and a word longer than the line (a path)
folded at the width. Without ``COLUMNS`` a pipe keeps each message on one line, to be
searched (``tests/unit/scorecard/test_terminal_widths.py``). Read when the CLI starts, so an
in-process test never inherits the test process's width."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_terminal_habits import _touchstone
from touchstone.started import ENV


def test_a_pipe_with_columns_80_gets_no_longer_line(tmp_path: Path) -> None:
    done = _touchstone("demo", cwd=tmp_path, COLUMNS="80")
    assert done.returncode == 0, done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    assert [line for line in lines if len(line) > 80] == []
    # The tables fit too: rich draws them for 80 columns.
    assert any(line.startswith(("┏", "╭", "┌")) for line in lines)


def test_a_hint_wraps_at_words_in_a_narrow_pipe(answered_run: Path) -> None:
    done = _touchstone(
        "report", str(answered_run), cwd=answered_run.parent, COLUMNS="50", **{ENV: "x"}
    )
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) > 3 and all(len(line) <= 50 for line in lines), lines
    said = " ".join(done.stderr.split())
    assert "Noch keine Bewertungen – zuerst `x judge" in said, said
