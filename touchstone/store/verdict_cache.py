"""The verdict cache's file: one sqlite database shared by all run dirs (design.md §4).

The user-level file (default ``~/.cache/touchstone/verdicts.sqlite3``; ``TOUCHSTONE_CACHE_DIR``
or ``XDG_CACHE_HOME`` move it), in WAL mode, one row per key, each with its creation time.
It is a cache: a damaged or unwritable file costs a warning, never the run (``CacheFile``
gives up and answers nothing). What a row means, and whether one can be trusted, is the
judge's (``judge.cache``): this module reads and writes rows as they are.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from touchstone.errors import InputError

CACHE_FILE = "verdicts.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT PRIMARY KEY,
    score INTEGER NOT NULL,
    red_flag INTEGER NOT NULL,
    rationale TEXT NOT NULL,
    judge_model TEXT NOT NULL,
    created_at REAL NOT NULL
) WITHOUT ROWID
"""
_COLUMNS = ("key", "score", "red_flag", "rationale", "judge_model", "created_at")
_DAY_S = 86_400


class CacheSchemaError(sqlite3.DatabaseError):
    """The file is an sqlite database, but its ``verdicts`` table is not the cache's."""


def default_cache_dir() -> Path:
    explicit = os.environ.get("TOUCHSTONE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "touchstone"


def default_cache_path() -> Path:
    return default_cache_dir() / CACHE_FILE


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        # Checked before anything is written: a file that is not the cache stays as it is.
        columns = tuple(str(row[1]) for row in db.execute("PRAGMA table_info(verdicts)"))
        if columns and columns != _COLUMNS:
            raise CacheSchemaError(f"Tabelle verdicts hat die Spalten {', '.join(columns)}")
        db.execute("PRAGMA journal_mode=WAL")
        # WAL with synchronous=NORMAL: a commit costs no fsync; a crash may lose the last
        # entries of a cache, never corrupt it.
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(_SCHEMA)
    except BaseException:
        db.close()
        raise
    return db


@dataclass(frozen=True, slots=True)
class CacheRow:
    """A row as the file holds it, not checked: ``same_judge`` whether it names the judge
    asked for, ``fits`` whether its rationale is short enough to be read (else ``rationale``
    is None: a row too long to be valid is not read at all, memory stays bounded)."""

    score: object
    red_flag: object
    same_judge: bool
    fits: bool
    rationale: str | None


class CacheFile:
    """The sqlite file, or nothing once it failed: each failure is one warning in
    ``warnings`` (the caller's list: they stay in the order they came) and the file is
    left alone for the rest of the run."""

    def __init__(self, path: Path, warnings: list[str]) -> None:
        self.path = path
        self.warnings = warnings
        self._db: sqlite3.Connection | None = None
        try:
            self._db = _connect(path)
        except (sqlite3.Error, OSError) as exc:
            self._give_up(exc, "nicht nutzbar")

    @property
    def usable(self) -> bool:
        return self._db is not None

    def _give_up(self, exc: Exception, what: str) -> None:
        self.warnings.append(
            f"Bewertungs-Cache {self.path} {what} ({exc}); weiter ohne ihn. "
            f"{advice(exc, self.path)}"
        )
        if self._db is not None:
            self._db.close()
        self._db = None

    def row(self, key: str, judge_model: str, max_rationale_chars: int) -> CacheRow | None:
        """The row under ``key``; None without one (or once the file failed)."""
        if self._db is None:
            return None
        try:
            found = self._db.execute(
                "SELECT score, red_flag, judge_model IS ?, length(rationale) <= ?, "
                "CASE WHEN length(rationale) <= ? THEN rationale END "
                "FROM verdicts WHERE key = ?",
                (judge_model, max_rationale_chars, max_rationale_chars, key),
            ).fetchone()
        except sqlite3.Error as exc:
            self._give_up(exc, "nicht lesbar")
            return None
        if found is None:
            return None
        score, flag, same_judge, fits, rationale = found
        return CacheRow(score, flag, bool(same_judge), bool(fits), rationale)

    def created_at(self, key: str) -> float | None:
        """When the row under ``key`` was written, if the file says so usably."""
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT created_at FROM verdicts WHERE key = ?", (key,))
            return _day_stamp(row.fetchone()[0])
        except (sqlite3.Error, TypeError):
            return None

    def holds_judge(self, judge_model: str) -> bool:
        """Whether the file holds any row of ``judge_model``."""
        if self._db is None:
            return False
        try:
            found = self._db.execute(
                "SELECT 1 FROM verdicts WHERE judge_model = ? LIMIT 1", (judge_model,)
            ).fetchone()
        except sqlite3.Error:
            return False
        return found is not None

    def put(
        self, key: str, score: int | float, red_flag: bool, rationale: str, judge_model: str
    ) -> None:
        if self._db is None:
            return
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?)",
                (key, score, int(red_flag), rationale, judge_model, time.time()),
            )
        except sqlite3.Error as exc:
            self._give_up(exc, "nicht schreibbar")

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def advice(exc: Exception, path: Path | None) -> str:
    """What to do about ``exc`` from the cache file at ``path`` (German)."""
    text = str(exc)
    damaged = isinstance(exc, sqlite3.DatabaseError) and (
        not isinstance(exc, sqlite3.OperationalError)
        or text.startswith(("no such table", "no such column"))
    )
    if damaged:
        return (
            f"Die Datei ist beschädigt oder kein Bewertungs-Cache: löschen Sie {path} "
            "(touchstone legt sie neu an; nur die gecachten Bewertungen gehen verloren)."
        )
    if "locked" in text or "busy" in text:
        return "Ein anderer Prozess hält sie gerade gesperrt: später noch einmal versuchen."
    return f"Prüfen Sie Rechte und freien Platz für {path}."


def _unusable(path: Path, exc: Exception) -> InputError:
    return InputError(f"Bewertungs-Cache {path} nicht nutzbar ({exc}). {advice(exc, path)}")


@dataclass(frozen=True)
class CacheStats:
    path: Path
    entries: int
    size_bytes: int
    oldest: float | None
    newest: float | None
    by_judge: list[tuple[str, int]]


def cache_stats(path: Path) -> CacheStats:
    """What the user-level cache holds; an ``InputError`` saying what to do if it cannot."""
    try:
        if not path.exists():
            return CacheStats(path, 0, 0, None, None, [])
        with contextlib.closing(_connect(path)) as db:
            entries, oldest, newest = db.execute(
                "SELECT count(*), min(created_at), max(created_at) FROM verdicts"
            ).fetchone()
            by_judge = db.execute(
                "SELECT judge_model, count(*) FROM verdicts GROUP BY judge_model ORDER BY 2 DESC"
            ).fetchall()
            size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())
            return CacheStats(
                path,
                int(entries),
                size,
                _day_stamp(oldest),
                _day_stamp(newest),
                [(str(j), int(n)) for j, n in by_judge],
            )
    except (sqlite3.Error, OSError) as exc:
        raise _unusable(path, exc) from exc


def _day_stamp(value: object) -> float | None:
    """A creation time as stored, if it is a usable one (rows are not trusted)."""
    if isinstance(value, int | float) and 0 <= value < 1e11:
        return float(value)
    return None


def clear_cache(path: Path, *, older_than_days: float | None = None) -> int:
    """Delete entries (those older than ``older_than_days``, or all); returns how many.

    An ``InputError`` saying what to do if the file cannot be used.
    """
    try:
        if not path.exists():
            return 0
        with contextlib.closing(_connect(path)) as db:
            if older_than_days is None:
                deleted = db.execute("DELETE FROM verdicts").rowcount
            else:
                cutoff = time.time() - older_than_days * _DAY_S
                deleted = db.execute(
                    "DELETE FROM verdicts WHERE created_at < ?", (cutoff,)
                ).rowcount
            db.execute("VACUUM")
        return int(deleted)
    except (sqlite3.Error, OSError) as exc:
        raise _unusable(path, exc) from exc
