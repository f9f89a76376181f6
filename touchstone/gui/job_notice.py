"""What the page says of an ended job, worded by the GUI from the facts of the CLI's events.

The CLI's message tells a terminal user what to type; a browser user gets the GUI's own
sentence from the facts (``job_state.clean_end``: the cause, the model, the names the
endpoint offers, the open cells) and the buttons that help: "Fortsetzen" only where the same
job again can get further (never after a 404, a refused key, or a judge that thought past its
deadline without one verdict), the settings where they are
wrong. The CLI's text stays behind "Details" with the tail of the job's log. A job whose
events carry no facts (an older CLI, a process that vanished) says so and points there.
"""

from __future__ import annotations

import itertools
import re
from pathlib import PurePath
from typing import Any

from touchstone.errors import kind_label
from touchstone.german import counted
from touchstone.gui.job_state import VANISHED
from touchstone.gui.judge_notice import REJUDGE_GOES_ON, judge_stop
from touchstone.gui.notice_words import cells, host_of, quoted

CANCELLED = "Abgebrochen: alles bisher Gespeicherte bleibt erhalten."
_HEADS = {
    "run": "Run fehlgeschlagen",
    "judge": "Judge abgebrochen",
    "judge-check": "Judge-Check fehlgeschlagen",
}
_SEE_DETAILS = "Was das Programm meldet, steht unter „Details“."
# Messages the GUI itself wrote into the sentinel (not the CLI's): shown as they are.
_OWN = (VANISHED, "Prozess endete", "Job-Datei")


def _kind(record: dict[str, Any]) -> str:
    command = record.get("command") or []
    return command[2] if len(command) > 2 and isinstance(command[2], str) else ""


def _config(record: dict[str, Any]) -> str:
    command = [str(part) for part in record.get("command") or []]
    if "--config" not in command[:-1]:
        return ""
    return PurePath(command[command.index("--config") + 1]).name


def _run_incomplete(end: dict[str, Any]) -> tuple[str, list[str], dict[str, Any] | None]:
    """The message, the actions and the form fix for a run that left cells."""
    base = end.get("base_url") or "(ohne Adresse)"
    run_models = end.get("run_models", [])
    parts = [f"Run unvollständig: {cells(end.get('open_cells', 0))} offen."]
    no_server = (
        f"Keine Verbindung zum Server unter {base}. Läuft er? Sonst prüfen Sie das Feld „Endpunkt“."
    )
    resumable, replace, extend, field = False, {}, False, ""
    for stopped in end.get("stopped", []):
        model, cause = stopped.get("model", ""), stopped.get("cause", "")
        if cause == "not_found":
            close = stopped.get("suggestions", [])
            hint = f" Meinten Sie {quoted(close)}?" if close else ""
            # The corrected model is new to a run with models: that takes "Run erweitern".
            new = bool(run_models) and (close[0] if close else model) not in run_models
            tick = " mit Haken bei „Run erweitern“" if new else ""
            parts.append(
                f"Das Modell „{model}“ gibt es beim Endpunkt nicht.{hint} Korrigieren Sie den "
                f"Namen im Feld „Modelle“ und starten Sie den Run{tick} erneut."
            )
            if close:
                replace[model] = close[0]
            extend, field = extend or new, "models"
        elif cause == "auth":
            parts.append(
                f"Der Endpunkt lehnt den Zugang für „{model}“ ab: prüfen Sie den API-Schlüssel. "
                "Die GUI gibt ihren Jobs den ihrer Umgebung (OPENAI_API_KEY): setzen Sie ihn dort "
                "und starten Sie die GUI neu."
            )
        elif cause == "connection":
            resumable, field = True, field or "base_url"
            if no_server not in parts:
                parts.append(no_server)
        else:
            resumable = True
            parts.append(f"Modell „{model}“ gestoppt – {kind_label(cause)}.")
    for left in end.get("left", []):
        cause, calls = left.get("cause", ""), counted(left.get("calls", 0), "Aufruf", "Aufrufe")
        resumable = True
        if cause == "connection" and left.get("unknown_host"):
            # No call can reach that name: a resume would fail alike; the field needs a fix.
            resumable, field = False, "base_url"
            parts.append(
                f"Rechnername „{host_of(base)}“ nicht gefunden (ein Tippfehler?): kein weiterer "
                "Aufruf wurde gestellt. Korrigieren Sie das Feld „Endpunkt“ und starten Sie den "
                "Run erneut."
            )
            break
        if cause == "connection" and left.get("server_busy"):
            parts.append(
                f"{calls} ohne Antwort: der Server unter {base} nimmt nicht so viele "
                "Verbindungen auf einmal an."
            )
        elif cause == "connection":
            field = field or "base_url"
            if no_server not in parts:
                parts.append(no_server)
        else:
            parts.append(f"{calls} ohne Antwort – {kind_label(cause)}.")
    if resumable:
        parts.append("„Fortsetzen“ holt die offenen Zellen nach.")
    actions = (["resume"] if resumable else []) + (["edit_settings"] if field else [])
    fix = {"field": field, "replace": replace, "extend": extend} if field else None
    return " ".join(parts), actions, fix


# -- every job ---------------------------------------------------------------------------------
def _failed(
    record: dict[str, Any], progress: dict[str, Any], has_run: bool
) -> tuple[str, list[str], dict[str, Any] | None]:
    kind, end = _kind(record), progress.get("end") or {}
    message, ending = record.get("message") or "", end.get("ending", "")
    # A run whose run.json records no model has no answer to look at.
    opened = ["open_run"] if has_run and kind == "run" and end.get("run_models", True) else []
    if kind in ("judge", "judge-check") and end.get("cause"):
        health = progress.get("health") if isinstance(progress.get("health"), dict) else {}
        notice, actions = judge_stop(kind, end, _config(record), health or {})
        return notice, actions, None
    if kind == "run" and ending == "run_incomplete":
        notice, actions, fix = _run_incomplete(end)
        return notice, actions + opened, fix
    if end.get("unfit_message"):
        # on_unfit: stop: nothing was called or written; another judge is the page's way.
        return str(end["unfit_message"]), ["other_model"], None
    if end.get("drift_message"):
        # on_drift: stop: nothing was judged; the page's own way is a judge without the cache.
        return str(end["drift_message"]), ["other_model"], None
    if ending == "budget_reached":
        spent = str(end.get("budget_message") or "Budget erreicht.")
        if kind == "judge-check":
            # Nothing is kept of a check: the same budget would stop at the same probe.
            return (
                f"{spent} Der Judge-Check endet ohne Urteil, denn ein Urteil braucht alle "
                "Proben: mit einem größeren `budget` in der Judge-Konfiguration erneut prüfen.",
                [],
                None,
            )
        return (
            f"{spent} Alles Gespeicherte bleibt; „Fortsetzen“ macht mit einem neuen Budget "
            "derselben Höhe weiter.",
            ["resume", *opened],
            None,
        )
    judge_actions = {"judge": ["resume", "other_model"], "judge-check": ["other_model"]}
    if ending in ("input", "system"):
        # Bad input or a failing machine: the message names the file and the problem.
        actions = ["other_model"] if kind in judge_actions else opened
        return message, actions, None
    if kind == "judge-check" and progress.get("fitness") == "unassessable":
        card = progress.get("card") or {}
        return f"Judge-Check: {card.get('verdict', '')}".strip(), ["other_model"], None
    if message.startswith(_OWN):
        notice = message
    else:
        head = _HEADS.get(kind, "Fehlgeschlagen")
        notice = f"{head}. {_SEE_DETAILS}"
    actions = judge_actions.get(kind) or (["resume", *opened] if kind == "run" else [])
    return notice, actions, None


def _cancelled(record: dict[str, Any], kind: str, has_run: bool) -> tuple[str, list[str]]:
    goes_on = {
        "run": " „Fortsetzen“ holt die offenen Zellen nach.",
        "judge": " „Fortsetzen“ bewertet die offenen Zellen.",
        "judge-check": " „Erneut prüfen“ startet die Prüfung neu.",
    }
    if kind == "judge" and _rejudges_all(record):
        goes_on["judge"] = f" {REJUDGE_GOES_ON}"
    actions = ["resume", "open_run"] if kind == "run" and has_run else ["resume"]
    return CANCELLED + goes_on.get(kind, ""), actions


# "Fortsetzen" replays the job: a ``--rejudge all`` goes on where it stopped (the CLI's
# ``stages/judge/rejudging.py``), it does not pay for every cell again.


def _rejudges_all(record: dict[str, Any]) -> bool:
    command = [part for part in record.get("command") or [] if isinstance(part, str)]
    return any(a == "--rejudge" and b == "all" for a, b in itertools.pairwise(command))


def _done(record: dict[str, Any], progress: dict[str, Any]) -> tuple[str, list[str]]:
    kind = _kind(record)
    if kind == "run":
        return record.get("message") or "", ["open_run", "judge_run"]
    if kind == "judge-check":
        # The card says the verdict; an unfit judge wants another model.
        return "", ["other_model"] if progress.get("fitness") == "unfit" else []
    health = progress.get("health") if isinstance(progress.get("health"), dict) else {}
    left = health.get("cells_left") if health else None
    resumable = kind == "judge" and isinstance(left, int) and left > 0
    return record.get("message") or "", ["resume"] if resumable else []


# The overview's cell for a job: a few words, the whole notice is on the run page.
_SHORT_MAX = 90
_PATH = re.compile(r"(?:/[^\s/:()]+)+/([^\s/:()]+)")


def short_notice(record: dict[str, Any], progress: dict[str, Any], notice: str = "") -> str:
    """What a job's line on the overview says after its state: the cause's German name
    ("Frist überschritten"), else the notice's first sentence, cut to a few words; "" when
    the state says it all (done, cancelled)."""
    if record.get("state") != "failed":
        return ""
    end = progress.get("end") or {}
    causes = [end.get("cause", "")] + [
        item.get("cause", "") for item in (*end.get("stopped", []), *end.get("left", []))
    ]
    cause = next((c for c in causes if c), "")
    if cause:
        return kind_label(cause)
    if end.get("ending") == "budget_reached":
        return "Budget erreicht"
    notice = notice or str(record.get("notice") or "")
    if not notice or notice.endswith(_SEE_DETAILS):
        # The GUI had no words of its own: the CLI's first sentence beats "see the details".
        notice = str(record.get("message") or notice)
    first = notice.split(". ", 1)[0].strip().rstrip(".")
    # A file named by its path ("/tmp/…/packs/x.yaml (Zeile 2): …"): its name says enough.
    first = _PATH.sub(r"\1", first.removeprefix("Fehler: "))
    return first if len(first) <= _SHORT_MAX else first[: _SHORT_MAX - 1].rstrip() + "…"


def for_browser(
    record: dict[str, Any], progress: dict[str, Any], *, has_run: bool = True, log: str = ""
) -> dict[str, Any]:
    """What the page shows of a job: ``notice`` (the GUI's own words), ``actions`` (the
    buttons: "resume" the same job again, "other_model" the judge form with its model field,
    "open_run", "judge_run", "edit_settings" the run form's field ``fix`` names), ``short``
    (``short_notice``, for the overview and older jobs), ``fix``
    (``{"field", "replace": {wrong: right}, "extend"}`` or None) and ``details`` (the CLI's
    message and its log's tail)."""
    message = record.get("message") or ""
    details = "\n\n".join(part for part in (message, log.strip()) if part)
    shown: dict[str, Any] = {
        "notice": "",
        "actions": [],
        "fix": None,
        "details": details,
        "short": "",
    }
    state, kind = record.get("state"), _kind(record)
    if state == "done":
        shown["notice"], shown["actions"] = _done(record, progress)
    elif state == "cancelled":
        shown["notice"], shown["actions"] = _cancelled(record, kind, has_run)
    elif state == "failed":
        shown["notice"], shown["actions"], shown["fix"] = _failed(record, progress, has_run)
    shown["short"] = short_notice(record, progress, shown["notice"])
    return shown
