"""The verdict cache: identical judge work is paid for once, and only by the same judge.

Key: sha256 over the template version, the judge's identity (model, endpoint, temperature,
max_tokens, extra_body: ``backend.judge_identity``) and the complete rendered judge prompt
(system and user). The rendered prompt holds everything a verdict depends on: the pack's
judge instructions, the prompt, its expectations and red flags, the scale, the variant's
system prompt and the answer. Changing any of them, or the judge, is a miss.

Only scored verdicts are cached: a judge error or an unparseable reply is never reused, so a
later run tries again. The user-level cache is one sqlite file (default
``~/.cache/touchstone/verdicts.sqlite3``; ``TOUCHSTONE_CACHE_DIR`` or ``XDG_CACHE_HOME`` move
it) shared by all run dirs, in WAL mode, looked up by key, each entry with its creation time.
It is a cache: a damaged or unwritable file costs a warning, never the run.

Its rows are not trusted (another version, a hand edit, a damaged file): each one is checked
like a judge reply (``replies.checked_verdict``: the pack's scale, the types, the rationale's
length) and must name the judge its key covers. A bad row is a miss, the cell is judged again
(which overwrites the row), and the run gets one warning that counts them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from touchstone.errors import InputError
from touchstone.judge.plan import Rejudge
from touchstone.judge.replies import MAX_RATIONALE_CHARS, checked_verdict
from touchstone.judge.rubric import JUDGE_TEMPLATE_VERSION
from touchstone.pack import Scale
from touchstone.results import Verdict

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
# The stored red flag is 0 or 1; anything else stays as it is and fails the check.
_FLAGS = {0: False, 1: True}


class CacheSchemaError(sqlite3.DatabaseError):
    """The file is an sqlite database, but its ``verdicts`` table is not the cache's."""


def cache_key(judge_identity: str, system: str, user: str) -> str:
    return finish_key(key_start(judge_identity, system), user)


def key_start(judge_identity: str, system: str, user_head: str = "") -> hashlib._Hash:
    """The key's hash up to ``user_head``, the start of the user prompt: what the cells of
    one (prompt, variant) share, hashed once for all of them (``finish_key``)."""
    digest = hashlib.sha256()
    for part in (JUDGE_TEMPLATE_VERSION, judge_identity, system):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    digest.update(user_head.encode("utf-8"))
    return digest


def finish_key(start: hashlib._Hash, user_rest: str) -> str:
    """The key of the user prompt that ``start`` began and ``user_rest`` ends (SHA-256 reads
    its input as one stream: the same key as hashing the whole prompt at once)."""
    digest = start.copy()
    digest.update(user_rest.encode("utf-8"))
    digest.update(b"\x00")
    return digest.hexdigest()


def default_cache_dir() -> Path:
    explicit = os.environ.get("TOUCHSTONE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "touchstone"


def default_cache_path() -> Path:
    return default_cache_dir() / CACHE_FILE


@dataclass(frozen=True, slots=True)
class CachedVerdict:
    score: int | float  # an integer from a judge; typed as Verdict.score
    red_flag: bool
    rationale: str
    judge_model: str


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


class VerdictCache:
    """Verdicts in memory (this run) and, with a ``path``, in the user-level sqlite store.

    ``lookups=False`` makes a cache that stores new verdicts but answers no lookup: what
    ``--rejudge`` needs, which asks for fresh verdicts. Used from one thread (the engine's
    loop).
    """

    def __init__(self, path: Path | None = None, *, lookups: bool = True) -> None:
        self.path = path
        self.lookups = lookups
        self.warnings: list[str] = []
        # Rows that failed the check: one warning at ``close``, not one per row.
        self._bad_keys: set[str] = set()
        self._memory: dict[str, CachedVerdict] = {}
        self._db: sqlite3.Connection | None = None
        if path is not None:
            try:
                self._db = _connect(path)
            except (sqlite3.Error, OSError) as exc:
                self._give_up(exc, "nicht nutzbar")

    def _give_up(self, exc: Exception, what: str) -> None:
        self.warnings.append(
            f"Verdict-Cache {self.path} {what} ({exc}); weiter ohne ihn. {advice(exc, self.path)}"
        )
        if self._db is not None:
            self._db.close()
        self._db = None

    def get(self, key: str, scale: Scale, judge_model: str) -> CachedVerdict | None:
        """The verdict cached under ``key``, if it is one ``judge_model`` can give on ``scale``."""
        if not self.lookups:
            return None
        hit = self._memory.get(key)
        if hit is not None or self._db is None or key in self._bad_keys:
            return hit
        try:
            # A rationale too long to be valid is not read at all: memory stays bounded.
            row = self._db.execute(
                "SELECT score, red_flag, judge_model IS ?, length(rationale) <= ?, "
                "CASE WHEN length(rationale) <= ? THEN rationale END "
                "FROM verdicts WHERE key = ?",
                (judge_model, MAX_RATIONALE_CHARS, MAX_RATIONALE_CHARS, key),
            ).fetchone()
        except sqlite3.Error as exc:
            self._give_up(exc, "nicht lesbar")
            return None
        if row is None:
            return None
        score, flag, same_judge, fits, rationale = row
        checked = None
        if same_judge and fits:
            red_flag = _FLAGS.get(flag, flag) if type(flag) is int else flag
            reply = {"score": score, "red_flag": red_flag, "rationale": rationale}
            checked = checked_verdict(reply, scale)
        if checked is None:
            self._bad_keys.add(key)
            return None
        return CachedVerdict(*checked, judge_model)

    def stored(
        self, key: str, scale: Scale, judge_model: str
    ) -> tuple[CachedVerdict, float] | None:
        """The verdict the user-level store holds under ``key`` (not this run's memory) with
        its creation time: what a drift check asks the judge again (``quality.drift``)."""
        if self._db is None or not self.lookups or key in self._memory:
            return None
        entry = self.get(key, scale, judge_model)
        if entry is None:
            return None
        try:
            row = self._db.execute("SELECT created_at FROM verdicts WHERE key = ?", (key,))
            created = _day_stamp(row.fetchone()[0])
        except (sqlite3.Error, TypeError):
            return None
        return None if created is None else (entry, created)

    def holds_judge(self, judge_model: str) -> bool:
        """Whether the user-level store holds any verdict of ``judge_model``."""
        if self._db is None or not self.lookups:
            return False
        try:
            found = self._db.execute(
                "SELECT 1 FROM verdicts WHERE judge_model = ? LIMIT 1", (judge_model,)
            ).fetchone()
        except sqlite3.Error:
            return False
        return found is not None

    def remember(self, key: str, entry: CachedVerdict) -> None:
        """Keep ``entry`` in memory only (e.g. verdicts already in this run dir)."""
        self._memory.setdefault(key, entry)

    def put(self, key: str, entry: CachedVerdict) -> None:
        if self._memory.get(key) == entry:
            return
        self._memory[key] = entry
        if self._db is None:
            return
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    entry.score,
                    int(entry.red_flag),
                    entry.rationale,
                    entry.judge_model,
                    time.time(),
                ),
            )
        except sqlite3.Error as exc:
            self._give_up(exc, "nicht schreibbar")

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._bad_keys:
            self.warnings.append(
                f"Verdict-Cache {self.path}: {len(self._bad_keys)} Einträge ungültig (Wert "
                "außerhalb der Skala, falscher Typ, zu lang oder anderer Judge); sie zählen "
                "als nicht gecacht, ihre Zellen werden neu bewertet."
            )
            self._bad_keys.clear()


def advice(exc: Exception, path: Path | None) -> str:
    """What to do about ``exc`` from the cache file at ``path`` (German)."""
    text = str(exc)
    damaged = isinstance(exc, sqlite3.DatabaseError) and (
        not isinstance(exc, sqlite3.OperationalError)
        or text.startswith(("no such table", "no such column"))
    )
    if damaged:
        return (
            f"Die Datei ist beschädigt oder kein Verdict-Cache: löschen Sie {path} "
            "(touchstone legt sie neu an; nur die gecachten Bewertungen gehen verloren)."
        )
    if "locked" in text or "busy" in text:
        return "Ein anderer Prozess hält sie gerade gesperrt: später noch einmal versuchen."
    return f"Prüfen Sie Rechte und freien Platz für {path}."


def _unusable(path: Path, exc: Exception) -> InputError:
    return InputError(f"Verdict-Cache {path} nicht nutzbar ({exc}). {advice(exc, path)}")


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


def open_cache(*, use_cache: bool, rejudge: Rejudge, prior: Sequence[Verdict]) -> VerdictCache:
    """The verdict cache for one judge run.

    ``--rejudge`` asks for fresh verdicts, so nothing is looked up (new ones are still stored
    for later runs); ``--no-cache`` keeps to this run: identical cells still share a call.
    """
    path = default_cache_path() if use_cache else None
    if rejudge != "none":
        return VerdictCache(path, lookups=False)
    cache = VerdictCache(path)
    for verdict in prior:
        if verdict.cache_key and not verdict.unscored:
            entry = CachedVerdict(
                verdict.score, verdict.red_flag, verdict.rationale, verdict.judge_model
            )
            cache.remember(verdict.cache_key, entry)
    return cache
