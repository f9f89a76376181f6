"""Whether a run may go on with the settings asked now: resume, extend, or refuse (DESIGN §22).

An existing run is never changed silently. Against its ``run.json``:
- the same settings, or a subset (fewer models, variants or repeats), resume;
- more (a new model, variant, more repeats) or another endpoint change what the run is: refused
  unless the user extends it (CLI ``--extend``, GUI "Run erweitern"); extending records the union
  in run.json, so the new cells are open for every model of the run;
- another pack (id or checksum) or another answer cap (``--max-tokens``) make answers that do
  not compare with the stored ones: refused even when extending.
Deadlines, concurrency and the reply size limit are how the calls are made, not what the run
is: they may differ on every resume.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from touchstone.errors import InputError
from touchstone.results import VerdictKey

Pair = tuple[str, str]
Surface = Literal["cli", "gui"]


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


def differences(manifest: Mapping[str, Any], asked: AskedRun) -> list[Difference]:
    """How ``asked`` differs from an existing run's ``manifest`` (empty: it resumes; no
    manifest: a new run, nothing to differ from)."""
    found: list[Difference] = []
    if not manifest:
        return found
    stored_id = manifest.get("pack_id")
    stored_sha = manifest.get("pack_sha256")
    if stored_id and stored_id != asked.pack_id:
        found.append(
            Difference(f"Paket: gespeichert „{stored_id}“, verlangt „{asked.pack_id}“", False)
        )
    elif stored_sha and stored_sha != asked.pack_sha256:
        found.append(
            Difference(
                f"Paket: „{asked.pack_id}“ wurde seit dem Run geändert (Prüfsumme gespeichert "
                f"{str(stored_sha)[:12]}…, jetzt {asked.pack_sha256[:12]}…)",
                False,
            )
        )
    # Runs from before the cap was recorded have no key: their cap is unknown, not compared.
    if "max_tokens" in manifest and manifest["max_tokens"] != asked.max_tokens:
        found.append(
            Difference(
                f"Antwortlänge (max_tokens): gespeichert {_cap(manifest['max_tokens'])}, "
                f"verlangt {_cap(asked.max_tokens)}",
                False,
            )
        )
    stored_urls = [_url(u) for u in manifest.get("base_urls") or []]
    # A run without a model that answered (a wrong URL, a misspelt model) has no answers an
    # endpoint could have made: another one is no difference yet.
    if stored_urls and manifest.get("models") and _url(asked.base_url) not in stored_urls:
        found.append(
            Difference(
                f"Endpunkt: gespeichert {_names(stored_urls)}, verlangt {_url(asked.base_url)}",
                True,
            )
        )
    for title, key, wanted in (
        ("Modelle", "models", asked.models),
        ("Varianten", "variants", asked.variants or []),
    ):
        stored = list(manifest.get(key) or [])
        # A model asked before but stopped before its first answer resumes, not extends.
        known = [*stored, *(manifest.get("asked_models") or [])] if key == "models" else stored
        new = [name for name in wanted if name not in known]
        if stored and new:
            found.append(
                Difference(f"{title}: neu {_names(new)} (gespeichert: {_names(stored)})", True)
            )
    stored_repeats = int(manifest.get("repeats") or 1)
    if asked.repeats is not None and asked.repeats > stored_repeats:
        found.append(
            Difference(
                f"Wiederholungen: gespeichert {stored_repeats}, verlangt {asked.repeats}", True
            )
        )
    return found


def _cap(value: object) -> str:
    return "keine Grenze" if value is None else str(value)


def check_settings(
    run_path: object,
    manifest: Mapping[str, Any],
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


def resumed_plan(manifest: Mapping[str, Any], asked: AskedRun) -> tuple[list[str], int]:
    """Variants and repeats of this call: as asked, else the existing run's."""
    variants = asked.variants or list(manifest.get("variants") or [])
    repeats = asked.repeats if asked.repeats is not None else int(manifest.get("repeats") or 1)
    return variants, repeats


def planned_cells(manifest: Mapping[str, Any], prompt_count: int) -> dict[Pair, int]:
    """Cells per (model, variant) the run plans: every model × variant × repeat × prompt."""
    per_row = int(manifest.get("repeats") or 1) * prompt_count
    return {
        (model, variant): per_row
        for model in manifest.get("models") or []
        for variant in manifest.get("variants") or []
    }


def open_per_model(planned_keys: Iterable[VerdictKey], answered: set[VerdictKey]) -> dict[str, int]:
    """Cells of ``planned_keys`` without an answer, by model (only models with some open)."""
    counts: dict[str, int] = {}
    for key in planned_keys:
        if key not in answered:
            counts[key.model] = counts.get(key.model, 0) + 1
    return counts
