"""Reading the rows of a CSV or JSONL file for ``pack import`` (design.md §15: hostile input).

Every row becomes a ``Row`` (its line and its cells by column) or a ``Problem`` naming line
and column. The file is read whole but bounded (``MAX_BYTES``, as a YAML pack), only if it is
a regular file; UTF-8 with or without byte order mark, or UTF-16 with one (Excel's "Unicode
text"); anything else is a problem at the line and column of the first bad byte.

CSV: the header names the columns (any order, any case, English or German: ``GERMAN``, the
words of touchstone's own ``verdicts.csv``; one column under both names is a problem naming
both); the delimiter is the one of ``,``,
``;`` and tab that splits the header into known columns (German Excel writes ``;``). Lists
are separated by ``;`` inside a cell (quoted, when ``;`` is the delimiter); a ``;`` within
one expectation is not possible in CSV (JSONL has arrays). Wholly blank rows are skipped
(spreadsheets leave them at the end). JSONL: one JSON object per line, blank lines skipped; its
keys are the same names as a CSV header's.
"""

from __future__ import annotations

import codecs
import csv
import difflib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from touchstone import german, jsontext
from touchstone.errors import InputError
from touchstone.regular import open_regular
from touchstone.yamlfile import MAX_BYTES

COLUMNS = (
    "id",
    "category",
    "text",
    "expectations",
    "red_flags",
    "reference",
    "counterexample",
    "safety_critical",
)
# The German name of each column (``id`` is the same word): a header a German user writes, or
# the one of ``verdicts.csv`` (``Kategorie``, ``sicherheitskritisch``).
GERMAN = {
    "category": "Kategorie",
    "text": "Text",
    "expectations": "Erwartungen",
    "red_flags": "Warnsignale",
    "reference": "Referenz",
    "counterexample": "Gegenbeispiel",
    "safety_critical": "sicherheitskritisch",
}
# Every accepted name, lower case, with its column; English first, so a suggestion spells a
# name that is both (``text``) the English way.
_NAMES = {column: column for column in COLUMNS} | {
    german.lower(): column for column, german in GERMAN.items()
}
_SPELLED = {german.lower(): german for german in GERMAN.values()} | {
    column: column for column in COLUMNS
}
REQUIRED = ("id", "category", "text")
LISTS = ("expectations", "red_flags")
DELIMITERS = (",", ";", "\t")
# Python's csv refuses longer fields (131,072 characters); a prompt is far shorter.
MAX_CELL = 100_000


@dataclass(frozen=True)
class Problem:
    line: int  # 0: the file as a whole
    column: str  # "" for the whole line
    text: str
    # The rest of the file cannot be read past it (an empty file, a bad header, a quote).
    fatal: bool = False

    def where(self, path: Path) -> str:
        if not self.line:
            return f"{path}: {self.text}"
        column = f", {self.column}" if self.column else ""
        return f"{path}, Zeile {self.line}{column}: {self.text}"


@dataclass(frozen=True)
class Row:
    line: int
    # Column -> value: CSV gives strings; JSONL whatever JSON holds.
    cells: dict[str, Any]
    # Column -> how a message names it ("Spalte 3 (text)", "Schlüssel text").
    names: dict[str, str]
    # JSONL: values have JSON's types (lists are arrays); CSV: every value is a string.
    jsonl: bool = False


def read_text(path: Path) -> str:
    """The file's text; bad input (missing, not regular, too large, not UTF-8) is an
    ``InputError`` naming it (and line and column for a bad byte)."""
    try:
        with open_regular(path, follow_links=True) as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{path} nicht gefunden.") from None
    except IsADirectoryError:
        raise InputError(f"{path} ist ein Verzeichnis, keine Datei.") from None
    if len(data) > MAX_BYTES:
        raise InputError(
            f"{path} ist größer als {MAX_BYTES // 1024 // 1024} MB; so große Dateien liest "
            "pack import nicht."
        )
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: kein gültiges UTF-16 ({exc.reason}).") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = exc.start
        line = data.count(b"\n", 0, start) + 1
        column = start - (data.rfind(b"\n", 0, start) + 1) + 1
        raise InputError(
            f"{path}, Zeile {line}, Spalte {column}: kein UTF-8 (Byte 0x{data[start]:02x}). "
            "Speichern Sie die Datei als UTF-8 (in Excel: „CSV UTF-8“)."
        ) from None


def column_of(name: str) -> str | None:
    """The column a header cell or JSONL key names (English or German, any case), or None."""
    return _NAMES.get(name.strip().lower())


def _known() -> str:
    german = ", ".join(GERMAN.values())
    return f"{', '.join(COLUMNS)} (oder deutsch: {german})"


def _guess(name: str) -> str:
    close = difflib.get_close_matches(name.strip().lower(), list(_SPELLED), n=1, cutoff=0.6)
    return f" Meinten Sie „{_SPELLED[close[0]]}“?" if close else ""


def _controls(value: str) -> str | None:
    """The first control character in ``value`` (tab and line breaks are text), or None."""
    for char in value:
        if (char < " " and char not in "\t\n\r") or char == "\x7f":
            return f"U+{ord(char):04X}"
    return None


def _cell_problem(value: str) -> str | None:
    if len(value) > MAX_CELL:
        return f"länger als {german.count(MAX_CELL)} Zeichen"
    control = _controls(value)
    return f"enthält ein Steuerzeichen ({control})" if control else None


def csv_rows(text: str) -> Iterator[Row | Problem]:
    """The rows of a CSV file (after its header), or the problems of each."""
    found = _header(text)
    if isinstance(found, Problem):
        yield found
        return
    header, names, delimiter = found
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        next(reader)
        while True:
            line = reader.line_num + 1
            try:
                cells = next(reader)
            except StopIteration:
                return
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(header):
                yield Problem(
                    line,
                    "",
                    f"{german.counted(len(cells), 'Zelle', 'Zellen')}, die Kopfzeile hat "
                    f"{len(header)} (ein Trennzeichen „{_shown(delimiter)}“ im Text? Dann "
                    "die Zelle in Anführungszeichen setzen).",
                )
                continue
            row: dict[str, Any] = {}
            for column, cell in zip(header, cells, strict=True):
                problem = _cell_problem(cell)
                if problem:
                    yield Problem(line, names[column], problem)
                row[column] = cell
            yield Row(line, row, names)
    except csv.Error as exc:
        # After a broken quote the rest of the file cannot be told apart into rows.
        yield Problem(
            reader.line_num,
            "",
            f"kein gültiges CSV{_csv_reason(str(exc))}; hier endet das Lesen.",
            fatal=True,
        )


# What Python's parsers say, in German (the rest: no reason given).
_CSV_REASONS = {
    "field larger than field limit": "eine Zelle ist länger als 131.072 Zeichen",
    "unexpected end of data": "Anführungszeichen nicht geschlossen",
    "expected after": "nach einem schließenden Anführungszeichen muss ein Trennzeichen folgen",
    "NUL": "enthält ein NUL-Zeichen",
}


def _csv_reason(message: str) -> str:
    reason = next((v for k, v in _CSV_REASONS.items() if k in message), "")
    return f" ({reason})" if reason else ""


def _shown(delimiter: str) -> str:
    return "Tab" if delimiter == "\t" else delimiter


def _header(text: str) -> tuple[list[str], dict[str, str], str] | Problem:
    """The header's columns, how a message names each (as the header spells it), and the
    delimiter; or the problem that stops the reading."""
    if not text.strip():
        return Problem(0, "", "die Datei ist leer.", fatal=True)
    first = text.split("\n", 1)[0]
    best: tuple[list[str], str] | None = None
    for delimiter in DELIMITERS:
        try:
            cells = next(csv.reader([first], delimiter=delimiter))
        except (csv.Error, StopIteration):
            continue
        if all(column in map(column_of, cells) for column in REQUIRED):
            best = [cell.strip() for cell in cells], delimiter
            break
    if best is None:
        return Problem(
            1,
            "",
            "die Kopfzeile nennt nicht die Spalten id, category und text (deutsch: Kategorie, "
            "Text), getrennt durch Komma, Semikolon oder Tab; gefunden: "
            f"„{first[:120]}“. Mögliche Spalten: {_known()}.",
            fatal=True,
        )
    spelled, delimiter = best
    header: list[str] = []
    names: dict[str, str] = {}
    for index, name in enumerate(spelled):
        where = f"Spalte {index + 1}"
        column = column_of(name)
        if column is None:
            text = f"unbekannte Spalte „{name[:60]}“.{_guess(name)} Mögliche: {_known()}."
            return Problem(1, where, text, fatal=True)
        if column in names:
            earlier = header.index(column)
            if spelled[earlier].lower() == name.lower():
                return Problem(1, where, f"Spalte „{name}“ steht doppelt.", fatal=True)
            text = f"dieselbe Spalte wie {names[column]}; nur einen der beiden Namen verwenden."
            return Problem(1, f"{where} ({name[:60]})", text, fatal=True)
        header.append(column)
        names[column] = f"{where} ({name[:60]})"
    return header, names, delimiter


_JSON_TYPES = {
    dict: "ein Objekt",
    list: "eine Liste",
    str: "ein Text",
    bool: "ein Wahrheitswert",
    int: "eine Zahl",
    float: "eine Zahl",
    type(None): "null",
}


def json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


class DuplicateKey(ValueError):
    """A JSON object names a key twice (``json`` would keep the last silently)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key[:60]


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKey(key)
        seen[key] = value
    return seen


def jsonl_rows(text: str) -> Iterator[Row | Problem]:
    """The rows of a JSONL file, or the problems of each."""
    if not text.strip():
        yield Problem(0, "", "die Datei ist leer.", fatal=True)
        return
    for index, raw in enumerate(text.split("\n")):
        line = index + 1
        if not raw.strip():
            continue
        try:
            value = jsontext.loads(raw, object_pairs_hook=_unique_keys)
        except DuplicateKey as exc:
            yield Problem(line, f"Schlüssel {exc.key}", "steht doppelt im Objekt.")
            continue
        except json.JSONDecodeError as exc:
            yield Problem(
                line, f"Spalte {exc.colno}", f"kein gültiges JSON ({jsontext.reason(exc)})."
            )
            continue
        if not isinstance(value, dict):
            yield Problem(line, "", f"erwartet ein JSON-Objekt {{…}}, gefunden {json_type(value)}.")
            continue
        cells: dict[str, Any] = {}
        names: dict[str, str] = {}
        problems = []
        for key, cell in value.items():
            shown = f"Schlüssel {key[:60]}"
            column = column_of(key)
            if column is None:
                problems.append(Problem(line, shown, f"unbekannt.{_guess(key[:60])}"))
                continue
            if column in names:
                text = f"dieselbe Spalte wie {names[column]}; nur einen der beiden Namen verwenden."
                problems.append(Problem(line, shown, text))
                continue
            cells[column], names[column] = cell, shown
            for text_value in cell if isinstance(cell, list) else [cell]:
                problem = _cell_problem(text_value) if isinstance(text_value, str) else None
                if problem:
                    problems.append(Problem(line, shown, problem))
                    break
        yield from problems
        if not problems:
            yield Row(line, cells, names, jsonl=True)
