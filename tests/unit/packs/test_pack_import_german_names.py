"""``pack import`` reads the German column names touchstone's own ``verdicts.csv`` uses
(Kategorie, Text, Erwartungen, …) as well as the English ones, in a CSV header and as JSONL
keys (issue 36); one column named twice, once English and once German, is refused naming both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.packs.test_pack_check import cli
from tests.unit.packs.test_pack_import import GOOD_CSV, HEADER, _failed, _write
from touchstone.pack import load_pack
from touchstone.packs.importer import import_pack

GERMAN_HEADER = (
    "ID;Kategorie;Text;Erwartungen;Warnsignale;sicherheitskritisch;Referenz;Gegenbeispiel\n"
)


def test_german_headers_make_the_same_pack_as_english_ones(tmp_path: Path) -> None:
    english = import_pack(_write(tmp_path, "p.csv", GOOD_CSV), tmp_path / "en.yaml").pack
    german_csv = GERMAN_HEADER + GOOD_CSV.removeprefix(HEADER)
    german = import_pack(_write(tmp_path, "p2.csv", german_csv), tmp_path / "de.yaml").pack
    assert german.categories == english.categories
    s1 = german.prompt("S1")
    assert s1.safety_critical and s1.red_flags == ["ändert IBAN", "zahlt"]
    assert (s1.reference, s1.counterexample) == ("Erst anrufen.", "Sofort ändern.")


def test_german_names_in_any_case_and_mixed_with_english_ones(tmp_path: Path) -> None:
    content = "id,KATEGORIE,text,erwartungen,Sicherheitskritisch\nA1,B,Frage?,antwortet,Ja\n"
    pack = import_pack(_write(tmp_path, "p.csv", content), tmp_path / "p.yaml").pack
    assert pack.prompt("A1").expectations == ["antwortet"] and pack.prompt("A1").safety_critical
    assert [c.id for c in pack.categories] == ["B"]


def test_a_message_names_the_column_as_the_header_spells_it(tmp_path: Path) -> None:
    source = _write(tmp_path, "p.csv", "ID;Kategorie;Text;Erwartungen\nA1;B;;erwartet\n")
    body = "\n".join(_failed(source, tmp_path / "p.yaml"))
    assert f"{source}, Zeile 2, Spalte 3 (Text): fehlt oder leer." in body


def test_an_unknown_german_column_gets_the_german_suggestion(tmp_path: Path) -> None:
    source = _write(tmp_path, "p.csv", "ID;Kategorie;Text;Erwartung\nA1;B;T;e\n")
    body = "\n".join(_failed(source, tmp_path / "p.yaml"))
    assert "Spalte 4: unbekannte Spalte „Erwartung“. Meinten Sie „Erwartungen“?" in body


def test_a_header_without_the_required_columns_names_the_german_ones_too(tmp_path: Path) -> None:
    source = _write(tmp_path, "p.csv", "Name;Frage\nA;B\n")
    body = "\n".join(_failed(source, tmp_path / "p.yaml"))
    assert "die Spalten id, category und text (deutsch: Kategorie, Text)" in body


@pytest.mark.parametrize(
    ("header", "first", "second"),
    [
        ("id;category;text;Kategorie", "Spalte 2 (category)", "Spalte 4 (Kategorie)"),
        ("id;Erwartungen;category;text;expectations", "Spalte 2 (Erwartungen)", "Spalte 5"),
    ],
)
def test_one_column_named_in_english_and_in_german_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Any,
    header: str,
    first: str,
    second: str,
) -> None:
    source = _write(tmp_path, "p.csv", header + "\n" + ";".join("x" * 5) + "\n")
    out = tmp_path / "p.yaml"
    code, _, err = cli(monkeypatch, capsys, "pack", "import", str(source), "--out", str(out))
    assert code == 2 and not out.exists() and "Traceback" not in err
    assert first in err and second in err and "dieselbe Spalte" in err


def test_german_jsonl_keys_and_a_key_named_twice(tmp_path: Path) -> None:
    german = {
        "ID": "S1",
        "Kategorie": "Sicher",
        "Text": "IBAN?",
        "Erwartungen": ["Rückruf"],
        "Warnsignale": ["ändert IBAN"],
        "sicherheitskritisch": True,
        "Gegenbeispiel": "Ändere sie.",
    }
    source = _write(tmp_path, "p.jsonl", json.dumps(german) + "\n")
    s1 = import_pack(source, tmp_path / "p.yaml").pack.prompt("S1")
    assert s1.safety_critical and s1.counterexample == "Ändere sie."
    assert load_pack(tmp_path / "p.yaml").categories[0].id == "Sicher"
    twice = {"id": "A1", "category": "B", "Kategorie": "C", "text": "T"}
    bad = _write(tmp_path, "bad.jsonl", json.dumps(twice) + "\n")
    body = "\n".join(_failed(bad, tmp_path / "bad.yaml"))
    assert "Zeile 1, Schlüssel Kategorie: dieselbe Spalte wie Schlüssel category" in body


def test_a_jsonl_truth_value_as_text_is_told_how_jsonl_writes_it(tmp_path: Path) -> None:
    row = {"id": "A1", "category": "B", "text": "T", "safety_critical": "ja"}
    source = _write(tmp_path, "p.jsonl", json.dumps(row) + "\n")
    body = "\n".join(_failed(source, tmp_path / "p.yaml"))
    # Not "(ja/nein, …)": in JSONL "ja" is exactly what is refused.
    assert "„ja“ ist kein Wahrheitswert; in JSONL true oder false" in body
    assert "ja/nein" not in body
