"""A fully judged run at rest (``judge-state.json``): a resume with nothing to do is instant.

A judge run that ends *settled* (``JudgeRunResult.settled``: no cell left, none stale, every
holistic report answering its input) writes, after its last write to the run, what it found:
the stamps of the run's input files, the pack it judged by, the number of cells, the
warnings that reading the answers gave, and the scorecard whole. The next judge run without
``--rejudge`` whose files and pack are still exactly those would judge nothing and call
nobody: it shows that card instead of reading 100k records to learn so (DESIGN §10). An
appended answer, a verdict edited by hand, a changed pack or another touchstone version and
the state no longer matches: the run is read and judged as always, and the state written
anew (or removed, if the run does not end settled).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass

from touchstone import __version__
from touchstone.pack import Pack
from touchstone.scorecard import Scorecard
from touchstone.scorecard.state import card_from_state, card_state
from touchstone.store import JUDGE_STATE, RunDir, atomic_write_text, input_stamps

# Raise it whenever what a stored card means changes without the touchstone version doing so.
FORMAT = 1


@dataclass
class SettledRun:
    cells: int
    # What reading the answers warned of; it would warn of it again (the file is the same).
    warnings: list[str]
    card: Scorecard


def pack_fingerprint(pack: Pack) -> str:
    """Everything of the pack a verdict or the card depends on (rubrics, scale, prompts)."""
    return hashlib.sha256(pack.model_dump_json().encode("utf-8")).hexdigest()


def write_settled(
    run: RunDir, pack: Pack, *, cells: int, warnings: list[str], card: Scorecard
) -> None:
    state = {
        "format": FORMAT,
        "touchstone_version": __version__,
        "inputs": input_stamps(run.path),
        "pack": pack_fingerprint(pack),
        "cells": cells,
        "warnings": warnings,
        "card": card_state(card),
    }
    atomic_write_text(run.file(JUDGE_STATE), json.dumps(state, ensure_ascii=False) + "\n")


def clear_settled(run: RunDir) -> None:
    """Remove the state before the run's files change (a killed run leaves none behind)."""
    with contextlib.suppress(FileNotFoundError):
        run.file(JUDGE_STATE).unlink()


def read_settled(run: RunDir, pack: Pack) -> SettledRun | None:
    """The state, if it still describes the run's files and ``pack``; else ``None``.

    An unreadable state is ignored with a warning (the run is then read in full, and its
    state written anew).
    """
    path = run.file(JUDGE_STATE)
    try:
        state = json.loads(path.read_bytes())
        if state["format"] != FORMAT or state["touchstone_version"] != __version__:
            return None
        stamps = tuple(tuple(stamp) for stamp in state["inputs"])
        if stamps != input_stamps(run.path) or state["pack"] != pack_fingerprint(pack):
            return None
        return SettledRun(
            cells=int(state["cells"]),
            warnings=[str(warning) for warning in state["warnings"]],
            card=card_from_state(state["card"]),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        run.warnings.append(
            f"{path} ist unlesbar ({type(exc).__name__}) und wird ignoriert: der Run wird "
            "vollständig gelesen."
        )
        return None
