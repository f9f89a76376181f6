"""A pack (or any YAML file touchstone reads) with an integer of more than 4,300 digits:
bad input naming file and line, exit 2, no traceback (issue 35, as in JSON)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.packs.test_pack_check import cli


def test_a_pack_with_a_huge_integer_is_bad_input_naming_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "p.yaml"
    pack.write_text(f"id: p\ntitle: T\nscale: {{min: 0, max: {'7' * 4301}}}\n", encoding="utf-8")
    code, _, err = cli(monkeypatch, capsys, "pack", "check", str(pack))
    assert code == 2 and "Traceback" not in err
    said = f"{pack} (Zeile 3): kein gültiges YAML: eine Zahl mit mehr als 4300 Ziffern"
    assert said in " ".join(err.split())
