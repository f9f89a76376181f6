"""The verdict cache: identical judge work is paid for once, and only by the same judge.

Key: sha256 over the template version, the judge's identity (model, endpoint, temperature,
max_tokens, extra_body: ``backend.judge_identity``) and the complete rendered judge prompt
(system and user). The rendered prompt holds everything a verdict depends on: the pack's
judge instructions, the prompt, its expectations and red flags, the scale, the variant's
system prompt and the answer. Changing any of them, or the judge, is a miss.

Only scored verdicts are cached: a judge error or an unparseable reply is never reused, so a
later run tries again. The user-level cache is one sqlite file shared by all run dirs
(``store.verdict_cache``: its place, its rows, a damaged or unwritable file costs a warning,
never the run).

Its rows are not trusted (another version, a hand edit, a damaged file): each one is checked
like a judge reply (``replies.checked_verdict``: the pack's scale, the types, the rationale's
length) and must name the judge its key covers. A bad row is a miss, the cell is judged again
(which overwrites the row), and the run gets one warning that counts them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from touchstone.judge.plan import Rejudge
from touchstone.judge.replies import MAX_RATIONALE_CHARS, checked_verdict
from touchstone.judge.rubric import JUDGE_TEMPLATE_VERSION
from touchstone.pack import Scale
from touchstone.results import Verdict
from touchstone.store.verdict_cache import CacheFile, default_cache_path

# The stored red flag is 0 or 1; anything else stays as it is and fails the check.
_FLAGS = {0: False, 1: True}


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


@dataclass(frozen=True, slots=True)
class CachedVerdict:
    score: int | float  # an integer from a judge; typed as Verdict.score
    red_flag: bool
    rationale: str
    judge_model: str


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
        self._file = None if path is None else CacheFile(path, self.warnings)

    def get(self, key: str, scale: Scale, judge_model: str) -> CachedVerdict | None:
        """The verdict cached under ``key``, if it is one ``judge_model`` can give on ``scale``."""
        if not self.lookups:
            return None
        hit = self._memory.get(key)
        if hit is not None or self._file is None or key in self._bad_keys:
            return hit
        row = self._file.row(key, judge_model, MAX_RATIONALE_CHARS)
        if row is None:
            return None
        checked = None
        if row.same_judge and row.fits:
            flag = row.red_flag
            red_flag = _FLAGS.get(flag, flag) if type(flag) is int else flag
            reply = {"score": row.score, "red_flag": red_flag, "rationale": row.rationale}
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
        if self._file is None or not self._file.usable or not self.lookups or key in self._memory:
            return None
        entry = self.get(key, scale, judge_model)
        if entry is None:
            return None
        created = self._file.created_at(key)
        return None if created is None else (entry, created)

    def holds_judge(self, judge_model: str) -> bool:
        """Whether the user-level store holds any verdict of ``judge_model``."""
        if self._file is None or not self.lookups:
            return False
        return self._file.holds_judge(judge_model)

    def remember(self, key: str, entry: CachedVerdict) -> None:
        """Keep ``entry`` in memory only (e.g. verdicts already in this run dir)."""
        self._memory.setdefault(key, entry)

    def put(self, key: str, entry: CachedVerdict) -> None:
        if self._memory.get(key) == entry:
            return
        self._memory[key] = entry
        if self._file is not None:
            self._file.put(key, entry.score, entry.red_flag, entry.rationale, entry.judge_model)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        if self._bad_keys:
            self.warnings.append(
                f"Bewertungs-Cache {self.path}: {len(self._bad_keys)} Einträge ungültig (Wert "
                "außerhalb der Skala, falscher Typ, zu lang oder anderer Judge); sie zählen "
                "als nicht gecacht, ihre Zellen werden neu bewertet."
            )
            self._bad_keys.clear()


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
