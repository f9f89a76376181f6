"""The run manifest (``run.json``) and the pack a run was made with."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from touchstone import __version__
from touchstone.errors import InputError
from touchstone.pack import Pack, file_sha256, load_pack
from touchstone.store import MANIFEST, RunDir, resolve_inside


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
) -> dict[str, Any]:
    """The manifest after this run: what the directory had, united with what is asked now.

    ``models``: the models to record now, those with an answer in the run; a model asked for
    is added once its first answer lands (``execute_run``), so that one the endpoint never
    answered (a misspelt name) is no part of the run.
    """
    # Another pack was refused before (stages.extend.check_settings, with the difference
    # named): what is here belongs to this pack.
    manifest = run.read_manifest() if run.file(MANIFEST).exists() else {}

    def union(key: str, new: list[str]) -> list[str]:
        old = manifest.get(key) or []
        return list(dict.fromkeys([*old, *new]))

    return {
        "name": run.name,
        "pack_id": pack.id,
        "pack_path": str(pack_path),
        "pack_abspath": str(pack_path.resolve()),
        "pack_sha256": file_sha256(pack_path),
        "base_urls": union("base_urls", [base_url]),
        "models": union("models", models),
        "variants": union("variants", variants),
        "repeats": max(int(manifest.get("repeats") or 0), repeats),
        "created_at": manifest.get("created_at") or now_iso(),
        "updated_at": now_iso(),
        "touchstone_version": __version__,
    }


def pack_of_run(run: RunDir, *, within: Path | None = None) -> Pack:
    """The pack a run was made with, found by the paths its manifest recorded.

    ``within`` (resolved): only a pack inside that directory is read, a relative path taken
    from there. The GUI passes its working dir: a run.json someone shared must not make it
    read, and quote in its messages, any YAML file on the machine.
    """
    manifest = run.read_manifest()
    named = [str(c) for c in (manifest.get("pack_path"), manifest.get("pack_abspath")) if c]
    outside = []
    for candidate in named:
        path = Path(candidate) if within is None else resolve_inside(within, candidate)
        if path is None:
            outside.append(candidate)
        elif path.is_file():
            pack = load_pack(path)
            if manifest.get("pack_sha256") and file_sha256(path) != manifest["pack_sha256"]:
                run.warnings.append(
                    f"Das Paket {candidate} wurde seit dem Run geändert (andere Prüfsumme)."
                )
            return pack
    if outside:
        raise InputError(
            f"Das Paket dieses Runs liegt außerhalb des Arbeitsverzeichnisses der GUI ({within}): "
            f"run.json nennt {', '.join(map(repr, outside))}, und die GUI liest keine Dateien "
            "außerhalb. Kopieren Sie das Paket ins Arbeitsverzeichnis und tragen Sie seinen Pfad "
            "als pack_path in run.json ein, oder starten Sie die GUI in einem Verzeichnis, das "
            "das Paket enthält."
        )
    raise InputError(
        f"Das Paket dieses Runs ist nicht auffindbar (run.json nennt "
        f"{manifest.get('pack_path')!r}). Starten Sie touchstone im Verzeichnis des Runs "
        "oder legen Sie das Paket wieder dorthin."
    )
