"""GUI jobs: CLI subprocesses with a sentinel file, an event file and a log per job.

    RUN_DIR/jobs/<id>.json     sentinel, written at start and again at exit
    RUN_DIR/jobs/<id>.events   the CLI's ``--events`` stream (live progress)
    RUN_DIR/jobs/<id>.log      the CLI's stdout and stderr

The sentinel is the truth a restarted GUI sees: exit 0 is ``done``, a cancel the user asked
for is ``cancelled``, anything else ``failed`` with the CLI's message. A sentinel still saying
``running`` whose process is gone (the GUI itself was killed, the machine rebooted) is shown as
``failed`` ("Prozess verschwunden"). Commands are argv lists, never a shell; API keys travel
in the child's environment, never in argv, the sentinel or the log.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import psutil

from touchstone.events import read_events
from touchstone.store import atomic_write_text

JOBS_DIR = "jobs"
VANISHED = "Prozess verschwunden (kein Abschluss-Eintrag; wurde die GUI beendet?)"


def _now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def new_job_id() -> str:
    return dt.datetime.now().strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


def _pid_alive(pid: int) -> bool:
    # psutil, not os.kill(pid, 0): on Windows that signal number would kill the process.
    return bool(psutil.pid_exists(pid))


def job_progress(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Progress of a job from its events: counts, error streak, end state and health."""
    progress: dict[str, Any] = {
        "stage": "",
        "total": None,
        "done": 0,
        "errors": 0,
        "streak": 0,
        "health": None,
        "message": "",
    }
    for event in events:
        kind = event.get("event")
        if kind == "start":
            progress["stage"] = event.get("stage", "")
            progress["total"] = event.get("todo", event.get("total"))
            if progress["stage"] == "run":
                progress["total"] = int(event.get("total", 0)) - int(event.get("already_done", 0))
        elif kind == "progress":
            if event.get("outcome") == "done":
                continue
            progress["done"] += 1
            progress["streak"] = 0
        elif kind == "judge_error":
            progress["done"] += 1
            progress["errors"] += 1
            progress["streak"] += 1
        elif kind in ("done", "aborted"):
            if event.get("health"):
                progress["health"] = event["health"]
            if event.get("message"):
                progress["message"] = event["message"]
    return progress


class JobManager:
    """Starts CLI jobs for runs under ``runs_dir`` and reports their state."""

    def __init__(
        self,
        runs_dir: Path,
        workdir: Path,
        *,
        python: str = sys.executable,
        child_env: Mapping[str, str] | None = None,
    ) -> None:
        self.runs_dir = runs_dir
        self.workdir = workdir
        self.python = python
        self.child_env = dict(child_env if child_env is not None else os.environ)
        self._procs: dict[str, subprocess.Popen[bytes]] = {}
        self._cancelled: set[str] = set()
        self._lock = threading.Lock()

    # -- paths ----------------------------------------------------------------------------
    def _files(self, run_dir: Path, job_id: str) -> tuple[Path, Path, Path]:
        jobs = run_dir / JOBS_DIR
        return jobs / f"{job_id}.json", jobs / f"{job_id}.events", jobs / f"{job_id}.log"

    def _find(self, job_id: str) -> Path | None:
        if not job_id.replace("-", "").isalnum():
            return None
        for sentinel in self.runs_dir.glob(f"*/{JOBS_DIR}/{job_id}.json"):
            return sentinel.parent.parent
        return None

    # -- start, watch, cancel -------------------------------------------------------------
    def start(self, run_dir: Path, args: Sequence[str]) -> str:
        """Start ``python -m touchstone ARGS --events <file>`` for ``run_dir``; returns the id."""
        job_id = new_job_id()
        sentinel, events, log = self._files(run_dir, job_id)
        sentinel.parent.mkdir(parents=True, exist_ok=True)
        argv = [self.python, "-m", "touchstone", *args, "--events", str(events)]
        record: dict[str, Any] = {
            "id": job_id,
            "run": run_dir.name,
            "command": argv[1:],
            "state": "running",
            "exit_code": None,
            "message": "",
            "started_at": _now(),
            "finished_at": None,
            "pid": None,
        }
        env = {**self.child_env, "PYTHONUNBUFFERED": "1"}
        with log.open("wb") as log_handle:
            proc = subprocess.Popen(
                argv,
                cwd=self.workdir,
                stdin=subprocess.DEVNULL,
                stdout=log_handle,
                stderr=subprocess.STDOUT,
                env=env,
            )
        record["pid"] = proc.pid
        atomic_write_text(sentinel, json.dumps(record, ensure_ascii=False, indent=2))
        with self._lock:
            self._procs[job_id] = proc
        threading.Thread(
            target=self._watch, args=(job_id, proc, sentinel, events, log), daemon=True
        ).start()
        return job_id

    def _watch(
        self,
        job_id: str,
        proc: subprocess.Popen[bytes],
        sentinel: Path,
        events: Path,
        log: Path,
    ) -> None:
        code = proc.wait()
        record = json.loads(sentinel.read_text(encoding="utf-8"))
        with self._lock:
            cancelled = job_id in self._cancelled
        if code == 0:
            state = "done"
        elif cancelled:
            state = "cancelled"
        else:
            state = "failed"
        progress = job_progress(read_events(events))
        message = progress["message"] or _last_log_line(log)
        if state == "done" and not message and progress.get("health"):
            left = progress["health"].get("cells_left", 0)
            message = f"{left} Zellen offen für einen späteren Lauf" if left else ""
        if state == "failed" and not message:
            message = f"Prozess endete mit Exit-Code {code}"
        record.update(
            state=state, exit_code=code, message=message, finished_at=_now(), pid=proc.pid
        )
        atomic_write_text(sentinel, json.dumps(record, ensure_ascii=False, indent=2))
        with self._lock:
            self._procs.pop(job_id, None)

    def cancel(self, job_id: str) -> bool:
        """SIGTERM to a running job; the CLI persists what it has and exits 143."""
        with self._lock:
            proc = self._procs.get(job_id)
            if proc is None or proc.poll() is not None:
                return False
            self._cancelled.add(job_id)
        proc.send_signal(signal.SIGTERM)
        return True

    # -- state ----------------------------------------------------------------------------
    def get(self, job_id: str) -> dict[str, Any] | None:
        run_dir = self._find(job_id)
        if run_dir is None:
            return None
        return self._load(run_dir, job_id)

    def _load(self, run_dir: Path, job_id: str) -> dict[str, Any]:
        sentinel, events, _ = self._files(run_dir, job_id)
        record: dict[str, Any] = json.loads(sentinel.read_text(encoding="utf-8"))
        if record.get("state") == "running":
            with self._lock:
                ours = job_id in self._procs
            pid = record.get("pid")
            if not ours and not (isinstance(pid, int) and _pid_alive(pid)):
                record.update(state="failed", message=VANISHED)
        record["progress"] = job_progress(read_events(events))
        record.pop("pid", None)
        return record

    def jobs_of(self, run_dir: Path) -> list[dict[str, Any]]:
        """Every job of ``run_dir``, newest first."""
        jobs_dir = run_dir / JOBS_DIR
        if not jobs_dir.is_dir():
            return []
        ids = sorted((p.stem for p in jobs_dir.glob("*.json")), reverse=True)
        out = []
        for job_id in ids:
            try:
                out.append(self._load(run_dir, job_id))
            except (OSError, json.JSONDecodeError) as exc:
                out.append(
                    {
                        "id": job_id,
                        "run": run_dir.name,
                        "command": [],
                        "state": "failed",
                        "exit_code": None,
                        "message": f"Job-Datei unlesbar: {exc}",
                        "progress": job_progress([]),
                    }
                )
        return out


def _last_log_line(log: Path) -> str:
    """The CLI's last error line from its log (its message when no event carried one)."""
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    for line in reversed(lines):
        text = line.strip()
        if text.startswith(("Fehler:", "Judge abgebrochen:", "Abgebrochen", "Beendet")):
            return text
    return ""
