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
import urllib.parse
from pathlib import PurePath
from typing import Any

from touchstone.errors import kind_label
from touchstone.german import counted
from touchstone.gui.job_state import VANISHED

# After these the same job fails the same way: the name or the key must change first.
HOPELESS = frozenset({"not_found", "auth"})
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


def _quoted(names: list[str]) -> str:
    return " oder ".join(f"„{name}“" for name in names)


def _cells(count: int) -> str:
    return counted(count, "Zelle", "Zellen")


def _host(base_url: str) -> str:
    """The host name of ``base_url`` (the URL itself when it names none)."""
    return urllib.parse.urlsplit(base_url).hostname or base_url


# -- judge -------------------------------------------------------------------------------------
def _judge_cause(end: dict[str, Any], config: str) -> str:
    """The cause of a judge's stop and what to change, naming the judge form and config."""
    cause, model = end.get("cause", ""), end.get("model", "")
    base = end.get("base_url") or "(ohne Adresse)"
    where = f"in der Judge-Konfiguration „{config}“" if config else "in der Judge-Konfiguration"
    if cause == "not_found":
        hint = f" Meinten Sie {_quoted(end['suggestions'])}?" if end.get("suggestions") else ""
        return (
            f"Das Judge-Modell „{model}“ gibt es beim Endpunkt {base} nicht.{hint} Tragen Sie den "
            "richtigen Namen ins Feld „Modell“ ein („Judge mit anderem Modell“)."
        )
    if cause == "auth":
        return (
            f"Der Endpunkt {base} lehnt den Zugang ab. Prüfen Sie den API-Schlüssel {where} "
            "(„endpoint.api_key_env“ nennt eine Umgebungsvariable der GUI) und starten Sie den "
            "Judge dann neu."
        )
    if cause == "connection" and end.get("unknown_host"):
        return (
            f"Rechnername „{_host(base)}“ nicht gefunden (ein Tippfehler?): prüfen Sie "
            f"„endpoint.base_url“ {where}."
        )
    if cause == "connection" and end.get("server_busy"):
        return (
            f"Der Server unter {base} nimmt nicht so viele Verbindungen auf einmal an: senken "
            f"Sie „concurrency“ {where}."
        )
    if cause == "connection":
        return (
            f"Keine Verbindung zum Server unter {base}. Läuft er? Sonst prüfen Sie "
            f"„endpoint.base_url“ {where}."
        )
    if cause == "quota":
        return "Laden Sie beim Anbieter Guthaben auf oder warten Sie auf das nächste Kontingent."
    if cause == "rate_limit":
        return (
            "Der Server drosselt (429) länger, als die Frist erlaubt: senken Sie „concurrency“ "
            f"oder erhöhen Sie „call_timeout_s“ {where}."
        )
    if cause == "server":
        return "Der Server meldet Fehler (5xx); sein Log sagt, warum."
    if cause == "bad_request":
        return (
            "Der Server lehnt die Anfrage ab (400/422): prüfen Sie „max_tokens“, „temperature“ "
            f"und „extra_body“ {where}."
        )
    if cause == "refused":
        return (
            "Ein Inhaltsfilter des Anbieters lehnt die Eingaben ab; ein anderes Judge-Modell "
            "oder ein anderer Endpunkt kann sie bewerten („Judge mit anderem Modell“)."
        )
    if cause == "too_large":
        return f"Die Antworten überschreiten die Obergrenze („max_reply_mb“ {where})."
    if cause == "malformed":
        return (
            f"Der Server unter {base} antwortet, aber nicht mit einer lesbaren Chat-Completion: "
            f"prüfen Sie „endpoint.base_url“ {where} (ein Proxy dazwischen?)."
        )
    if cause == "unparseable":
        return (
            "Der Judge antwortet nicht im verlangten JSON-Format: wählen Sie ein Judge-Modell, "
            "das Formatvorgaben befolgt („Judge mit anderem Modell“)."
        )
    # timeout, reasoning_only, other: a judge that thinks instead of answering (the CLI's
    # ``advice.JUDGE_SETTINGS.slow``): a longer deadline only lets it think longer.
    what = (
        "Der Judge antwortet nur mit Reasoning, ohne Urteil."
        if cause == "reasoning_only"
        else "Der Judge antwortet nicht innerhalb der Frist."
    )
    return (
        f"{what} Wählen Sie ein Judge-Modell ohne Thinking/Reasoning („Judge mit anderem "
        f"Modell“), oder schalten Sie das Denken mit „thinking: off“ {where} ab."
    )


def _runs_away(end: dict[str, Any], health: dict[str, Any]) -> bool:
    """The same judge would run away again: it stopped thinking past its deadline (or with
    reasoning alone) and not one of its calls gave a verdict."""
    slow = end.get("cause") in ("timeout", "reasoning_only", "other")
    return slow and not health.get("successes")


def _judge_left(end: dict[str, Any], resumable: bool, other_model: bool) -> list[str]:
    """What a stopped judge run left, and what goes on from there (judge runs only)."""
    open_cells, kept = end.get("open_cells", 0), end.get("kept", 0)
    unreadable, refused = end.get("unreadable", 0), end.get("refused", 0)
    parts = []
    if kept:
        parts.append(
            f"{counted(kept, 'bisherige Bewertung', 'bisherige Bewertungen')} behalten: eine "
            "fehlgeschlagene oder unlesbare Neubewertung ersetzt keine."
        )
    if open_cells and resumable:
        parts.append(
            "Bereits gespeicherte Bewertungen bleiben erhalten; „Fortsetzen“ bewertet die "
            f"{counted(open_cells, 'offene Zelle', 'offenen Zellen')}."
        )
    elif open_cells and other_model:
        parts.append(
            "Bereits gespeicherte Bewertungen bleiben erhalten; „Judge mit anderem Modell“ "
            f"bewertet die {counted(open_cells, 'offene Zelle', 'offenen Zellen')}."
        )
    elif open_cells:
        parts.append(
            f"Bereits gespeicherte Bewertungen bleiben erhalten ({_cells(open_cells)} offen)."
        )
    if unreadable:
        parts.append(
            "„Judge starten“ mit „Bewerten: auch unbewertete“ bewertet die "
            f"{_cells(unreadable)} mit unlesbarer Judge-Ausgabe erneut."
        )
    if refused and resumable:
        parts.append(
            f"„Fortsetzen“ fragt die {_cells(refused)} erneut, die der Judge-Filter abgelehnt hat."
        )
    if end.get("rejudge_left") and resumable:
        parts.append(_REJUDGE_GOES_ON)
    return parts


def _judge_stop(
    kind: str, end: dict[str, Any], config: str, health: dict[str, Any]
) -> tuple[str, list[str]]:
    cause = end.get("cause", "")
    runaway = _runs_away(end, health)
    # A host name nobody knows fails the same way on every call: the config must change.
    resumable = cause not in HOPELESS and not runaway and not end.get("unknown_host")
    head = "Judge abgebrochen" if kind == "judge" else "Judge-Check abgebrochen"
    label = f" ({kind_label(cause)})" if cause else ""
    parts = [f"{head}{label}:", _judge_cause(end, config)]
    if kind == "judge":
        parts += _judge_left(end, resumable, other_model=runaway)
    return " ".join(parts), (["resume", "other_model"] if resumable else ["other_model"])


# -- run ---------------------------------------------------------------------------------------
def _run_incomplete(end: dict[str, Any]) -> tuple[str, list[str], dict[str, Any] | None]:
    """The message, the actions and the form fix for a run that left cells."""
    base = end.get("base_url") or "(ohne Adresse)"
    run_models = end.get("run_models", [])
    parts = [f"Run unvollständig: {_cells(end.get('open_cells', 0))} offen."]
    no_server = (
        f"Keine Verbindung zum Server unter {base}. Läuft er? Sonst prüfen Sie das Feld „Endpunkt“."
    )
    resumable, replace, extend, field = False, {}, False, ""
    for stopped in end.get("stopped", []):
        model, cause = stopped.get("model", ""), stopped.get("cause", "")
        if cause == "not_found":
            close = stopped.get("suggestions", [])
            hint = f" Meinten Sie {_quoted(close)}?" if close else ""
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
                f"Rechnername „{_host(base)}“ nicht gefunden (ein Tippfehler?): kein weiterer "
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
        notice, actions = _judge_stop(kind, end, _config(record), health or {})
        return notice, actions, None
    if kind == "run" and ending == "run_incomplete":
        notice, actions, fix = _run_incomplete(end)
        return notice, actions + opened, fix
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
        goes_on["judge"] = f" {_REJUDGE_GOES_ON}"
    actions = ["resume", "open_run"] if kind == "run" and has_run else ["resume"]
    return CANCELLED + goes_on.get(kind, ""), actions


# "Fortsetzen" replays the job: a ``--rejudge all`` goes on where it stopped (the CLI's
# ``stages/judge/rejudging.py``), it does not pay for every cell again.
_REJUDGE_GOES_ON = (
    "„Fortsetzen“ setzt die Neubewertung fort: mit demselben Judge nur die Zellen, die sie "
    "noch nicht erreicht hat."
)


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
