"""How the judge's score moves with the answer's length, measured on the run (DESIGN §17).

Judges tend to prefer longer answers. The figure is a within-prompt regression (fixed effects
for the prompts): on each prompt, score and length are taken as deviations from that prompt's
means over every model, variant and repeat, and one least-squares slope is fitted through
all deviations together (pooled OLS on the demeaned data). A hard prompt with short answers
and an easy one with long answers do not make a slope: only how longer and shorter answers
to the same prompt score does. The slope is given in points per 100 words.

Its 95 % interval is a t interval with a cluster-robust standard error over prompts (CR1:
the prompts are independent; the cells of one prompt may be correlated and of any spread),
with (prompts - 1) degrees of freedom; with fewer than 2 prompts that vary in length there is
no interval. The assumption: the effect is linear in the word count and the same on every
prompt; the figure is then its average, and it describes an association, not a cause (a
model that knows more may also write more). With few prompts (under about 10) the interval is
optimistic.

Counted are the cells with a scored verdict of an answer that came: failed answers (scored
with the scale's minimum) and unscored cells stay out, or an empty answer's minimum would
pass for a judge's taste for length. A word is a run of non-blank characters; to keep a
100k-cell run fast, words are counted by the blanks and line breaks between them.

A length-adjusted mean (a row's mean minus slope × the row's mean deviation from its prompts'
mean length) is a diagnostic only, never a replacement for the scores: when the slope is
significant and the adjusted means order the rows differently, the card says which rows
would swap.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from touchstone import german
from touchstone.distributions import t_upper
from touchstone.results import EvalResponse, Verdict, cell_key

Pair = tuple[str, str]
PER = 100
# Rows named in the card when the adjusted order differs: more would not be read.
MAX_SWAPS = 3


def word_count(text: str) -> int:
    """Words of ``text``: non-blank runs, counted by the blanks and line breaks between them
    (``str.split`` takes several times as long at 100k answers; doubled blanks count twice)."""
    stripped = text.strip()
    if not stripped:
        return 0
    return stripped.count(" ") + stripped.count("\n") + 1


@dataclass(frozen=True)
class Swap:
    """Two rows the length-adjusted means order the other way round: ``ahead`` is ranked
    above ``behind`` by its mean, below it when adjusted."""

    ahead: Pair
    behind: Pair


@dataclass(frozen=True)
class LengthEffect:
    per_100_words: float
    ci_low: float | None
    ci_high: float | None
    # Prompts whose answers vary in length (the clusters), and the cells counted.
    prompts: int
    cells: int
    # Per row: its mean minus slope × its mean deviation from its prompts' mean length.
    adjusted: dict[str, float]
    swaps: tuple[Swap, ...] = ()

    @property
    def significant(self) -> bool:
        if self.ci_low is None or self.ci_high is None:
            return False
        return self.ci_low > 0 or self.ci_high < 0

    def summary_de(self) -> str:
        """``+0,30 Punkte je 100 Wörter (95 %: 0,10–0,50)``."""
        text = f"{german.signed(self.per_100_words)} Punkte je 100 Wörter"
        low, high = self.ci_low, self.ci_high
        if low is None or high is None:
            return (
                f"{text} (kein Intervall: weniger als 2 Prompts mit verschieden langen Antworten)"
            )
        if low >= 0 or high <= 0:
            bounds = f"{german.number(low)}{german.DASH}{german.number(high)}"
        else:
            bounds = f"{german.number(low)} bis {german.signed(high)}"
        return f"{text} (95 %: {bounds})"

    def lines_de(self) -> list[str]:
        """The card's lines: the figure, what it means, and swaps of the adjusted order."""
        cells = german.counted(self.cells, "Zelle", "Zellen")
        prompts = german.counted(self.prompts, "Prompt", "Prompts")
        lines = [f"Länge: {self.summary_de()}, innerhalb der Prompts ({cells}, {prompts})."]
        if not self.significant:
            lines.append("Kein nachweisbarer Einfluss der Antwortlänge auf die Wertung.")
            return lines
        lean = "längere" if self.per_100_words > 0 else "kürzere"
        lines.append(f"Der Judge bewertet {lean} Antworten zum selben Prompt besser.")
        if self.swaps:
            named = "; ".join(
                f"{_name(s.behind)} läge vor {_name(s.ahead)}" for s in self.swaps[:MAX_SWAPS]
            )
            more = len(self.swaps) - MAX_SWAPS
            extra = (
                f" und {german.counted(more, 'weiteres Paar', 'weitere Paare')}" if more > 0 else ""
            )
            lines.append(
                f"Längenbereinigt ändert sich die Reihenfolge: {named}{extra} (nur zur "
                "Einordnung, kein Ersatz für die Wertung)."
            )
        else:
            lines.append("Längenbereinigt bleibt die Reihenfolge der Mittelwerte gleich.")
        return lines

    def as_dict(self) -> dict[str, object]:
        return {
            "per_100_words": round(self.per_100_words, 4),
            "ci_low": None if self.ci_low is None else round(self.ci_low, 4),
            "ci_high": None if self.ci_high is None else round(self.ci_high, 4),
            "prompts": self.prompts,
            "cells": self.cells,
            "significant": self.significant,
            "reordered": [{"ahead": list(s.ahead), "behind": list(s.behind)} for s in self.swaps],
            "summary": self.summary_de(),
        }


def _name(pair: Pair) -> str:
    return f"{pair[0]} · {pair[1]}"


def row_key(pair: Pair) -> str:
    """A row as a key of ``LengthEffect.adjusted`` (JSON keys are strings)."""
    return f"{pair[0]}\x1f{pair[1]}"


@dataclass(frozen=True)
class Slope:
    """The fitted slope (points per word) with its cluster-robust t interval."""

    slope: float
    low: float | None
    high: float | None
    prompts: int
    cells: int


def fit_slope(points_by_prompt: Iterable[Sequence[tuple[float, float]]]) -> Slope | None:
    """The within-prompt slope of score on length over (length, score) points per prompt;
    None when no prompt's answers differ in length."""
    sxx_total = sxy_total = 0.0
    parts: list[tuple[float, float]] = []
    cells = 0
    for points in points_by_prompt:
        n = len(points)
        if n < 2:
            continue
        mean_x = math.fsum(x for x, _ in points) / n
        mean_y = math.fsum(y for _, y in points) / n
        sxx = math.fsum((x - mean_x) ** 2 for x, _ in points)
        if sxx == 0:
            continue  # answers of one length say nothing about length
        sxy = math.fsum((x - mean_x) * (y - mean_y) for x, y in points)
        parts.append((sxx, sxy))
        sxx_total += sxx
        sxy_total += sxy
        cells += n
    if not parts:
        return None
    slope = sxy_total / sxx_total
    g = len(parts)
    if g < 2:
        return Slope(slope, None, None, g, cells)
    # Each prompt's score (its cells' length deviations times their residuals): CR1.
    scores = math.fsum((sxy - slope * sxx) ** 2 for sxx, sxy in parts)
    se = math.sqrt(g / (g - 1) * scores) / sxx_total
    half = t_upper(g - 1) * se
    return Slope(slope, slope - half, slope + half, g, cells)


def length_effect(
    responses: Iterable[EvalResponse],
    verdicts: Iterable[Verdict],
    means: Sequence[tuple[Pair, float]],
) -> LengthEffect | None:
    """The length effect of the run; ``means``: the ranked rows' means. None
    when no prompt has scored answers of different lengths."""
    words = {cell_key(r): word_count(r.response_text) for r in responses if r.ok}
    by_prompt: dict[str, list[tuple[Pair, float, float]]] = {}
    for verdict in verdicts:
        if verdict.unscored:
            continue
        length = words.get(cell_key(verdict))
        if length is None or length == 0:
            continue
        by_prompt.setdefault(verdict.prompt_id, []).append(
            ((verdict.model, verdict.variant), float(length), float(verdict.score))
        )
    fitted = fit_slope([[(x, y) for _, x, y in cells] for cells in by_prompt.values()])
    if fitted is None:
        return None
    excess = _mean_excess(by_prompt.values())
    adjusted = {row_key(pair): mean - fitted.slope * excess.get(pair, 0.0) for pair, mean in means}
    effect = LengthEffect(
        per_100_words=fitted.slope * PER,
        ci_low=None if fitted.low is None else fitted.low * PER,
        ci_high=None if fitted.high is None else fitted.high * PER,
        prompts=fitted.prompts,
        cells=fitted.cells,
        adjusted=adjusted,
    )
    if not effect.significant:
        return effect
    return dataclasses.replace(effect, swaps=_swaps(means, adjusted))


def _mean_excess(prompts: Iterable[list[tuple[Pair, float, float]]]) -> dict[Pair, float]:
    """Per row: how many words its answers are longer than their prompt's mean, on average."""
    sums: dict[Pair, list[float]] = {}
    for cells in prompts:
        mean_x = math.fsum(x for _, x, _ in cells) / len(cells)
        for pair, x, _ in cells:
            acc = sums.setdefault(pair, [0.0, 0.0])
            acc[0] += x - mean_x
            acc[1] += 1
    return {pair: total / n for pair, (total, n) in sums.items()}


def _swaps(means: Sequence[tuple[Pair, float]], adjusted: dict[str, float]) -> tuple[Swap, ...]:
    """Pairs of rows whose order by mean (best first) the adjusted means reverse."""
    found: list[Swap] = []
    best_first = sorted(means, key=lambda item: -item[1])
    for i, (ahead, mean_a) in enumerate(best_first):
        for behind, mean_b in best_first[i + 1 :]:
            if mean_a > mean_b and adjusted[row_key(behind)] > adjusted[row_key(ahead)]:
                found.append(Swap(ahead, behind))
    return tuple(found)
