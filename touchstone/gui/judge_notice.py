"""What the page says of a judge job the guard stopped (``job_notice`` words every other end)."""

from __future__ import annotations

import dataclasses
from typing import Any

from touchstone.advice import JUDGE_SETTINGS, Slowness, slow_advice
from touchstone.errors import kind_label
from touchstone.german import counted
from touchstone.gui.notice_words import cells, host_of, quoted

# After these the same job fails the same way: the name or the key must change first.
HOPELESS = frozenset({"not_found", "auth"})
# What "Fortsetzen" does after an interrupted ``--rejudge all`` (``store.rejudge``).
REJUDGE_GOES_ON = (
    "„Fortsetzen“ setzt die Neubewertung fort: mit demselben Judge nur die Zellen, die sie "
    "noch nicht erreicht hat."
)


def _judge_cause(end: dict[str, Any], config: str) -> str:
    """The cause of a judge's stop and what to change, naming the judge form and config."""
    cause, model = end.get("cause", ""), end.get("model", "")
    base = end.get("base_url") or "(ohne Adresse)"
    where = f"in der Judge-Konfiguration „{config}“" if config else "in der Judge-Konfiguration"
    if cause == "not_found":
        hint = f" Meinten Sie {quoted(end['suggestions'])}?" if end.get("suggestions") else ""
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
            f"Rechnername „{host_of(base)}“ nicht gefunden (ein Tippfehler?): prüfen Sie "
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
    if cause == "unparseable" and end.get("cut_verdicts"):
        cut = counted(end["cut_verdicts"], "Antwort brach", "Antworten brachen")
        return (
            f"{cut} bei „max_tokens“ mitten im Urteil ab (finish_reason length): erhöhen Sie "
            f"„max_tokens“ {where}."
        )
    if cause == "unparseable":
        return (
            "Der Judge antwortet nicht im verlangten JSON-Format: wählen Sie ein Judge-Modell, "
            "das Formatvorgaben befolgt („Judge mit anderem Modell“)."
        )
    # timeout, reasoning_only, other
    what = (
        "Der Judge antwortet nur mit Reasoning, ohne Urteil."
        if cause == "reasoning_only"
        else "Der Judge antwortet nicht innerhalb der Frist."
    )
    measured = _slowness(end)
    if measured is not None and cause != "other":
        # The CLI's advice by measured cause (``advice.slow_advice``), in the page's quotes.
        settings = dataclasses.replace(
            JUDGE_SETTINGS,
            timeout="„call_timeout_s“",
            concurrency="„concurrency“",
            thinking=f"„thinking: off“ {where}",
            max_tokens="„max_tokens“",
        )
        told = slow_advice(measured, settings, only_reasoning=cause == "reasoning_only")
        return f"{what} {told}"
    # An older CLI measured nothing: a judge that thinks instead of answering.
    return (
        f"{what} Wählen Sie ein Judge-Modell ohne Thinking/Reasoning („Judge mit anderem "
        f"Modell“), oder schalten Sie das Denken mit „thinking: off“ {where} ab."
    )


def _slowness(end: dict[str, Any]) -> Slowness | None:
    """What the calls of a deadline stop measured (``judge.session.slow_facts``), or None
    from a CLI that measured nothing."""
    if "reasoning_seen" not in end:
        return None
    return Slowness(
        reasoning=bool(end.get("reasoning_seen")),
        silent=end.get("silent_calls", 0),
        first_s=end.get("first_chars_s"),
        tokens_per_s=end.get("tokens_per_s"),
        blind=end.get("blind_calls", 0),
        deadline_s=end.get("deadline_s"),
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
            f"Bereits gespeicherte Bewertungen bleiben erhalten ({cells(open_cells)} offen)."
        )
    if unreadable:
        parts.append(
            "„Judge starten“ mit „Bewerten: auch unbewertete“ bewertet die "
            f"{cells(unreadable)} mit unlesbarer Judge-Ausgabe erneut."
        )
    if refused and resumable:
        parts.append(
            f"„Fortsetzen“ fragt die {cells(refused)} erneut, die der Judge-Filter abgelehnt hat."
        )
    if end.get("rejudge_left") and resumable:
        parts.append(REJUDGE_GOES_ON)
    return parts


def judge_stop(
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
