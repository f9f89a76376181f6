"""The run manifest (``run.json``) and the pack a run was made with."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from touchstone import __version__
from touchstone.bundled import is_bundled
from touchstone.errors import InputError
from touchstone.german import counted
from touchstone.judge.rubric import RubricHashes
from touchstone.jury.verdicts import run_cells
from touchstone.pack import Pack, file_sha256, load_pack
from touchstone.stages.run.extend import answer_inputs, new_prompts
from touchstone.store import MANIFEST, RunDir, resolve_inside
from touchstone.store.manifest import ANSWER_INPUTS, Manifest


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def default_run_name(pack_id: str) -> str:
    return f"{pack_id}-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"


def run_manifest(
    run: RunDir,
    pack: Pack,
    pack_path: Path,
    base_url: str,
    models: list[str],
    variants: list[str],
    repeats: int,
    asked_models: list[str] | None = None,
) -> Manifest:
    """The manifest after this run: what the directory had, united with what is asked now.

    ``models``: the models to record now, those with an answer in the run; a model asked for
    is added once its first answer lands (``execute_run``), so that one the endpoint never
    answered (a misspelt name) is no part of the run's table. ``asked_models`` (all asked
    so far, answered or not) is what a resume compares with: the same command goes on with a
    model that had not answered yet when the run stopped.
    """
    # Another pack was refused before (stages.extend.check_settings, with the difference
    # named): what is here belongs to this pack.
    manifest = run.read_manifest() if run.file(MANIFEST).exists() else Manifest()

    def union(old: list[str], new: list[str]) -> list[str]:
        return list(dict.fromkeys([*old, *new]))

    return Manifest(
        name=run.name,
        pack_id=pack.id,
        pack_path=str(pack_path),
        pack_abspath=str(pack_path.resolve()),
        pack_sha256=file_sha256(pack_path),
        # What the answers were asked with: a later, grown pack can then be told from a
        # changed one (``stages.extend``).
        answer_inputs=answer_inputs(pack),
        base_urls=union(manifest.base_urls, [base_url]),
        # Kept as read; a run from before it was recorded gets it with its next answer.
        **(
            {"model_base_urls": manifest.model_base_urls}
            if manifest.recorded("model_base_urls")
            else {}
        ),
        models=union(manifest.models, models),
        asked_models=union(manifest.asked_models, [*models, *(asked_models or [])]),
        variants=union(manifest.variants, variants),
        repeats=max(manifest.repeats, repeats),
        created_at=manifest.created_at or now_iso(),
        updated_at=now_iso(),
        touchstone_version=__version__,
    )


def with_vouched_inputs(run: RunDir, manifest: Manifest, pack: Pack, pack_sha256: str) -> Manifest:
    """``manifest``, for a run that recorded no ``answer_inputs`` (made before they were kept)
    and whose pack changed since, with those its verdicts vouch for.

    A verdict's rubric hash covers the prompt's text and the variant's system prompt: when every
    answer of the run has a verdict whose hash is the one ``pack`` gives now, the answers were
    asked with ``pack``'s texts, and a grown pack can extend the run. Otherwise ``manifest`` as
    it is (the changed pack is refused, as before). Failed answers (no text) need no verdict.
    """
    if (
        manifest.empty
        or manifest.recorded(ANSWER_INPUTS)
        or manifest.pack_id != pack.id  # another pack: refused by its id
        or manifest.pack_sha256 == pack_sha256
    ):
        return manifest
    asked = {(r.prompt_id, r.variant) for r in run.load_responses() if r.ok}
    hashes = RubricHashes(pack)
    vouched = {
        (v.prompt_id, v.variant)
        for v in run_cells(run).cells
        if v.rubric_hash
        and pack.has_prompt(v.prompt_id)
        and v.variant in pack.variants
        and hashes(pack.prompt(v.prompt_id), v.variant) == v.rubric_hash
    }
    if not asked or not asked <= vouched:
        return manifest
    now = answer_inputs(pack)
    prompts, variants = {p for p, _ in asked}, {v for _, v in asked}
    vouched_inputs = {
        "prompts": {p: fp for p, fp in now["prompts"].items() if p in prompts},
        "variants": {v: fp for v, fp in now["variants"].items() if v in variants},
    }
    return manifest.model_copy(update={ANSWER_INPUTS: vouched_inputs})


def _changed(path: str, manifest: Manifest, pack: Pack) -> str:
    """The warning for a run whose pack changed since: what a grown pack means for it."""
    added = new_prompts(manifest, pack)
    if not added:
        return f"Das Paket {path} wurde seit dem Run geändert (andere Prüfsumme)."
    return (
        f"Das Paket {path} ist seit dem Run um {counted(len(added), 'Prompt', 'Prompts')} "
        "gewachsen; die bisherigen Antworten und Bewertungen gelten weiter, die neuen Prompts "
        "sind offen, bis der Run erweitert wird (run --extend bzw. „Run erweitern“)."
    )


def pack_of_run(run: RunDir, *, within: Path | None = None) -> Pack:
    """The pack a run was made with, found by the paths its manifest recorded.

    ``within`` (resolved): only a pack inside that directory is read, a relative path taken
    from there. The GUI passes its working dir: a run.json someone shared must not make it
    read, and quote in its messages, any YAML file on the machine.
    """
    manifest = run.read_manifest()
    named = [c for c in (manifest.pack_path, manifest.pack_abspath) if c]
    outside = []
    for candidate in named:
        path = Path(candidate) if within is None else resolve_inside(within, candidate)
        if path is None and is_bundled(Path(candidate).resolve()):
            # touchstone's own pack (the demo's): public, read wherever the GUI started.
            path = Path(candidate).resolve()
        if path is None:
            outside.append(candidate)
        elif path.is_file():
            pack = load_pack(path)
            if manifest.pack_sha256 and file_sha256(path) != manifest.pack_sha256:
                run.warnings.append(_changed(candidate, manifest, pack))
            return pack
    if outside and within is not None:
        raise InputError(_outside(run.path.name, manifest, within))
    # A run.json without the key names None, as the dict it was read as once did.
    recorded = manifest.pack_path if manifest.recorded("pack_path") else None
    named_in_run = f"„{recorded}“" if recorded is not None else "keinen Paketpfad"
    raise InputError(
        f"Das Paket dieses Runs ist nicht auffindbar (run.json nennt {named_in_run}). "
        "Starten Sie touchstone im Verzeichnis des Runs oder legen Sie das Paket wieder dorthin."
    )


def _outside(name: str, manifest: Manifest, within: Path) -> str:
    """A pack outside the GUI's working dir, said for a browser user: the run, the pack as
    run.json names it (once), and where to start the GUI so that it is inside. Only whether
    the pack is still where the run was made is looked at, nothing is read."""
    recorded = manifest.pack_path or manifest.pack_abspath
    absolute = Path(manifest.pack_abspath or recorded)
    relative = Path(recorded)
    # Where the run was made: the absolute path without the relative one it was given as.
    root = absolute.parent
    if not relative.is_absolute() and absolute.parts[-len(relative.parts) :] == relative.parts:
        root = Path(*absolute.parts[: -len(relative.parts)])
    if root.resolve() == within:
        # Named inside, resolved outside: a symbolic link leads out of the working dir.
        where = "Der Pfad führt über einen Link hinaus; legen Sie das Paket selbst hierher."
    elif absolute.is_absolute() and absolute.is_file():
        where = f"Starten Sie die GUI in {root}, wo der Run entstand."
    else:
        where = "Starten Sie die GUI in dem Verzeichnis, das das Paket enthält."
    return (
        f"Run „{name}“: sein Paket „{recorded}“ liegt nicht im Arbeitsverzeichnis der GUI, "
        f"und sie liest nur Dateien darin. {where}"
    )
