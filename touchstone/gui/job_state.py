"""What a GUI job is: its record read back safely, its progress, its final state.

A job's files live in a run directory, which a user (or an attacker) can edit: every value
read back is checked for its type here, and the page shows it as text only.

What the page says of a job is worded for a browser (``for_browser``): the buttons that do
what the CLI's message tells a terminal user to type; the CLI's own text stays behind
"Details" with the tail of the job's log.

The final state comes from the sentinel the GUI writes when the process exits; when the GUI
was down at the time, from the ``done``/``aborted`` event the CLI wrote last; when neither
exists and the process is gone, the job failed ("Prozess verschwunden").
"""

from __future__ import annotations

import re
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

    ``done`` counts the cells this job settled (never the ones that were there before; of a
    run, only answers it saved), and never exceeds ``total``.
    """
    progress: dict[str, Any] = {
        "stage": "",
        "total": None,
        "done": 0,
        "errors": 0,
        "skipped": 0,
        "streak": 0,
        "health": None,
        "message": "",
        "card": None,
        "agreement": "",
        "in_flight": "",
        # A jury's members dropped by their guard: one German line each (DESIGN §18).
        "dropped": [],
        # judge-check of a jury: every member's card, and the jury's verdict.
        "cards": [],
        "jury_verdict": "",
    }
    for event in events:
        kind = event.get("event")
        if kind == "start":
            progress["stage"] = _text(event.get("stage"), 20)
            total = _int_or_none(event.get("todo"))
            if total is None:
                total = _int_or_none(event.get("total"))
                done_before = _int_or_none(event.get("already_done")) or 0
                total = None if total is None else total - done_before
            progress["total"] = None if total is None else max(0, total)
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
            progress["done"] += 1
            progress["errors"] += 1
            progress["streak"] += 1
        elif kind == "in_flight":
            progress["in_flight"] = _in_flight(event)
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
            if kind == "done":
                progress["card"] = clean_card(event.get("card"))
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
    return {
        "judge_model": _text(raw.get("judge_model"), 200),
        "suitable": raw.get("suitable") is True,
        "verdict": _text(raw.get("verdict")),
        "criteria": criteria,
    }


def final_state(record: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """The end of a job whose process is gone without a final sentinel, from its events."""
    last = next((e for e in reversed(events) if e.get("event") in ("done", "aborted")), None)
    if last is None:
        return {"state": "failed", "exit_code": None, "message": VANISHED}
    if last.get("event") == "done":
        health = last.get("health") if isinstance(last.get("health"), dict) else {}
        left = _int_or_none(health.get("cells_left")) or 0
        refused = _int_or_none(last.get("refused")) or 0
        parts = [f"{left} Zellen offen für einen späteren Lauf"] if left else []
        if refused:
            parts.append(
                f"{counted(refused, 'Zelle', 'Zellen')} vom Judge-Filter abgelehnt "
                "(der nächste Judge-Lauf fragt erneut)"
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


# What the CLI tells a terminal user to type, as the GUI says it: the button or the field that
# does it. The CLI's text stays in the job's details.
_GUI_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"^(?:Beendet \(SIGTERM\)|Abgebrochen \(Strg-C\)):", "Abgebrochen:"),
        (r"Derselbe Befehl mit --out \S+ holt sie nach\.", "„Fortsetzen“ holt sie nach."),
        (r"ein erneutes `touchstone judge` bewertet", "„Fortsetzen“ bewertet"),
        (
            r"`touchstone judge --rejudge unscored` bewertet",
            "„Judge starten“ mit „Bewerten: auch unbewertete“ bewertet",
        ),
        (r"`touchstone run`", "„Run starten“"),
        (r"`touchstone judge`", "„Judge starten“"),
        (r" \(oder --concurrency\)", ""),
        (r"oder --model\b", "oder das Feld „Modell“"),
        (r",? README: „[^“]*“", ""),
        (r"mit --out ein anderes Verzeichnis", "einen anderen Run-Namen"),
        (r"--extend\b", "„Run erweitern“"),
    )
)
# A sentence that still names a command or a flag after the rewording: the details have it.
_CLI_LEFT = re.compile(r"`touchstone|(?<![\w-])--[a-z]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÄÖÜ„`])")
LOG_TAIL = 4000


def gui_wording(message: str) -> str:
    """The CLI's ``message`` as the page says it: buttons and fields instead of commands."""
    text = message.strip()
    for pattern, replacement in _GUI_WORDS:
        text = pattern.sub(replacement, text)
    sentences = [s for s in _SENTENCE_END.split(text) if not _CLI_LEFT.search(s)]
    return " ".join(sentences)


def _kind(record: dict[str, Any]) -> str:
    command = record.get("command") or []
    return command[2] if len(command) > 2 and isinstance(command[2], str) else ""


def _actions(record: dict[str, Any], progress: dict[str, Any], has_run: bool) -> list[str]:
    """The buttons the page offers after the job: "resume" (the same job again),
    "other_model" (the judge form, its model field focused), "open_run", "judge_run"."""
    state, kind = record.get("state"), _kind(record)
    if state == "running":
        return []
    if kind == "run":
        if state == "done":
            return ["open_run", "judge_run"]
        return ["resume", "open_run"] if has_run else ["resume"]
    if kind not in ("judge", "judge-check"):
        return []
    if state == "cancelled":
        return ["resume"]
    if state == "failed":
        return ["other_model"] if kind == "judge-check" else ["resume", "other_model"]
    health = progress.get("health") if isinstance(progress.get("health"), dict) else {}
    left = _int_or_none(health.get("cells_left")) if health else None
    return ["resume"] if kind == "judge" and left else []


def resume_args(command: list[str], workdir: Path) -> dict[str, Any] | None:
    """The judge form's fields that start a judge job's ``command`` again; None for other
    jobs, and for a config outside the working dir (the API would refuse it)."""
    if len(command) < 3 or command[2] not in ("judge", "judge-check"):
        return None

    def option(name: str) -> str | None:
        return command[command.index(name) + 1] if name in command[:-1] else None

    config = option("--config")
    if config is None:
        return None
    try:
        relative = PurePath(config).relative_to(workdir)
    except ValueError:
        return None
    return {
        "command": command[2],
        "config": relative.as_posix(),
        "model": option("--model"),
        "rejudge": option("--rejudge") or "none",
    }


def for_browser(
    record: dict[str, Any], progress: dict[str, Any], *, has_run: bool = True, log: str = ""
) -> dict[str, Any]:
    """What the page shows of an ended job: ``notice`` (the message in GUI words),
    ``actions`` (see ``_actions``) and ``details`` (the CLI's message and its log's tail)."""
    message = _text(record.get("message"))
    details = "\n\n".join(part for part in (message, log.strip()) if part)
    return {
        "notice": gui_wording(message),
        "actions": _actions(record, progress, has_run),
        "details": details,
    }
