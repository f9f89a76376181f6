"""``touchstone pack import``: CSV and JSONL into a pack, hostile input refused (design.md §15,
design.md §20): every bad row named by file, line and column, exit 2, nothing written."""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.packs.test_pack_check import cli
from tests.unit.store.fifo_support import make_fifo, needs_fifo, within
from touchstone.errors import InputError
from touchstone.pack import load_pack
from touchstone.packs.importer import import_pack
from touchstone.packs.rows import MAX_CELL

HEADER = "id;category;text;expectations;red_flags;safety_critical;reference;counterexample\n"
GOOD_CSV = HEADER + (
    'A1;Briefe;"Schreibe eine Mahnung\nüber 500 €.";"nennt 500 €; setzt eine Frist";;nein;;\n'
    "A2;Briefe;=SUMME(A1:A3) erklären;erklärt SUMME;;;;\n"
    ";;;;;;;\n"
    'S1;Sicher;"Neue IBAN; was tun?";Rückruf;"ändert IBAN; zahlt";ja;Erst anrufen.;Sofort ändern.\n'
)


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", newline="")
    else:
        path.write_bytes(content)
    return path


def _failed(source: Path, out: Path, **options: Any) -> list[str]:
    """The messages of a refused import; nothing may be written."""
    with pytest.raises(InputError) as refused:
        import_pack(source, out, **options)
    assert not out.exists()
    return str(refused.value).splitlines()


def test_a_csv_becomes_a_pack_that_loads(tmp_path: Path) -> None:
    source = _write(tmp_path, "buero-neu.csv", GOOD_CSV)
    out = tmp_path / "neu.yaml"
    imported = import_pack(source, out, title="Neues Paket", scale="1..10")
    pack = load_pack(out)
    assert pack == imported.pack
    assert (pack.id, pack.title, pack.scale.min, pack.scale.max) == (
        "buero-neu",
        "Neues Paket",
        1,
        10,
    )
    assert [c.id for c in pack.categories] == ["Briefe", "Sicher"]
    a1, a2 = pack.categories[0].prompts
    assert a1.text == "Schreibe eine Mahnung\nüber 500 €."
    assert a1.expectations == ["nennt 500 €", "setzt eine Frist"]
    # A formula-looking cell is just text.
    assert a2.text == "=SUMME(A1:A3) erklären"
    s1 = pack.prompt("S1")
    assert s1.text == "Neue IBAN; was tun?" and s1.red_flags == ["ändert IBAN", "zahlt"]
    assert s1.safety_critical and s1.reference == "Erst anrufen." and not a1.safety_critical
    # Multi-line texts are literal blocks, readable by hand.
    assert "text: |-\n      Schreibe eine Mahnung\n      über 500 €." in out.read_text("utf-8")


def test_comma_separated_with_a_bom_and_crlf(tmp_path: Path) -> None:
    content = '\ufeffID,Category,Text,Expectations\r\nA1,B,"Hallo, Welt",grüßt;nennt Welt\r\n'
    pack = import_pack(_write(tmp_path, "p.csv", content), tmp_path / "p.yaml").pack
    assert pack.prompt("A1").text == "Hallo, Welt"
    assert pack.prompt("A1").expectations == ["grüßt", "nennt Welt"]


def test_utf16_tab_separated_as_excel_saves_unicode_text(tmp_path: Path) -> None:
    content = "id\tcategory\ttext\texpectations\nA1\tB\tÄrger?\tbleibt ruhig\n"
    source = _write(tmp_path, "p.txt", codecs.BOM_UTF16_LE + content.encode("utf-16-le"))
    assert import_pack(source, tmp_path / "p.yaml").pack.prompt("A1").text == "Ärger?"


def test_a_jsonl_becomes_the_same_pack(tmp_path: Path) -> None:
    lines = [
        {"id": "A1", "category": "Briefe", "text": "Mahnung", "expectations": ["Frist"]},
        {},
        {
            "id": "S1",
            "category": "Sicher",
            "text": "IBAN?",
            "expectations": ["Rückruf"],
            "red_flags": ["ändert IBAN"],
            "safety_critical": True,
            "reference": None,
            "counterexample": "Ändere sie.",
        },
    ]
    content = "\n".join("" if not line else json.dumps(line) for line in lines) + "\n\n"
    pack = import_pack(_write(tmp_path, "p.jsonl", content), tmp_path / "p.yaml").pack
    assert pack.prompt("S1").safety_critical and pack.prompt("S1").reference is None
    assert pack.prompt("S1").counterexample == "Ändere sie."


def test_every_bad_csv_row_is_named_by_line_and_column(tmp_path: Path) -> None:
    content = HEADER + (
        "A1;B;Gut;erwartet;;;;\n"
        "A1;B;Doppelt;erwartet;;;;\n"  # line 3: duplicate id
        "A/2;B;Schräg;erwartet;;;;\n"  # line 4: no valid id
        "A3;B;;erwartet;;;;\n"  # line 5: no text
        "A4;B;Text;erwartet;;vielleicht;;\n"  # line 6: not a truth value
        "A5;B;Text;erwartet;;;;Gegenbeispiel\n"  # line 7: counterexample without red flags
        "A6;B;zu wenig\n"  # line 8: cells missing
        "A7;B;Null\x00Byte;erwartet;;;;\n"  # line 9: a control character
    )
    messages = _failed(_write(tmp_path, "p.csv", content), tmp_path / "p.yaml")
    path = tmp_path / "p.csv"
    assert messages[0] == f"{path}: 7 Probleme, nichts geschrieben:"
    body = "\n".join(messages)
    assert f"{path}, Zeile 3, Spalte 1 (id): ID „A1“ steht schon in Zeile 2." in body
    assert f"{path}, Zeile 4, Spalte 1 (id): „A/2“ ist keine gültige ID" in body
    assert f"{path}, Zeile 5, Spalte 3 (text): fehlt oder leer." in body
    assert f"{path}, Zeile 6, Spalte 6 (safety_critical): „vielleicht“ ist kein" in body
    assert f"{path}, Zeile 7" in body and "„counterexample“ braucht „red_flags“" in body
    assert f"{path}, Zeile 8: 3 Zellen, die Kopfzeile hat 8" in body
    assert f"{path}, Zeile 9, Spalte 3 (text): enthält ein Steuerzeichen (U+0000)" in body


def test_every_bad_jsonl_row_is_named_by_line_and_key(tmp_path: Path) -> None:
    good = {"id": "A1", "category": "B", "text": "T", "expectations": ["e"]}
    lines = [
        json.dumps(good),
        '{"id": "A2", "category": "B", "text": 5}',
        '{"id": "A3", "category": "B", "text": "T", "expectations": "e"}',
        '{"id": "A4", "category": "B", "text": "T", "safety_critical": "ja"}',
        '{"id": "A5", "category": "B", "texte": "T"}',
        '["keine", "Zuordnung"]',
        '{"id": "A6", "category": ',
        "[" * 100_000 + "]" * 100_000,
        '{"id": "A7", "category": "B", "text": "T", "text": "U"}',
        '{"id": "A8", "text": "T"}',
    ]
    path = _write(tmp_path, "p.jsonl", "\n".join(lines))
    body = "\n".join(_failed(path, tmp_path / "p.yaml"))
    assert f"{path}, Zeile 2, Schlüssel text: erwartet Text, gefunden eine Zahl." in body
    assert f"{path}, Zeile 3, Schlüssel expectations: erwartet eine Liste (JSON-Array)" in body
    assert f"{path}, Zeile 4, Schlüssel safety_critical: „ja“ ist kein Wahrheitswert" in body
    assert f"{path}, Zeile 5, Schlüssel texte: unbekannt. Meinten Sie „text“?" in body
    assert f"{path}, Zeile 6: erwartet ein JSON-Objekt {{…}}, gefunden eine Liste." in body
    assert f"{path}, Zeile 7, Spalte 26: kein gültiges JSON (Wert erwartet)" in body
    # Nesting too deep to parse is bad JSON like any other, not a RecursionError.
    assert f"{path}, Zeile 8, Spalte" in body
    # json would keep the last of two keys silently.
    assert f"{path}, Zeile 9, Schlüssel text: steht doppelt im Objekt." in body
    assert f"{path}, Zeile 10, Schlüssel category: fehlt oder leer." in body


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", "die Datei ist leer."),
        ("  \n\n", "die Datei ist leer."),
        (HEADER, "keine Prompts"),
        (HEADER + ";;;;;;;\n", "keine Prompts"),
        (
            "name;frage\nA;B\n",
            "Zeile 1: die Kopfzeile nennt nicht die Spalten id, category und text",
        ),
        (
            "id;category;txt;text\n",
            "Zeile 1, Spalte 3: unbekannte Spalte „txt“. Meinten Sie „text“?",
        ),
        ("id;category;text;text\n", "Zeile 1, Spalte 4: Spalte „text“ steht doppelt."),
        (HEADER + 'A1;B;"offen;e;;;;\n', "Zeile 2: kein gültiges CSV"),
    ],
)
def test_empty_and_broken_csv_files(tmp_path: Path, content: str, expected: str) -> None:
    body = "\n".join(_failed(_write(tmp_path, "p.csv", content), tmp_path / "p.yaml"))
    assert expected in body


def test_not_utf8_names_line_and_column_and_says_what_to_do(tmp_path: Path) -> None:
    content = (HEADER + "A1;B;Ärger;erwartet;;;;\n").encode("cp1252")
    body = "\n".join(_failed(_write(tmp_path, "p.csv", content), tmp_path / "p.yaml"))
    assert "Zeile 2, Spalte 6: kein UTF-8 (Byte 0xc4)" in body and "CSV UTF-8" in body


def test_huge_cells_and_files_are_refused(tmp_path: Path) -> None:
    long = "x" * (MAX_CELL + 1)
    body = "\n".join(
        _failed(_write(tmp_path, "p.csv", HEADER + f"A1;B;{long};e;;;;\n"), tmp_path / "p.yaml")
    )
    assert "Zeile 2, Spalte 3 (text): länger als 100.000 Zeichen" in body
    # Beyond Python's own csv field limit too, and on one line without a break.
    body = "\n".join(
        _failed(_write(tmp_path, "q.csv", HEADER + "A1;B;" + "y" * 200_000), tmp_path / "q.yaml")
    )
    assert "Zeile 2: kein gültiges CSV (eine Zelle ist länger als 131.072 Zeichen)" in body
    big = tmp_path / "big.jsonl"
    with big.open("wb") as handle:
        handle.truncate(21 * 1024 * 1024)
    assert "größer als 20 MB" in "\n".join(_failed(big, tmp_path / "big.yaml"))


@needs_fifo
def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = make_fifo(tmp_path / "p.csv")
    out = tmp_path / "p.yaml"
    with pytest.raises(InputError, match="keine reguläre Datei"):
        within(5, lambda: import_pack(fifo, out), fifo)
    assert not out.exists()


def test_options_and_the_output_file(tmp_path: Path) -> None:
    source = _write(tmp_path, "p.csv", GOOD_CSV)
    out = tmp_path / "p.yaml"
    assert "--scale" in _failed(source, out, scale="5-0")[0]
    assert "--scale" in _failed(source, out, scale="fünf")[0]
    assert "Paket-ID" in _failed(source, out, pack_id="../weg")[0]
    assert "unbekanntes Format" in _failed(_write(tmp_path, "p.xlsx", "x"), out)[0]
    assert "nicht gefunden" in _failed(tmp_path / "fehlt.csv", out)[0]
    out.write_text("alt", encoding="utf-8")
    with pytest.raises(InputError, match="gibt es schon; --force"):
        import_pack(source, out)
    assert out.read_text(encoding="utf-8") == "alt"
    import_pack(source, out, force=True)
    assert load_pack(out).prompt_count == 3
    with pytest.raises(InputError, match="Eingabedatei selbst"):
        import_pack(source, source, force=True)


def test_the_cli_exit_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    source = _write(tmp_path, "p.csv", GOOD_CSV)
    out = tmp_path / "p.yaml"
    code, stdout, _ = cli(monkeypatch, capsys, "pack", "import", str(source), "--out", str(out))
    assert code == 0, stdout
    assert "Importiert: 3 Prompts in 2 Kategorien" in stdout and "Ergebnis: brauchbar" in stdout
    bad = _write(tmp_path, "bad.csv", HEADER + "A1;B;;;;;;\n")
    code, _, err = cli(
        monkeypatch, capsys, "pack", "import", str(bad), "--out", str(tmp_path / "b.yaml")
    )
    assert code == 2 and "Zeile 2, Spalte 3 (text): fehlt oder leer." in err
    assert not (tmp_path / "b.yaml").exists()
    # Loads, but pack check finds an error: written, exit 1, and it says why.
    bare = _write(tmp_path, "bare.csv", HEADER + "A1;B;Text ohne Rubrik;;;;;\n")
    code, stdout, err = cli(
        monkeypatch, capsys, "pack", "import", str(bare), "--out", str(tmp_path / "c.yaml")
    )
    assert code == 1 and "Ohne Erwartungen (expectations): A1" in stdout
    assert "pack check meldet 1 Fehler" in err and load_pack(tmp_path / "c.yaml")


def test_texts_that_yaml_or_a_spreadsheet_would_read_otherwise_stay_text(tmp_path: Path) -> None:
    texts = [
        "=1+1",
        "+49 30 123",
        "-5 % Rabatt",
        "@chef bitte prüfen",
        "- keine Liste",
        "# kein Kommentar",
        "yes",
        "null",
        "~",
        "0x1F",
        "1e3",
        ": Doppelpunkt",
        "Zeile 1\n  eingerückt\n",
        "\tTab vorne",
        "'einfach' und \"doppelt\"",
        "Ende mit Leerzeichen   x",
    ]
    lines = [
        json.dumps({"id": f"P{i}", "category": "K", "text": text, "expectations": [text]})
        for i, text in enumerate(texts)
    ]
    out = tmp_path / "p.yaml"
    import_pack(_write(tmp_path, "p.jsonl", "\n".join(lines)), out)
    pack = load_pack(out)
    for i, text in enumerate(texts):
        assert pack.prompt(f"P{i}").text == text.strip()
        assert pack.prompt(f"P{i}").expectations == [text.strip()]
