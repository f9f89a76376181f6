"""Human ratings of a run's cells: ``human.jsonl`` in the run dir (design.md §17).

One JSON object per line, ``{"model", "variant", "prompt_id", "repeat", "score", "red_flag",
"note", "rater", "rated_at"}``; scripts and other tools may write it too. Lines are appended
with the run dir's kill-safe appender under a lock of their own (``.human.lock``: a rater in
the GUI and one in the terminal never interleave, and rating never waits for a judge run,
which holds the run's lock for its whole length). A cell rated again by the same rater: the
last line wins. Lines are read like ``responses.jsonl`` (a truncated last line is skipped
with a warning, any other bad line is an ``InputError`` naming file and line), and checked
against the pack's scale and the run's cells.
"""

from __future__ import annotations

import datetime as dt
import getpass
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import filelock
from pydantic import Strict

from touchstone.errors import InputError
from touchstone.german import counted, cut
from touchstone.pack import Scale
from touchstone.plain import clean
from touchstone.results import VerdictKey
from touchstone.store.jsonl import JsonlAppender, iter_jsonl

HUMAN = "human.jsonl"
HUMAN_LOCK = ".human.lock"
# How long a rating waits for another one being written (GUI and terminal at once).
LOCK_WAIT_S = 5.0
MAX_RATER = 80
MAX_NOTE = 2000


# What a rating holds, once, for the reader of this file and the GUI's rating API
# (``gui/rate.RatingRequest``): strictly. Other tools write this file, and a ``true``, ``3.0``
# or ``"3"`` where a number belongs, or a ``"yes"`` for a flag, is their mistake to name, not
# a rating of 1 or 3 to guess; what the API stored, the reader must read back.
StrictInt = Annotated[int, Strict()]
Score = StrictInt
RedFlag = Annotated[bool, Strict()]
Text = Annotated[str, Strict()]


@dataclass(slots=True)
class HumanRating:
    model: Text
    variant: Text
    prompt_id: Text
    repeat: StrictInt
    score: Score
    red_flag: RedFlag
    rater: Text
    rated_at: Text
    note: Text = ""

    @property
    def cell(self) -> VerdictKey:
        return VerdictKey(self.model, self.variant, self.prompt_id, self.repeat)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def now_local_iso() -> str:
    """The time of a rating, ISO 8601 with the local zone (a person reads it back)."""
    return dt.datetime.now().astimezone().replace(microsecond=0).isoformat()


def default_rater() -> str:
    """The OS user's name; an ``InputError`` asking for ``--rater`` when there is none (a
    container without a passwd entry)."""
    try:
        name = getpass.getuser()
    except (OSError, KeyError, ImportError):
        name = ""
    if not name.strip():
        raise InputError(
            "Der Name des Benutzers ist nicht zu ermitteln; geben Sie an, wer bewertet: "
            "--rater NAME."
        )
    return checked_rater(name)


def checked_rater(name: str) -> str:
    """``name`` as a rater's name, or an ``InputError`` saying what is wrong with it."""
    name = name.strip()
    if not name or len(name) > MAX_RATER or clean(name) != name or "\n" in name or "\t" in name:
        shown = clean(cut(name, 40))
        raise InputError(
            f"Ungültiger Name für die bewertende Person: „{shown}“ (1 bis {MAX_RATER} Zeichen, "
            "keine Steuerzeichen)."
        )
    return name


def load_ratings(
    path: Path, scale: Scale, warn: Callable[[str], None], cells: Iterable[VerdictKey] = ()
) -> list[HumanRating]:
    """The ratings of ``path`` (none if it is missing), the last of each rater and cell.

    A score off ``scale``, an empty rater or a time that is no ISO time is bad input naming
    file and line. Ratings of cells not in ``cells`` (when given) are left out with one
    warning: they rate no answer this run has.
    """
    known: set[tuple[str, str, str, int]] = set(cells)
    # By rater and cell, as plain tuples (a ``VerdictKey`` per line was a third of the time).
    kept: dict[tuple[str, str, str, str, int], HumanRating] = {}
    # Ratings of cells the run lacks (the last line wins there too): only their keys are
    # kept, so the file is read once and only the ratings that count stay.
    orphans: dict[tuple[str, str, str, str, int], None] = {}
    for number, rating in enumerate(iter_jsonl(path, HumanRating, warn), start=1):
        problem = _problem(rating, scale)
        if problem:
            raise InputError(f"{path}, Zeile {number}: {problem}.")
        cell = (rating.model, rating.variant, rating.prompt_id, rating.repeat)
        key = (rating.rater, *cell)
        # The last line of a rater and cell wins, in its place.
        if known and cell not in known:
            orphans.pop(key, None)
            orphans[key] = None
        else:
            kept.pop(key, None)
            kept[key] = rating
    if orphans:
        _, model, variant, prompt_id, repeat = next(iter(orphans))
        warn(
            f"{path}: {counted(len(orphans), 'Wertung', 'Wertungen')} ohne Antwort im Run "
            f"{'zählt' if len(orphans) == 1 else 'zählen'} nicht "
            f"(z. B. {cut(model)}, {cut(variant)}, {cut(prompt_id)}, Wdh. {repeat})."
        )
    return list(kept.values())


def _problem(rating: HumanRating, scale: Scale) -> str:
    if not scale.min <= rating.score <= scale.max:
        return (
            f"„score“ ist {cut(str(rating.score), 40)}, liegt aber außerhalb der Skala "
            f"{scale.min}–{scale.max} des Pakets"
        )
    if not rating.rater.strip():
        return "„rater“ ist leer"
    try:
        dt.datetime.fromisoformat(rating.rated_at)
    except ValueError:
        return f"„rated_at“ ist keine ISO-Zeitangabe („{clean(cut(rating.rated_at, 40))}“)"
    if rating.repeat < 0:
        return f"„repeat“ ist {rating.repeat}"
    return ""


def append_rating(run_path: Path, rating: HumanRating) -> None:
    """Append ``rating`` to the run's ``human.jsonl``: one whole line, under the ratings'
    lock (another rating being written: wait up to ``LOCK_WAIT_S``)."""
    lock = filelock.FileLock(str(run_path / HUMAN_LOCK), timeout=LOCK_WAIT_S)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise InputError(
            f"{run_path / HUMAN} wird gerade von einem anderen Prozess geschrieben; "
            "bitte noch einmal versuchen."
        ) from None
    try:
        with JsonlAppender(run_path / HUMAN) as appender:
            appender.append(rating.as_dict())
    finally:
        lock.release()


def rating_for(
    key: VerdictKey, *, score: int, red_flag: bool, note: str, rater: str, scale: Scale
) -> HumanRating:
    """A new rating of ``key``, checked like a line read back (bad input: ``InputError``)."""
    if not scale.min <= score <= scale.max:
        raise InputError(
            f"Wertung {cut(str(score), 40)} liegt außerhalb der Skala {scale.min}–{scale.max}."
        )
    if len(note) > MAX_NOTE:
        raise InputError(f"Die Notiz ist zu lang (höchstens {MAX_NOTE} Zeichen).")
    model, variant, prompt_id, repeat = key
    return HumanRating(
        model=model,
        variant=variant,
        prompt_id=prompt_id,
        repeat=repeat,
        score=score,
        red_flag=red_flag,
        rater=checked_rater(rater),
        rated_at=now_local_iso(),
        note=note.strip(),
    )
