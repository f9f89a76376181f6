"""How the judge's score moves with the answer's length, measured on the run (design.md §17).

Judges tend to prefer longer answers. The figure is a slope within prompts and within rows
(model/variant): least squares of score on length with fixed effects for both
(``quality.within``). Prompt effects keep a hard prompt with long answers and an easy one with
short answers from making a slope; row effects keep a better model that also writes more from
making one. What is left: whether a row's answers score better on the prompts where it writes
more than it usually does (relative to the other rows there), and whether its longer repeats
score better than its shorter ones. The slope is given in points per 100 words, with a t
interval over prompts (cluster-robust: the cells of one prompt may be correlated).

The assumption: the effect is linear in the word count and the same for every prompt and row;
the figure is then its average. It describes an association, not a cause: a model that writes
more where it knows more still makes a slope. With few prompts (under about 10) the interval
is optimistic.

Counted are the cells with a scored verdict of an answer that came: failed answers (scored
with the scale's minimum) and unscored cells stay out, or an empty answer's minimum would
pass for a judge's taste for length. A word is a run of non-blank characters. To stay fast
at 100k cells, lengths are taken in characters and the slope turned into words by the run's
characters per word, counted on an even sample of up to 1,000 answers (exact when word
lengths do not differ between answers; close enough for a diagnostic otherwise).

A length-adjusted mean (a row's mean minus slope × the row's mean deviation from its prompts'
mean length) is a diagnostic only, never a replacement for the scores: when the slope is
significant and the adjusted means order the rows differently, the card says which rows
would swap.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from touchstone import german
from touchstone.results import EvalResponse, Verdict, cell_key
from touchstone.stats.within import Slope, fit_slope

Pair = tuple[str, str]
PER = 100
# Rows named in the card when the adjusted order differs: more would not be read.
MAX_SWAPS = 3


# Answers whose words are counted to learn the run's characters per word.
SAMPLE = 1000


def word_count(text: str) -> int:
    """Words of ``text``: runs of non-blank characters."""
    return len(text.split())


def _chars_per_word(answers: Sequence[EvalResponse]) -> float:
    """Characters per word over an even sample of ``answers`` (at most ``SAMPLE``)."""
    step = max(1, len(answers) // SAMPLE)
    sample = [r.response_text for r in answers[::step]]
    words = sum(map(word_count, sample))
    return sum(map(len, sample)) / words if words else 1.0


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
    # The prompts (clusters) and cells the slope was fitted on.
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
        """``+0,30 Punkte je 100 Wörter [+0,10 – +0,50]`` (``german.bounds``)."""
        text = f"{german.signed(self.per_100_words)} Punkte je 100 Wörter"
        low, high = self.ci_low, self.ci_high
        if low is None or high is None:
            return f"{text} (kein Intervall: zu wenige Prompts oder Zellen)"
        return f"{text} {german.bounds(low, high, difference=True)}"

    def lines_de(self) -> list[str]:
        """The card's lines: the figure, what it means, and swaps of the adjusted order."""
        cells = german.counted(self.cells, "Zelle", "Zellen")
        prompts = german.counted(self.prompts, "Prompt", "Prompts")
        lines = [
            f"Länge: {self.summary_de()}, innerhalb der Prompts und Modelle ({cells}, {prompts})."
        ]
        if not self.significant:
            lines.append("Kein nachweisbarer Einfluss der Antwortlänge auf die Wertung.")
            return lines
        lean = "längere" if self.per_100_words > 0 else "kürzere"
        lines.append(
            f"Der Judge bewertet {lean} Antworten desselben Modells zum selben Prompt besser."
        )
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


class _Prompt:
    """One prompt's counted cells: their rows, lengths (characters) and scores."""

    __slots__ = ("lengths", "pairs", "scores")

    def __init__(self) -> None:
        self.pairs: list[Pair] = []
        self.lengths: list[float] = []
        self.scores: list[float] = []


def length_effect(
    responses: Iterable[EvalResponse],
    verdicts: Iterable[Verdict],
    means: Sequence[tuple[Pair, float]],
) -> LengthEffect | None:
    """The length effect of the run; ``means``: the ranked rows' means. None
    when no prompt has scored answers of different lengths."""
    # Lengths in characters (free at 100k answers), turned into words at the end by the
    # run's characters per word, counted on a sample of the answers.
    answered = [r for r in responses if r.ok]
    chars = dict(
        zip(map(cell_key, answered), (len(r.response_text) for r in answered), strict=True)
    )
    by_prompt: dict[str, _Prompt] = {}
    for verdict in verdicts:
        if verdict.unscored:
            continue
        length = chars.get(cell_key(verdict))
        if not length:
            continue
        prompt = by_prompt.get(verdict.prompt_id)
        if prompt is None:
            prompt = by_prompt[verdict.prompt_id] = _Prompt()
        prompt.pairs.append((verdict.model, verdict.variant))
        prompt.lengths.append(length)
        prompt.scores.append(verdict.score)
    fitted = fit_slope(
        (prompt_id, pair, length, score)
        for prompt_id, prompt in by_prompt.items()
        for pair, length, score in zip(prompt.pairs, prompt.lengths, prompt.scores, strict=True)
    )
    if fitted is None:
        return None
    per_word = _chars_per_word(answered)
    fitted = Slope(
        fitted.slope * per_word,
        None if fitted.low is None else fitted.low * per_word,
        None if fitted.high is None else fitted.high * per_word,
        fitted.prompts,
        fitted.cells,
    )
    excess = {pair: chars / per_word for pair, chars in _mean_excess(by_prompt.values()).items()}
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


def _mean_excess(prompts: Iterable[_Prompt]) -> dict[Pair, float]:
    """Per row: how much longer its answers are than their prompt's mean, on average."""
    sums: dict[Pair, list[float]] = {}
    for prompt in prompts:
        mean_x = sum(prompt.lengths) / len(prompt.lengths)
        for pair, x in zip(prompt.pairs, prompt.lengths, strict=True):
            acc = sums.get(pair)
            if acc is None:
                acc = sums[pair] = [0.0, 0.0]
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
