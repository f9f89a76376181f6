"""The jury card (design.md §18): who judged, how far they agree, who is harsh, what is disputed.

``jury_build.build_jury_card`` computes the figures (``jury_agreement``) from the members'
scores per cell; the result (``JuryCard``) is what the terminal (``JuryLines``, fitted to its
width), report.html and the GUI's run page (templates/jury_card.html) and ``scorecard.json``
(``as_dict``, the ``jury`` object) show. Members are named by ``(model, base_url)``, as
their verdict lines in judgements.jsonl name them (``judge_model``, ``judge_base_url``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.console import Console, ConsoleOptions
from rich.text import Text

from touchstone import german
from touchstone.plain import plain
from touchstone.quality.jury_agreement import (
    FamilyMean,
    PairKappa,
)
from touchstone.results import VerdictKey

MemberKey = tuple[str, str]  # (model, base_url)
# The jury's aggregates as the card names them (config: ``aggregate: median | mean | majority``).
AGGREGATE_LABELS = {"median": "Median", "mean": "Mittelwert", "majority": "Mehrheit"}
Row = tuple[str, str]  # (model, variant)
WIDTH = 80
SEPARATOR = " · "
# The jury is "uneinig" (docs/jury.md) when the upper end of its alpha interval lies below this
# (agreement no better than poor, even at best) ...
SPLIT_ALPHA = 0.4
# ... or when its members contradict each other: at least this share (num, den) of the cells
# two or more of them scored is disputed (``disputed_cells``: 40 % of the scale apart).
CONTRADICTING = (1, 5)
# Why a jury is "uneinig", as scorecard.json names it (``jury.verdict.reasons``).
SplitReason = Literal["alpha", "disputed"]


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class JuryMemberLine:
    model: str
    base_url: str
    mean: float | None
    scored: int
    common_mean: float | None
    dropped: str | None
    family: str | None
    # The model, with its endpoint when two members share the model name.
    label: str = ""

    @property
    def reason(self) -> str:
        """Why the member was dropped, on one line, without a lead naming it again (the run
        may record the whole message: "Judge x ausgeschieden: 3 Aufrufe …"); "" if not."""
        reason = _one_line(self.dropped or "")
        return reason.removeprefix(f"Judge {_one_line(self.model)} ausgeschieden: ")


@dataclass(frozen=True)
class JuryCard:
    members: list[JuryMemberLine]
    low: int
    high: int
    # Cells scored by 2 or more members: what alpha and the disputed count are over.
    paired: int
    alpha: float | None
    alpha_ci: tuple[float, float] | None
    kappas: list[PairKappa[MemberKey]] = field(default_factory=list)
    # Disputed cells, the widest spread first (the human spot check starts here).
    disputed: list[VerdictKey] = field(default_factory=list)
    same_family: list[FamilyMean[Row]] = field(default_factory=list)
    # How the jury makes a cell's verdict, when the run says (shown in the card's first line).
    quorum: int | None = None
    aggregate: str = ""
    # Cells left unscored for want of a quorum.
    no_quorum: int = 0

    @property
    def active(self) -> int:
        return sum(1 for m in self.members if not m.dropped)

    def _label(self, key: MemberKey) -> str:
        return next((m.label for m in self.members if (m.model, m.base_url) == key), key[0])

    def alpha_text(self) -> str:
        """``α = 0,72 [0,61 – 0,80]``; ``α = –`` when it cannot be computed."""
        if self.alpha is None:
            return f"α = {german.DASH}"
        text = f"α = {german.number(self.alpha)}"
        if self.alpha_ci is not None:
            text += f" {german.bounds(*self.alpha_ci)}"
        return text

    def split_reasons(self) -> list[SplitReason]:
        """Why the jury is "uneinig": its alpha interval lies below ``SPLIT_ALPHA``
        (``alpha``), its members contradict each other (``disputed``, ``CONTRADICTING``);
        none: it is not (or too few cells say either)."""
        reasons: list[SplitReason] = []
        if self.alpha_ci is not None and self.alpha_ci[1] < SPLIT_ALPHA:
            reasons.append("alpha")
        num, den = CONTRADICTING
        if self.paired and len(self.disputed) * den >= num * self.paired:
            reasons.append("disputed")
        return reasons

    def verdict_text(self) -> str | None:
        """``Jury uneinig: α = -0,41 [-0,69 – -0,21], 6 von 12 Zellen strittig – Wertung nicht
        belastbar``, or None when the jury is not split (``split_reasons``)."""
        if not self.split_reasons():
            return None
        disputed = f"{german.count(len(self.disputed))} von {german.count(self.paired)}"
        cells = "Zelle" if self.paired == 1 else "Zellen"
        return (
            f"Jury uneinig: {self.alpha_text()}, {disputed} {cells} strittig "
            f"{german.DASH} Wertung nicht belastbar"
        )

    def headline_parts(self) -> list[str]:
        return [
            f"Jury: {self.active} von {len(self.members)} Judges aktiv",
            f"Übereinstimmung {self.alpha_text()}",
            f"strittig: {german.counted(len(self.disputed), 'Zelle', 'Zellen')}",
        ]

    def rule_text(self) -> str:
        """``Quorum 2 · Median · ohne Quorum: 3 Zellen``, or "" when the run says nothing."""
        parts = [] if self.quorum is None else [f"Quorum {self.quorum}"]
        parts += [AGGREGATE_LABELS.get(self.aggregate, self.aggregate)] if self.aggregate else []
        if self.no_quorum:
            parts.append(f"ohne Quorum: {german.counted(self.no_quorum, 'Zelle', 'Zellen')}")
        return SEPARATOR.join(parts)

    def headline(self) -> str:
        return SEPARATOR.join(self.headline_parts())

    def member_text(self, member: JuryMemberLine) -> str:
        """``qwen2.5-14b: Mittel 3,85 (gemeinsame Zellen 3,80) · 120 bewertet``."""
        parts = [f"Mittel {german.number(member.mean)}"]
        shared = german.number(member.common_mean)
        if member.common_mean is not None and shared != parts[0].removeprefix("Mittel "):
            parts[0] += f" (gemeinsame Zellen {shared})"
        parts.append(f"{german.count(member.scored)} bewertet")
        if member.dropped:
            parts.append(f"ausgeschieden: {member.reason}")
        return f"{_one_line(member.label)}: {SEPARATOR.join(parts)}"

    def kappa_texts(self) -> list[str]:
        """One line per pair that shares a cell (a member dropped at once shares none)."""
        return [
            f"{_one_line(self._label(k.a))} ↔ {_one_line(self._label(k.b))}: "
            f"{german.number(k.kappa)} ({german.counted(k.cells, 'Zelle', 'Zellen')})"
            for k in self.kappas
            if k.cells
        ]

    def family_texts(self) -> list[str]:
        """Rows whose family has members in the jury: the mean without them, beside the mean
        with all (made the same way)."""
        return [
            f"{_one_line(model)} · {_one_line(variant)} (Familie {f.family}): "
            f"{german.number(f.without_own_family)} statt {german.number(f.mean)} mit allen"
            for f in self.same_family
            if f.excluded
            for model, variant in [f.row]
        ]

    def head_lines(self, width: int = WIDTH) -> list[str]:
        """The headline, wrapped at its separators."""
        return _joined(self.headline_parts(), width)

    def verdict_lines(self, width: int = WIDTH) -> list[str]:
        """The verdict (``verdict_text``) wrapped, none when the jury is not split."""
        text = self.verdict_text()
        return [] if text is None else _wrapped(text, width, "", "  ")

    def lines(self, width: int = WIDTH) -> list[str]:
        """The card as terminal lines of at most ``width`` columns (German): the headline,
        the verdict if any, the rest."""
        out = self.head_lines(width) + self.verdict_lines(width)
        if self.rule_text():
            out += _wrapped(self.rule_text(), width, "  ", "  ")
        for member in self.members:
            mark = "✗" if member.dropped else "✓"
            out += _wrapped(f"{mark} {self.member_text(member)}", width, "  ", "    ")
        kappas = self.kappa_texts()
        if kappas:
            out += _wrapped("Kappa je Paar (quadratisch gewichtet):", width, "", "  ")
            for text in kappas:
                out += _wrapped(text, width, "  ", "    ")
        families = self.family_texts()
        if families:
            out += _wrapped("Ohne die Judges der eigenen Modellfamilie:", width, "", "  ")
            for text in families:
                out += _wrapped(text, width, "  ", "    ")
        legend = (
            f"α (ordinal) über {german.counted(self.paired, 'Zelle', 'Zellen')} mit mindestens "
            "2 Bewertungen, 95-%-Intervall per Bootstrap; gemeinsame Zellen: die alle "
            "aktiven Judges bewertet haben; strittig: die Judges liegen mindestens 40 % der "
            "Skala auseinander."
        )
        out += _wrapped(legend, width, "", "")
        return out

    def _verdict_dict(self) -> dict[str, Any] | None:
        text = self.verdict_text()
        if text is None:
            return None
        return {"word": "uneinig", "reasons": self.split_reasons(), "text": text}

    def as_dict(self) -> dict[str, Any]:
        """``scorecard.json`` ``jury`` (design.md §18), with pairwise kappas, the members' means
        on the shared cells and the same-family means beside."""
        return {
            "members": [
                {
                    "model": m.model,
                    "base_url": m.base_url,
                    "mean": _round(m.mean),
                    "dropped": m.dropped or None,
                    "n_scored": m.scored,
                    "common_mean": _round(m.common_mean),
                    "family": m.family,
                }
                for m in self.members
            ],
            "alpha": _round(self.alpha),
            "alpha_ci": None if self.alpha_ci is None else [_round(v) for v in self.alpha_ci],
            "disputed": len(self.disputed),
            "paired_cells": self.paired,
            "pairwise_kappa": [
                {
                    "a": {"model": k.a[0], "base_url": k.a[1]},
                    "b": {"model": k.b[0], "base_url": k.b[1]},
                    "kappa": _round(k.kappa),
                    "cells": k.cells,
                }
                for k in self.kappas
            ],
            "same_family": [
                {
                    "model": f.row[0],
                    "variant": f.row[1],
                    "family": f.family,
                    "mean": _round(f.mean),
                    "mean_without_own_family": _round(f.without_own_family),
                }
                for f in self.same_family
            ],
            "summary": self.headline(),
            "verdict": self._verdict_dict(),
            **({} if self.quorum is None else {"quorum": self.quorum}),
            **({"aggregate": self.aggregate} if self.aggregate else {}),
            "no_quorum": self.no_quorum,
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _wrapped(text: str, width: int, first: str, rest: str) -> list[str]:
    return textwrap.wrap(
        text,
        width,
        initial_indent=first,
        subsequent_indent=rest,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def _joined(parts: Sequence[str], width: int) -> list[str]:
    """``parts`` joined by `` · ``, a new line where the next part would pass ``width``
    (a part never broken when it fits a line of its own)."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(SEPARATOR) + len(part) <= width:
            lines[-1] += SEPARATOR + part
        else:
            lines += _wrapped(part, width, "  " if lines else "", "  ")
    return lines


class JuryLines:
    """The jury card for rich: fitted to the console's width, names plain (design.md §15)."""

    def __init__(self, card: JuryCard) -> None:
        self.card = card

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        width = options.max_width
        head, verdict = self.card.head_lines(width), self.card.verdict_lines(width)
        for index, line in enumerate(self.card.lines(width)):
            split = len(head) <= index < len(head) + len(verdict)
            yield plain(line, style="bold yellow" if split else "bold" if index == 0 else "")
