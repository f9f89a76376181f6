"""What the GUI shows of the runs directory: the path guards, run summaries and details."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import HTTPException

from touchstone.bundled import is_bundled
from touchstone.errors import InputError
from touchstone.gui.cache import (
    LoadedRun,
    RunCache,
    SummaryCache,
    file_stamp,
    fresh_scorecard,
    is_fresh,
)
from touchstone.gui.jobs import JOBS_DIR, JobManager
from touchstone.gui.rate import human_of
from touchstone.pack import id_problem
from touchstone.stages.run.extend import planned_cells
from touchstone.stages.run.manifest import pack_of_run
from touchstone.stages.view import report_html
from touchstone.store import MANIFEST, REPORT_HTML, Manifest, RunDir, Stamp, resolve_inside
from touchstone.store.ratings import HUMAN
from touchstone.store.shelf import ARCHIVE, archived, read_note

# The config `touchstone judge` reads without --config: the GUI offers it first too.
DEFAULT_JUDGE_CONFIG = "judge.yaml"


class Gui:
    """State shared by the routes: where runs live, where configs are, the job manager."""

    def __init__(self, runs_dir: Path, workdir: Path, jobs: JobManager) -> None:
        self.runs_dir = runs_dir.resolve()
        self.workdir = workdir.resolve()
        self.jobs = jobs
        self.cache = RunCache(pack_within=self.workdir)
        # The last report rendered, with the loaded run it shows: a reload costs nothing.
        self._report: tuple[LoadedRun, Stamp, str] | None = None
        self.summaries = SummaryCache()

    # -- path guards ----------------------------------------------------------------------
    def run_dir(self, name: str) -> Path:
        """The run directory ``name`` directly under the runs dir, or 404."""
        if id_problem(name):
            raise HTTPException(404, "Unbekannter Run")
        path = (self.runs_dir / name).resolve()
        # exists, not is_file: a run.json that is no regular file is a damaged run (422
        # with the message), not an unknown one.
        if path.parent != self.runs_dir or not (path / MANIFEST).exists():
            raise HTTPException(404, f"Unbekannter Run: {name}")
        return path

    def inside_workdir(self, relative: str, what: str) -> Path:
        """``relative`` resolved inside the working dir and an existing file, or 400."""
        path = resolve_inside(self.workdir, relative)
        if path is None:
            raise HTTPException(400, f"{what} muss im Arbeitsverzeichnis der GUI liegen.")
        try:
            found = path.is_file()
        except OSError as exc:  # a name longer than the file system allows (ENAMETOOLONG)
            shown = relative if len(relative) <= 200 else relative[:200] + "…"
            raise HTTPException(400, f"{what} nicht lesbar (Name zu lang?): {shown}") from exc
        if not found:
            raise HTTPException(400, f"{what} nicht gefunden: {relative}")
        return path

    def judge_configs(self, jobs: Sequence[Mapping[str, Any]] = ()) -> list[str]:
        """The judge*.yaml of the workdir (not the shipped example), the one the newest of
        ``jobs`` used first: a reload keeps the judge the user last picked. Else judge.yaml
        first, the CLI's default, then the rest by name."""
        names = sorted(
            (
                p.name
                for p in self.workdir.glob("judge*.yaml")
                if p.is_file() and not p.name.endswith(".example.yaml")
            ),
            key=lambda name: (name != DEFAULT_JUDGE_CONFIG, name),
        )
        for job in jobs:
            command = [str(part) for part in job.get("command") or []]
            if "--config" in command[:-1]:
                used = Path(command[command.index("--config") + 1]).name
                if used in names:
                    return [used, *(n for n in names if n != used)]
        return names

    def packs(self) -> list[str]:
        found = [p for p in self.workdir.glob("packs/*.yaml") if p.is_file()]
        return sorted(str(p.relative_to(self.workdir)) for p in found)

    # -- views ----------------------------------------------------------------------------
    def run_names(self) -> list[str]:
        """Run dirs, and dirs of runs whose job failed before it could save anything."""
        if not self.runs_dir.is_dir():
            return []
        return sorted(
            (
                p.name
                for p in self.runs_dir.iterdir()
                if not id_problem(p.name) and ((p / MANIFEST).exists() or (p / JOBS_DIR).is_dir())
            ),
            reverse=True,
        )

    def warm(self) -> None:
        """Load the newest run ahead of its first page (a 100k-cell run takes seconds)."""
        for name in self.run_names():
            if (self.runs_dir / name / MANIFEST).is_file():
                # A broken run is not loaded; its page shows the message when opened.
                with contextlib.suppress(InputError):
                    self.cache.get(self.runs_dir / name)
                return

    def runs(self) -> list[dict[str, Any]]:
        """Every run's summary, the newest first (runs without data by their job's start)."""
        names = self.run_names()
        self.summaries.keep_only({self.runs_dir / name for name in names})
        summaries = [self.run_summary(name) for name in names]
        return sorted(summaries, key=lambda s: str(s.get("created_at") or ""), reverse=True)

    def run_summary(self, name: str) -> dict[str, Any]:
        path = self.runs_dir / name
        jobs = self.jobs.jobs_of(path)
        summary: dict[str, Any] = {
            "name": name,
            "last_job": (
                {
                    "id": jobs[0]["id"],
                    "state": jobs[0]["state"],
                    "message": jobs[0]["message"],
                    "notice": jobs[0]["notice"],
                    "short": jobs[0]["short"],
                    "base_url": _option(jobs[0].get("command") or [], "--base-url"),
                }
                if jobs
                else None
            ),
            "created_at": jobs[-1].get("started_at") if jobs else None,
        }
        summary["note"] = note_of(path)
        if not (path / MANIFEST).exists():
            summary["error"] = "Noch keine Daten: der Run-Job endete, bevor er etwas speicherte."
            return summary
        try:
            scored = self.summaries.get(path, self._scored_summary)
        except InputError as exc:
            summary["error"] = str(exc)
            return summary
        scored["created_at"] = scored["created_at"] or summary["created_at"]
        summary.update(scored)
        # Whether report.html is written and current (the link shows the run either way).
        summary["report"] = is_fresh(path, REPORT_HTML)
        return summary

    def _scored_summary(
        self, path: Path, inputs: tuple[Stamp, ...]
    ) -> tuple[dict[str, Any], tuple[Path, ...]]:
        """Counts and the best row: from a fresh ``scorecard.json`` when there is one (a
        100k-cell run is not loaded for one line of the overview), else from the run. And
        the files the pack may have been read from (it gives the expected cell count).
        ``inputs``: the run's stamps, taken once for this request."""
        card = fresh_scorecard(path, inputs)
        if card is None:
            loaded = self.cache.get(path, inputs)
            manifest, pack, card = loaded.view.manifest, loaded.view.pack, loaded.card.as_dict()
        else:
            run = RunDir.existing(path)
            manifest, pack = run.read_manifest(), pack_of_run(run, within=self.workdir)
        rows = card["rows"]
        best = next((row for row in rows if row.get("mean") is not None), None)
        expected = sum(planned_cells(manifest, pack.prompt_count).values())
        unscored = sum(sum(row["unscored"].values()) for row in rows)
        return {
            "pack": manifest.pack_id,
            "models": manifest.models,
            "created_at": manifest.created_at,
            "cells": sum(row["cells"] for row in rows),
            "expected": expected,
            "judged": sum(row["n_scored"] for row in rows) + unscored,
            "unscored": unscored,
            "best": None
            if best is None
            else {
                "model": best["model"],
                "variant": best["variant"],
                # Unrounded: the page formats them as the scorecard does (4.8148 is 4.81
                # there, and would be 4.82 after a rounding to 4.815 here).
                "mean": best["mean"],
                "ci_low": best["ci_low"],
                "ci_high": best["ci_high"],
                "red_flags": best.get("red_flags"),
            },
        }, self._pack_files(manifest)

    def _pack_files(self, manifest: Manifest) -> tuple[Path, ...]:
        """Every file ``pack_of_run`` may read for the run of ``manifest``: the paths it
        names that lie inside the working dir. Only those: the overview stamps them (hashes
        their content) on every request, and a run.json someone shared may name anything."""
        named = [n for n in (manifest.pack_path, manifest.pack_abspath) if n]
        inside = [resolve_inside(self.workdir, n) for n in named]
        # touchstone's own packs (the demo's) are read wherever they are.
        inside += [p for n in named if is_bundled(p := Path(n).resolve())]
        return tuple(dict.fromkeys(path for path in inside if path is not None))

    def loaded(self, name: str) -> LoadedRun:
        """The run ``name`` from the cache; 404 if unknown, 422 if its files are bad."""
        path = self.run_dir(name)
        try:
            return self.cache.get(path)
        except InputError as exc:
            raise HTTPException(422, str(exc)) from exc

    def report(self, name: str) -> str:
        """The HTML of the run's report, as ``touchstone report`` would write it now."""
        run = self.loaded(name)
        # Ratings change no input of the cached run: the report is kept while they stay too.
        ratings = file_stamp(run.view.run_dir.file(HUMAN))
        last = self._report
        if last is not None and last[0] is run and last[1] == ratings:
            return last[2]
        html = report_html(
            run.view,
            run.card,
            csv_link=f"/api/runs/{quote(name)}/verdicts.csv",
            human=human_of(run)[0],
        )
        self._report = (run, ratings, html)
        return html

    def run_detail(self, name: str) -> tuple[dict[str, Any], LoadedRun]:
        """The run as the API returns it (without its verdicts: they are paged), and the
        loaded run the page draws from."""
        run = self.loaded(name)
        view, card = run.view, run.card
        detail = {
            "name": name,
            "pack": {"id": view.pack.id, "title": view.pack.title},
            "categories": {c.id: c.title for c in view.pack.categories},
            "dimensions": {d.id: d.title for d in view.pack.dimensions},
            "prompts": [p.id for _, p in view.pack.all_prompts()],
            "manifest": {
                k: v for k, v in view.manifest.as_json().items() if "key" not in k.lower()
            },
            "scorecard": card.as_dict(),
            "verdict_count": len(view.verdicts),
            "reports": [r.as_dict() for r in view.reports],
            "warnings": view.run_dir.warnings,
            "jobs": self.jobs.jobs_of(self.run_dir(name), with_log=True),
            "report": is_fresh(self.run_dir(name), REPORT_HTML),
            # Without an answer there is nothing to judge or report: the page offers the run.
            "answered": bool(view.responses),
            "endpoints": endpoints(view.manifest),
            "continue_url": self.continue_url(name, view.manifest),
            "note": note_of(self.run_dir(name)),
            # As scorecard.json's human_agreement (design.md §17); a broken human.jsonl: null.
            "human_agreement": _human_json(run),
        }
        return detail, run

    def continue_url(self, name: str, manifest: Manifest) -> str:
        """The overview with its run form filled in to go on with run ``name``: its name,
        its pack (when inside the working dir) and the endpoint it used last."""
        fields = {"name": name}
        for named in (manifest.pack_path, manifest.pack_abspath):
            path = resolve_inside(self.workdir, named) if named else None
            if path is not None:
                fields["pack"] = str(path.relative_to(self.workdir))
                break
        urls = endpoints(manifest)
        if urls:
            fields["base_url"] = urls[-1]
        return "/?" + urlencode(fields) + "#run-form"


def _option(command: list[Any], name: str) -> str:
    """The value of ``name`` in a job's command line; "" without one."""
    words = [str(word) for word in command]
    return words[words.index(name) + 1] if name in words[:-1] else ""


def last_endpoint(runs: list[dict[str, Any]]) -> str:
    """The endpoint the newest run job used (the run form keeps it), "" before any."""
    jobs = [
        run["last_job"]
        for run in runs
        if run.get("last_job", {}) and run["last_job"].get("base_url")
    ]
    return max(jobs, key=lambda job: str(job["id"]))["base_url"] if jobs else ""


def note_of(path: Path) -> str:
    """The run's note for the pages; an unreadable one says so in its place."""
    try:
        return read_note(path)
    except InputError as exc:
        return str(exc)


def archive_of(runs_dir: Path) -> list[dict[str, str]]:
    """The archived runs, each with its note."""
    return [
        {"name": name, "note": note_of(runs_dir / ARCHIVE / name)} for name in archived(runs_dir)
    ]


def current_jobs(runs: list[dict[str, Any]]) -> list[str]:
    """The jobs the overview shows in boxes, from the runs' sentinels (a reload and a GUI
    restart find them again): every run's running job, and the newest job of all when it has
    ended (with its way on: "Fortsetzen" after a cancel). Newest first."""
    last = sorted(
        (run["last_job"] for run in runs if run.get("last_job")),
        key=lambda job: str(job["id"]),
        reverse=True,
    )
    return [str(job["id"]) for i, job in enumerate(last) if i == 0 or job["state"] == "running"]


def endpoints(manifest: Manifest) -> list[str]:
    """The endpoints run.json names (a run dir may be someone else's: its types are checked
    when it is read)."""
    return list(manifest.base_urls)


def _human_json(run: LoadedRun) -> dict[str, Any] | None:
    try:
        card, _ = human_of(run)
    except InputError:
        return None  # the run page names the file and line in the card's place
    return card.as_dict() if card is not None else None
