"""Building the scorecard from answers, verdicts and holistic reports."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, TypeVar, cast

from touchstone.jury.aggregate import judges_named
from touchstone.jury.summary import JurySummary
from touchstone.packs.power import Resolution, run_resolution
from touchstone.quality.family import same_family
from touchstone.quality.jury_card import JuryCard
from touchstone.quality.length import LengthEffect, length_effect
from touchstone.results import (
    EvalResponse,
    ModelReport,
    Verdict,
    cell_key,
    cut_at_cap,
    failure_of,
)
from touchstone.scorecard.compare import Comparer, Comparison, compare_rows
from touchstone.scorecard.fitness_line import CardFitness, fitness_fields
from touchstone.scorecard.ranks import RankRule
from touchstone.stats.intervals import Cluster, Interval, mean_interval, pool_rows

Pair = tuple[str, str]
_Cell = tuple[str, str, str, str]  # model, variant, category, prompt_id
K = TypeVar("K")
_pair_of = cast("Callable[[EvalResponse | Verdict], Pair]", attrgetter("model", "variant"))
_category_of = cast("Callable[[EvalResponse | Verdict], str]", attrgetter("category"))
_judge_of = cast(
    "Callable[[Verdict], tuple[str, str, str]]", attrgetter("model", "variant", "judge_model")
)
_cell_of = cast(
    "Callable[[Verdict], _Cell]", attrgetter("model", "variant", "category", "prompt_id")
)
_red_flagged = cast("Callable[[Verdict], bool]", attrgetter("red_flag"))
_unscored = cast("Callable[[Verdict], bool]", attrgetter("unscored"))


@dataclass
class ScoreRow:
    model: str
    variant: str
    cells: int = 0
    scored: int = 0
    interval: Interval | None = None
    category_intervals: dict[str, Interval | None] = field(default_factory=dict)
    red_flags: int = 0
    safety_red_flags: int = 0
    unscored: Counter[str] = field(default_factory=Counter)
    # Failed answers by reason (error kind, "empty", "reasoning_only"): counted in ``scored``
    # and in the means with the scale's minimum (design.md §16).
    failed: Counter[str] = field(default_factory=Counter)
    open: int = 0
    # Of ``open``: cells run.json plans for the row that have no answer yet.
    unanswered: int = 0
    # Answers cut at the run's max_tokens (finish_reason "length", design.md §13).
    truncated: int = 0
    dim_scores: dict[str, float] = field(default_factory=dict)
    dim_error: str = ""
    judge_models: list[str] = field(default_factory=list)
    latency_median_s: float | None = None
    tokens_per_s: float | None = None
    rank: int | None = None
    # The family the row's model shares with its judge (self-preference makes it suspect).
    judge_family: str | None = None
    # Per prompt: the scored cells (for comparisons); not part of the JSON.
    clusters: dict[str, Cluster] = field(default_factory=dict, repr=False)

    @property
    def pair(self) -> Pair:
        return (self.model, self.variant)

    @property
    def mean(self) -> float | None:
        return None if self.interval is None else self.interval.mean

    @property
    def failed_count(self) -> int:
        return sum(self.failed.values())

    @property
    def category_means(self) -> dict[str, float | None]:
        return {c: (i.mean if i else None) for c, i in self.category_intervals.items()}

    def as_dict(self) -> dict[str, Any]:
        """The row as ``scorecard.json`` has it (design.md §13), with the counts beside."""
        interval = self.interval
        return {
            "model": self.model,
            "variant": self.variant,
            "n_scored": self.scored,
            "n_failed": self.failed_count,
            "mean": _round(self.mean),
            "ci_low": _round(interval.low if interval else None),
            "ci_high": _round(interval.high if interval else None),
            "categories": {
                c: {
                    "mean": _round(i.mean if i else None),
                    "ci_low": _round(i.low if i else None),
                    "ci_high": _round(i.high if i else None),
                    "n": i.n if i else 0,
                }
                for c, i in self.category_intervals.items()
            },
            "latency_median_s": _round(self.latency_median_s, 3),
            "tokens_per_s": _round(self.tokens_per_s, 1),
            "rank": self.rank,
            "cells": self.cells,
            "red_flags": self.red_flags,
            "safety_red_flags": self.safety_red_flags,
            "unscored": dict(self.unscored),
            "failed": dict(self.failed),
            "open": self.open,
            "unanswered": self.unanswered,
            "truncated": self.truncated,
            "dim_scores": dict(self.dim_scores),
            "dim_error": self.dim_error,
            "judge_models": list(self.judge_models),
            "same_family_as_judge": self.judge_family is not None,
        }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


@dataclass
class Scorecard:
    rows: list[ScoreRow]
    categories: list[str]
    dimensions: list[str]
    judge_models: list[str]
    # The pairs kept (compare.py): every pair of ranked rows when ``comparisons_complete``,
    # else each row against its neighbours in the ranking and the row its rank was decided by.
    comparisons: list[Comparison] = field(default_factory=list)
    comparisons_complete: bool = True
    # How the ranks were split (for the whole card; the comparisons are per pair at 95 %).
    ranks: RankRule = field(default_factory=lambda: RankRule(0))
    # What differences the run can resolve at all (design.md §20); None: no two rows to pair.
    resolution: Resolution | None = None
    # The scale's max - min: no difference of two rows lies beyond it (compare.within_span).
    span: float | None = None
    # How the judge's score moves with the answer's length (quality/length.py).
    length_effect: LengthEffect | None = None
    # The jury that judged the run (design.md §18), None for one judge; set by whoever read the
    # run (``stages.view``), since only the run dir knows its members apart.
    jury: JurySummary | None = None
    # A jury's agreement card (design.md §18), None for one judge: set by the run's reader.
    jury_card: JuryCard | None = None
    # The last judge-check of its judge (or members), set by whoever read the run dir.
    judge_fitness: CardFitness | None = None
    # The run's answer cap (run.json), set by whoever read the run: cut answers' advice.
    max_tokens: int | None = None
    # By (a, b): the matrix asks for every pair of rows, and a scan each time is O(rows⁴).
    _by_pair: dict[tuple[Pair, Pair], Comparison] = field(init=False, repr=False)
    _comparer: Comparer = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_pair = {(c.a, c.b): c for c in self.comparisons}
        self._comparer = Comparer(self.rows, self.span)

    @property
    def mixed_judges(self) -> bool:
        return len(self.judge_models) > 1

    @property
    def ranked(self) -> list[ScoreRow]:
        return [row for row in self.rows if row.rank is not None]

    def comparison(self, a: Pair, b: Pair) -> Comparison | None:
        """The comparison of row ``a`` with row ``b`` (``diff`` = a - b), either way round;
        a pair that is not kept is computed (the same bootstrap, so the same numbers)."""
        found = self._by_pair.get((a, b))
        if found is not None:
            return found
        found = self._by_pair.get((b, a))
        if found is not None:
            return found.reversed()
        return None if self.comparisons_complete else self._comparer(a, b)

    def neighbours(self) -> list[tuple[ScoreRow, Comparison | None, Comparison | None]]:
        """Each ranked row with its comparisons to the rows ranked just above and below."""
        ranked = self.ranked
        return [
            (
                row,
                self.comparison(row.pair, ranked[i - 1].pair) if i else None,
                self.comparison(row.pair, ranked[i + 1].pair) if i + 1 < len(ranked) else None,
            )
            for i, row in enumerate(ranked)
        ]

    def as_dict(self) -> dict[str, Any]:
        """``scorecard.json`` (design.md §13): rows, comparisons, judge models, and the legend."""
        data: dict[str, Any] = {
            "rows": [r.as_dict() for r in self.rows],
            "comparisons": [c.as_dict() for c in self.comparisons],
            "comparisons_complete": self.comparisons_complete,
            "ranks": self.ranks.as_dict(),
        }
        if self.jury is not None:
            data["jury"] = self.jury.as_dict()
        if not self.comparisons_complete:
            n = len(self.ranked)
            data["comparisons_note"] = (
                f"Bei {n} Zeilen mit Rang stehen hier nicht alle {n * (n - 1) // 2} Paare, "
                "sondern jede Zeile gegen die Zeile direkt unter ihr in der Rangliste und das "
                "Paar, das ihren Rang entscheidet (eine Zeile einen Rang darüber, besser für die "
                "ganze Karte: siehe „ranks“). Alle Vergleiche einer Zeile zeigt die GUI auf der "
                "Seite des Runs (GET /api/runs/<run>/comparisons)."
            )
        data.update(
            judge_models=self.judge_models, categories=self.categories, dimensions=self.dimensions
        )
        data["resolution"] = self.resolution.as_dict() if self.resolution else None
        data["length_effect"] = None if self.length_effect is None else self.length_effect.as_dict()
        if self.jury_card is not None:  # beside what else the run says of its jury
            data["jury"] = {**data.get("jury", {}), **self.jury_card.as_dict()}
        fitness_fields(self.judge_fitness, data)
        return data


def _speed(
    latencies: list[float], tokens: int, token_seconds: float
) -> tuple[float | None, float | None]:
    median = statistics.median(latencies) if latencies else None
    rate = tokens / token_seconds if token_seconds > 0 and tokens else None
    return median, rate


def build_scorecard(
    responses: Iterable[EvalResponse],
    verdicts: Iterable[Verdict],
    reports: Iterable[ModelReport] = (),
    *,
    scale_min: int,
    scale_max: int | None = None,
    planned: Mapping[Pair, int] | None = None,
) -> Scorecard:
    """The scorecard; a failed answer (``failure_of``) scores ``scale_min``, the pack's
    scale minimum, in every mean, interval and comparison (design.md §16). ``planned``: the
    cells run.json plans per row; those without an answer yet are open too (a row with none
    answered is shown, all open). ``scale_max``: a mean's interval never reaches past the
    scale (the floors that keep few prompts honest widen it symmetrically, and a mean of
    5,00 on 0..5 read "5,00 ±0,72"); clipped to ``scale_min``..``scale_max``."""
    # Counted with map/Counter/set in C where it can be: at 100k cells a Python loop per
    # record and per statistic is most of a resume's time.
    responses = list(responses)
    verdicts = list(verdicts)
    rows: dict[Pair, ScoreRow] = {}
    for pair, cells in Counter(map(_pair_of, responses)).items():
        rows[pair] = ScoreRow(*pair, cells=cells)
    for pair in [*dict.fromkeys(map(_pair_of, verdicts)), *(planned or {})]:
        if pair not in rows:
            rows[pair] = ScoreRow(*pair)
    categories = dict.fromkeys(map(_category_of, responses))
    categories.update(dict.fromkeys(map(_category_of, verdicts)))
    cut = Counter(map(_pair_of, filter(cut_at_cap, responses)))
    answered = set(map(cell_key, responses))
    judged = Counter(key[:2] for key in answered.intersection(map(cell_key, verdicts)))
    latencies: dict[Pair, list[float]] = {}
    token_totals: Counter[Pair] = Counter()
    token_seconds: dict[Pair, float] = {}
    for resp in responses:
        if resp.ok and resp.latency_s > 0:
            pair = (resp.model, resp.variant)
            latencies.setdefault(pair, []).append(resp.latency_s)
            if resp.completion_tokens:
                token_totals[pair] += resp.completion_tokens
                token_seconds[pair] = token_seconds.get(pair, 0.0) + resp.latency_s
    judges: dict[Pair, dict[str, None]] = {}
    all_judges: dict[str, None] = {}
    for model, variant, judge_model in dict.fromkeys(
        map(_judge_of, (v for v in verdicts if v.judge_model and not v.judge_error))
    ):
        judges.setdefault((model, variant), {})[judge_model] = None
        all_judges[judge_model] = None
    # Per (model, variant, category, prompt): [sum of scores, scored cells, sum of squares].
    sums: dict[tuple[str, str, str, str], list[float]] = {}
    failed: list[Verdict] = []
    for verdict in filter(_unscored, verdicts):
        failure = failure_of(verdict)
        row = rows[(verdict.model, verdict.variant)]
        if failure:
            row.failed[failure] += 1
            failed.append(verdict)
        else:
            row.unscored[verdict.unscored_reason or "unknown"] += 1
    scored = [v for v in verdicts if not v.unscored]
    for verdict in scored:
        _add(sums, _cell_of(verdict), verdict.score)
    for verdict in failed:
        _add(sums, _cell_of(verdict), scale_min)
    for verdict in filter(_red_flagged, scored):
        row = rows[(verdict.model, verdict.variant)]
        row.red_flags += 1
        if verdict.safety_critical:
            row.safety_red_flags += 1
    by_pair: dict[Pair, dict[str, list[float]]] = {}
    by_category: dict[tuple[str, str, str], dict[str, list[float]]] = {}
    for (model, variant, category, prompt_id), acc in sums.items():
        rows[(model, variant)].scored += int(acc[1])
        _merge(by_pair.setdefault((model, variant), {}), prompt_id, acc)
        _merge(by_category.setdefault((model, variant, category), {}), prompt_id, acc)
    report_by_pair = {(r.model, r.variant): r for r in reports}
    dimensions: dict[str, None] = {}
    # A row's (a category's) spread between prompts is floored by what the run's other rows
    # (categories of rows) show (``stats.Pool``): pooled once, each takes its own part out.
    for pair, row in rows.items():
        row.clusters = _clusters(by_pair.get(pair, {}))
    in_category = {key: _clusters(sums) for key, sums in by_category.items()}
    scale = None if scale_max is None else (float(scale_min), float(scale_max))
    row_pool = pool_rows((row.clusters for row in rows.values()), scale)
    category_pool = pool_rows(in_category.values(), scale)
    for pair, row in rows.items():
        row.interval = _on_scale(mean_interval(row.clusters, pool=row_pool), scale_min, scale_max)
        row.category_intervals = {
            c: _on_scale(
                mean_interval(in_category.get((*pair, c), {}), pool=category_pool),
                scale_min,
                scale_max,
            )
            for c in categories
        }
        row.truncated = cut[pair]
        row.unanswered = max(0, (planned or {}).get(pair, 0) - row.cells)
        row.open = row.cells + row.unanswered - judged[pair]
        row.judge_models = list(judges.get(pair, {}))
        # A jury's cells name the jury: every member's family is the judge's.
        members = [model for name in row.judge_models for model in judges_named(name)]
        row.judge_family = same_family(row.model, members)
        row.latency_median_s, row.tokens_per_s = _speed(
            latencies.get(pair, []), token_totals[pair], token_seconds.get(pair, 0.0)
        )
        report = report_by_pair.get(pair)
        if report is not None:
            row.dim_scores = dict(report.dim_scores)
            row.dim_error = report.dim_rationales.get("_error", "")
            for dim in report.dim_scores:
                dimensions.setdefault(dim)
    span = None if scale_max is None else float(scale_max - scale_min)
    ordered, comparisons, complete, rule = compare_rows(list(rows.values()), span)
    means = [
        (row.pair, row.mean) for row in ordered if row.rank is not None and row.mean is not None
    ]
    return Scorecard(
        length_effect=length_effect(responses, scored, means),
        rows=ordered,
        categories=list(categories),
        dimensions=list(dimensions),
        judge_models=list(all_judges),
        comparisons=comparisons,
        comparisons_complete=complete,
        ranks=rule,
        resolution=run_resolution([row.clusters for row in ordered], rule.pairs),
        span=span,
    )


def _add(sums: dict[K, list[float]], key: K, score: float) -> None:
    acc = sums.get(key)
    if acc is None:
        sums[key] = [score, 1, score * score]
    else:
        acc[0] += score
        acc[1] += 1
        acc[2] += score * score


def _merge(sums: dict[K, list[float]], key: K, part: list[float]) -> None:
    acc = sums.get(key)
    if acc is None:
        sums[key] = list(part)
    else:
        acc[0] += part[0]
        acc[1] += part[1]
        acc[2] += part[2]


def _clusters(sums: dict[str, list[float]]) -> dict[str, Cluster]:
    return {
        prompt_id: Cluster(total, int(count), squares)
        for prompt_id, (total, count, squares) in sums.items()
    }


def _on_scale(interval: Interval | None, low: int, high: int | None) -> Interval | None:
    """``interval`` with its bounds inside the scale: the true mean cannot lie outside it."""
    if interval is None or interval.low is None or interval.high is None or high is None:
        return interval
    return Interval(
        interval.mean, max(interval.low, float(low)), min(interval.high, float(high)), interval.n
    )
