"""``pack import``: a CSV or JSONL file of prompts becomes a pack's YAML (design.md §20, §15).

Columns (CSV) or keys (JSONL), in English or German (``rows.GERMAN``): ``id``, ``category``,
``text`` (required), ``expectations``, ``red_flags`` (lists: ``;``-separated in a CSV cell,
JSON arrays in JSONL), ``reference``, ``counterexample`` (text; empty or null: none),
``safety_critical`` (CSV: ja/nein, wahr/falsch, true/false, 1/0, x or empty; JSONL:
true/false). Categories keep the order of their first row; their title is their id. Cells
that look like spreadsheet formulas (``=SUMME(A1)``) are text.

Every bad row is a German message naming file, line and column, and nothing is written:
``ImportFailed`` carries them all (the CLI shows the first ``MAX_SHOWN``). The pack is
checked (``Pack``) before it is written, written atomically, and an existing ``--out`` is
only replaced with ``force``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from touchstone import german
from touchstone.errors import InputError
from touchstone.pack import Pack, Prompt, id_problem
from touchstone.packs.rows import Problem, Row, csv_rows, json_type, jsonl_rows, read_text
from touchstone.store.files import atomic_write_text
from touchstone.yamlfile import german_problem

MAX_SHOWN = 10
_TRUE = {"ja", "j", "yes", "y", "true", "wahr", "1", "x"}
_FALSE = {"", "nein", "n", "no", "false", "falsch", "0"}
_SCALE = re.compile(r"\s*(-?\d{1,6})\s*(?:\.\.|–|-|:)\s*(-?\d{1,6})\s*")
FORMATS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


class ImportFailed(InputError):
    """Rows that cannot become prompts; nothing was written."""

    def __init__(self, path: Path, problems: list[Problem]) -> None:
        shown = [problem.where(path) for problem in problems[:MAX_SHOWN]]
        more = len(problems) - MAX_SHOWN
        if more > 0:
            shown.append(f"… und {german.counted(more, 'weiteres Problem', 'weitere Probleme')}")
        head = (
            f"{path}: {german.counted(len(problems), 'Problem', 'Probleme')}, nichts geschrieben:"
        )
        super().__init__("\n".join([head, *shown]))
        self.problems = problems


@dataclass(frozen=True)
class Imported:
    pack: Pack
    out: Path


def parse_scale(text: str) -> tuple[int, int]:
    """``--scale 0-5`` (also ``1..10``): min and max."""
    match = _SCALE.fullmatch(text)
    if match is None:
        raise InputError(f"--scale: „{text[:40]}“ ist keine Skala; erwartet z. B. 0-5 oder 1..10.")
    low, high = int(match.group(1)), int(match.group(2))
    if low >= high:
        raise InputError(
            f"--scale: das Minimum ({low}) muss kleiner als das Maximum ({high}) sein."
        )
    return low, high


def _text(row: Row, column: str, problems: list[Problem], *, required: bool) -> str | None:
    value = row.cells.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            name = row.names.get(column) or (f"Schlüssel {column}" if row.jsonl else column)
            problems.append(Problem(row.line, name, "fehlt oder leer."))
        return None
    if not isinstance(value, str):
        problems.append(
            Problem(row.line, row.names[column], f"erwartet Text, gefunden {json_type(value)}.")
        )
        return None
    return value.strip()


def _list(row: Row, column: str, problems: list[Problem]) -> list[str]:
    value = row.cells.get(column)
    if value is None:
        return []
    if isinstance(value, str):
        if row.jsonl:
            problems.append(
                Problem(row.line, row.names[column], "erwartet eine Liste (JSON-Array) von Texten.")
            )
            return []
        return [part.strip() for part in value.split(";") if part.strip()]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(
            Problem(row.line, row.names[column], "erwartet eine Liste (JSON-Array) von Texten.")
        )
        return []
    return [item.strip() for item in value if item.strip()]


def _flag(row: Row, problems: list[Problem]) -> bool:
    value = row.cells.get("safety_critical")
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and not row.jsonl:
        word = value.strip().lower()
        if word in _TRUE | _FALSE:
            return word in _TRUE
    # JSONL has truth values of its own; a text there is refused (as a number is).
    words = (
        "in JSONL true oder false, ohne Anführungszeichen" if row.jsonl else "ja/nein, wahr/falsch"
    )
    problems.append(
        Problem(
            row.line,
            row.names["safety_critical"],
            f"„{str(value)[:40]}“ ist kein Wahrheitswert; {words}.",
        )
    )
    return False


def _prompt(row: Row, problems: list[Problem]) -> tuple[str, dict[str, Any]] | None:
    """The row's category and prompt (as the YAML has it), or None with its problems."""
    before = len(problems)
    ident = _text(row, "id", problems, required=True)
    category = _text(row, "category", problems, required=True)
    for column, value in (("id", ident), ("category", category)):
        problem = id_problem(value) if value is not None else None
        if problem:
            problems.append(Problem(row.line, row.names[column], problem + "."))
    prompt: dict[str, Any] = {
        "id": ident,
        "text": _text(row, "text", problems, required=True),
        "expectations": _list(row, "expectations", problems),
    }
    red_flags = _list(row, "red_flags", problems)
    if red_flags:
        prompt["red_flags"] = red_flags
    if _flag(row, problems):
        prompt["safety_critical"] = True
    for column in ("reference", "counterexample"):
        value = _text(row, column, problems, required=False)
        if value is not None:
            prompt[column] = value
    if len(problems) > before or category is None:
        return None
    try:
        Prompt.model_validate(prompt)
    except ValidationError as exc:
        for error in exc.errors():
            loc = error.get("loc") or ()
            column = str(loc[0]) if loc else ""
            name = row.names.get(column, "")
            problems.append(Problem(row.line, name, german_problem(dict(error)) + "."))
        return None
    return category, prompt


# Prompts (as the YAML has them) by category id.
Prompts = dict[str, list[dict[str, Any]]]


def _prompts(rows: Iterable[Row | Problem]) -> tuple[Prompts, list[Problem]]:
    """Prompts by category (first-seen order) and every problem, duplicate ids included."""
    categories: Prompts = {}
    problems: list[Problem] = []
    first_line: dict[str, int] = {}
    for row in rows:
        if isinstance(row, Problem):
            problems.append(row)
            continue
        made = _prompt(row, problems)
        if made is None:
            continue
        category, prompt = made
        ident = prompt["id"]
        if ident in first_line:
            problems.append(
                Problem(
                    row.line,
                    row.names["id"],
                    f"ID „{ident}“ steht schon in Zeile {first_line[ident]}.",
                )
            )
            continue
        first_line[ident] = row.line
        categories.setdefault(category, []).append(prompt)
    return categories, problems


class _Dumper(yaml.SafeDumper):
    """Multi-line texts as literal blocks (``|``), readable and editable by hand."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def import_pack(
    source: Path,
    out: Path,
    *,
    pack_id: str | None = None,
    title: str | None = None,
    scale: str = "0-5",
    force: bool = False,
) -> Imported:
    """Read ``source`` (CSV or JSONL by its suffix) and write the pack to ``out``."""
    kind = FORMATS.get(source.suffix.lower())
    if kind is None:
        raise InputError(
            f"{source}: unbekanntes Format „{source.suffix}“; pack import liest .csv (auch .tsv) "
            "und .jsonl."
        )
    ident = pack_id or source.stem
    problem = id_problem(ident)
    if problem:
        raise InputError(f"Paket-ID: {problem}. Geben Sie eine mit --id an.")
    low, high = parse_scale(scale)
    if out.is_dir():
        raise InputError(f"--out {out} ist ein Verzeichnis; erwartet wird eine Datei (PAKET.yaml).")
    if out.exists() and not force:
        raise InputError(f"--out {out} gibt es schon; --force ersetzt die Datei.")
    if out.exists() and source.exists() and out.samefile(source):
        raise InputError(f"--out {out} ist die Eingabedatei selbst.")
    text = read_text(source)
    rows = csv_rows(text) if kind == "csv" else jsonl_rows(text)
    categories, problems = _prompts(rows)
    if not problems and not categories:
        problems.append(Problem(0, "", "keine Prompts (nur eine Kopfzeile oder leere Zeilen)."))
    if problems:
        raise ImportFailed(source, problems)
    data = {
        "id": ident,
        "title": title or ident,
        "language": "de",
        "scale": {"min": low, "max": high},
        "variants": {"none": ""},
        "categories": [
            {"id": category, "title": category, "prompts": prompts}
            for category, prompts in categories.items()
        ],
    }
    try:
        pack = Pack.model_validate(data)
    except ValidationError as exc:
        found = "; ".join(german_problem(dict(error)) for error in exc.errors()[:3])
        raise InputError(f"{source}: daraus wird kein gültiges Paket: {found}") from exc
    atomic_write_text(
        out, yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)
    )
    return Imported(pack, out)
