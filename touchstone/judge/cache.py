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
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from touchstone.judge.rubric import JUDGE_TEMPLATE_VERSION

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
_DAY_S = 86_400


def cache_key(judge_identity: str, system: str, user: str) -> str:
    digest = hashlib.sha256()
    for part in (JUDGE_TEMPLATE_VERSION, judge_identity, system, user):
        digest.update(part.encode("utf-8"))
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
    score: int
    red_flag: bool
    rationale: str
    judge_model: str


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    # WAL with synchronous=NORMAL: a commit costs no fsync; a crash may lose the last
    # entries of a cache, never corrupt it.
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(_SCHEMA)
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
        self._memory: dict[str, CachedVerdict] = {}
        self._db: sqlite3.Connection | None = None
        if path is not None:
            try:
                self._db = _connect(path)
            except (sqlite3.Error, OSError) as exc:
                self._give_up(exc, "nicht nutzbar")

    def _give_up(self, exc: Exception, what: str) -> None:
        self.warnings.append(f"Verdict-Cache {self.path} {what} ({exc}); weiter ohne ihn.")
        if self._db is not None:
            self._db.close()
        self._db = None

    def get(self, key: str) -> CachedVerdict | None:
        if not self.lookups:
            return None
        hit = self._memory.get(key)
        if hit is not None or self._db is None:
            return hit
        try:
            row = self._db.execute(
                "SELECT score, red_flag, rationale, judge_model FROM verdicts WHERE key = ?",
                (key,),
            ).fetchone()
        except sqlite3.Error as exc:
            self._give_up(exc, "nicht lesbar")
            return None
        if row is None:
            return None
        return CachedVerdict(int(row[0]), bool(row[1]), str(row[2]), str(row[3]))

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


@dataclass(frozen=True)
class CacheStats:
    path: Path
    entries: int
    size_bytes: int
    oldest: float | None
    newest: float | None
    by_judge: list[tuple[str, int]]


def cache_stats(path: Path) -> CacheStats:
    """What the user-level cache holds; ``sqlite3.Error``/``OSError`` when it cannot be read."""
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
        path, int(entries), size, oldest, newest, [(str(j), int(n)) for j, n in by_judge]
    )


def clear_cache(path: Path, *, older_than_days: float | None = None) -> int:
    """Delete entries (those older than ``older_than_days``, or all); returns how many."""
    if not path.exists():
        return 0
    with contextlib.closing(_connect(path)) as db:
        if older_than_days is None:
            deleted = db.execute("DELETE FROM verdicts").rowcount
        else:
            cutoff = time.time() - older_than_days * _DAY_S
            deleted = db.execute("DELETE FROM verdicts WHERE created_at < ?", (cutoff,)).rowcount
        db.execute("VACUUM")
    return int(deleted)
