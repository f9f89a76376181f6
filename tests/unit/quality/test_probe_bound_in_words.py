"""The number of probes judge-check promises is the number it can send (issue 36): `judge-check
--help` and the GUI's "Judge prüfen" said "höchstens 24 Proben" where the battery never holds
more than 18 (buero, which has every kind of probe, sends 18). The GUI's part:
`tests/gui/test_gui_probe_bound.py`."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from tests.unit.quality.test_judge_check import buero
from touchstone.cli import app
from touchstone.limits import MAX_PROBES
from touchstone.pack import Pack
from touchstone.quality.probes import probe_battery

__all__ = ["buero"]  # a fixture, used by name


def test_a_pack_with_every_kind_of_probe_fills_the_bound(buero: Pack) -> None:
    assert len(probe_battery(buero)) == MAX_PROBES == 18


def test_the_help_names_the_bound_the_battery_has() -> None:
    result = CliRunner().invoke(app, ["judge-check", "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert re.findall(r"höchstens (\d+) Proben", result.output) == [str(MAX_PROBES)]
