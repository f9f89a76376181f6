"""``COLUMNS`` holds for one command (issue 36): ``main`` sets a pipe's width from it and puts
the consoles back afterwards, so an in-process test that calls ``main`` with ``COLUMNS=120``
leaves no width behind for the tests after it. The pipe's side:
``tests/cli/test_columns_in_a_pipe.py``."""

from __future__ import annotations

import signal
import sys

import pytest

from touchstone.cli import main, ui


def test_a_command_leaves_the_consoles_as_it_found_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = [(c.width, c.soft_wrap) for c in (ui.stdout, ui.stderr)]
    monkeypatch.setenv("COLUMNS", "50")
    monkeypatch.setattr(sys, "argv", ["touchstone", "--version"])
    handler = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit):
            main()
    finally:
        signal.signal(signal.SIGTERM, handler)
    assert "touchstone" in capsys.readouterr().out
    assert [(c.width, c.soft_wrap) for c in (ui.stdout, ui.stderr)] == before
