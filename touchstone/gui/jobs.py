"""GUI jobs: CLI subprocesses with a sentinel file, an event file and a log per job.

    RUN_DIR/jobs/<id>.json     sentinel, written at start and again at exit
    RUN_DIR/jobs/<id>.events   the CLI's ``--events`` stream (live progress)
    RUN_DIR/jobs/<id>.log      the CLI's stdout and stderr

The sentinel is the truth a restarted GUI sees (``job_state`` says how a job ends when the GUI
was down). A job still running after a restart is *adopted*: its process is recognised by
the events path on its command line, and it can be cancelled. Commands are argv lists, never
a shell; API keys and credentials travel in the child's environment, never in argv, the
sentinel or the log.
"""

from __future__ import annotations

import contextlib
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

from touchstone import jsontext, started
from touchstone.errors import InputError
from touchstone.events import read_events
from touchstone.gui.job_notice import for_browser
from touchstone.gui.job_state import (
    LOG_TAIL,
    clean_record,
    final_state,
    found_unfit,
    job_progress,
    resume_args,
)
from touchstone.regular import linked, open_regular, read_regular, read_regular_text
from touchstone.store import MANIFEST, atomic_write_text

JOBS_DIR = "jobs"


def _now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


_last_stamp = ""


def new_job_id() -> str:
    """A job id that sorts by creation (``jobs_of`` lists the newest first), to the
    microsecond: with whole seconds, two jobs started within one second were ordered by their
    random part, and a run page could show an old failed job's advice as the current one."""
    global _last_stamp
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    while stamp <= _last_stamp:
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    _last_stamp = stamp
    return f"{stamp}-{secrets.token_hex(3)}"


def _is_job_id(job_id: str) -> bool:
    return bool(job_id) and len(job_id) <= 64 and job_id.replace("-", "").isalnum()


def _adopted(pid: int | None, events: Path) -> psutil.Process | None:
    """The running process of a job the GUI did not start (itself, before a restart)."""
    if pid is None:
        return None
    try:
        process = psutil.Process(pid)
        # A PID can be reused: only a touchstone CLI writing this job's events is the job.
        if str(events) in process.cmdline() and process.status() != psutil.STATUS_ZOMBIE:
            return process
    except (psutil.Error, OSError):
        return None
    return None


def _write(sentinel: Path, record: dict[str, Any]) -> None:
    atomic_write_text(sentinel, json.dumps(record, ensure_ascii=False, indent=2))


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
        # Absolute: a job is recognised after a GUI restart by the absolute `--events` path in
        # its command line, and `touchstone gui` defaults to the relative `--runs-dir runs`.
        self.runs_dir = runs_dir.resolve()
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
        if not _is_job_id(job_id):
            return None
        for sentinel in self.runs_dir.glob(f"*/{JOBS_DIR}/{job_id}.json"):
            return sentinel.parent.parent
        return None

    # -- start, watch, cancel -------------------------------------------------------------
    def start(
        self, run_dir: Path, args: Sequence[str], *, extra_env: Mapping[str, str] | None = None
    ) -> str:
        """Start ``python -m touchstone ARGS --events <file>`` for ``run_dir``; returns the id.

        ``extra_env``: what the child needs but must not show (credentials).
        """
        job_id = new_job_id()
        sentinel, events, log = self._files(run_dir, job_id)
        if sentinel.parent.is_symlink():
            # A shared run dir's ``jobs`` may point anywhere: job files are written there.
            raise linked(sentinel.parent)
        # What this start creates, to take back when the process cannot start: a refused
        # start leaves no phantom run behind.
        created = [d for d in (run_dir, sentinel.parent) if not d.exists()]
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
        # The job runs as `python -m touchstone`; its hints name the command as the GUI's
        # user started touchstone (touchstone.started).
        env = {
            **self.child_env,
            **(extra_env or {}),
            "PYTHONUNBUFFERED": "1",
            started.ENV: started.prefix(),
        }
        # A COLUMNS of the GUI's terminal would wrap the job's log: each message stays one
        # line, the last of which the job's record keeps.
        env.pop("COLUMNS", None)
        try:
            with log.open("wb") as log_handle:
                proc = subprocess.Popen(
                    argv,
                    cwd=self.workdir,
                    stdin=subprocess.DEVNULL,
                    stdout=log_handle,
                    stderr=subprocess.STDOUT,
                    env=env,
                )
        except BaseException:
            log.unlink(missing_ok=True)
            for directory in reversed(created):
                with contextlib.suppress(OSError):
                    directory.rmdir()
            raise
        record["pid"] = proc.pid
        _write(sentinel, record)
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
        try:
            raw = jsontext.loads(read_regular(sentinel))
            written = read_events(events)
        except (OSError, ValueError, InputError):
            # Replaced by something unreadable while the job ran: the exit still counts.
            raw, written = {}, []
        record = clean_record(raw, job_id, sentinel.parent.parent.name)
        with self._lock:
            cancelled = job_id in self._cancelled
        ended = final_state(record, written)
        # A check that found its judge unfit exits 1, and did its work all the same.
        if code == 0 or found_unfit(written):
            state = "done"
        elif cancelled or code in (143, 130):
            state = "cancelled"
        else:
            state = "failed"
        message = ended["message"] if ended["exit_code"] == code else ""
        if not message and state != "done":
            message = _last_log_line(log) or f"Prozess endete mit Exit-Code {code}"
        record.update(
            state=state, exit_code=code, message=message, finished_at=_now(), pid=proc.pid
        )
        _write(sentinel, record)
        with self._lock:
            self._procs.pop(job_id, None)

    def cancel(self, job_id: str) -> bool:
        """SIGTERM to a running job; the CLI persists what it has and exits 143."""
        with self._lock:
            proc = self._procs.get(job_id)
            if proc is not None and proc.poll() is None:
                self._cancelled.add(job_id)
                proc.send_signal(signal.SIGTERM)
                return True
        run_dir = self._find(job_id)
        if run_dir is None:
            return False
        sentinel, events, _ = self._files(run_dir, job_id)
        record = self._read(run_dir, job_id)
        process = _adopted(record["pid"], events) if record["state"] == "running" else None
        if process is None:
            return False
        record["cancel_requested"] = True
        _write(sentinel, {k: v for k, v in record.items() if k != "progress"})
        try:
            process.terminate()  # SIGTERM on POSIX
        except psutil.Error:
            return False
        return True

    # -- state ----------------------------------------------------------------------------
    def get(self, job_id: str) -> dict[str, Any] | None:
        run_dir = self._find(job_id)
        if run_dir is None:
            return None
        return self._load(run_dir, job_id, with_log=True)

    def _read(self, run_dir: Path, job_id: str) -> dict[str, Any]:
        """The job's sentinel; ``InputError`` naming it when it cannot be read."""
        sentinel, _, _ = self._files(run_dir, job_id)
        try:
            raw = jsontext.loads(read_regular(sentinel))
        except OSError as exc:
            raise InputError(f"Job-Datei {sentinel} ist unlesbar: {exc}") from exc
        except ValueError as exc:  # jsontext.NotJson, UnicodeDecodeError
            raise InputError(
                f"Job-Datei {sentinel} ist kein gültiges JSON: {jsontext.problem(exc)}"
            ) from exc
        return clean_record(raw, job_id, run_dir.name)

    def _load(self, run_dir: Path, job_id: str, *, with_log: bool = False) -> dict[str, Any]:
        """The job as the API shows it; ``with_log``: an ended job's details hold the tail of
        its log (what the CLI printed), not needed for the overview's one line."""
        sentinel, events_path, log = self._files(run_dir, job_id)
        record = self._read(run_dir, job_id)
        events = read_events(events_path)
        if record["state"] == "running":
            with self._lock:
                ours = job_id in self._procs
            if not ours and _adopted(record["pid"], events_path) is None:
                # Ended while the GUI was down (or the machine went down): settle it once.
                record.update(final_state(record, events), finished_at=_now())
                _write(sentinel, record)
        record["progress"] = job_progress(events)
        ended = record["state"] != "running"
        record.update(
            for_browser(
                record,
                record["progress"],
                has_run=(run_dir / MANIFEST).exists(),
                log=_log_tail(log) if with_log and ended else "",
            ),
            resume=resume_args(record["command"], self.workdir.resolve()),
        )
        record.pop("pid", None)
        record.pop("cancel_requested", None)
        return record

    def jobs_of(self, run_dir: Path, *, with_log: bool = False) -> list[dict[str, Any]]:
        """Every job of ``run_dir``, newest first (``with_log``: see ``_load``)."""
        jobs_dir = run_dir / JOBS_DIR
        if not jobs_dir.is_dir():
            return []
        ids = sorted((p.stem for p in jobs_dir.glob("*.json") if _is_job_id(p.stem)), reverse=True)
        out = []
        for job_id in ids:
            try:
                out.append(self._load(run_dir, job_id, with_log=with_log))
            except (OSError, ValueError, InputError) as exc:
                record = clean_record({}, job_id, run_dir.name)
                message = str(exc) if isinstance(exc, InputError) else f"Job-Datei unlesbar: {exc}"
                record.update(message=message, progress=job_progress([]))
                record.update(for_browser(record, record["progress"]), resume=None)
                record.pop("pid", None)
                record.pop("cancel_requested", None)
                out.append(record)
        return out


def _last_log_line(log: Path) -> str:
    """The CLI's last error line from its log (its message when no event carried one)."""
    try:
        lines = read_regular_text(log, errors="replace").splitlines()
    except (OSError, InputError):
        return ""
    for line in reversed(lines):
        text = line.strip()
        if text.startswith(
            ("Fehler:", "Judge abgebrochen:", "Judge-Check:", "Abgebrochen", "Beendet", "Run ")
        ):
            return text[:2000]
    return ""


def _log_tail(log: Path) -> str:
    """The last ``LOG_TAIL`` characters or so of a job's log, for its details ("" if none)."""
    try:
        with open_regular(log) as handle:
            size = handle.seek(0, 2)
            handle.seek(max(0, size - LOG_TAIL))
            data = handle.read(LOG_TAIL)
    except (OSError, InputError):
        return ""
    text = data.decode("utf-8", errors="replace")
    return text if size <= LOG_TAIL else "…" + text.split("\n", 1)[-1]
