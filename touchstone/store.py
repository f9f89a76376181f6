"""The run directory (§4): manifest, append-only JSONL streams, atomic rewrites.

    runs/<name>/run.json          manifest (never an API key)
    runs/<name>/responses.jsonl   one EvalResponse per line, appended as answers land
    runs/<name>/judgements.jsonl  one Verdict per line, appended, then rewritten clean
    runs/<name>/reports.json      holistic ModelReports of the last judge run
    runs/<name>/report.html       written by ``touchstone report``

A process killed mid-write leaves at most one truncated last line: readers skip it with a
warning and the next append cuts it off first, so it never turns into a corrupt middle line.
"""

from __future__ import annotations

import fcntl
import gc
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from touchstone.errors import InputError
from touchstone.results import EvalResponse, ModelReport, Verdict, VerdictKey, cell_key
from touchstone.yamlfile import german_problem

T = TypeVar("T")

MANIFEST = "run.json"
RESPONSES = "responses.jsonl"
JUDGEMENTS = "judgements.jsonl"
REPORTS = "reports.json"
REPORT_HTML = "report.html"
LOCK = ".lock"


def _atomic_write(path: Path, write: Callable[[IO[str]], object]) -> None:
    """Let ``write`` fill a temp file, then rename it over ``path``: readers see the old or
    the new file, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    _atomic_write(path, lambda handle: handle.write(text))


# Lines validated per call on the fast path: one pydantic-core call on a joined chunk parses
# and builds the records in Rust, several times faster than line by line, and a chunk
# bounds the memory it needs.
_CHUNK_LINES = 2000
_ADAPTERS: dict[type, tuple[TypeAdapter[Any], TypeAdapter[Any]]] = {}


def _adapters(cls: type[T]) -> tuple[TypeAdapter[list[T]], TypeAdapter[T]]:
    if cls not in _ADAPTERS:
        _ADAPTERS[cls] = (TypeAdapter(list[cls]), TypeAdapter(cls))  # type: ignore[valid-type]
    return _ADAPTERS[cls]


def iter_jsonl(path: Path, cls: type[T], warn: Callable[[str], None]) -> Iterator[T]:
    """The records of ``path``; a truncated last line is skipped with a warning.

    Keys a record does not know are ignored (a newer version wrote them), missing fields with
    defaults are filled in (an older one did). Any other bad line is an ``InputError`` naming
    file and line number.
    """
    if not path.exists():
        return
    with path.open("rb") as handle:
        chunk: list[bytes] = []
        first = 1
        for raw in handle:
            chunk.append(raw)
            if len(chunk) >= _CHUNK_LINES:
                yield from _parse_chunk(path, first, chunk, cls)
                first += len(chunk)
                chunk = []
        if chunk and not chunk[-1].endswith(b"\n"):
            *chunk, tail = chunk
            yield from _parse_chunk(path, first, chunk, cls)
            number = first + len(chunk)
            try:
                yield _parse_line(path, number, tail, cls)
            except InputError:
                warn(
                    f"{path}: letzte Zeile {number} ist unvollständig (abgebrochener Prozess?) "
                    "und wird übersprungen."
                )
        elif chunk:
            yield from _parse_chunk(path, first, chunk, cls)


@contextmanager
def _bulk_allocation() -> Iterator[None]:
    """Pause the cyclic GC while loading: 100k records without cycles would otherwise
    trigger dozens of full collections, a third of the load time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _parse_chunk(path: Path, first: int, lines: list[bytes], cls: type[T]) -> list[T]:
    if not lines:
        return []
    many, _ = _adapters(cls)
    try:
        return many.validate_json(b"[" + b",".join(lines) + b"]")
    except ValidationError:
        # Something in this chunk is bad: go line by line to name the exact line.
        return [_parse_line(path, first + offset, raw, cls) for offset, raw in enumerate(lines)]


def _parse_line(path: Path, number: int, raw: bytes, cls: type[T]) -> T:
    _, one = _adapters(cls)
    try:
        record: T = one.validate_json(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        if error["type"] == "json_invalid":
            problem = f"kein gültiges JSON ({error['msg']})"
        elif error["type"] in ("dataclass_type", "model_type", "dict_type"):
            problem = "erwartet ein JSON-Objekt"
        else:
            problem = f"fehlerhafter Datensatz: {german_problem(dict(error))}"
        raise InputError(f"{path}, Zeile {number}: {problem}.") from exc
    return record


class JsonlAppender:
    """Appends one JSON object per line and flushes each, so a kill loses at most one line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        _cut_truncated_tail(path)
        self._handle: IO[str] = path.open("a", encoding="utf-8", newline="\n")

    def append(self, record: dict[str, Any]) -> None:
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _cut_truncated_tail(path: Path) -> None:
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as handle:
        handle.seek(-1, os.SEEK_END)
        if handle.read(1) == b"\n":
            return
        handle.seek(0)
        data = handle.read()
        handle.truncate(data.rfind(b"\n") + 1)


def atomic_write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Like ``atomic_write_text``, streaming: 100k verdicts never sit in one string."""
    dumps = json.JSONEncoder(ensure_ascii=False).encode

    def write(handle: IO[str]) -> None:
        for record in records:
            handle.write(dumps(record) + "\n")

    _atomic_write(path, write)


class RunDir:
    """One run directory. Collects reader warnings in ``warnings`` for the CLI to show."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.warnings: list[str] = []
        self.judgements_clean = False

    @property
    def name(self) -> str:
        return self.path.name

    def file(self, name: str) -> Path:
        return self.path / name

    @classmethod
    def existing(cls, path: str | Path) -> RunDir:
        """An existing run dir; anything else is an ``InputError``."""
        run = cls(path)
        if not run.path.is_dir():
            raise InputError(f"Run-Verzeichnis nicht gefunden: {run.path}")
        if not run.file(MANIFEST).is_file():
            raise InputError(f"{run.path} ist kein touchstone-Run-Verzeichnis ({MANIFEST} fehlt).")
        return run

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the run dir exclusively (``run`` and ``judge``); a second holder is bad input.

        ``flock`` is released by the kernel when the holder dies, even by kill -9, so a lock
        left by a dead process is simply taken over.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        handle = (self.path / LOCK).open("a+", encoding="utf-8")
        try:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.seek(0)
                holder = handle.read().strip() or "unbekannt"
                raise InputError(
                    f"{self.path} wird gerade von einem anderen touchstone-Prozess bearbeitet "
                    f"(PID {holder}). Warten Sie, bis er fertig ist, oder beenden Sie ihn."
                ) from None
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
            yield
        finally:
            handle.close()

    def read_manifest(self) -> dict[str, Any]:
        path = self.file(MANIFEST)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(f"{path} fehlt.") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{path}: kein gültiges JSON ({exc}).") from exc
        if not isinstance(data, dict):
            raise InputError(f"{path}: erwartet ein JSON-Objekt.")
        return data

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        text = json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"
        atomic_write_text(self.file(MANIFEST), text)

    def _warn(self, message: str) -> None:
        self.warnings.append(message)

    def load_responses(self) -> list[EvalResponse]:
        with _bulk_allocation():
            return list(iter_jsonl(self.file(RESPONSES), EvalResponse, self._warn))

    def load_verdicts(self) -> list[Verdict]:
        """Persisted verdicts, de-duplicated by cell key (the last line of a key wins).

        Sets ``judgements_clean``: the file holds exactly these verdicts, one line each, so
        a judge run that adds nothing need not rewrite it.
        """
        warnings_before = len(self.warnings)
        by_key: dict[VerdictKey, Verdict] = {}
        lines = 0
        with _bulk_allocation():
            for verdict in iter_jsonl(self.file(JUDGEMENTS), Verdict, self._warn):
                lines += 1
                if not verdict.judge_error:
                    by_key[cell_key(verdict)] = verdict
        self.judgements_clean = lines == len(by_key) and len(self.warnings) == warnings_before
        return list(by_key.values())

    def response_appender(self) -> JsonlAppender:
        return JsonlAppender(self.file(RESPONSES))

    def verdict_appender(self) -> JsonlAppender:
        return JsonlAppender(self.file(JUDGEMENTS))

    def rewrite_verdicts(self, verdicts: Iterable[Verdict]) -> None:
        """Atomically replace judgements.jsonl; judge_error verdicts are never written."""
        clean = (v.as_dict() for v in verdicts if not v.judge_error)
        atomic_write_jsonl(self.file(JUDGEMENTS), clean)

    def write_reports(self, reports: Iterable[ModelReport]) -> None:
        text = json.dumps([r.as_dict() for r in reports], ensure_ascii=False, indent=2) + "\n"
        atomic_write_text(self.file(REPORTS), text)

    def load_reports(self) -> list[ModelReport]:
        path = self.file(REPORTS)
        if not path.exists():
            return []
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return [ModelReport.from_dict(item) for item in data]
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, TypeError) as exc:
            raise InputError(f"{path}: ungültig ({exc}).") from exc
