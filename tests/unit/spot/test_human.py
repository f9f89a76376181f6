"""Human spot checks (design.md §17): human.jsonl, the sample, the agreement card's figures
against reference computations written out here."""

from __future__ import annotations

import dataclasses
import json
import math
import random
import statistics
from pathlib import Path

import pytest

from tests.conftest import make_verdict
from touchstone.errors import InputError
from touchstone.pack import Scale
from touchstone.results import Verdict, VerdictKey
from touchstone.spot.agreement import MIN_RATINGS, human_agreement, pairs_of
from touchstone.spot.card import figures_de
from touchstone.spot.sample import band, sample_order, to_rate
from touchstone.store import ratings as ratings_module
from touchstone.store.ratings import (
    HUMAN,
    HumanRating,
    append_rating,
    default_rater,
    load_ratings,
    rating_for,
)

SCALE = Scale(min=0, max=5)


def verdict(
    model: str,
    prompt: str,
    score: int,
    *,
    variant: str = "none",
    flag: bool = False,
    repeat: int = 1,
) -> Verdict:
    cell = {"model": model, "variant": variant, "repeat": repeat, "category": "c"}
    return make_verdict(prompt, score, red_flag=flag, rationale="r", **cell)


def rating(v: Verdict, score: int, *, rater: str = "anna", flag: bool = False) -> HumanRating:
    return HumanRating(
        *v.key, score=score, red_flag=flag, rater=rater, rated_at="2026-12-01T08:00:00+01:00"
    )


# --- the figures against reference computations -------------------------------------------


def reference_kappa(pairs: list[tuple[int, int]], low: int, high: int) -> float:
    """Quadratic weighted kappa from the full confusion matrix: 1 - sum(w*O) / sum(w*E)."""
    k = high - low + 1
    n = len(pairs)
    observed = [[0.0] * k for _ in range(k)]
    for a, b in pairs:
        observed[a - low][b - low] += 1 / n
    rows = [sum(observed[i]) for i in range(k)]
    cols = [sum(observed[i][j] for i in range(k)) for j in range(k)]
    weight = [[(i - j) ** 2 / (k - 1) ** 2 for j in range(k)] for i in range(k)]
    num = sum(weight[i][j] * observed[i][j] for i in range(k) for j in range(k))
    den = sum(weight[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k))
    return 1 - num / den


def mixed(seed: int = 3, n: int = 40) -> tuple[list[Verdict], list[HumanRating]]:
    rng = random.Random(seed)
    verdicts, ratings = [], []
    for i in range(n):
        model = ("alpha", "beta")[i % 2]
        human = rng.randint(0, 5)
        judge = max(0, min(5, human + rng.choice((-1, 0, 0, 0, 1))))
        v = verdict(model, f"p{i}", judge, flag=judge <= 1)
        verdicts.append(v)
        ratings.append(rating(v, human, flag=human <= 1 and i % 3 != 0))
    return verdicts, ratings


def test_figures_match_a_reference_computation() -> None:
    verdicts, ratings = mixed()
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None
    pairs = [(v.score, r.score) for v, r in zip(verdicts, ratings, strict=True)]
    assert card.n == 40
    assert card.kappa == pytest.approx(reference_kappa(pairs, 0, 5))
    assert card.exact == pytest.approx(sum(a == b for a, b in pairs) / 40)
    assert card.within_one == pytest.approx(sum(abs(a - b) <= 1 for a, b in pairs) / 40)
    assert card.mean_diff == pytest.approx(statistics.fmean(a - b for a, b in pairs))
    human_flags = [r.red_flag for r in ratings]
    judge_flags = [v.red_flag for v in verdicts]
    assert card.human_flags == sum(human_flags)
    assert card.judge_flags == sum(judge_flags)
    both = sum(h and j for h, j in zip(human_flags, judge_flags, strict=True))
    assert card.judge_raised == card.human_confirmed == both
    for row in card.rows:
        mine = [a - b for (a, b), v in zip(pairs, verdicts, strict=True) if v.model == row.model]
        assert row.n == len(mine)
        assert row.mean_diff == pytest.approx(statistics.fmean(mine))
        assert row.ci is not None and row.ci[0] <= row.mean_diff <= row.ci[1]
    for value, ci in (
        (card.exact, card.exact_ci),
        (card.within_one, card.within_one_ci),
        (card.kappa, card.kappa_ci),
        (card.mean_diff, card.mean_diff_ci),
    ):
        assert ci is not None and value is not None and ci[0] <= value <= ci[1]
    # Reproducible: the same ratings give the same card.
    assert human_agreement(ratings, verdicts, SCALE) == card
    data = card.as_dict()
    assert set(data) >= {
        "n",
        "exact",
        "within_one",
        "kappa",
        "kappa_ci",
        "mean_diff",
        "verdict",
        "rows",
    }
    assert set(data["rows"][0]) >= {"model", "variant", "n", "mean_diff", "ci_low", "ci_high"}
    json.dumps(data)


def test_a_jurys_half_points_are_figured_like_any_other_score() -> None:
    # A jury of two gives the mean of both (3.5): exact agreement with a whole-number rating
    # is then impossible, within one and the kappa still hold (the kappa on the grid of half
    # points: doubling every score leaves a quadratic weighted kappa as it is).
    rng = random.Random(8)
    verdicts, ratings = [], []
    for i in range(30):
        human = rng.randint(0, 5)
        judge = min(5.0, max(0.0, human + rng.choice((-1.5, -0.5, 0.5, 0.5, 1.5))))
        v = verdict(("alpha", "beta")[i % 2], f"p{i}", 0)
        v = dataclasses.replace(v, score=judge)
        verdicts.append(v)
        ratings.append(rating(v, human))
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None and card.n == 30
    pairs = [(v.score, r.score) for v, r in zip(verdicts, ratings, strict=True)]
    doubled = [(int(2 * a), 2 * b) for a, b in pairs]
    assert card.kappa == pytest.approx(reference_kappa(doubled, 0, 10))
    # Exact agreement is counted where it can happen: where the scale's ends cut a half
    # point off and the judge's score is a whole point.
    whole = [(a, b) for a, b in pairs if a == int(a)]
    assert card.exact == pytest.approx(sum(a == b for a, b in whole) / len(whole))
    assert card.within_one == pytest.approx(sum(abs(a - b) <= 1 for a, b in pairs) / 30)
    assert card.mean_diff == pytest.approx(statistics.fmean(a - b for a, b in pairs))


def test_a_close_judge_is_confirmed() -> None:
    verdicts, ratings = [], []
    for i in range(36):
        human = i % 6
        judge = human if i % 5 else min(5, human + 1)
        v = verdict(("alpha", "beta", "gamma")[i % 3], f"p{i}", judge)
        verdicts.append(v)
        ratings.append(rating(v, human))
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None and card.verdict == "bestätigt", card.reasons
    assert card.verdict_de() == "Judge bestätigt"


def test_a_judge_lenient_to_one_model_deviates() -> None:
    verdicts, ratings = [], []
    for i in range(40):
        model = ("alpha", "beta")[i % 2]
        human = i % 5
        v = verdict(model, f"p{i}", min(5, human + 2) if model == "alpha" else human)
        verdicts.append(v)
        ratings.append(rating(v, human))
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None and card.verdict == "weicht ab"
    text = card.verdict_de()
    assert text.startswith("Judge weicht ab: ")
    assert "bewertet alpha 1,8 Punkte milder als Sie, beta wie Sie" in text


def test_the_card_counts_cells_and_ratings_apart_with_several_raters() -> None:
    from touchstone.spot.card import figures_de

    verdicts, ratings = mixed(n=12)
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None
    assert figures_de(card)[0] == ("Bewertet", "12 Zellen von anna")
    # A second rater of 5 of the same cells: 17 ratings, still 12 cells.
    both = ratings + [dataclasses.replace(r, rater="bernd") for r in ratings[:5]]
    card = human_agreement(both, verdicts, SCALE)
    assert card is not None and card.n == 17
    assert figures_de(card)[0] == ("Bewertet", "17 Bewertungen (12 Zellen) von anna, bernd")


def test_fewer_than_ten_ratings_are_too_few() -> None:
    verdicts, ratings = mixed(n=MIN_RATINGS - 1)
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None and card.verdict == "zu wenige"
    assert card.verdict_de().startswith("zu wenige Bewertungen (9 von mindestens 10)")
    assert human_agreement([], verdicts, SCALE) is None


def test_ratings_of_unscored_cells_are_not_pairs() -> None:
    v = verdict("alpha", "p1", 0)
    unscored = dataclasses.replace(v, prompt_id="p2", unscored=True)
    card = human_agreement([rating(v, 0), rating(unscored, 3)], [v, unscored], SCALE)
    assert card is not None and card.n == 1 and card.without_verdict == 1
    assert len(pairs_of([rating(unscored, 3)], [unscored])) == 0


# --- the sample ---------------------------------------------------------------------------


def run_verdicts() -> list[Verdict]:
    out = []
    for model in ("alpha", "beta", "gamma"):
        for variant in ("none", "kurz"):
            for i in range(30):
                # Mostly high scores, few low ones: the sample must still reach the low ones.
                score = 0 if i < 3 else (2 if i < 8 else 5)
                out.append(verdict(model, f"p{i:02d}", score, variant=variant))
    return out


def test_the_sample_is_deterministic_stratified_and_extends_itself() -> None:
    verdicts = run_verdicts()
    order = sample_order(verdicts, SCALE)
    assert order == sample_order(list(reversed(verdicts)), SCALE)
    assert len(order) == len(verdicts) == len(set(order))
    first = order[:30]
    rows = {(k.model, k.variant) for k in first}
    assert len(rows) == 6
    scores = {(v.model, v.variant, v.prompt_id, v.repeat): v.score for v in verdicts}
    bands = [band(scores[tuple(k)], SCALE) for k in first]  # type: ignore[index]
    # Each band is reached about equally often although low scores are 10 % of the run.
    assert min(bands.count(b) for b in (0, 1, 2)) >= 8
    # The first 30 of a 60-sample are the 30-sample; rated cells are not asked again.
    assert to_rate(order, 60, set())[:30] == to_rate(order, 30, set())
    assert to_rate(order, 30, set(first[:10])) == first[10:]


def test_disputed_cells_come_first() -> None:
    verdicts = run_verdicts()
    disputed = {VerdictKey("beta", "kurz", "p29", 1), VerdictKey("gamma", "none", "p20", 1)}
    order = sample_order(verdicts, SCALE, disputed=disputed)
    assert set(order[:2]) == disputed
    assert sorted(order) == sorted(sample_order(verdicts, SCALE))


def test_unscored_cells_are_not_sampled() -> None:
    v = verdict("alpha", "p1", 3)
    unscored = dataclasses.replace(v, prompt_id="p2", unscored=True)
    assert sample_order([v, unscored], SCALE) == [VerdictKey("alpha", "none", "p1", 1)]


# --- storage ------------------------------------------------------------------------------


def test_ratings_append_and_the_last_of_a_rater_wins(tmp_path: Path) -> None:
    key = VerdictKey("alpha", "none", "p1", 1)
    for score, rater in ((2, "anna"), (4, "bernd"), (3, "anna")):
        append_rating(
            tmp_path,
            rating_for(key, score=score, red_flag=False, note="", rater=rater, scale=SCALE),
        )
    lines = (tmp_path / HUMAN).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    record = json.loads(lines[0])
    assert set(record) == {
        "model",
        "variant",
        "prompt_id",
        "repeat",
        "score",
        "red_flag",
        "note",
        "rater",
        "rated_at",
    }
    assert "+" in record["rated_at"] or "-" in record["rated_at"][19:] or "Z" in record["rated_at"]
    kept = load_ratings(tmp_path / HUMAN, SCALE, pytest.fail)
    assert sorted((r.rater, r.score) for r in kept) == [("anna", 3), ("bernd", 4)]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{kaputt", "kein gültiges JSON"),
        ('{"model": "a"}', "fehlerhafter Datensatz"),
        ("[1, 2]", "erwartet ein JSON-Objekt"),
        (
            '{"model": "a", "variant": "none", "prompt_id": "p", "repeat": 1, "score": 9, '
            '"red_flag": false, "rater": "x", "rated_at": "2026-12-01T08:00:00+00:00"}',
            "„score“ ist 9, liegt aber außerhalb der Skala 0–5",
        ),
        (
            '{"model": "a", "variant": "none", "prompt_id": "p", "repeat": 1, "score": 2, '
            '"red_flag": false, "rater": "x", "rated_at": "gestern"}',
            "„rated_at“ ist keine ISO-Zeitangabe",
        ),
        # Wrong JSON types are named, never read as something else (true as 1, "3" as 3).
        *(
            (
                '{"model": "a", "variant": "none", "prompt_id": "p", "repeat": 1, '
                f'"rater": "x", "rated_at": "2026-12-01T08:00:00+00:00", {fields}}}',
                problem,
            )
            for fields, problem in (
                ('"score": true, "red_flag": false', "„score“ muss eine ganze Zahl sein"),
                ('"score": "3", "red_flag": false', "„score“ muss eine ganze Zahl sein"),
                ('"score": 3.0, "red_flag": false', "„score“ muss eine ganze Zahl sein"),
                ('"score": 3, "red_flag": "true"', "„red_flag“ muss true oder false sein"),
                ('"score": 3, "red_flag": 1', "„red_flag“ muss true oder false sein"),
            )
        ),
    ],
)
def test_a_broken_line_is_named_with_file_and_line(tmp_path: Path, line: str, problem: str) -> None:
    good = json.dumps(rating(verdict("a", "p", 2), 2).as_dict())
    path = tmp_path / HUMAN
    path.write_text(f"{good}\n{line}\n{good}\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_ratings(path, SCALE, pytest.fail)
    assert f"{path}, Zeile 2: " in str(caught.value)
    assert problem in str(caught.value)


def test_a_truncated_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    good = json.dumps(rating(verdict("a", "p", 2), 2).as_dict())
    path = tmp_path / HUMAN
    path.write_text(f"{good}\n{good[:30]}", encoding="utf-8")
    warnings: list[str] = []
    assert len(load_ratings(path, SCALE, warnings.append)) == 1
    assert "Zeile 2 ist unvollständig" in warnings[0]
    # The next append cuts the broken tail off first.
    append_rating(tmp_path, rating(verdict("a", "q", 2), 2))
    assert len(load_ratings(path, SCALE, pytest.fail)) == 2


def test_ratings_of_cells_the_run_lacks_are_warned_and_left_out(tmp_path: Path) -> None:
    path = tmp_path / HUMAN
    append_rating(tmp_path, rating(verdict("a", "p", 2), 2))
    warnings: list[str] = []
    kept = load_ratings(path, SCALE, warnings.append, cells=[VerdictKey("b", "none", "p", 1)])
    assert kept == [] and "ohne Antwort im Run" in warnings[0]


def test_rater_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratings_module.getpass, "getuser", lambda: "anna")
    assert default_rater() == "anna"

    def no_user() -> str:
        raise OSError("no passwd entry")

    monkeypatch.setattr(ratings_module.getpass, "getuser", no_user)
    with pytest.raises(InputError, match="--rater NAME"):
        default_rater()
    key = VerdictKey("a", "none", "p", 1)
    for bad in ("", "a\nb", "x" * 200, "\x1b[31m"):
        with pytest.raises(InputError, match="Ungültiger Name"):
            rating_for(key, score=1, red_flag=False, note="", rater=bad, scale=SCALE)
    with pytest.raises(InputError, match="außerhalb der Skala"):
        rating_for(key, score=6, red_flag=False, note="", rater="anna", scale=SCALE)


# --- honest small samples -------------------------------------------------------------------


def _one_row(diffs: list[int]) -> tuple[list[Verdict], list[HumanRating]]:
    verdicts, ratings = [], []
    for i, diff in enumerate(diffs):
        v = verdict("alpha", f"p{i}", 2 + diff)
        verdicts.append(v)
        ratings.append(rating(v, 2))
    return verdicts, ratings


def test_a_rows_interval_is_no_narrower_than_students_t_with_few_ratings() -> None:
    # Five ratings: a percentile bootstrap covers ~85 %, too narrow for 95 %.
    diffs = [1, 1, 2, 0, 1]
    card = human_agreement(*_one_row(diffs)[::-1], SCALE)
    assert card is not None and card.rows[0].ci is not None
    low, high = card.rows[0].ci
    # t with 4 degrees of freedom (printed tables: 2.7764).
    half = 2.7764 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    assert high - low >= 2 * half * 0.999


def test_identical_differences_still_have_an_interval() -> None:
    # Five times one point milder: integer scores hide up to half a point each, so five
    # equal differences do not prove the judge is exactly one point milder.
    card = human_agreement(*_one_row([1] * 5)[::-1], SCALE)
    assert card is not None and card.rows[0].ci is not None
    low, high = card.rows[0].ci
    assert low < 1 < high


def test_rows_differ_only_beyond_welchs_t_interval() -> None:
    verdicts, ratings = [], []
    # alpha one point milder than beta on five cells each, with noise: the percentile
    # bootstrap of the two rows' replicates called this a difference; Welch's t does not.
    for i, (a, b) in enumerate(zip([1, 1, 0, 1, 2], [0, 0, -1, 0, 1], strict=True)):
        for model, diff in (("alpha", a), ("beta", b)):
            v = verdict(model, f"p{i}", 2 + diff)
            verdicts.append(v)
            ratings.append(rating(v, 2))
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None
    welch = 1.0 / math.sqrt(2 * statistics.variance([1, 1, 0, 1, 2]) / 5)
    assert 2.2 < welch < 2.306  # t with 8 df: 2.306; the difference is not significant
    assert not any("Rangfolge" in reason for reason in card.reasons)


def test_no_exact_agreement_is_not_an_interval_of_zero_width() -> None:
    verdicts, ratings = [], []
    for i in range(30):
        v = verdict(("alpha", "beta")[i % 2], f"p{i}", 1 + i % 4)
        verdicts.append(v)
        ratings.append(rating(v, i % 4))
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None and card.exact == 0 and card.within_one == 1
    # Clopper-Pearson for 0 and 30 of 30: 1 - 0.025 ** (1 / 30) = 0.1157.
    assert card.exact_ci == pytest.approx((0.0, 1 - 0.025 ** (1 / 30)))
    assert card.within_one_ci == pytest.approx((0.025 ** (1 / 30), 1.0))


def test_a_jurys_half_points_are_said_to_be_never_exactly_equal() -> None:
    verdicts, ratings = [], []
    for i in range(12):
        v = verdict(("alpha", "beta")[i % 2], f"p{i}", 2)
        half = dataclasses.replace(v, score=2.5 if i % 3 else 2)
        verdicts.append(half)
        ratings.append(rating(v, 2))
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None and card.judge_halves == 8
    exact = dict(figures_de(card))["Genau gleich"]
    # Of the 4 whole points all 4 agree; the 8 halves are not counted as disagreements.
    assert exact.startswith("100 % der 4 Wertungen auf ganzen Punkten [")
    assert "die übrigen 8 Jury-Wertungen liegen auf halben Punkten und sind nicht gezählt" in exact


def test_a_jury_entirely_on_half_points_shows_no_exact_agreement() -> None:
    # The card: "Genau gleich 0 % (95 %: 0 %–12 %)" over medians that all lie
    # between two points, an event that cannot happen.
    verdicts, ratings = [], []
    for i in range(30):
        v = verdict(("alpha", "beta")[i % 2], f"p{i}", 2)
        verdicts.append(dataclasses.replace(v, score=1.5 + i % 3))
        ratings.append(rating(v, 1 + i % 3 + (i % 2)))
    card = human_agreement(ratings, verdicts, SCALE)
    assert card is not None and card.judge_halves == 30
    assert card.exact is None and card.exact_ci is None
    exact = dict(figures_de(card))["Genau gleich"]
    assert exact.startswith("– (alle 30 Jury-Wertungen liegen auf halben Punkten")
    assert "%" not in exact
    assert card.as_dict()["exact"] is None


def test_ratings_without_a_single_scored_cell_show_no_figures() -> None:
    unscored = dataclasses.replace(verdict("alpha", "p1", 0), unscored=True)
    card = human_agreement([rating(unscored, 3)], [unscored], SCALE)
    assert card is not None and card.n == 0
    assert [label for label, _ in figures_de(card)] == ["Bewertet"]
    data = card.as_dict()
    assert (data["exact"], data["within_one"], data["mean_diff"]) == (None, None, None)
