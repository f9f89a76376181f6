"""The export files' formats: ``verdicts.csv``, every verdict with its answer (design.md §13), for a
German spreadsheet: UTF-8 with a byte order mark, ``;`` between fields, decimal comma, ja/nein,
German headers (design.md §22), no cell a spreadsheet would run as a formula; and
``scorecard.json``'s
text with the stamps of the run files it was built from. What a scorecard says is built one
floor up (``touchstone.export``): the store knows no scorecard.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from touchstone import jsontext
from touchstone.errors import InputError
from touchstone.pack import Pack
from touchstone.regular import read_regular
from touchstone.results import EvalResponse, Verdict, cut_at_cap, unscored_label
from touchstone.store.rundir import SCORECARD_JSON
from touchstone.store.stamps import INPUTS, Stamp, input_stamps

# German headers: the file is read by people in a German spreadsheet (design.md §22); scripts
# read scorecard.json.
CSV_COLUMNS = (
    "Modell",
    "Variante",
    "Prompt",
    "Kategorie",
    "Kategorietitel",
    "Wiederholung",
    "Wertung",
    "Warnsignal",
    "sicherheitskritisch",
    "unbewertet",
    "Grund",
    "Begründung",
    "Judge-Modell",
    "aus Cache",
    "Aufgabe",
    "Antwort",
    "Antwortfehler",
    "Zeichen Reasoning",
    "Latenz (s)",
    "Ausgabe-Tokens",
    # ja: the answer stopped at the run's max_tokens (finish_reason "length").
    "abgeschnitten",
)
# A German Excel splits at ";" (its list separator), reads "1,25" as a number and takes the
# file as UTF-8 only with a byte order mark (else umlauts turn into mojibake).
CSV_DELIMITER = ";"
CSV_BOM = "\ufeff"


def scorecard_text(data: dict[str, Any], inputs: Sequence[Stamp] = ()) -> str:
    """``scorecard.json`` holding ``data``; ``inputs``: the stamps of the run files it was
    built from (``store.INPUTS``), by which a reader tells whether it still says what they
    say."""
    if inputs:
        data["inputs"] = {
            name: {"bytes": size, "sha256": digest}
            for name, (size, digest) in zip(INPUTS, inputs, strict=True)
        }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def recorded_inputs(data: dict[str, object]) -> tuple[Stamp, ...] | None:
    """The input stamps a ``scorecard.json`` records (``scorecard_json``), or None."""
    inputs = data.get("inputs")
    if not isinstance(inputs, dict):
        return None
    stamps = []
    for name in INPUTS:
        entry = inputs.get(name)
        if not isinstance(entry, dict):
            return None
        size, digest = entry.get("bytes"), entry.get("sha256")
        if not isinstance(size, int) or not isinstance(digest, str):
            return None
        stamps.append((size, digest))
    return tuple(stamps)


def current_scorecard(
    run_path: Path, inputs: tuple[Stamp, ...] | None = None
) -> dict[str, Any] | None:
    """The object in the run's ``scorecard.json`` if it records the stamps its input files
    have now (``inputs``, when the caller has just taken them), else None; a file that cannot
    be read is derived data: None too, the run is loaded instead."""
    try:
        data = jsontext.loads(read_regular(run_path / SCORECARD_JSON))
    except (OSError, ValueError, InputError):
        return None
    # Times can lie (a same-size edit with the old mtime kept, a file from someone else with
    # one in the future): only the content of the files it was built from makes it current.
    current = input_stamps(run_path) if inputs is None else inputs
    if not isinstance(data, dict) or recorded_inputs(data) != current:
        return None
    return data


def _csv_text(values: Sequence[object]) -> str:
    # The writer quotes a field that holds a character of its line terminator, and no other
    # line break: with "\n" alone a bare CR stayed unquoted, and a reader (a spreadsheet,
    # the csv module) started a new row there. Written with "\r\n", ended with "\n".
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=CSV_DELIMITER, lineterminator="\r\n").writerow(values)
    return buffer.getvalue()[:-2] + "\n"


# A spreadsheet runs a cell that starts with = + - @ as a formula, and strips a leading tab
# or CR before it looks (OWASP, "CSV injection").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _text(value: str) -> str:
    """Text from a model, a judge or a pack, never read as a formula."""
    if value[:1] in _FORMULA_STARTS:
        return "'" + value
    return value


def _yes(value: bool) -> str:
    return "ja" if value else "nein"


def _decimal(value: float | None) -> str:
    """``1,25``: a decimal comma and no thousands point (a spreadsheet reads it as a number)."""
    if value is None:
        return ""
    return f"{value:.3f}".rstrip("0").rstrip(".").replace(".", ",")


def pack_order(verdicts: Iterable[Verdict], pack: Pack, models: Sequence[str]) -> list[Verdict]:
    """``verdicts`` in the pack's order: model as the run lists them (``models``, run.json),
    variant and prompt as the pack does, then the repeat; what neither knows (a model or
    prompt edited out since) after it, by name. The order of ``verdicts.csv`` from the CLI and
    the GUI alike, whatever order the judge's calls came back in."""
    variants = [*pack.variants]
    prompts = [prompt.id for _, prompt in pack.all_prompts()]
    rank = {
        "model": {name: i for i, name in enumerate(models)},
        "variant": {name: i for i, name in enumerate(variants)},
        "prompt": {name: i for i, name in enumerate(prompts)},
    }

    def place(kind: str, name: str) -> tuple[int, str]:
        index = rank[kind].get(name)
        return (len(rank[kind]), name) if index is None else (index, "")

    return sorted(
        verdicts,
        key=lambda v: (
            place("model", v.model),
            place("variant", v.variant),
            place("prompt", v.prompt_id),
            v.repeat,
        ),
    )


def verdict_csv_lines(
    verdicts: Iterable[Verdict], responses: Iterable[EvalResponse], pack: Pack
) -> Iterator[str]:
    """``verdicts.csv`` line by line (a header first): it streams, 100k rows never sit whole.
    The rows in the order given (``pack_order`` for the whole file); each names its
    category's title and the task beside the answer, from ``pack``."""
    answers = {r.key: r for r in responses}
    titles = {category.id: category.title for category in pack.categories}
    tasks = {prompt.id: prompt.text for _, prompt in pack.all_prompts()}
    yield CSV_BOM + _csv_text(CSV_COLUMNS)
    for v in verdicts:
        answer = answers.get(v.key)
        row = (
            _text(v.model),
            _text(v.variant),
            _text(v.prompt_id),
            _text(v.category),
            _text(titles.get(v.category, "")),
            str(v.repeat),
            "" if v.unscored else _decimal(v.score),  # a jury's cell may be 3,5
            _yes(v.red_flag),
            _yes(v.safety_critical),
            _yes(v.unscored),
            unscored_label(v) if v.unscored else "",
            _text(v.rationale),
            _text(v.judge_model),
            _yes(v.cached),
            _text(tasks.get(v.prompt_id, "")),
            _text(answer.response_text) if answer else "",
            _text(answer.error) if answer else "",
            str(answer.reasoning_chars) if answer else "",
            _decimal(answer.latency_s) if answer else "",
            str(answer.completion_tokens) if answer and answer.completion_tokens else "",
            _yes(cut_at_cap(answer)) if answer else "",
        )
        yield _csv_text(row)


Field = str | float | bool | None


def table_csv_lines(columns: Sequence[str], rows: Iterable[Sequence[Field]]) -> Iterator[str]:
    """Any table as ``verdicts.csv`` is written (a header first, streamed): text never read
    as a formula, a float with a decimal comma (a difference ``-1,5`` stays a number), a
    bool as ja/nein, None empty. An ``int`` is passed as a float (a count: ``3``)."""
    yield CSV_BOM + _csv_text(columns)
    for row in rows:
        yield _csv_text([_field(value) for value in row])


def _field(value: Field) -> str:
    if isinstance(value, bool):
        return _yes(value)
    if isinstance(value, str):
        return _text(value)
    return _decimal(value)
