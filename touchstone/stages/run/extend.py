"""Whether a run may go on with the settings asked now: resume, extend, or refuse (design.md §22).

An existing run is never changed silently. Against its ``run.json``:
- the same settings, or a subset (fewer models, variants or repeats), resume;
- more (a new model, variant, more repeats) or another endpoint change what the run is: refused
  unless the user extends it (CLI ``--extend``, GUI "Run erweitern"); extending records the union
  in run.json, so the new cells are open for every model of the run;
- a pack that grew (new prompts; every answered prompt's text and every variant's system
  prompt as they were) is more as well: extending answers the new prompts. A pack whose changes
  leave the answers' inputs alone (only rubrics: expectations, red flags, probes) resumes; the
  judge then re-judges the cells whose rubric changed (``judge.plan.stale_keys``);
- another pack id, a pack that changed what the stored answers were asked (a prompt's text, a
  variant's system prompt, a prompt removed), a changed pack of a run that recorded no
  fingerprints of its inputs (made before touchstone kept them) and whose verdicts do not vouch
  for them (``manifest.with_vouched_inputs``), or another answer cap
  (``--max-tokens``) make answers that do not compare with the stored ones: refused even when
  extending. ``--max-tokens`` not given keeps the run's cap (``kept_cap``), as omitted
  variants and repeats keep the run's.
Deadlines, concurrency and the reply size limit are how the calls are made, not what the run
is: they may differ on every resume.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, TypeGuard

from touchstone.errors import InputError
from touchstone.german import counted
from touchstone.pack import Pack
from touchstone.results import VerdictKey
from touchstone.store.manifest import Manifest

Pair = tuple[str, str]
Surface = Literal["cli", "gui"]
# Model ids use '/', ':', '-', '.' and '_' (OpenRouter, Ollama, Hugging Face, Bedrock), never ','
# or ';': a list in one ``--model`` (or in the GUI's "Modelle" field) names each of its models.
_MODEL_SEPARATORS = re.compile(r"[,;]")
NO_MODEL = "kein Modellname (mehrere durch Komma oder Semikolon trennen: sim-gut,sim-schwach)"


def model_names(values: Iterable[str]) -> list[str]:
    """The models ``values`` name, each split at ',' and ';', stripped, once each in order;
    empty pieces (``"a,"``) name nothing. Empty when no value names a model."""
    pieces = (piece.strip() for value in values for piece in _MODEL_SEPARATORS.split(value))
    return list(dict.fromkeys(piece for piece in pieces if piece))


@dataclass(frozen=True)
class AskedRun:
    """What a ``run`` asks for; ``variants``/``repeats`` None: not given (the run's own)."""

    pack_id: str
    pack_sha256: str
    base_url: str
    models: list[str]
    variants: list[str] | None
    repeats: int | None
    max_tokens: int | None
    # ``answer_inputs`` of the pack asked now: tells a grown pack from a changed one.
    answer_inputs: Mapping[str, Mapping[str, str]] | None = None


# The manifest's key for ``answer_inputs`` of the pack a run's answers were asked from.


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def answer_inputs(pack: Pack) -> dict[str, dict[str, str]]:
    """Fingerprints of what an answer is asked with: each prompt's text, each variant's system
    prompt (``stages.answering`` sends exactly these). Rubrics are no part of it: a changed
    expectation makes verdicts stale, not answers."""
    return {
        "prompts": {prompt.id: _fingerprint(prompt.text) for _, prompt in pack.all_prompts()},
        "variants": {name: _fingerprint(text) for name, text in pack.variants.items()},
    }


@dataclass(frozen=True)
class Difference:
    text: str
    # Whether extending the run accepts it (a different pack or answer cap: never).
    extendable: bool


class RunConflict(InputError):
    """The asked settings differ from the existing run's (exit 2 in the CLI, 409 in the GUI)."""


def _url(url: str) -> str:
    return url.rstrip("/")


def _names(names: Iterable[str]) -> str:
    return ", ".join(names) or "–"


def differences(manifest: Manifest | None, asked: AskedRun) -> list[Difference]:
    """How ``asked`` differs from an existing run's ``manifest`` (empty: it resumes; no
    manifest: a new run, nothing to differ from)."""
    found: list[Difference] = []
    if manifest is None or manifest.empty:
        return found
    stored_id = manifest.pack_id
    stored_sha = manifest.pack_sha256
    if stored_id and stored_id != asked.pack_id:
        found.append(
            Difference(f"Paket: gespeichert „{stored_id}“, verlangt „{asked.pack_id}“", False)
        )
    elif stored_sha and stored_sha != asked.pack_sha256:
        found.extend(_pack_change(manifest, asked, stored_sha))
    # Runs from before the cap was recorded have no key: their cap is unknown, not compared.
    if manifest.recorded("max_tokens") and manifest.max_tokens != asked.max_tokens:
        found.append(
            Difference(
                f"Antwortlänge (max_tokens): gespeichert {_cap(manifest.max_tokens)}, "
                f"verlangt {_cap(asked.max_tokens)}",
                False,
            )
        )
    stored_urls = [_url(u) for u in manifest.base_urls]
    # A run without a model that answered (a wrong URL, a misspelt model) has no answers an
    # endpoint could have made: another one is no difference yet.
    if stored_urls and manifest.models and _url(asked.base_url) not in stored_urls:
        found.append(
            Difference(
                f"Endpunkt: gespeichert {_names(stored_urls)}, verlangt {_url(asked.base_url)}",
                True,
            )
        )
    # A model asked before but stopped before its first answer resumes, not extends.
    for title, stored, also_known, wanted in (
        ("Modelle", manifest.models, manifest.asked_models, asked.models),
        ("Varianten", manifest.variants, [], asked.variants or []),
    ):
        known = [*stored, *also_known]
        new = [name for name in wanted if name not in known]
        if stored and new:
            found.append(
                Difference(f"{title}: neu {_names(new)} (gespeichert: {_names(stored)})", True)
            )
    stored_repeats = manifest.repeats
    if asked.repeats is not None and asked.repeats > stored_repeats:
        found.append(
            Difference(
                f"Wiederholungen: gespeichert {stored_repeats}, verlangt {asked.repeats}", True
            )
        )
    return found


def _pack_change(manifest: Manifest, asked: AskedRun, stored_sha: str) -> list[Difference]:
    """How a pack with the run's id but another checksum differs: nothing (only rubrics
    changed), new prompts (extendable), or changed answer inputs (never extendable)."""
    stored = _inputs(manifest.answer_inputs)
    now = _inputs(asked.answer_inputs)
    if stored is None or now is None:
        return [
            Difference(
                f"Paket: „{asked.pack_id}“ wurde seit dem Run geändert (Prüfsumme gespeichert "
                f"{stored_sha[:12]}…, jetzt {asked.pack_sha256[:12]}…)",
                False,
            )
        ]
    change = _compare(stored, now, manifest.variants)
    changed, removed, system, added = change.changed, change.removed, change.system, change.added
    head = f"Paket: „{asked.pack_id}“ wurde seit dem Run geändert"
    problems = [
        f"{what} {_few(ids)}"
        for what, ids in (
            ("Prompt-Text geändert:", changed),
            ("Prompts entfernt:", removed),
            ("System-Prompt geändert oder Variante entfernt:", system),
        )
        if ids
    ]
    if problems:
        return [Difference(f"{head} – {'; '.join(problems)}", False)]
    if not added:
        return []  # only rubrics: the answers stand, the judge re-judges what is stale
    return [
        Difference(
            f"{head} – neu: {counted(len(added), 'Prompt', 'Prompts')} ({_few(added)})", True
        )
    ]


def new_prompts(manifest: Manifest, pack: Pack) -> list[str] | None:
    """The prompts ``pack`` has beyond those the run's answers were asked from, when it only
    grew (every recorded prompt text and system prompt as it was); None when it changed
    otherwise or the run recorded no fingerprints."""
    stored, now = _inputs(manifest.answer_inputs), _inputs(answer_inputs(pack))
    if stored is None or now is None:
        return None
    change = _compare(stored, now, manifest.variants)
    return None if change.changed or change.removed or change.system else change.added


@dataclass(frozen=True)
class _Change:
    """Prompts and variants of a run's answers against a pack: text changed, gone, new."""

    changed: list[str]
    removed: list[str]
    # The run's variants whose system prompt changed or that the pack no longer has.
    system: list[str]
    added: list[str]


Inputs = tuple[dict[str, str], dict[str, str]]


def _compare(stored: Inputs, now: Inputs, used: list[str]) -> _Change:
    (old_prompts, old_variants), (prompts, variants) = stored, now
    return _Change(
        changed=[p for p, fp in old_prompts.items() if p in prompts and prompts[p] != fp],
        removed=[p for p in old_prompts if p not in prompts],
        system=[v for v in used if v in old_variants and variants.get(v) != old_variants[v]],
        added=[p for p in prompts if p not in old_prompts],
    )


def _inputs(value: object) -> Inputs | None:
    """Prompt and variant fingerprints from ``answer_inputs``; None when there are none or they
    are malformed (run.json is read as untrusted: then the pack change is refused, as for a run
    that recorded none)."""
    if not isinstance(value, Mapping):
        return None
    prompts, variants = value.get("prompts"), value.get("variants")
    if not (_names_to_text(prompts) and _names_to_text(variants)):
        return None
    return dict(prompts), dict(variants)


def _names_to_text(value: object) -> TypeGuard[Mapping[str, str]]:
    return isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def _few(ids: list[str], shown: int = 8) -> str:
    more = len(ids) - shown
    return ", ".join(ids[:shown]) + (f" und {more} weitere" if more > 0 else "")


def _cap(value: object) -> str:
    return "keine Grenze" if value is None else str(value)


def check_settings(
    run_path: object,
    manifest: Manifest | None,
    asked: AskedRun,
    *,
    extend: bool,
    surface: Surface,
) -> None:
    """Raise ``RunConflict`` naming each difference unless the run may go on as asked."""
    found = differences(manifest, asked)
    fixed = [d for d in found if not d.extendable]
    if not found or (extend and not fixed):
        return
    listed = "; ".join(d.text for d in found)
    head = f"Der Run {run_path} besteht schon mit anderen Einstellungen – {listed}."
    if surface == "cli":
        extend_how, new_how = "--extend", "Mit einem anderen --out"
    else:
        extend_how, new_how = "„Run erweitern“", "Mit einem anderen Namen"
    if fixed:
        raise RunConflict(
            f"{head} Ein anderes Paket oder eine andere Antwortlänge ergibt Antworten, die sich "
            f"mit den gespeicherten nicht vergleichen lassen; auch {extend_how} ändert das "
            f"nicht. {new_how} beginnt ein neuer Run (oder das ursprüngliche Paket bzw. die "
            "ursprüngliche Antwortlänge setzt diesen fort)."
        )
    raise RunConflict(
        f"{head} Mit {extend_how} wird der Run erweitert: er übernimmt die neuen "
        f"Einstellungen, und die neuen Zellen sind für alle Modelle des Runs offen. {new_how} "
        "beginnt ein neuer Run."
    )


def resumed_plan(manifest: Manifest | None, asked: AskedRun) -> tuple[list[str], int]:
    """Variants and repeats of this call: as asked, else the existing run's."""
    stored = manifest or Manifest()
    variants = asked.variants or list(stored.variants)
    repeats = asked.repeats if asked.repeats is not None else stored.repeats
    return variants, repeats


def kept_cap(manifest: Manifest) -> int | None:
    """The answer cap a resume without ``--max-tokens`` keeps: the run's, when run.json
    records a valid one (anything else is compared as it is, and refused, by ``differences``)."""
    cap = manifest.max_tokens
    valid = isinstance(cap, int) and not isinstance(cap, bool) and cap >= 1
    return cap if valid else None


def planned_cells(manifest: Manifest, prompt_count: int) -> dict[Pair, int]:
    """Cells per (model, variant) the run plans: every model × variant × repeat × prompt."""
    per_row = manifest.repeats * prompt_count
    return {(model, variant): per_row for model in manifest.models for variant in manifest.variants}


def open_per_model(planned_keys: Iterable[VerdictKey], answered: set[VerdictKey]) -> dict[str, int]:
    """Cells of ``planned_keys`` without an answer, by model (only models with some open)."""
    counts: dict[str, int] = {}
    for key in planned_keys:
        if key not in answered:
            counts[key.model] = counts.get(key.model, 0) + 1
    return counts
