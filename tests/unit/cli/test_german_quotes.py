"""A German message quotes a name as German text does, „x“ (issue 36): "Unbekannte Option
'--temperature'. Meinten Sie '--rejudge'?", "unbekannter Schlüssel 'call_timout_s'" and
"Kategorie 'A' enthält keine Prompts" beside „sim-think-endless“ and „keine Antwort …“
everywhere else."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from touchstone.cli.app import main
from touchstone.errors import InputError
from touchstone.jury.config import load_config
from touchstone.pack import load_pack


def said(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    """What ``touchstone ARGS`` prints, as ``main`` (the entry point) says it."""
    monkeypatch.setattr(sys, "argv", ["touchstone", *args])
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    return " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize(
    ("args", "quoted"),
    [
        (("jduge",), "Unbekannter Befehl „jduge“. Meinten Sie „judge“?"),
        (("run", "--modl", "m"), "Unbekannte Option „--modl“. Meinten Sie „--model“?"),
        (("run", "--model", "m"), "Fehlende Option „--pack“."),
        (
            ("run", "--pack", "p.yaml", "--model", "m", "--repeats", "x"),
            "Ungültiger Wert für „--repeats“",
        ),
    ],
)
def test_a_usage_error_quotes_the_german_way(
    args: tuple[str, ...],
    quoted: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = said(capsys, monkeypatch, *args)
    assert quoted in text and "'" not in text.split("Hilfe:")[0], text


def test_a_config_typo_quotes_the_german_way(tmp_path: Path) -> None:
    config = tmp_path / "judge.yaml"
    config.write_text("model: m\ncall_timout_s: 5\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_config(config)
    text = str(info.value)
    assert (
        "unbekannter Schlüssel „call_timout_s“" in text and "Meinten Sie „call_timeout_s“?" in text
    )
    assert "'" not in text, text


def test_a_pack_error_quotes_the_german_way(tmp_path: Path) -> None:
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "id: p\ntitle: P\ncategories:\n  - {id: A, title: A, prompts: []}\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as info:
        load_pack(pack)
    assert "Kategorie „A“ enthält keine Prompts" in str(info.value), str(info.value)
