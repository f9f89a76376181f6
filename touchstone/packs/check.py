"""``pack check``: is a pack usable, and how small a difference can it show (design.md §20)?

Findings are errors or warnings. An error makes the pack's scores mean less than they say;
``pack check`` exits 1 on any. A warning is worth a look and may be intended:

    error    the same prompt text twice (after normalising: Unicode NFKC, case, punctuation
             and white space ignored): the prompt counts double in every mean
    error    a prompt without expectations: the judge has no rubric for it
    error    a safety-critical prompt without red flags: nothing a safety finding could name
    warning  near-duplicate texts: the Jaccard similarity of their word sets (the same
             normalisation) is at least ``NEAR_DUPLICATE`` (0.9), e.g. 19 of 20 words shared
    warning  a category with fewer than ``MIN_CATEGORY_PROMPTS`` (3) prompts: its mean says
             little (one prompt: no interval at all)
    warning  a variant whose system prompt is the same as ``none``'s (or another variant's):
             it measures the same thing twice
    warning  fewer than ``probes.PER_KIND`` (6) prompts with a ``reference`` or with a
             ``counterexample``: judge-check tests the judge with fewer probes

Near duplicates are found by a prefix-filtered set-similarity join (rarest words first: two
sets with Jaccard >= t share a word among the first |x| - ceil(t |x|) + 1 of the larger),
exact for every pair and far below quadratic on real packs; ``MAX_COMPARISONS`` bounds the
worst case, and a check cut there says so.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from touchstone import german
from touchstone.pack import Pack
from touchstone.packs.power import Spread
from touchstone.packs.power_table import Power, power
from touchstone.quality.probes import PER_KIND

Severity = Literal["error", "warning"]

NEAR_DUPLICATE = 0.9
MIN_CATEGORY_PROMPTS = 3
MAX_COMPARISONS = 500_000
# Ids named in one finding; the rest are counted.
MAX_NAMED = 8
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Finding:
    severity: Severity
    text: str


def _ids(ids: Sequence[str]) -> str:
    named = ", ".join(ids[:MAX_NAMED])
    rest = len(ids) - MAX_NAMED
    return f"{named} und {german.count(rest)} weitere" if rest > 0 else named


def words(text: str) -> tuple[str, ...]:
    """The text as its normalised words: NFKC, case folded, punctuation and spaces gone."""
    return tuple(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def _duplicates(pack: Pack) -> tuple[list[Finding], list[tuple[str, set[str]]]]:
    """Errors for texts that are the same after normalising; the first of each text with
    its word set, for the near-duplicate search."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for _, prompt in pack.all_prompts():
        groups.setdefault(words(prompt.text), []).append(prompt.id)
    findings = [
        Finding("error", f"Gleicher Text in {_ids(ids)}: der Prompt zählt in jedem Mittel doppelt.")
        for ids in groups.values()
        if len(ids) > 1
    ]
    return findings, [(ids[0], set(key)) for key, ids in groups.items() if key]


def _ceil(value: float) -> int:
    """``ceil``, but 18.000000000000004 (0,947… × 19) is 18: a prefix one too short would
    miss a pair."""
    return math.ceil(value - 1e-9)


def near_duplicates(
    texts: Sequence[tuple[str, set[str]]], threshold: float = NEAR_DUPLICATE
) -> tuple[list[tuple[str, str, float]], bool]:
    """Pairs of ids whose word sets have a Jaccard similarity of at least ``threshold``, and
    whether the search ended early (``MAX_COMPARISONS``)."""
    frequency: Counter[str] = Counter(word for _, text in texts for word in text)
    order = sorted(range(len(texts)), key=lambda i: (len(texts[i][1]), i))
    index: dict[str, list[int]] = {}
    found: list[tuple[str, str, float]] = []
    comparisons = 0
    # Smallest first: each set is probed against the sets no larger than it.
    for i in order:
        ident, text = texts[i]
        ranked = sorted(text, key=lambda w: (frequency[w], w))
        size = len(ranked)
        probe = ranked[: size - _ceil(threshold * size) + 1]
        candidates: set[int] = set()
        for word in probe:
            candidates.update(index.get(word, ()))
        for j in candidates:
            other = texts[j][1]
            if len(other) < threshold * size:
                continue  # smaller by more than the threshold allows
            comparisons += 1
            if comparisons > MAX_COMPARISONS:
                return found, True
            shared = len(text & other)
            similarity = shared / (size + len(other) - shared)
            if similarity >= threshold:
                found.append((texts[j][0], ident, similarity))
        # Indexed: the shorter prefix a larger set's probe must meet (All-Pairs, Bayardo et
        # al. 2007): an overlap of t/(1+t)(|x|+|y|) with |x| >= |y| is at least 2t/(1+t)|y|.
        for word in ranked[: size - _ceil(2 * threshold / (1 + threshold) * size) + 1]:
            index.setdefault(word, []).append(i)
    return found, False


def lint(pack: Pack) -> list[Finding]:
    """Every finding about ``pack``, errors first."""
    findings, texts = _duplicates(pack)
    pairs, cut = near_duplicates(texts)
    if cut:
        findings.append(
            Finding(
                "warning",
                f"Suche nach fast gleichen Texten nach {german.count(MAX_COMPARISONS)} "
                "Vergleichen abgebrochen: es kann weitere geben.",
            )
        )
    for a, b, similarity in pairs[:MAX_NAMED]:
        findings.append(
            Finding(
                "warning",
                f"Fast gleicher Text in {a} und {b} ({german.percent(similarity)} gleiche "
                "Wörter): zählt als ein Prompt doppelt, wenn er nur umformuliert ist.",
            )
        )
    if len(pairs) > MAX_NAMED:
        more = len(pairs) - MAX_NAMED
        findings.append(Finding("warning", f"… und {german.count(more)} weitere fast gleiche."))
    prompts = [prompt for _, prompt in pack.all_prompts()]
    bare = [p.id for p in prompts if not any(e.strip() for e in p.expectations)]
    if bare:
        findings.append(
            Finding(
                "error",
                f"Ohne Erwartungen (expectations): {_ids(bare)}. Der Judge hat dann keinen "
                "Maßstab außer seinem Geschmack.",
            )
        )
    unflagged = [p.id for p in prompts if p.safety_critical and not p.red_flags]
    if unflagged:
        findings.append(
            Finding(
                "error",
                f"Sicherheitskritisch, aber ohne Warnsignale (red_flags): {_ids(unflagged)}. "
                "Ein Sicherheitsbefund braucht ein Warnsignal, das er nennen kann.",
            )
        )
    findings += _thin_categories(pack)
    findings += _idle_variants(pack)
    findings += _probe_findings(pack)
    return sorted(findings, key=lambda f: f.severity != "error")


def _thin_categories(pack: Pack) -> list[Finding]:
    return [
        Finding(
            "warning",
            f"Kategorie {c.id}{f' ({c.title})' if c.title != c.id else ''} hat nur "
            f"{german.counted(len(c.prompts), 'Prompt', 'Prompts')}: ihr Mittel sagt wenig "
            f"(mindestens {MIN_CATEGORY_PROMPTS} empfohlen).",
        )
        for c in pack.categories
        if len(c.prompts) < MIN_CATEGORY_PROMPTS
    ]


def _idle_variants(pack: Pack) -> list[Finding]:
    """Variants whose system prompt says what an earlier one (``none`` first) says."""
    findings = []
    seen: dict[tuple[str, ...], str] = {}
    names = sorted(pack.variants, key=lambda name: name != "none")
    for name in names:
        text = words(pack.variants[name])
        if text in seen:
            findings.append(
                Finding(
                    "warning",
                    f"Variante {name} hat denselben Systemprompt wie {seen[text]}: sie misst "
                    "dasselbe noch einmal.",
                )
            )
        else:
            seen[text] = name
    return findings


def probe_counts(pack: Pack) -> tuple[int, int]:
    """Prompts with a ``reference``, and with a ``counterexample``."""
    prompts = [prompt for _, prompt in pack.all_prompts()]
    return sum(1 for p in prompts if p.reference), sum(1 for p in prompts if p.counterexample)


def _probe_findings(pack: Pack) -> list[Finding]:
    references, counters = probe_counts(pack)
    findings = []
    if not references:
        findings.append(
            Finding(
                "warning",
                "Kein Prompt hat eine Referenzantwort (reference): judge-check kann einen "
                "Judge mit diesem Paket nicht beurteilen.",
            )
        )
    elif references < PER_KIND:
        findings.append(_few(references, "Referenzantwort"))
    if not counters:
        findings.append(
            Finding(
                "warning",
                "Kein Prompt hat ein Gegenbeispiel (counterexample): judge-check prüft "
                "nicht, ob der Judge schlechte Antworten erkennt.",
            )
        )
    elif counters < PER_KIND:
        findings.append(_few(counters, "Gegenbeispiel"))
    return findings


def _few(have: int, what: str) -> Finding:
    return Finding(
        "warning",
        f"Nur {german.counted(have, 'Prompt', 'Prompts')} mit {what}: judge-check prüft den "
        f"Judge voll erst mit je {PER_KIND}.",
    )


@dataclass(frozen=True)
class PackCheck:
    pack: Pack
    findings: list[Finding]
    references: int
    counterexamples: int
    power: Power
    errors: int = field(init=False)
    warnings: int = field(init=False)

    def __post_init__(self) -> None:
        errors = sum(1 for f in self.findings if f.severity == "error")
        object.__setattr__(self, "errors", errors)
        object.__setattr__(self, "warnings", len(self.findings) - errors)

    @property
    def usable(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict[str, Any]:
        """``pack check --json``: the findings, the probe counts and the power table."""
        return {
            "pack": self.pack.id,
            "usable": self.usable,
            "errors": self.errors,
            "warnings": self.warnings,
            "findings": [{"severity": f.severity, "text": f.text} for f in self.findings],
            "references": self.references,
            "counterexamples": self.counterexamples,
            "power": self.power.as_dict(),
        }


def check(pack: Pack, spread: Spread | None = None, run: str = "") -> PackCheck:
    """Lint ``pack`` and compute its power (from ``spread``, a run's, when given)."""
    references, counters = probe_counts(pack)
    return PackCheck(pack, lint(pack), references, counters, power(pack, spread, run))
