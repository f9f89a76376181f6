"""The run directory (design.md §4): manifest, answer and verdict streams, reports, the lock.

runs/<name>/run.json          manifest (never an API key)
runs/<name>/responses.jsonl   one EvalResponse per line, appended as answers land
runs/<name>/judgements.jsonl  one Verdict per line, appended, then rewritten clean
runs/<name>/reports.json      holistic ModelReports of the last judge run
runs/<name>/report.html       written by ``touchstone report``
runs/<name>/judge-state.json  a fully judged run at rest (see ``store/settled.py``)
runs/<name>/.lock             held by ``run`` and ``judge`` (``.lock.holder``: its PID)
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import filelock
from pydantic import TypeAdapter, ValidationError

from touchstone import jsontext
from touchstone.errors import InputError
from touchstone.german import cut
from touchstone.pack import Scale
from touchstone.regular import not_regular, open_regular, read_regular, read_regular_text
from touchstone.results import (
    EvalResponse,
    ModelReport,
    Verdict,
    VerdictKey,
    cell_key,
    is_aggregate,
)
from touchstone.store.files import atomic_write_text
from touchstone.store.jsonl import JsonlAppender, atomic_write_jsonl, bulk_allocation, iter_jsonl
from touchstone.store.manifest import MANIFEST, Manifest, load_manifest, write_manifest

_REPORTS = TypeAdapter(list[ModelReport])
RESPONSES = "responses.jsonl"
JUDGEMENTS = "judgements.jsonl"
REPORTS = "reports.json"
REPORT_HTML = "report.html"
SCORECARD_JSON = "scorecard.json"
VERDICTS_CSV = "verdicts.csv"
JUDGE_STATE = "judge-state.json"
LOCK = ".lock"
LOCK_HOLDER = ".lock.holder"


@dataclass(frozen=True)
class Judgements:
    """judgements.jsonl as read (never a judge_error line): what is stored, nothing derived.

    A jury's cell verdicts are not here: they are computed from ``member_lines`` one floor up
    (``jury.verdicts.run_cells``).
    """

    # A single judge's verdicts, one per cell (the last line of a cell wins).
    verdicts: list[Verdict]
    # A jury's members' lines (design.md §18), one per cell and member (the last line wins).
    member_lines: list[Verdict]
    # The file holds exactly these lines, one each, and read without a warning: a judge run
    # that adds nothing need not rewrite it.
    clean: bool


class RunDir:
    """One run directory. Collects reader warnings in ``warnings`` for the CLI to show."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.warnings: list[str] = []

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
        manifest = run.file(MANIFEST)
        if manifest.exists() and not manifest.is_file():
            raise not_regular(manifest, manifest.stat().st_mode)
        if not manifest.is_file():
            raise InputError(f"{run.path} ist kein touchstone-Run-Verzeichnis ({MANIFEST} fehlt).")
        return run

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the run dir exclusively (``run`` and ``judge``); a second holder is bad input.

        An OS file lock (``filelock``: flock on POSIX, msvcrt on Windows) is released by the
        kernel when its holder dies, even by kill -9, so a dead holder's lock is taken over.
        The holder's PID is written beside it, for the message a second process gets.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        lock = filelock.FileLock(str(self.path / LOCK), timeout=0)
        try:
            lock.acquire()
        except filelock.Timeout:
            try:
                holder = read_regular_text(self.path / LOCK_HOLDER).strip()
            except (OSError, UnicodeDecodeError, InputError):
                holder = ""
            raise InputError(
                f"{self.path} wird gerade von einem anderen touchstone-Prozess bearbeitet "
                f"(PID {holder or 'unbekannt'}). Warten Sie, bis er fertig ist, oder beenden "
                "Sie ihn."
            ) from None
        try:
            atomic_write_text(self.path / LOCK_HOLDER, str(os.getpid()))
            yield
        finally:
            lock.release()

    def remove_if_unanswered(self) -> bool:
        """Remove this run dir when it holds nothing but what ``run`` writes before its
        first answer (run.json, an empty responses.jsonl, the lock): for a run dir the command
        made itself and that got no answer (design.md §4). Anything else in it, or a single
        answer line, keeps it. True when it was removed."""
        answers = self.file(RESPONSES)
        if answers.exists() and (not answers.is_file() or answers.stat().st_size > 0):
            return False
        present = {path.name for path in self.path.iterdir()}
        if not present <= {MANIFEST, RESPONSES, LOCK, LOCK_HOLDER}:
            return False
        for name in present:
            self.file(name).unlink(missing_ok=True)
        self.path.rmdir()
        return True

    def read_manifest(self) -> Manifest:
        """The manifest, its types checked (a hand-edited file is bad input, named)."""
        return load_manifest(self.file(MANIFEST))

    def write_manifest(self, manifest: Manifest) -> None:
        write_manifest(self.file(MANIFEST), manifest)

    def _warn(self, message: str) -> None:
        self.warnings.append(message)

    def load_responses(self) -> list[EvalResponse]:
        """Persisted answers; of a cell recorded twice the first answer counts (warned)."""
        with bulk_allocation():
            responses = list(iter_jsonl(self.file(RESPONSES), EvalResponse, self._warn))
            if len(set(map(cell_key, responses))) == len(responses):
                return responses
        seen: set[VerdictKey] = set()
        first: list[EvalResponse] = []
        for number, resp in enumerate(responses, start=1):
            key = cell_key(resp)
            if key in seen:
                self._warn(
                    f"{self.file(RESPONSES)}, Zeile {number}: doppelte Zelle "
                    f"({cut(resp.model)}, {cut(resp.variant)}, {cut(resp.prompt_id)}, "
                    f"Wdh. {resp.repeat}); "
                    "die erste Antwort gilt, diese wird ignoriert."
                )
                continue
            seen.add(key)
            first.append(resp)
        return first

    def read_judgements(self) -> Judgements:
        """The persisted verdicts: a single judge's de-duplicated by cell key, a jury's
        members' lines by cell and member (the last line wins; see ``Judgements``)."""
        warnings_before = len(self.warnings)
        by_key: dict[VerdictKey, Verdict] = {}
        members: dict[tuple[VerdictKey, str, str], Verdict] = {}
        lines = 0
        with bulk_allocation():
            for verdict in iter_jsonl(self.file(JUDGEMENTS), Verdict, self._warn):
                lines += 1
                if verdict.judge_error:
                    continue
                if verdict.jury:
                    if verdict.judge_base_url:  # an aggregate is never a line: ignored
                        key = (cell_key(verdict), verdict.judge_model, verdict.judge_base_url)
                        members[key] = verdict
                    continue
                by_key[cell_key(verdict)] = verdict
        clean = lines == len(by_key) + len(members) and len(self.warnings) == warnings_before
        return Judgements(list(by_key.values()), list(members.values()), clean)

    def check_scores(self, verdicts: Iterable[Verdict], scale: Scale) -> None:
        """``InputError`` naming file, line and key when a scored verdict is off ``scale``
        (or, as a judge said it, not a whole number; a jury's cell may lie between two)."""
        for verdict in verdicts:
            if not verdict.scored:
                continue
            whole = isinstance(verdict.score, int) or is_aggregate(verdict)
            if whole and scale.min <= verdict.score <= scale.max:
                continue
            path = self.file(JUDGEMENTS)
            line = _last_line_of(path, cell_key(verdict))
            problem = (
                "liegt aber außerhalb der Skala" if whole else "keine ganze Zahl auf der Skala"
            )
            raise InputError(
                f"{path}, Zeile {line}: „score“ ist {verdict.score}, {problem} "
                f"{scale.min}–{scale.max} des Pakets (von Hand geändert?)."
            )

    def response_appender(self) -> JsonlAppender:
        return JsonlAppender(self.file(RESPONSES))

    def verdict_appender(self) -> JsonlAppender:
        return JsonlAppender(self.file(JUDGEMENTS))

    def rewrite_verdicts(
        self, verdicts: Iterable[Verdict], *, member_lines: Iterable[Verdict]
    ) -> None:
        """Atomically replace judgements.jsonl with a single judge's ``verdicts`` and a jury's
        ``member_lines``; judge_error verdicts are never written, nor a jury's line among
        ``verdicts`` (an aggregate, computed: a jury's cells are its members' lines)."""
        clean = (v.as_dict() for v in verdicts if not v.judge_error and not v.jury)
        members = (v.as_dict() for v in member_lines if not v.judge_error)
        atomic_write_jsonl(self.file(JUDGEMENTS), itertools.chain(clean, members))

    def write_reports(self, reports: Iterable[ModelReport]) -> None:
        text = json.dumps([r.as_dict() for r in reports], ensure_ascii=False, indent=2) + "\n"
        atomic_write_text(self.file(REPORTS), text)

    def load_reports(self) -> list[ModelReport]:
        """The holistic reports; a file that does not parse is derived data: it is ignored
        with a warning, and the next judge run writes it anew. One that cannot be read is
        the machine failing (``OSError``, a message naming the file), not a corrupt file."""
        path = self.file(REPORTS)
        try:
            data = read_regular(path)
        except FileNotFoundError:
            return []
        try:
            return _REPORTS.validate_json(data)
        except ValidationError as exc:
            problem = exc.errors()[0]["msg"]
            self._warn(
                f"{path} ist beschädigt ({problem}); die Gesamtbewertung wird beim nächsten "
                "Judge-Durchgang neu erstellt."
            )
            return []


def _last_line_of(path: Path, key: VerdictKey) -> int | str:
    """The number of the last line of ``path`` that holds the cell ``key`` ("?" if none)."""
    found: int | str = "?"
    with open_regular(path) as handle:
        for number, line in enumerate(handle, start=1):
            try:
                data = jsontext.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict) and tuple(
                data.get(name) for name in ("model", "variant", "prompt_id", "repeat")
            ) == tuple(key):
                found = number
    return found
