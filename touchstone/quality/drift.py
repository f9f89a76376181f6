"""Drift: the judge behind a name answers differently than it did (design.md §17).

The verdict cache's key covers the judge's identity (model name, endpoint, settings), not its
weights: a server that now serves new weights, another quantisation or a changed template
behind the same name gets the old verdicts from the cache. Two checks notice it:

- ``judge-check`` stores its probe verdicts per judge identity in the user cache dir
  (``<cache dir>/judge-probes/<hash of the identity>.json``; ``TOUCHSTONE_CACHE_DIR`` and
  ``XDG_CACHE_HOME`` move it, as they move the verdict cache). The next check of the same
  identity compares its probes with the stored ones: a probe differs when its score differs
  beyond the repeat tolerance of the check (``fitness.REPEAT_TOLERANCE``) or its red flag
  does.
- A judge run that will serve verdicts from the user-level cache first asks the judge again,
  without the cache, for up to ``RECHECK_CELLS`` cells the cache holds (distinct judge
  prompts, taken evenly from the cells to judge); a cell differs when its new score is at
  least ``off_by`` points from the cached one (2 points; on wide scales a fifth of the scale).
  These calls go through a session with the run's judge, guard settings, health and budget
  (``stages/judge/drift.py``, before the run dir is opened): the same deadline, breaker and cap as
  every judge call. Their verdicts are not kept: the run stays as the cache has it.

Either way, ``MIN_DIFFERING`` differing verdicts are drift: one can be the noise of a
judge at temperature 0 on a busy server, two out of three are not. The judge config's
``on_drift`` says what a judge run does then: ``warn`` (the default) goes on and says so,
``stop`` ends it before anything is judged (exit 1, nothing written).

The stored probe file is not trusted (another version, a hand edit): what does not read as
expected is ignored with a note, and the check writes it anew. An unwritable cache dir costs
a note, never the check.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from touchstone import german, started
from touchstone.jsontext import loads
from touchstone.judge.cache import VerdictCache
from touchstone.judge.cells import CellTask
from touchstone.judge.frames import Frames
from touchstone.judge.passes import judge_cells
from touchstone.judge.session import JudgeSession
from touchstone.pack import Pack, Scale
from touchstone.quality.fitness import REPEAT_TOLERANCE, ProbeResult
from touchstone.regular import read_regular
from touchstone.results import EvalResponse
from touchstone.store.files import save_json_noting
from touchstone.store.judge_fitness import identity_digest
from touchstone.store.verdict_cache import default_cache_dir

PROBES_DIR = "judge-probes"
RECHECK_CELLS = 3
MIN_DIFFERING = 2
# Cells looked at for cached verdicts, evenly spread over those to judge: finding three must
# not cost rendering every judge prompt of a 100k run twice.
SCAN_CELLS = 2000
# Probe verdicts kept per judge identity (several packs' probes side by side).
MAX_STORED = 500
MAX_FILE_BYTES = 1_000_000
FORMAT = 1


def off_by(scale: Scale) -> int:
    """How far a re-asked cell's score must be from its cached one to count as different:
    2 points, on scales wider than 0..10 a fifth of the scale."""
    return max(2, math.ceil((scale.max - scale.min) / 5))


@dataclass(frozen=True)
class Drift:
    """A comparison of the judge now with its earlier verdicts."""

    what: Literal["cells", "probes"]
    compared: int
    # Each differing verdict, as the message names it ("R1 · m · none: 2 statt 5").
    differing: tuple[str, ...]
    # When the earlier verdicts were given (seconds since the epoch).
    since: float
    judge_model: str
    threshold: int = 1

    @property
    def drifted(self) -> bool:
        return len(self.differing) >= MIN_DIFFERING

    def message_de(self, *, stopped: bool = False, surface: str = "cli") -> str:
        """The finding in German; ``surface`` "gui" names the GUI's controls, not commands."""
        when = german.local_time(_stamp(self.since))
        if not self.drifted:
            same = self.compared - len(self.differing)
            things = "Proben" if self.what == "probes" else "erneut gefragte Zellen"
            return f"Der Judge antwortet wie am {when}: {same} von {self.compared} {things} gleich."
        named = "; ".join(self.differing[:3])
        if self.what == "cells":
            points = german.counted(self.threshold, "Punkt", "Punkte")
            found = (
                f"{len(self.differing)} von {self.compared} erneut gefragten Zellen weichen um "
                f"mindestens {points} von ihrer gecachten Bewertung ab ({named})"
            )
        else:
            found = (
                f"{len(self.differing)} von {self.compared} Proben anders bewertet als beim "
                f"Judge-Check damals ({named})"
            )
        action = (
            "Abgebrochen, bevor etwas bewertet wurde (on_drift: stop); nichts wurde geändert. "
            if stopped
            else ""
        )
        return (
            f"Der Judge antwortet anders als am {when}: {found}. Hinter dem Namen "
            f"„{self.judge_model}“ steckt vielleicht ein anderes Modell (neue Gewichte, andere "
            "Quantisierung oder Vorlage); Bewertungen aus dem Bewertungs-Cache stammen dann von "
            f"einem anderen Judge. {action}{_REMEDY[surface].format(touchstone=started.prefix())}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "compared": self.compared,
            "differing": list(self.differing),
            "since": _stamp(self.since),
            "drifted": self.drifted,
            "message": self.message_de(),
            "message_gui": self.message_de(surface="gui"),
        }


_REMEDY = {
    "cli": "`{touchstone} cache clear` verwirft den Cache, `{touchstone} judge --no-cache` "
    "bewertet ohne ihn.",
    "gui": "„Judge starten“ mit „Bewerten: alle neu“ fragt den Judge ohne Cache.",
}


def _stamp(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat(timespec="seconds")


# ---- judge-check: stored probe verdicts -------------------------------------------------


def probe_file(identity: str, cache_dir: Path | None = None) -> Path:
    # The same key as the check's verdict beside it (store/judge_fitness.py).
    return (cache_dir or default_cache_dir()) / PROBES_DIR / f"{identity_digest(identity)}.json"


@dataclass(frozen=True)
class StoredProbe:
    label: str
    score: float
    red_flag: bool
    checked_at: float


def load_probes(path: Path, notes: list[str]) -> dict[str, StoredProbe]:
    """The probe verdicts stored at ``path`` by key; {} when there are none or they do not
    read (with a note in ``notes``)."""
    try:
        data = loads(read_regular(path, limit=MAX_FILE_BYTES + 1))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        notes.append(f"Gespeicherte Proben {path} unlesbar ({type(exc).__name__}); neu angelegt.")
        return {}
    entries = data.get("probes") if isinstance(data, dict) else None
    if not isinstance(entries, dict) or data.get("format") != FORMAT:
        notes.append(f"Gespeicherte Proben {path} in anderem Format; neu angelegt.")
        return {}
    stored = {str(key): probe for key, entry in entries.items() if (probe := _stored(entry))}
    if len(stored) != len(entries):
        notes.append(f"Gespeicherte Proben {path} teils unlesbar; die lesbaren zählen.")
    return stored


def _stored(entry: object) -> StoredProbe | None:
    if not isinstance(entry, dict):
        return None
    label, score, flag, at = (entry.get(k) for k in ("label", "score", "red_flag", "checked_at"))
    if not isinstance(label, str) or type(score) is not int or type(flag) is not bool:
        return None
    if isinstance(at, bool) or not isinstance(at, int | float) or not 0 <= at < 1e11:
        return None
    return StoredProbe(label[:200], score, flag, float(at))


def save_probes(
    path: Path, judge_model: str, stored: dict[str, StoredProbe], notes: list[str]
) -> None:
    newest = sorted(stored.items(), key=lambda item: -item[1].checked_at)[:MAX_STORED]
    data = {
        "format": FORMAT,
        "judge_model": judge_model,
        "probes": {key: dataclasses.asdict(probe) for key, probe in newest},
    }
    save_json_noting(path, data, notes, "Proben", "der nächste Check vergleicht nicht.")


def compare_probes(
    results: Sequence[ProbeResult],
    judge_model: str,
    identity: str,
    *,
    notes: list[str],
    cache_dir: Path | None = None,
    now: float | None = None,
) -> Drift | None:
    """Compare the check's probe verdicts with those stored for ``identity``, then store
    them; None when nothing stored could be compared."""
    path = probe_file(identity, cache_dir)
    stored = load_probes(path, notes)
    checked_at = time.time() if now is None else now
    differing: list[str] = []
    compared = 0
    since = 0.0
    fresh: dict[str, StoredProbe] = {}
    for result in results:
        verdict = result.verdict
        if result.probe.kind == "repeat" or verdict is None or verdict.unscored:
            continue
        if not verdict.cache_key or verdict.cache_key in fresh:
            continue
        label = result.probe.label()
        fresh[verdict.cache_key] = StoredProbe(label, verdict.score, verdict.red_flag, checked_at)
        before = stored.get(verdict.cache_key)
        if before is None:
            continue
        compared += 1
        since = max(since, before.checked_at)
        if abs(before.score - verdict.score) > REPEAT_TOLERANCE or before.red_flag != (
            verdict.red_flag
        ):
            flag = ", Warnsignal" if verdict.red_flag != before.red_flag else ""
            differing.append(f"{label}: {verdict.score} statt {before.score}{flag}")
    save_probes(path, judge_model, {**stored, **fresh}, notes)
    if not compared:
        return None
    return Drift("probes", compared, tuple(differing), since, judge_model)


# ---- judge runs: cached cells asked again ---------------------------------------------------


def cached_cells(
    responses: Sequence[EvalResponse], pack: Pack, session: JudgeSession, cache: VerdictCache
) -> list[tuple[CellTask, float, float]]:
    """Up to ``RECHECK_CELLS`` cells of ``responses`` whose verdict the user-level cache
    holds (distinct judge prompts), each with its cached score and when it was cached."""
    if not responses or not cache.holds_judge(session.judge.model):
        return []
    step = max(1, len(responses) // SCAN_CELLS)
    frames = Frames(pack, session.judge.identity)
    found: list[tuple[CellTask, float, float]] = []
    keys: set[str] = set()
    for resp in responses[::step]:
        if not pack.has_prompt(resp.prompt_id):
            continue
        task = CellTask.framed(resp, frames(resp.prompt_id, resp.variant), session.judge)
        if task.settled is not None or task.key in keys:
            continue
        stored = cache.stored(task.key, pack.scale, session.judge.model)
        if stored is None:
            continue
        keys.add(task.key)
        found.append((task, stored[0].score, stored[1]))
        if len(found) == RECHECK_CELLS:
            break
    return found


async def recheck_cached(
    session: JudgeSession,
    responses: Sequence[EvalResponse],
    pack: Pack,
    cache: VerdictCache,
) -> Drift | None:
    """Ask the judge again, without the cache, for up to 3 cells the cache holds; None when
    it holds none of the cells (or none of the calls gave a verdict)."""
    cells = cached_cells(responses, pack, session, cache)
    if not cells:
        return None
    uncached = dataclasses.replace(session, cache=None)
    verdicts = await judge_cells(uncached, [task.resp for task, _, _ in cells], pack)
    threshold = off_by(pack.scale)
    differing: list[str] = []
    compared = 0
    for (task, cached, _), verdict in zip(cells, verdicts, strict=True):
        if verdict.unscored:
            continue
        compared += 1
        if abs(verdict.score - cached) >= threshold:
            resp = task.resp
            differing.append(
                f"{resp.prompt_id} · {resp.model} · {resp.variant} · Wdh. {resp.repeat}: "
                f"{verdict.score} statt {cached}"
            )
    if not compared:
        return None
    since = min(at for _, _, at in cells)
    return Drift("cells", compared, tuple(differing), since, session.judge.model, threshold)
