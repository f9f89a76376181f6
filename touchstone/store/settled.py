"""A fully judged run at rest (``judge-state.json``): a resume with nothing to do is instant.

A judge run that ends *settled* (``JudgeRunResult.settled``: no cell left, none stale, every
holistic report answering its input) writes, after its last write to the run, what it found:
the stamps of the run's input files (length and SHA-256 of each, ``store.input_stamps``), the
pack it judged by, the number of cells and the scorecard whole (the store knows no scorecard:
the writer hands it the card, the reader names the card's type). The next judge run without
``--rejudge`` whose files and pack are still exactly those would judge nothing and call
nobody: it shows that card instead of reading 100k records to learn so (design.md §10). An
appended answer, a verdict edited by hand (even one that keeps the file's size and times), a
changed pack or another touchstone version and the state no longer matches: the run is read
and judged as always, and the state written anew (or not, if the run does not end settled).

A run whose answers gave a warning on reading (a truncated last line, a cell recorded twice)
is never stored as settled: the warning names the file where it was read, and a replayed
one would name where it was then.
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from touchstone import __version__
from touchstone.pack import Pack
from touchstone.regular import read_regular
from touchstone.store.files import atomic_write_text
from touchstone.store.rundir import JUDGE_STATE, RunDir
from touchstone.store.stamps import Stamp, input_stamps

# The card is any type pydantic validates (the scorecard is a dataclass).
Card = TypeVar("Card")

# Raise it whenever what a stored card means changes without the touchstone version doing so.
# 2: input stamps are length and SHA-256, no longer times; failed answers score the minimum,
# no interval for one prompt (#22); 3: ranks follow the longest chain of better rows; 4: a
# mean's interval stays on the scale; 5: the card says what the run can resolve (resolution),
# the length effect and the judge's family (#24); 6: the length effect is fitted within prompts
# and rows (a better model writing more is no longer a taste for length); 7: intervals of few
# prompts floored by the run's other rows, ranks split only where a pair is better for the
# whole card (Bonferroni over the pairs), the card's ``ranks`` (#33); 8: rows count answers
# cut at max_tokens (``truncated``), the card knows the run's cap (#37)
FORMAT = 8


class _Origin(BaseModel):
    """Who wrote a ``judge-state.json``: read before the rest, whose shape may differ."""

    format: int
    touchstone_version: str


class SettledRun(BaseModel, Generic[Card]):
    """What ``judge-state.json`` holds; validated whole, so a damaged file is never used."""

    model_config = ConfigDict(extra="forbid")

    format: int
    touchstone_version: str
    inputs: tuple[Stamp, ...]
    pack: str
    cells: int = Field(ge=0)
    card: Card


def _holding(card: type[Card]) -> type[SettledRun[Card]]:
    """The state's model for ``card``: validated and written as that type."""
    # mypy takes a subscript by a variable for a type expression; pydantic builds the class.
    return SettledRun[card]  # type: ignore[valid-type]


def pack_fingerprint(pack: Pack) -> str:
    """Everything of the pack a verdict or the card depends on (rubrics, scale, prompts)."""
    return hashlib.sha256(pack.model_dump_json().encode("utf-8")).hexdigest()


def write_settled(
    run: RunDir,
    pack: Pack,
    *,
    cells: int,
    card: Card,
    inputs: tuple[Stamp, ...] | None = None,
) -> None:
    """``inputs``: the run files' stamps when the caller has just taken them."""
    state = _holding(type(card))(
        format=FORMAT,
        touchstone_version=__version__,
        inputs=input_stamps(run.path) if inputs is None else inputs,
        pack=pack_fingerprint(pack),
        cells=cells,
        card=card,
    )
    atomic_write_text(run.file(JUDGE_STATE), state.model_dump_json() + "\n")


def clear_settled(run: RunDir) -> None:
    """Remove the state before the run's files change (a killed run leaves none behind)."""
    with contextlib.suppress(FileNotFoundError):
        run.file(JUDGE_STATE).unlink()


def read_settled(run: RunDir, pack: Pack, card: type[Card]) -> SettledRun[Card] | None:
    """The state, if it still describes the run's files and ``pack``; else ``None``.
    ``card``: the type of the card it holds.

    A damaged state is ignored with a warning: the run is then read in full, and its state
    written anew.
    """
    path = run.file(JUDGE_STATE)
    try:
        data = read_regular(path)
        # A state another format or version wrote is no damage: it is just not this run's.
        origin = _Origin.model_validate_json(data)
        if (origin.format, origin.touchstone_version) != (FORMAT, __version__):
            return None
        state = _holding(card).model_validate_json(data)
    except FileNotFoundError:
        return None
    except (OSError, ValidationError) as exc:
        run.warnings.append(
            f"{path} ist unlesbar ({type(exc).__name__}) und wird ignoriert: der Run wird "
            "vollständig gelesen."
        )
        return None
    # The pack first: when it changed, the run's files need not be hashed.
    unchanged = state.pack == pack_fingerprint(pack) and state.inputs == input_stamps(run.path)
    return state if unchanged else None
