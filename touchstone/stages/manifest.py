"""The run manifest (``run.json``) and the pack a run was made with."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from touchstone import __version__
from touchstone.errors import InputError
from touchstone.pack import Pack, file_sha256, load_pack
from touchstone.store import MANIFEST, RunDir


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
    """The manifest after this run: what the directory had, united with what is asked now."""
    manifest = run.read_manifest() if run.file(MANIFEST).exists() else {}
    if manifest and manifest.get("pack_id") not in (None, pack.id):
        raise InputError(
            f"{run.path} gehört zum Paket „{manifest.get('pack_id')}“, nicht zu „{pack.id}“. "
            "Wählen Sie mit --out ein anderes Verzeichnis."
        )

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


def pack_of_run(run: RunDir) -> Pack:
    """The pack a run was made with, found by the paths its manifest recorded."""
    manifest = run.read_manifest()
    candidates = [manifest.get("pack_path"), manifest.get("pack_abspath")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            pack = load_pack(candidate)
            if manifest.get("pack_sha256") and file_sha256(candidate) != manifest["pack_sha256"]:
                run.warnings.append(
                    f"Das Paket {candidate} wurde seit dem Run geändert (andere Prüfsumme)."
                )
            return pack
    raise InputError(
        f"Das Paket dieses Runs ist nicht auffindbar (run.json nennt "
        f"{manifest.get('pack_path')!r}). Starten Sie touchstone im Verzeichnis des Runs "
        "oder legen Sie das Paket wieder dorthin."
    )
