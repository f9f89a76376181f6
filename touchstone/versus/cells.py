"""Which cells of two runs are compared: rows matched, prompts shared with the same rubric.

A row of the new run meets the row of the baseline with the same (model, variant), or the
model ``--pair NEW=OLD`` names. Its cells are compared over the prompts both runs judged by
the same rubric (the hash a verdict stores: ``judge.rubric.rubric_hash``); a prompt both runs
judged by different rubrics is left out and counted, one only one run has is left out too.
Per compared prompt, a row's scores are summed as the scorecard sums them: a judged score as
it is, a failed answer (``results.failure_of``) as the scale's minimum (design.md §16), a
judge-side gap (judge error, unreadable reply) not at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from touchstone.advice import close_names
from touchstone.errors import InputError
from touchstone.judge.rubric import RubricHashes
from touchstone.pack import Pack
from touchstone.results import Verdict, failure_of
from touchstone.stats.intervals import Cluster

Pair = tuple[str, str]
_PromptKey = tuple[str, str]  # variant, prompt id


Surface = Literal["cli", "gui"]

# A pairing as each surface names it, and where it is made (the GUI names what to choose).
_PAIRING = {"cli": "--pair „{spec}“", "gui": "Paarung „{spec}“"}
_PAIR_WHERE = {
    "cli": "z. B. --pair gpt-neu=gpt-alt",
    "gui": "wählen Sie das Paar unter „Modell paaren“",
}


def parse_pairs(
    specs: Sequence[str],
    new_models: Iterable[str],
    baseline_models: Iterable[str],
    surface: Surface = "cli",
) -> dict[str, str]:
    """``--pair NEW=OLD`` options (the GUI's pairings) as {new model: baseline model}; a model
    that is in neither run, or a spec without ``=``, is bad input naming it in the words of
    ``surface``."""
    new_known, old_known = sorted(set(new_models)), sorted(set(baseline_models))
    where = _PAIR_WHERE[surface]
    pairs: dict[str, str] = {}
    for spec in specs:
        # The GUI shows a pairing as its dropdown does ("neu = alt").
        shown = _PAIRING[surface].format(spec=spec if surface == "cli" else _spaced(spec))
        new, sep, old = spec.partition("=")
        new, old = new.strip(), old.strip()
        if not sep or not new or not old:
            expected = "NEUES_MODELL=ALTES_MODELL" if surface == "cli" else "neues = altes Modell"
            raise InputError(f"{shown}: erwartet wird {expected}, {where}.")
        for name, known, side in (
            (new, new_known, "im neuen Run"),
            (old, old_known, "in der Baseline"),
        ):
            if name not in known:
                close = close_names(name, known)
                hint = (
                    "Meinten Sie " + " oder ".join(f"„{c}“" for c in close) + "?"
                    if close
                    else f"Modelle dort: {', '.join(known) or '–'}."
                )
                tail = "" if surface == "cli" else f" Bitte {where}."
                raise InputError(f"{shown}: kein Modell „{name}“ {side}. {hint}{tail}")
        if new in pairs:
            raise InputError(
                f"--pair: das Modell „{new}“ ist zweimal gepaart."
                if surface == "cli"
                else f"Das Modell „{new}“ ist zweimal gepaart; {where}, je Modell eines."
            )
        pairs[new] = old
    taken = list(pairs.values())
    twice = sorted({old for old in taken if taken.count(old) > 1})
    if twice:
        raise InputError(
            f"--pair: das Baseline-Modell „{twice[0]}“ ist zweimal gepaart."
            if surface == "cli"
            else f"Das Baseline-Modell „{twice[0]}“ ist zweimal gepaart; {where}, je Modell eines."
        )
    # A model of the new run not re-paired meets the baseline's model of its name: a pair onto
    # that name would take the baseline's row a second time.
    for new, old in pairs.items():
        if old in new_known and old not in pairs:
            if surface == "gui":
                raise InputError(
                    f"Paarung „{new} = {old}“: das Baseline-Modell „{old}“ ist schon mit "
                    f"„{old}“ des neuen Runs (gleichen Namens) gepaart. Entfernen Sie diese "
                    f"Paarung und wählen Sie unter „Modell paaren“ ein anderes Modell."
                )
            raise InputError(
                f"--pair {new}={old}: das Baseline-Modell „{old}“ ist zweimal gepaart, mit "
                f"„{new}“ und mit „{old}“ des neuen Runs (gleichen Namens). Paaren Sie auch "
                f"„{old}“ neu (z. B. --pair {old}={new}) oder lassen Sie dieses --pair weg."
            )
    return pairs


def _spaced(spec: str) -> str:
    new, sep, old = spec.partition("=")
    return f"{new.strip()} = {old.strip()}" if sep else spec


def match_rows(
    new_rows: Iterable[Pair], baseline_rows: Iterable[Pair], pairs: Mapping[str, str]
) -> list[tuple[Pair, Pair]]:
    """(new row, baseline row) for every new row whose (model, variant), or whose model as
    ``pairs`` renames it, is a row of the baseline; in the new run's order."""
    old = set(baseline_rows)
    matched = []
    for model, variant in new_rows:
        partner = (pairs.get(model, model), variant)
        if partner in old:
            matched.append(((model, variant), partner))
    return matched


def rubrics(verdicts: Iterable[Verdict], pack: Pack) -> dict[_PromptKey, set[str]]:
    """Per (variant, prompt): the rubric hashes the run's verdicts were judged by; a verdict
    without one (written by an older touchstone) by the rubric its pack gives now."""
    prompts = {prompt.id: prompt for _, prompt in pack.all_prompts()}
    current = RubricHashes(pack)
    found: dict[_PromptKey, set[str]] = {}
    for verdict in verdicts:
        rubric = verdict.rubric_hash
        if not rubric and verdict.prompt_id in prompts:
            rubric = current(prompts[verdict.prompt_id], verdict.variant)
        found.setdefault((verdict.variant, verdict.prompt_id), set()).add(rubric)
    return found


@dataclass
class PromptSets:
    """Which prompts both runs share, and which of those the rubric keeps apart."""

    # Per (variant, prompt): the rubric hashes both runs judged by.
    common: dict[_PromptKey, set[str]] = field(default_factory=dict)
    shared: set[str] = field(default_factory=set)
    changed: set[str] = field(default_factory=set)
    new_only: set[str] = field(default_factory=set)
    baseline_only: set[str] = field(default_factory=set)

    @classmethod
    def of(
        cls,
        new: Mapping[_PromptKey, set[str]],
        baseline: Mapping[_PromptKey, set[str]],
        variants: Iterable[str],
    ) -> PromptSets:
        """Over the matched rows' ``variants``: a prompt counts as changed when, in some
        variant both runs judged, no rubric of one run is a rubric of the other."""
        sets = cls()
        wanted = set(variants)
        new_ids = {p for v, p in new if v in wanted}
        old_ids = {p for v, p in baseline if v in wanted}
        for key in new.keys() & baseline.keys():
            if key[0] not in wanted:
                continue
            same = new[key] & baseline[key]
            if same:
                sets.common[key] = same
            else:
                sets.changed.add(key[1])
        # A prompt judged by the same rubric in one variant and by another in a second is
        # compared where it can be, and counted as changed too: some of its cells are out.
        sets.shared = {p for _, p in sets.common}
        sets.new_only = new_ids - old_ids
        sets.baseline_only = old_ids - new_ids
        return sets


@dataclass
class RowCells:
    """One row's compared cells: per prompt and per (category, prompt) the scores' sums,
    and the red flags and failed answers among them."""

    clusters: dict[str, Cluster] = field(default_factory=dict)
    by_category: dict[str, dict[str, Cluster]] = field(default_factory=dict)
    cells: int = 0
    red_flags: int = 0
    safety_red_flags: int = 0
    failed: int = 0
    judges: dict[str, None] = field(default_factory=dict)


def row_cells(
    verdicts: Iterable[Verdict],
    pack: Pack,
    common: Mapping[_PromptKey, set[str]],
    *,
    scale_min: int,
) -> dict[Pair, RowCells]:
    """Each row's cells on the ``common`` prompts, judged by one of the rubrics both runs
    share there."""
    prompts = {prompt.id: prompt for _, prompt in pack.all_prompts()}
    current = RubricHashes(pack)
    scores: dict[Pair, dict[tuple[str, str], list[float]]] = {}
    rows: dict[Pair, RowCells] = {}
    for verdict in verdicts:
        allowed = common.get((verdict.variant, verdict.prompt_id))
        if allowed is None:
            continue
        rubric = verdict.rubric_hash
        if not rubric and verdict.prompt_id in prompts:
            rubric = current(prompts[verdict.prompt_id], verdict.variant)
        if rubric not in allowed:
            continue
        failure = failure_of(verdict)
        if verdict.unscored and not failure:
            continue  # a gap of the judge: in no mean, as in the scorecard
        pair = (verdict.model, verdict.variant)
        row = rows.get(pair)
        if row is None:
            row = rows[pair] = RowCells()
        row.cells += 1
        if failure:
            row.failed += 1
            score = float(scale_min)
        else:
            score = float(verdict.score)
            if verdict.judge_model:
                row.judges[verdict.judge_model] = None
            if verdict.red_flag:
                row.red_flags += 1
                row.safety_red_flags += verdict.safety_critical
        scores.setdefault(pair, {}).setdefault((verdict.category, verdict.prompt_id), []).append(
            score
        )
    for pair, cells in scores.items():
        row = rows[pair]
        for (category, prompt_id), values in cells.items():
            cluster = Cluster.of(values)
            row.by_category.setdefault(category, {})[prompt_id] = cluster
            known = row.clusters.get(prompt_id)
            row.clusters[prompt_id] = (
                cluster
                if known is None
                else Cluster(
                    known.total + cluster.total,
                    known.count + cluster.count,
                    (known.squares or 0.0) + (cluster.squares or 0.0),
                )
            )
    return rows
