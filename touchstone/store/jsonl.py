"""JSON Lines: bulk reading that names a bad line, appending that a kill cannot corrupt.

A process killed mid-write leaves at most one truncated last line: readers skip it with a
warning and the next append cuts it off first, so it never turns into a corrupt middle line.
"""

from __future__ import annotations

import codecs
import contextlib
import gc
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from touchstone import jsontext
from touchstone.errors import InputError
from touchstone.limits import MAX_TOKEN_COUNT
from touchstone.regular import open_regular
from touchstone.store.files import atomic_write
from touchstone.yamlfile import german_problem

T = TypeVar("T")

# Lines validated per call on the fast path: one pydantic-core call on a joined chunk parses
# and builds the records in Rust, several times faster than line by line, and a chunk
# bounds the memory it needs.
_CHUNK_LINES = 2000
_ADAPTERS: dict[type, tuple[TypeAdapter[Any], TypeAdapter[Any]]] = {}
_OBJECT: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])


def _adapters(cls: type[T]) -> tuple[TypeAdapter[list[T]], TypeAdapter[T]]:
    if cls not in _ADAPTERS:
        _ADAPTERS[cls] = (TypeAdapter(list[cls]), TypeAdapter(cls))  # type: ignore[valid-type]
    return _ADAPTERS[cls]


def iter_jsonl(path: Path, cls: type[T], warn: Callable[[str], None]) -> Iterator[T]:
    """The records of ``path``; a truncated last line is skipped with a warning, a UTF-8
    BOM at the start ignored.

    Keys a record does not know are ignored (a newer version wrote them), missing fields with
    defaults are filled in (an older one did). A token count that is no plausible one (in a
    field of ``cls.TOKEN_FIELDS``: an older version stored what a server made up) is read as
    None, unknown, with one warning for the file. Any other bad line is an ``InputError``
    naming file and line number.
    """
    try:
        handle = open_regular(path)
    except FileNotFoundError:
        return
    unknowns = _Unknowns()
    with handle:
        chunk: list[bytes] = []
        first = 1
        # A UTF-8 BOM before the first line (Windows Notepad saves one) is no content.
        if handle.read(len(codecs.BOM_UTF8)) != codecs.BOM_UTF8:
            handle.seek(0)
        for raw in handle:
            chunk.append(raw)
            if len(chunk) >= _CHUNK_LINES:
                yield from _parse_chunk(path, first, chunk, cls, unknowns)
                first += len(chunk)
                chunk = []
        if chunk and not chunk[-1].endswith(b"\n"):
            *chunk, tail = chunk
            yield from _parse_chunk(path, first, chunk, cls, unknowns)
            number = first + len(chunk)
            try:
                yield _parse_line(path, number, tail, cls, unknowns)
            except InputError:
                warn(
                    f"{path}: letzte Zeile {number} ist unvollständig (abgebrochener Prozess?) "
                    "und wird übersprungen."
                )
        elif chunk:
            yield from _parse_chunk(path, first, chunk, cls, unknowns)
    if unknowns.count:
        more = f"; ebenso {unknowns.count - 1} weitere Werte" if unknowns.count > 1 else ""
        limit = f"{MAX_TOKEN_COUNT:,}".replace(",", ".")
        warn(
            f"{path}, {unknowns.first}: keine plausible Token-Zahl (0 bis {limit}), gilt als "
            f"unbekannt{more}."
        )


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """Pause the cyclic GC while loading: 100k records without cycles would otherwise
    trigger dozens of full collections, a third of the load time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def kept_out_of_gc() -> Iterator[Callable[[], None]]:
    """Pause the cyclic GC for loading; call what it yields once loaded: everything alive
    then is exempt from the GC until the block ends, and the GC runs again.

    For a loaded run (200k records without cycles, kept for the whole stage): re-enabled
    before the freeze, the GC would walk them all at once, and each later collection again.
    """
    was_enabled = gc.isenabled()
    gc.disable()

    def loaded() -> None:
        gc.freeze()
        if was_enabled:
            gc.enable()

    try:
        yield loaded
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


class _Unknowns:
    """The values of a file read as unknown: the first one named, all counted."""

    __slots__ = ("count", "first")

    def __init__(self) -> None:
        self.first = ""
        self.count = 0


def _parse_chunk(
    path: Path, first: int, lines: list[bytes], cls: type[T], unknowns: _Unknowns
) -> list[T]:
    if not lines:
        return []
    many, _ = _adapters(cls)
    try:
        return many.validate_json(b"[" + b",".join(lines) + b"]")
    except ValidationError:
        # Something in this chunk is bad: go line by line to name the exact line.
        return [
            _parse_line(path, first + offset, raw, cls, unknowns)
            for offset, raw in enumerate(lines)
        ]


def _parse_line(path: Path, number: int, raw: bytes, cls: type[T], unknowns: _Unknowns) -> T:
    _, one = _adapters(cls)
    try:
        record: T = one.validate_json(raw)
    except ValidationError as exc:
        errors = exc.errors()
        counts: frozenset[str] = getattr(cls, "TOKEN_FIELDS", frozenset())
        faults = [e for e in errors if not (e["loc"] and e["loc"][0] in counts)]
        if not faults:
            with contextlib.suppress(ValidationError):
                return _with_unknowns(number, raw, cls, errors, unknowns)
        error = (faults or errors)[0]
        if error["type"] == "json_invalid":
            problem = f"kein gültiges JSON{_json_reason(str(error['msg']))}"
        elif error["type"] in ("dataclass_type", "model_type", "dict_type"):
            problem = "erwartet ein JSON-Objekt"
        else:
            problem = f"fehlerhafter Datensatz: {german_problem(dict(error))}"
        raise InputError(f"{path}, Zeile {number}: {problem}.") from exc
    return record


def parse_jsonl_line(path: Path, number: int, raw: bytes, cls: type[T]) -> T:
    """One line of ``path`` (line ``number``) as ``cls``, or an ``InputError`` naming file and
    line, as ``iter_jsonl`` reads each: for a reader that picks its lines."""
    return _parse_line(path, number, raw, cls, _Unknowns())


# The JSON parser's reasons (serde_json's, through pydantic-core) in German. The end of a
# line is where its newline sits, so a line cut short is told without a column.
_JSON_REASONS = (
    ("EOF while parsing a value", "die Zeile endet, bevor ein Wert kommt"),
    ("EOF while parsing", "die Zeile endet mitten im Objekt"),
    ("expected value", "Wert erwartet"),
    ("expected ident", "Wert erwartet"),
    ("trailing characters", "überzählige Zeichen nach dem Objekt"),
    ("key must be a string", "Schlüssel in doppelten Anführungszeichen erwartet"),
    ("expected `,` or", "Komma oder schließende Klammer erwartet"),
    ("expected `:`", "Doppelpunkt erwartet"),
    ("trailing comma", "Komma vor der schließenden Klammer"),
    ("invalid number", "ungültige Zahl"),
    ("number out of range", "Zahl außerhalb des Wertebereichs"),
    ("invalid escape", "ungültige Escape-Sequenz"),
    ("invalid unicode code point", "ungültiges Unicode-Zeichen"),
    ("control character", "Steuerzeichen in einem Text"),
    ("recursion limit exceeded", "zu tief verschachtelt"),
)
_JSON_WHERE = re.compile(r"(?:Invalid JSON: )?(?P<what>.*?) at line \d+ column (?P<column>\d+)$")


def _json_reason(message: str) -> str:
    """`` (Spalte 9: Komma oder schließende Klammer erwartet)`` for the parser's ``message``
    (English, with a position); what it does not know keeps only the column."""
    found = _JSON_WHERE.match(message)
    what, column = (found["what"], found["column"]) if found else (message, "")
    reason = next((german for start, german in _JSON_REASONS if what.startswith(start)), "")
    if what.startswith("EOF"):
        return f" ({reason})"
    where = f"Spalte {column}" if column else ""
    return f" ({': '.join(part for part in (where, reason) if part)})" if where or reason else ""


def _with_unknowns(
    number: int, raw: bytes, cls: type[T], errors: Sequence[Mapping[str, Any]], unknowns: _Unknowns
) -> T:
    """The record of a line whose only faults are token counts, those counts None."""
    data = _OBJECT.validate_json(raw)  # parsed once already, by the same parser
    for error in errors:
        key = str(error["loc"][0])
        if not unknowns.count:
            got = repr(error["input"])
            got = got if len(got) <= 40 else got[:40] + "…"
            unknowns.first = f"Zeile {number}: „{key}“ ist {got}"
        unknowns.count += 1
        data[key] = None
    record: T = _adapters(cls)[1].validate_python(data)
    return record


class JsonlAppender:
    """Appends one JSON object per line, each written at once, so a kill loses at most one
    line; a write that fails (a full disk) is cut back off, so no half line stays."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        _repair_tail(path)
        self._handle: IO[bytes] = open_regular(path, "ab")

    def append(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        start = self._handle.seek(0, os.SEEK_END)
        try:
            written = 0
            while written < len(data):
                written += self._handle.write(data[written:]) or 0
        except OSError as exc:
            with contextlib.suppress(OSError):
                self._handle.truncate(start)
            raise OSError(exc.errno, exc.strerror, str(self.path)) from exc

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _repair_tail(path: Path) -> None:
    """Make the file end with a newline before appending to it.

    A last line without its newline is either a complete record (the process died between
    the record and its newline): it is kept and gets the newline; or a record cut short: it
    is cut off. Nothing complete is ever dropped. Only the file's tail is read.
    """
    try:
        handle = open_regular(path, "r+b")
    except FileNotFoundError:
        return
    with handle:
        end = handle.seek(0, os.SEEK_END)
        if end == 0:
            return
        handle.seek(end - 1)
        if handle.read(1) == b"\n":
            return
        start = end
        tail = b""
        while start > 0 and b"\n" not in tail:
            start = max(0, start - 65536)
            handle.seek(start)
            tail = handle.read(end - start)
        cut = tail.rfind(b"\n") + 1
        last = tail[cut:]
        try:
            complete = isinstance(jsontext.loads(last), dict)
        except ValueError:
            complete = False
        if complete:
            handle.seek(end)
            handle.write(b"\n")
        else:
            handle.truncate(start + cut)


def atomic_write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Atomically replace ``path``, streaming: 100k verdicts never sit in one string."""
    dumps = json.JSONEncoder(ensure_ascii=False).encode

    def write(handle: IO[str]) -> None:
        for record in records:
            handle.write(dumps(record) + "\n")

    atomic_write(path, write)
