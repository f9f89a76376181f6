"""The GUI's routes that manage runs as a whole: the note, archive, restore, delete.

Names go through the path guards (a run directly under the runs dir, or directly under its
archive); nothing moves or goes while a job of the run runs (409), and the store holds the
run's lock for each step (a CLI working in it: 409 too). Formats: ``store/shelf.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, ConfigDict, Field

from touchstone.errors import InputError
from touchstone.gui.jobs import JOBS_DIR
from touchstone.gui.views import Gui
from touchstone.pack import id_problem
from touchstone.store import MANIFEST
from touchstone.store.shelf import ARCHIVE, MAX_NOTE, archive, archived, delete, restore, write_note


class NoteRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(max_length=MAX_NOTE)


def _run_or_archived(root: Path, name: str) -> Path:
    """The run dir ``name`` directly under ``root`` (a run, or one whose first job saved
    nothing yet), or 404."""
    path = (root / name).resolve()
    if id_problem(name) or path.parent != root.resolve() or path.is_symlink():
        raise HTTPException(404, "Unbekannter Run")
    if not ((path / MANIFEST).exists() or (path / JOBS_DIR).is_dir()):
        raise HTTPException(404, f"Unbekannter Run: {name}")
    return path


def run_router(gui: Gui) -> APIRouter:
    router = APIRouter()

    def idle(path: Path) -> Path:
        """``path``, when no job of it runs (409 naming the run otherwise)."""
        if any(job["state"] == "running" for job in gui.jobs.jobs_of(path)):
            raise HTTPException(409, f"Für Run „{path.name}“ läuft ein Job: erst danach.")
        return path

    def shelved(step: Any, *args: Any) -> None:
        try:
            step(*args)
        except InputError as exc:  # the lock is held, the name is taken, the disk refused
            raise HTTPException(409, str(exc)) from exc

    @router.put("/api/runs/{name}/note")
    def api_note(name: str, body: NoteRequest) -> dict[str, str]:
        path = _run_or_archived(gui.runs_dir, name)
        shelved(write_note, path, body.text)
        return {"note": body.text}

    @router.post("/api/runs/{name}/archive")
    def api_archive(name: str) -> dict[str, str]:
        idle(_run_or_archived(gui.runs_dir, name))
        shelved(archive, gui.runs_dir, name)
        return {"archived": name}

    @router.delete("/api/runs/{name}")
    def api_delete(name: str) -> dict[str, str]:
        shelved(delete, idle(_run_or_archived(gui.runs_dir, name)))
        return {"deleted": name}

    @router.get("/api/archive")
    def api_archived() -> list[str]:
        return archived(gui.runs_dir)

    @router.post("/api/archive/{name}/restore")
    def api_restore(name: str) -> dict[str, str]:
        _run_or_archived(gui.runs_dir / ARCHIVE, name)
        shelved(restore, gui.runs_dir, name)
        return {"restored": name}

    @router.delete("/api/archive/{name}")
    def api_delete_archived(name: str) -> dict[str, str]:
        shelved(delete, _run_or_archived(gui.runs_dir / ARCHIVE, name))
        return {"deleted": name}

    return router
