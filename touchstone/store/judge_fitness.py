"""Judge fitness as stored (design.md §14): the last judge-check's verdict per judge identity.

- In the user cache dir, under the key of the probe verdicts of the same identity
  (``quality/drift.py``'s ``judge-probes/<digest>.json``): ``<cache dir>/judge-fitness/
  <digest>.json`` = ``{"format": 1, "judge_model",
  "verdict": "geeignet" | "ungeeignet", "checked_at": ISO time, "missed": [criterion ids]}``,
  written by every judge-check that judged the judge (one that could not, say of a misspelt
  model, leaves the last verdict standing).
- In the run dir, ``judge-fitness.json`` = ``{"format": 1, "judges": [{"judge_model",
  "base_url" (without credentials), "identity" (the digest), "config" (the path the judge run
  was given, "" when none), "verdict", "checked_at", "missed"}]}``: the judge of the last
  judge run (a jury: each member) with what was known of it then, so that report and GUI on
  another machine still show it. Not one of the input files a settled state stamps.

Neither file is trusted (another version, a hand edit): what does not read as expected is
ignored with a note, as the probe file is; an unwritable cache dir costs a note.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from touchstone.jsontext import loads
from touchstone.regular import read_regular
from touchstone.store.files import atomic_write_text, save_json_noting
from touchstone.store.rundir import RunDir
from touchstone.store.verdict_cache import default_cache_dir

FITNESS_DIR = "judge-fitness"
RUN_FITNESS = "judge-fitness.json"
FORMAT = 1
VERDICTS = ("geeignet", "ungeeignet")
MAX_FILE_BYTES = 200_000
MAX_MISSED = 30
MAX_JUDGES = 50


@dataclass(frozen=True)
class JudgeFitness:
    """What the last judge-check found of a judge; ``verdict`` None: never checked."""

    verdict: str | None
    checked_at: str | None
    missed: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """``scorecard.json``'s ``judge_fitness`` (design.md §26)."""
        return {"verdict": self.verdict, "checked_at": self.checked_at, "missed": list(self.missed)}

    @property
    def unfit(self) -> bool:
        return self.verdict == "ungeeignet"


UNCHECKED = JudgeFitness(None, None)


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _fitness(raw: object) -> JudgeFitness | None:
    """A stored verdict, or None when it does not read as one."""
    if not isinstance(raw, dict):
        return None
    verdict, at, missed = raw.get("verdict"), raw.get("checked_at"), raw.get("missed")
    if verdict is None and at is None:
        return UNCHECKED
    if verdict not in VERDICTS or not isinstance(at, str) or not isinstance(missed, list):
        return None
    try:
        dt.datetime.fromisoformat(at)
    except ValueError:
        return None
    if len(missed) > MAX_MISSED or not all(isinstance(m, str) and len(m) <= 100 for m in missed):
        return None
    return JudgeFitness(str(verdict), at, tuple(missed))


def identity_digest(identity: str) -> str:
    """The key a judge identity is stored under (probes and fitness alike)."""
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:32]


def user_fitness_file(digest: str, cache_dir: Path | None = None) -> Path:
    return (cache_dir or default_cache_dir()) / FITNESS_DIR / f"{digest}.json"


def _read_json(path: Path, what: str, notes: list[str]) -> dict[str, Any] | None:
    try:
        data = loads(read_regular(path, limit=MAX_FILE_BYTES + 1))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        notes.append(f"{what} {path} unlesbar ({type(exc).__name__}); ignoriert.")
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        notes.append(f"{what} {path} in anderem Format; ignoriert.")
        return None
    return data


def read_user_fitness(
    digest: str, notes: list[str], cache_dir: Path | None = None
) -> JudgeFitness | None:
    """The last judge-check's verdict on the judge ``digest`` names; None: none stored."""
    path = user_fitness_file(digest, cache_dir)
    data = _read_json(path, "Gespeicherter Judge-Check", notes)
    if data is None:
        return None
    found = _fitness(data)
    if found is None or found.verdict is None:
        notes.append(f"Gespeicherter Judge-Check {path} unlesbar; ignoriert.")
        return None
    return found


def save_user_fitness(
    digest: str,
    judge_model: str,
    fitness: JudgeFitness,
    notes: list[str],
    cache_dir: Path | None = None,
) -> None:
    path = user_fitness_file(digest, cache_dir)
    data = {"format": FORMAT, "judge_model": judge_model, **fitness.as_dict()}
    then = "ein Judge-Durchgang mit diesem Judge weiß nichts von diesem Check."
    save_json_noting(path, data, notes, "Urteil", then)


@dataclass(frozen=True)
class JudgedBy:
    """A judge of a run's verdicts as the run dir records it, with its fitness then."""

    judge_model: str
    base_url: str
    identity: str
    fitness: JudgeFitness
    config: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge_model": self.judge_model,
            "base_url": self.base_url,
            "identity": self.identity,
            "config": self.config,
            **self.fitness.as_dict(),
        }


def _judged_by(raw: object) -> JudgedBy | None:
    if not isinstance(raw, dict):
        return None
    fitness = _fitness(raw)
    texts = [raw.get(key, "") for key in ("judge_model", "base_url", "identity", "config")]
    if fitness is None or not all(isinstance(t, str) and len(t) <= 2000 for t in texts):
        return None
    model, base_url, identity, config = (str(t) for t in texts)
    return JudgedBy(model, base_url, identity, fitness, config)


def read_run_fitness(run: RunDir, notes: list[str]) -> list[JudgedBy]:
    """The judges ``judge-fitness.json`` records ([] when none, or with a note when it does
    not read)."""
    path = run.file(RUN_FITNESS)
    data = _read_json(path, "Judge-Check-Eintrag", notes)
    if data is None:
        return []
    judges = data.get("judges")
    found = (
        [j for raw in judges[:MAX_JUDGES] if (j := _judged_by(raw))]
        if isinstance(judges, list)
        else []
    )
    if not isinstance(judges, list) or len(found) != len(judges):
        notes.append(f"{path} teils unlesbar; die lesbaren Einträge zählen.")
    return found


def write_run_fitness(run: RunDir, judges: Sequence[JudgedBy]) -> None:
    """``judge-fitness.json`` of ``judges`` (none: the file stays as it is)."""
    if not judges:
        return
    data = {"format": FORMAT, "judges": [judge.as_dict() for judge in judges]}
    atomic_write_text(run.file(RUN_FITNESS), json.dumps(data, ensure_ascii=False, indent=1) + "\n")
