"""What a GUI job is: its record read back safely, its progress, its final state.

A job's files live in a run directory, which a user (or an attacker) can edit: every value
read back is checked for its type here, and the page shows it as text only.

How a job ended is kept as the facts of its events (``end``, ``fitness``): ``job_notice``
words the page's message from them, the CLI's own text stays behind "Details".

The final state comes from the sentinel the GUI writes when the process exits; when the GUI
was down at the time, from the ``done``/``aborted`` event the CLI wrote last; when neither
exists and the process is gone, the job failed ("Prozess verschwunden"). A judge-check that
found the judge unfit did its work: it ends "done" with its verdict (exit code 1 all the
same), not "failed".
"""

from __future__ import annotations

import math
from itertools import pairwise
from pathlib import Path, PurePath
from typing import Any

from touchstone.events import in_flight_text
from touchstone.german import counted

JOB_STATES = {
    "running": "läuft",
    "done": "fertig",
    "failed": "fehlgeschlagen",
    "cancelled": "abgebrochen",
}
VANISHED = "Prozess verschwunden (kein Abschluss-Eintrag; wurde die GUI beendet?)"
# Exit codes of a CLI that was asked to stop: SIGTERM (the GUI's cancel) and Ctrl-C.
CANCEL_CODES = (143, 130)
MAX_MESSAGE = 2000


# A jury's judge-check cards shown at most (one per member).
MAX_CARDS = 20


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: object, limit: int = MAX_MESSAGE) -> str:
    return value[:limit] if isinstance(value, str) else ""


def clean_record(raw: object, job_id: str, run: str) -> dict[str, Any]:
    """A sentinel's content with every field of the type the API promises."""
    data = raw if isinstance(raw, dict) else {}
    command = data.get("command")
    state = data.get("state")
    return {
        "id": job_id,
        "run": run,
        "command": [c for c in command if isinstance(c, str)] if isinstance(command, list) else [],
        "state": state if isinstance(state, str) and state in JOB_STATES else "failed",
        "exit_code": _int_or_none(data.get("exit_code")),
        "message": _text(data.get("message")),
        "started_at": _text(data.get("started_at"), 40) or None,
        "finished_at": _text(data.get("finished_at"), 40) or None,
        "pid": _int_or_none(data.get("pid")),
        "cancel_requested": data.get("cancel_requested") is True,
    }


def job_progress(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Progress of a job from its events: counts, error streak, end state and health.

    ``done`` and ``total`` count as the CLI's bar does: ``total`` the cells the job's stage
    plans, ``done`` those saved before it started plus what it saved (of a run its answers, of
    a judge its verdicts, never a failed call); ``done`` never exceeds ``total``.
    """
    progress: dict[str, Any] = {
        "stage": "",
        # False until the CLI's first event: a starting process (~6 s of imports and a pack to
        # read) is not a job stuck at "0 / ?".
        "started": bool(events),
        "total": None,
        "done": 0,
        "errors": 0,
        "skipped": 0,
        "streak": 0,
        "health": None,
        "message": "",
        "card": None,
        "agreement": "",
        "drift": "",
        "in_flight": "",
        # How the job ended, as the CLI's events say it (``clean_end``); "" and {} before.
        "fitness": "",
        "end": {},
        # A jury's members dropped by their guard: one German line each (design.md §18).
        "dropped": [],
        # judge-check of a jury: every member's card, and the jury's verdict.
        "cards": [],
        "jury_verdict": "",
    }
    for event in events:
        kind = event.get("event")
        if kind == "start":
            progress["stage"] = _text(event.get("stage"), 20)
            # As the CLI's bar counts (cli/ui.ProgressView): the run's planned cells, those
            # done before this job already done ("65/65", not "0/17" of the open ones).
            total = _int_or_none(event.get("total"))
            todo = _int_or_none(event.get("todo"))
            before = _int_or_none(event.get("already_done"))
            if before is None:
                before = 0 if total is None or todo is None else total - todo
            progress["total"] = None if total is None else max(0, total)
            progress["done"] = max(0, before)
        elif kind == "progress":
            outcome = event.get("outcome")
            if outcome == "done":
                continue
            # Only a saved answer is progress: a failed call left for a later run, or a cell
            # skipped because its model stopped, is counted apart (a full bar over nothing
            # saved would read as finished).
            if outcome not in ("left", "skipped"):
                progress["done"] += 1
            if outcome in ("failed", "left"):
                progress["errors"] += 1
                progress["streak"] += 1
            elif outcome == "skipped":
                progress["skipped"] += 1
            else:
                progress["streak"] = 0
        elif kind == "judge_error":
            # Not a saved verdict, so no progress (as the terminal's bar). Failed calls, as
            # the Judge-Bilanz counts them: a call shared by cells once.
            if not event.get("shared"):
                progress["errors"] += 1
                progress["streak"] += 1
        elif kind == "in_flight":
            progress["in_flight"] = _in_flight(event)
        elif kind == "drift":
            # The finding worded for the GUI (its controls, not CLI commands), by the CLI.
            progress["drift"] = _text(event.get("message_gui") or event.get("message"), 1000)
        elif kind == "judge_dropped":
            progress["dropped"].append(_text(event.get("message")))
            left = _int_or_none(event.get("left"))
            if progress["total"] is not None and left is not None:
                progress["total"] = max(0, progress["total"] - max(0, left))
        elif kind in ("done", "aborted"):
            progress["in_flight"] = ""  # nothing runs once the job has ended
            if isinstance(event.get("health"), dict):
                progress["health"] = event["health"]
            progress["message"] = _text(event.get("message"))
            # Later events add to the facts of earlier ones (the stage's, then the CLI's).
            progress["end"] = {**progress["end"], **clean_end(event)}
            if kind == "done":
                progress["card"] = clean_card(event.get("card"))
                fitness = event.get("fitness")
                progress["fitness"] = fitness if fitness in FITNESS else ""
                if isinstance(event.get("stop"), dict):
                    progress["end"] = {**progress["end"], **clean_end(event["stop"])}
                cards = event.get("cards")
                if isinstance(cards, list):
                    progress["cards"] = [c for c in map(clean_card, cards[:MAX_CARDS]) if c]
                    progress["jury_verdict"] = _text(event.get("jury_verdict"))
                agreement = event.get("agreement")
                if isinstance(agreement, dict):
                    progress["agreement"] = _text(agreement.get("summary"), 500)
    if progress["total"] is not None:
        progress["done"] = min(progress["done"], progress["total"])
    return progress


def _in_flight(event: dict[str, Any]) -> str:
    """The line of an ``in_flight`` event (its numbers checked), as the terminal shows it."""
    calls = _int_or_none(event.get("calls"))
    oldest, deadline = _seconds_or_none(event.get("oldest_s")), event.get("deadline_s")
    if calls is None or calls < 1 or oldest is None:
        return ""
    return in_flight_text(calls, oldest, _seconds_or_none(deadline))


def _seconds_or_none(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value < 1e7 else None


def clean_card(raw: object) -> dict[str, Any] | None:
    """The fitness card of a judge-check job, with only the fields the page shows."""
    if not isinstance(raw, dict) or not isinstance(raw.get("criteria"), list):
        return None
    criteria = [
        {
            "name": _text(c.get("name"), 200),
            "figure": _text(c.get("figure"), 300),
            "passed": c.get("passed") if isinstance(c.get("passed"), bool) else None,
        }
        for c in raw["criteria"][:20]
        if isinstance(c, dict)
    ]
    raw_notes = raw.get("notes")
    notes: list[Any] = raw_notes if isinstance(raw_notes, list) else []
    return {
        "judge_model": _text(raw.get("judge_model"), 200),
        "suitable": raw.get("suitable") is True,
        "verdict": _text(raw.get("verdict")),
        "criteria": criteria,
        "notes": [_text(note, 1000) for note in notes[:5] if isinstance(note, str)],
    }


def found_unfit(events: list[dict[str, Any]]) -> bool:
    """Whether ``events`` are those of a judge-check that judged the judge and found it unfit
    (a check that could not judge it, say of a misspelt model, failed)."""
    return bool(job_progress(events)["fitness"] == "unfit")


FITNESS = ("suitable", "unfit", "unassessable", "aborted")
_END_TEXTS: tuple[str, ...] = ("ending", "cause", "model", "base_url")
_END_TEXTS += ("budget_message", "drift_message", "unfit_message")
_END_COUNTS = (
    "open_cells",
    "kept",
    "unreadable",
    "refused",
    "rejudge_left",
    "silent_calls",
    "blind_calls",
    "cut_verdicts",
)
# Measured seconds and speeds of a deadline stop (``judge.session.slow_facts``).
_END_FIGURES = ("first_chars_s", "tokens_per_s", "deadline_s")
_MAX_LISTED = 20


def _names(value: object) -> list[str]:
    items = value[:_MAX_LISTED] if isinstance(value, list) else []
    return [_text(name, 200) for name in items if isinstance(name, str) and name]


def _listed(value: object) -> list[dict[str, Any]]:
    items = value[:_MAX_LISTED] if isinstance(value, list) else []
    return [clean_end(item, lists=False) for item in items if isinstance(item, dict)]


def clean_end(event: dict[str, Any], *, lists: bool = True) -> dict[str, Any]:
    """The facts of an ``aborted`` event (``touchstone.events``), each of its type: only the
    fields an event has (an older CLI wrote none); ``lists``: with its lists of the same
    facts (one level: an edited file nests no deeper)."""
    facts: dict[str, Any] = {}
    for key in _END_TEXTS:
        if isinstance(event.get(key), str):
            # Names are short; a worded finding (budget, drift) is a few sentences.
            facts[key] = _text(event[key], 1000 if key.endswith("_message") else 300)
    for key in _END_COUNTS:
        if (count := _int_or_none(event.get(key))) is not None:
            facts[key] = max(0, count)
    if (calls := _int_or_none(event.get("calls"))) is not None:
        facts["calls"] = max(0, calls)
    for key in _END_FIGURES:
        value = event.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if math.isfinite(value) and 0 <= value <= 1e9:
            facts[key] = float(value)
    for key in ("server_busy", "unknown_host", "recorded", "reasoning_seen"):
        if isinstance(event.get(key), bool):
            facts[key] = event[key]
    for key in ("suggestions", "run_models"):
        if key in event:
            facts[key] = _names(event[key])
    for key in ("stopped", "left"):
        if lists and key in event:
            facts[key] = _listed(event[key])
    return facts


def final_state(record: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """The end of a job whose process is gone without a final sentinel, from its events."""
    last = next((e for e in reversed(events) if e.get("event") in ("done", "aborted")), None)
    if last is None:
        return {"state": "failed", "exit_code": None, "message": VANISHED}
    if found_unfit(events):
        code = _int_or_none(last.get("exit_code"))
        return {"state": "done", "exit_code": code, "message": _text(last.get("message"))}
    if last.get("event") == "done":
        health = last.get("health") if isinstance(last.get("health"), dict) else {}
        left = _int_or_none(health.get("cells_left")) or 0
        refused = _int_or_none(last.get("refused")) or 0
        parts = (
            [f"{counted(left, 'Zelle', 'Zellen')} offen für einen späteren Durchgang"]
            if left
            else []
        )
        if refused:
            parts.append(
                f"{counted(refused, 'Zelle', 'Zellen')} vom Judge-Filter abgelehnt "
                "(der nächste Judge-Durchgang fragt erneut)"
            )
        if cached := _int_or_none(last.get("from_cache")):
            parts.append(
                f"{counted(cached, 'Bewertung', 'Bewertungen')} aus dem Bewertungs-Cache (gleiche "
                "Antwort, gleicher Judge)"
            )
        budget = last.get("budget")
        if isinstance(budget, dict) and _text(budget.get("summary"), 500):
            parts.append(_text(budget.get("summary"), 500).rstrip("."))
        message = "; ".join(parts)
        return {"state": "done", "exit_code": 0, "message": message}
    code = _int_or_none(last.get("exit_code"))
    cancelled = code in CANCEL_CODES or record.get("cancel_requested")
    return {
        "state": "cancelled" if cancelled else "failed",
        "exit_code": code,
        "message": _text(last.get("message")) or VANISHED,
    }


LOG_TAIL = 4000


COST_FLAGS = {
    "price_per_million": "--price-per-million",
    "max_tokens": "--max-tokens",
    "budget": "--budget",
    "concurrency": "--concurrency",
}


def resume_args(command: list[str], workdir: Path) -> dict[str, Any] | None:
    """What starts a job's ``command`` again through the API's own checks: for a judge job
    the judge form's fields, for a run job the run form's (``run_resume_args``); None for
    other jobs, and for a config or pack outside the working dir (the API would refuse it)."""
    if len(command) >= 3 and command[2] == "run":
        return run_resume_args(command, workdir)
    if len(command) < 3 or command[2] not in ("judge", "judge-check"):
        return None
    config = _option(command, "--config")
    relative = _inside(config, workdir)
    if relative is None:
        return None
    return {
        "command": command[2],
        "config": relative,
        "model": _option(command, "--model"),
        "rejudge": _option(command, "--rejudge") or "none",
        # The cost flags the GUI's judge form passed: a resume keeps them.
        **_cost_fields(command),
    }


def run_resume_args(command: list[str], workdir: Path) -> dict[str, Any] | None:
    """The run form's fields (``job_routes.RunRequest``, with "command": "run") that start a
    run job's ``command`` again; its name is the run dir's, not the command's ``--out``.
    None without ``--base-url`` in the command: credentials in the URL reached the job
    through its environment, never its argv, and are kept nowhere (the form asks again)."""
    pack, base_url = _inside(_option(command, "--pack"), workdir), _option(command, "--base-url")
    if pack is None or base_url is None:
        return None
    repeats = _option(command, "--repeats")
    return {
        "command": "run",
        "pack": pack,
        "base_url": base_url,
        "models": _options(command, "--model"),
        "variants": _options(command, "--variant"),
        "repeats": int(repeats) if repeats and repeats.isdigit() else 1,
        "extend": "--extend" in command,
        # The run form's cost fields: a resume keeps the price, budget and concurrency.
        **_cost_fields(command),
    }


def _cost_fields(command: list[str]) -> dict[str, Any]:
    """The cost flags of ``command`` as the form's fields (``cost_fields.CostFields``)."""
    fields: dict[str, Any] = {}
    for key, flag in COST_FLAGS.items():
        value = _option(command, flag)
        if value is not None:
            counted = key in ("max_tokens", "concurrency") and value.isdecimal()
            fields[key] = int(value) if counted else value
    return fields


def _option(command: list[str], name: str) -> str | None:
    return command[command.index(name) + 1] if name in command[:-1] else None


def _options(command: list[str], name: str) -> list[str]:
    """Every value of an option given more than once (``--model a --model b``)."""
    return [value for flag, value in pairwise(command) if flag == name]


def _inside(path: str | None, workdir: Path) -> str | None:
    """``path`` relative to ``workdir`` (as the API takes it), None outside or without one."""
    if path is None:
        return None
    try:
        return PurePath(path).relative_to(workdir).as_posix()
    except ValueError:
        return None
