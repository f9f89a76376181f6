"""``pack check``'s power table: the smallest difference a pack shows at 80 % power for 1, 3
and 5 repeats (``packs.power``'s formulas), from a run's spread or the assumed one, and the
German sentences about it (what the figures for more repeats rest on when a run has one)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from touchstone import german
from touchstone.pack import Pack
from touchstone.packs.power import REPEATS, Spread, about, assumed_spread, target_difference
from touchstone.stats.power import detectable_difference, prompts_needed


@dataclass(frozen=True)
class PowerRow:
    repeats: int
    difference: float | None  # None: fewer than two prompts
    needed: int | None  # prompts for the target difference; None: beyond reach
    # A run with one repeat cannot tell how much of its variance repeats would remove: the
    # difference if all of it came from repeats, and if none did (``difference`` lies between,
    # at the assumed share). None when the share is measured or the spread assumed outright.
    span: tuple[float, float] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "repeats": self.repeats,
            "min_difference": None if self.difference is None else round(self.difference, 4),
            "prompts_for_target": self.needed,
            "min_difference_range": None if self.span is None else [round(v, 4) for v in self.span],
        }


@dataclass(frozen=True)
class Power:
    prompts: int
    spread: Spread
    target: float
    rows: list[PowerRow]
    run: str = ""  # the run whose spread this is; "" when assumed

    def as_dict(self) -> dict[str, Any]:
        """``pack check --json`` ``power``."""
        return {
            "prompts": self.prompts,
            "target": self.target,
            "run": self.run or None,
            "spread_measured": self.spread.measured,
            **self.spread.as_dict(),
            "rows": [row.as_dict() for row in self.rows],
            "note": share_note(self) or None,
        }


def power(pack: Pack, spread: Spread | None = None, run: str = "") -> Power:
    """The smallest difference ``pack`` shows at 80 % power for 1, 3 and 5 repeats, from
    ``spread`` (a run's) or the assumed one."""
    spread = spread or assumed_spread(pack.scale)
    target = target_difference(pack.scale)
    rows = [
        PowerRow(
            repeats,
            detectable_difference(pack.prompt_count, spread.variance(repeats)),
            prompts_needed(target, spread.variance(repeats)),
            _span(pack.prompt_count, spread, repeats),
        )
        for repeats in REPEATS
    ]
    return Power(pack.prompt_count, spread, target, rows, run)


def _span(prompts: int, spread: Spread, repeats: int) -> tuple[float, float] | None:
    """The difference at ``repeats`` if all the run's variance came from repeats, and if none
    did; None where that is not in doubt (a measured share, the run's own repeats)."""
    if not spread.share_assumed or abs(repeats - spread.repeats) < 0.05:
        return None
    # All of it from repeats gives the smaller difference, none of it the larger.
    low, high = (
        detectable_difference(prompts, spread.with_share(share).variance(repeats))
        for share in (1.0, 0.0)
    )
    return None if low is None or high is None else (low, high)


def share_note(result: Power) -> str:
    """What the figures for more repeats rest on, when a run with one repeat gave the spread
    (German, for the terminal and ``--json``); "" when nothing is assumed beyond what the
    figures say."""
    spread = result.spread
    if not spread.share_assumed:
        return ""
    spans = [
        f"bei {german.counted(row.repeats, 'Wiederholung', 'Wiederholungen')} zwischen "
        f"{german.number(row.span[0])} und {german.number(row.span[1])}"
        for row in result.rows
        if row.span is not None
    ]
    text = (
        f"Der Anteil der Wiederholungen an der Varianz ist angenommen "
        f"({german.percent(spread.repeat_share)}): der Run hat {_repeats(spread.repeats)} je "
        "Prompt und Zeile, daran ist nicht zu messen, wie viel mehr Wiederholungen wegnehmen."
    )
    if spans:
        text += (
            " Je nach wahrem Anteil (0 bis 100 %) läge der kleinste trennbare Unterschied "
            + "; ".join(spans)
            + ". Ein Run mit 2 oder mehr Wiederholungen misst den Anteil."
        )
    return text


def _repeats(value: float) -> str:
    """``1 Wiederholung``, ``3 Wiederholungen``, ``2,6 Wiederholungen`` (a mean)."""
    if abs(value - round(value)) < 0.05:
        return german.counted(round(value), "Wiederholung", "Wiederholungen")
    return f"{german.number(value, 1)} Wiederholungen"


def summary_sentence(result: Power) -> str:
    """ "Mit 27 Prompts und 1 Wiederholung trennt dieses Paket Modelle, die mindestens 0,45
    Punkte auseinanderliegen; mit 3 Wiederholungen 0,38; …; für 0,2 Punkte braucht es etwa
    130 Prompts." """
    first, *more = result.rows
    prompts = german.counted(result.prompts, "Prompt", "Prompts")
    if first.difference is None:
        return (
            f"Mit {prompts} trennt dieses Paket keine Modelle: ein Vergleich braucht "
            "mindestens 2 Prompts."
        )
    text = (
        f"Mit {prompts} und {german.counted(first.repeats, 'Wiederholung', 'Wiederholungen')} "
        f"trennt dieses Paket Modelle, die mindestens {german.number(first.difference)} Punkte "
        "auseinanderliegen"
    )
    for row in more:
        text += f"; mit {row.repeats} Wiederholungen {german.number(row.difference)}"
    goal = german.number(result.target, 1)
    if first.needed is None:
        text += f"; {goal} Punkte sind mit vertretbar vielen Prompts nicht zu trennen."
    elif first.needed <= result.prompts:
        text += f"; für {goal} Punkte reichen schon {german.count(first.needed)} Prompts."
    else:
        text += f"; für {goal} Punkte braucht es etwa {german.count(about(first.needed))} Prompts."
    return text
