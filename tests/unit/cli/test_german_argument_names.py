"""Help and usage errors name a command's arguments in German (issue 36): "Aufruf: touchstone
compare [OPTIONEN] NEW BASELINE", "RUN_DIR", "SOURCE" beside German text everywhere else."""

from __future__ import annotations

import re
import sys

import pytest

from tests.unit.test_german_output import _help
from touchstone.cli.app import main

ENGLISH = re.compile(r"\b(NEW|RUN_DIR|SOURCE|PACK)\b")


@pytest.mark.parametrize(
    ("command", "names"),
    [
        (("compare",), "NEU BASELINE"),
        (("judge",), "RUN"),
        (("report",), "RUN"),
        (("rate",), "RUN"),
        (("judge-check",), "[RUN]"),
        (("pack", "check"), "PAKET"),
        (("pack", "import"), "QUELLE"),
    ],
)
def test_the_help_names_arguments_in_german(
    command: tuple[str, ...],
    names: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    output = _help(capsys, monkeypatch, *command)
    usage = next(line for line in output.splitlines() if "Aufruf:" in line)
    assert usage.rstrip().endswith(names), usage
    assert not ENGLISH.search(output), output


def test_a_missing_argument_is_named_in_german(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["touchstone", "report"])
    with pytest.raises(SystemExit):
        main()
    err = " ".join(capsys.readouterr().err.split())
    assert "Fehlendes Argument RUN." in err, err
