"""Agreement among a jury's judges (design.md §18): the figures against reference computations."""

from __future__ import annotations

import itertools
import random
import statistics

import pytest

from touchstone.quality.jury_agreement import (
    alpha,
    alpha_interval,
    disputed_cells,
    mean_without,
    member_means,
    paired_cells,
    pairwise_kappas,
    same_family_means,
)
from touchstone.stats.alpha import krippendorff_alpha
from touchstone.stats.kappa import weighted_kappa

N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers
# (rows), 12 units (columns), values 1..5, missing values. Published: nominal 0.743,
# ordinal 0.815, interval 0.849.
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]
# The example of Wikipedia's "Krippendorff's alpha" (3 coders, 15 units); the `krippendorff`
# package's tests give nominal 0.691358 and interval 0.810845.
WIKI = [
    [N, N, N, N, N, 3, 4, 1, 2, 1, 1, 3, 3, N, 3],
    [1, N, 2, 1, 3, 3, 4, 3, N, N, N, N, N, N, N],
    [N, N, 2, 1, 3, 4, 4, N, 2, 1, 1, 3, 3, N, 4],
]


def units(data: list[list[int | None]]) -> list[list[int]]:
    return [[row[i] for row in data if row[i] is not None] for i in range(len(data[0]))]


def cells_of(data: list[list[int | None]]) -> dict[int, dict[str, float]]:
    return {
        unit: {f"r{r}": float(row[unit]) for r, row in enumerate(data) if row[unit] is not None}
        for unit in range(len(data[0]))
    }


def brute_alpha(data: list[list[int]], metric: str) -> float:
    """Alpha from its pair definition, apart from the coincidence matrix: every ordered pair
    of values within a unit weighs 1/(m-1) (observed), every ordered pair of pairable values
    of different positions overall is expected; the ordinal distance sums the value counts
    over the value domain between the two values."""
    pairable = [u for u in data if len(u) >= 2]
    values = [v for u in pairable for v in u]
    n = len(values)
    domain = range(min(values), max(values) + 1)
    freq = {g: values.count(g) for g in domain}

    def delta(c: int, k: int) -> float:
        if metric == "nominal":
            return float(c != k)
        if metric == "interval":
            return float((c - k) ** 2)
        low, high = min(c, k), max(c, k)
        return (sum(freq[g] for g in range(low, high + 1)) - (freq[c] + freq[k]) / 2) ** 2

    observed = sum(
        delta(u[i], u[j]) / (len(u) - 1)
        for u in pairable
        for i, j in itertools.permutations(range(len(u)), 2)
    )
    expected = sum(delta(values[i], values[j]) for i, j in itertools.permutations(range(n), 2))
    return 1 - (n - 1) * observed / expected


@pytest.mark.parametrize(
    ("metric", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_alpha_reproduces_krippendorffs_worked_example(metric: str, published: float) -> None:
    value = krippendorff_alpha(units(K2011), metric)  # type: ignore[arg-type]
    assert value is not None
    assert round(value, 3) == published


def test_alpha_reproduces_the_krippendorff_package_on_wikipedias_example() -> None:
    assert round(krippendorff_alpha(units(WIKI), "nominal") or 0, 6) == 0.691358
    assert round(krippendorff_alpha(units(WIKI), "interval") or 0, 6) == 0.810845


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval"])
def test_alpha_matches_the_pair_definition_on_random_juries(metric: str) -> None:
    rng = random.Random(7)
    for _ in range(20):
        raters = rng.randint(2, 5)
        data = [
            [rng.randint(0, 5) for _ in range(raters) if rng.random() < 0.8]
            for _ in range(rng.randint(3, 25))
        ]
        if len({v for u in data if len(u) >= 2 for v in u}) < 2:
            continue
        assert krippendorff_alpha(data, metric) == pytest.approx(  # type: ignore[arg-type]
            brute_alpha(data, metric)
        )


def test_alpha_over_cells_is_ordinal_and_ignores_cells_one_member_scored() -> None:
    cells = cells_of(K2011)
    assert alpha(cells) == pytest.approx(0.8153875, abs=1e-6)
    assert paired_cells(cells) == 11  # the 12th unit has one value
    with_singles = {**cells, "x": {"r0": 5.0}, "y": {}}
    assert alpha(with_singles) == alpha(cells)


def test_alpha_is_one_for_full_agreement_and_undefined_for_one_score_throughout() -> None:
    same = {i: {"a": float(i % 5), "b": float(i % 5), "c": float(i % 5)} for i in range(10)}
    assert alpha(same) == 1.0
    assert alpha({i: {"a": 3.0, "b": 3.0} for i in range(10)}) is None
    assert alpha({}) is None
    assert alpha({1: {"a": 2.0}}) is None


def test_alpha_interval_holds_alpha_is_seeded_and_needs_two_cells() -> None:
    rng = random.Random(3)
    cells = {}
    for i in range(60):
        truth = rng.randint(0, 5)
        cells[i] = {m: float(min(5, max(0, truth + rng.choice((-1, 0, 0, 1))))) for m in "abc"}
    value = alpha(cells)
    interval = alpha_interval(cells, seed=1)
    assert value is not None and interval is not None
    low, high = interval
    assert low < value < high
    assert high - low < 0.4
    assert alpha_interval(cells, seed=1) == interval
    assert alpha_interval({1: {"a": 1.0, "b": 2.0}}) is None


def test_pairwise_kappa_is_the_weighted_kappa_on_the_cells_both_scored() -> None:
    cells = {
        1: {"a": 5.0, "b": 4.0, "c": 5.0},
        2: {"a": 3.0, "b": 2.0},
        3: {"a": 1.0, "c": 2.0},
        4: {"a": 4.0, "b": 4.0, "c": 3.0},
        5: {"b": 0.0, "c": 1.0},
    }
    kappas = pairwise_kappas(cells, ["a", "b", "c"], 0, 5)
    assert [(k.a, k.b, k.cells) for k in kappas] == [("a", "b", 3), ("a", "c", 3), ("b", "c", 3)]
    assert kappas[0].kappa == weighted_kappa([(5, 4), (3, 2), (4, 4)], 0, 5)
    assert kappas[2].kappa == weighted_kappa([(4, 5), (4, 3), (0, 1)], 0, 5)
    # By hand: a-c on (5,5), (1,2), (4,3): observed 2/25 / 3, expected from the margins.
    observed = (0 + 1 + 1) / 3
    expected = sum((x - y) ** 2 for x in (5, 1, 4) for y in (5, 2, 3)) / 9
    assert kappas[1].kappa == pytest.approx(1 - observed / expected)
    assert pairwise_kappas({1: {"a": 1.0}}, ["a", "b"], 0, 5)[0].kappa is None


def test_member_means_show_the_harsh_member_also_on_shared_cells() -> None:
    cells = {
        1: {"mild": 5.0, "harsh": 3.0},
        2: {"mild": 4.0, "harsh": 2.0},
        3: {"mild": 1.0},  # only the mild one: its own mean drops, the shared one does not
    }
    mild, harsh = member_means(cells, ["mild", "harsh"])
    assert (mild.mean, mild.scored, mild.common_mean) == (pytest.approx(10 / 3), 3, 4.5)
    assert (harsh.mean, harsh.scored, harsh.common_mean) == (2.5, 2, 2.5)
    (only,) = member_means({1: {"a": 1.0}}, ["absent"])
    assert (only.mean, only.scored, only.common_mean) == (None, 0, None)


def test_disputed_cells_span_at_least_forty_percent_of_the_scale_widest_first() -> None:
    cells = {
        "one_apart": {"a": 3.0, "b": 4.0},
        "two_apart": {"a": 1.0, "b": 3.0, "c": 2.0},  # 2 of 5 = 40 %: disputed
        "four_apart": {"a": 0.0, "b": 4.0},
        "alone": {"a": 0.0},
    }
    assert disputed_cells(cells, 0, 5) == ["four_apart", "two_apart"]
    # 0..100: 40 points is 40 % exactly (no float rounding lets it slip), 39 is not.
    assert disputed_cells({"x": {"a": 10.0, "b": 50.0}, "y": {"a": 0.0, "b": 39.0}}, 0, 100) == [
        "x"
    ]
    assert disputed_cells({"x": {"a": 1.0, "b": 3.0}}, 1, 10) == []  # 2 of 9


def test_mean_without_leaves_out_members_and_counts_failed_answers_with_the_floor() -> None:
    cells = {1: {"q": 5.0, "g": 3.0, "m": 4.0}, 2: {"q": 4.0, "g": 2.0}, 3: {"q": 5.0}}
    assert mean_without(cells, ()) == pytest.approx((4 + 3 + 5) / 3)
    assert mean_without(cells, ("q",)) == pytest.approx((3.5 + 2) / 2)
    assert mean_without(cells, ("q", "g", "m")) is None
    assert mean_without(cells, ("q",), floor_cells=2, floor=0.0) == pytest.approx(5.5 / 4)
    assert mean_without(cells, (), aggregate=statistics.fmean) == pytest.approx((4 + 3 + 5) / 3)


def test_same_family_means_leave_out_the_rows_own_family_only_with_two_families() -> None:
    cells = {
        ("qwen2.5-7b", "base", "p1"): {"qwen-judge": 5.0, "gemma-judge": 3.0},
        ("qwen2.5-7b", "base", "p2"): {"qwen-judge": 5.0, "gemma-judge": 4.0},
        ("llama-3", "base", "p1"): {"qwen-judge": 4.0, "gemma-judge": 4.0},
        ("gemma-2", "base", "p1"): {"gemma-judge": 5.0},
    }
    families = {"qwen-judge": "qwen", "gemma-judge": "gemma"}
    rows = {
        ("qwen2.5-7b", "base"): "qwen",
        ("llama-3", "base"): "llama",
        ("gemma-2", "base"): "gemma",
    }
    qwen, llama, gemma = same_family_means(
        cells, lambda key: (key[0], key[1]), rows, families, failed={("qwen2.5-7b", "base"): 1}
    )
    assert qwen.row == ("qwen2.5-7b", "base")
    assert qwen.mean == pytest.approx((4 + 4.5 + 0) / 3)  # median of two, a failed cell at 0
    assert qwen.without_own_family == pytest.approx((3 + 4 + 0) / 3)
    assert (llama.mean, llama.without_own_family, llama.excluded) == (4.0, 4.0, 0)
    assert (gemma.mean, gemma.without_own_family) == (5.0, None)  # only its own family judged
    assert (qwen.excluded, gemma.excluded) == (1, 1)
    # A member of the row's family that scored none of its cells leaves nothing out.
    idle = same_family_means(
        cells, lambda key: (key[0], key[1]), rows, {**families, "llama-judge": "llama"}
    )
    assert idle[1].excluded == 0
    one_family = {"qwen-judge": "qwen", "qwen-big": "qwen", "odd": None}
    assert same_family_means(cells, lambda key: (key[0], key[1]), rows, one_family) == []


def test_shared_cells_can_be_those_of_the_active_members() -> None:
    cells = {1: {"a": 4.0, "b": 2.0, "gone": 3.0}, 2: {"a": 2.0, "b": 2.0}}
    a, b, gone = member_means(cells, ["a", "b", "gone"], shared_by=["a", "b"])
    assert (a.common_mean, b.common_mean, gone.common_mean) == (3.0, 2.0, 3.0)
    a, _, _ = member_means(cells, ["a", "b", "gone"])
    assert a.common_mean == 4.0
