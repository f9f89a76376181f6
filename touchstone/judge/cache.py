"""The verdict cache: identical judge work is paid for once.

Key: sha256 over the judge model, the template version and the complete rendered judge
prompt (system and user). The rendered prompt already holds everything a verdict depends on:
the pack's judge instructions, the prompt, its expectations and red flags, the scale, the
variant's system prompt and the answer. Changing any of them, or the template, is a miss.

Only scored verdicts are cached: a judge error or an unparseable reply is never reused, so a
later run tries again. The user-level cache is one JSONL file (default
``~/.cache/touchstone/verdicts.jsonl``, ``TOUCHSTONE_CACHE_DIR`` or ``XDG_CACHE_HOME`` move
it) shared by all run dirs; it is a cache, so a damaged line is skipped with a warning.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

# Bump when the judge prompt changes meaning without changing its text (e.g. parsing rules).
JUDGE_TEMPLATE_VERSION = "1"
CACHE_FILE = "verdicts.jsonl"


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


@dataclass(frozen=True)
class CachedVerdict:
    score: int
    red_flag: bool
    rationale: str
    judge_model: str


class VerdictCache:
    """In memory, optionally backed by an append-only file. Thread-safe.

    ``lookups=False`` makes a cache that stores new verdicts but answers no lookup: what
    ``--rejudge`` needs, which asks for fresh verdicts.
    """

    def __init__(self, path: Path | None = None, *, lookups: bool = True) -> None:
        self.path = path
        self.lookups = lookups
        self.warnings: list[str] = []
        self._entries: dict[str, CachedVerdict] = {}
        self._lock = threading.Lock()
        self._handle: IO[str] | None = None
        if path is not None and lookups:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            with path.open(encoding="utf-8") as handle:
                for number, line in enumerate(handle, start=1):
                    try:
                        data = json.loads(line)
                        self._entries[data["key"]] = CachedVerdict(
                            int(data["score"]),
                            bool(data["red_flag"]),
                            str(data["rationale"]),
                            str(data["judge_model"]),
                        )
                    except (ValueError, KeyError, TypeError):
                        self.warnings.append(
                            f"{path}, Zeile {number}: beschädigter Cache-Eintrag übersprungen."
                        )
        except FileNotFoundError:
            return
        except OSError as exc:
            self.warnings.append(f"Verdict-Cache {path} nicht lesbar ({exc}); ohne Cache weiter.")
            self.path = None

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> CachedVerdict | None:
        if not self.lookups:
            return None
        with self._lock:
            return self._entries.get(key)

    def remember(self, key: str, entry: CachedVerdict) -> None:
        """Keep ``entry`` in memory only (e.g. verdicts already in this run dir)."""
        with self._lock:
            self._entries.setdefault(key, entry)

    def put(self, key: str, entry: CachedVerdict) -> None:
        with self._lock:
            if self._entries.get(key) == entry:
                return
            self._entries[key] = entry
            if self.path is None:
                return
            try:
                if self._handle is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self._handle = self.path.open("a", encoding="utf-8")
                record: dict[str, Any] = {"key": key, **entry.__dict__}
                self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                self._handle.flush()
            except OSError as exc:
                self.warnings.append(f"Verdict-Cache {self.path} nicht schreibbar ({exc}).")
                self.path = None

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None
