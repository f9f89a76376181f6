"""What to do when the judge stopped: advice that fits the cause (DESIGN §12).

A wrong key needs another key, not another model; a misspelt model a name the endpoint
knows (asked with ``GET /models``: "Meinten Sie …?"); a dead endpoint a running server at the
named base URL, but a server that refuses connections while it answers others fewer calls at
once. Only a timeout or a reply of reasoning alone points to a thinking judge.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from touchstone.judge.health import count_de
from touchstone.judge.policy import StopKind

THINKING = (
    "Wählen Sie ein Judge-Modell ohne Thinking/Reasoning (oder schalten Sie das Denken per "
    "extra_body ab, README: „When a judge model runs away“)."
)


def suggestions(model: str, available: Sequence[str]) -> str:
    """ "Meinten Sie …?" from the names an endpoint lists, or what it offers at all."""
    if not available:
        return ""
    close = difflib.get_close_matches(model, available, n=3, cutoff=0.5)
    if close:
        return "Meinten Sie " + " oder ".join(f"„{name}“" for name in close) + "?"
    shown = ", ".join(sorted(available)[:12])
    more = f" (und {len(available) - 12} weitere)" if len(available) > 12 else ""
    return f"Der Endpunkt bietet: {shown}{more}."


def advice(
    kind: StopKind,
    *,
    judge_model: str,
    base_url: str,
    available: Sequence[str] = (),
    resume: bool = True,
    server_busy: bool = False,
) -> str:
    """The German advice for a judge stopped by ``kind``; ``resume``: and how a judge run
    goes on (not for ``judge-check``, which persists nothing); ``server_busy``: the server
    refused connections while other calls to it succeeded (``CallError.server_busy``)."""
    if kind == "connection" and server_busy:
        text = (
            f"Der Server unter {base_url or '(ohne base_url)'} läuft, lehnt aber Verbindungen "
            "ab, während andere Aufrufe gelingen: er nimmt nicht so viele Verbindungen auf "
            "einmal an. touchstone hat die parallelen Aufrufe schon gesenkt; senken Sie "
            "`concurrency` (oder --concurrency) oder erhöhen Sie `call_timeout_s`."
        )
        return text
    text = _cause_advice(kind, judge_model=judge_model, base_url=base_url, available=available)
    if resume and kind == "quota":
        text += " Der Run lässt sich dann fortsetzen."
    return text


def after_stop(*, open_cells: int, kept: int, unreadable: int, refused: int = 0) -> str:
    """What a stopped judge run left, and how a later run goes on, from the run dir as it is
    now: a re-judge that stopped keeps every prior verdict it did not replace, so the cells it
    was asked to judge are not open, and advice about open or unreadable cells would point at
    nothing. Cells a content filter refused have a verdict, but the next run asks again."""
    parts = []
    if kept:
        parts.append(
            f"{count_de(kept)} bisherige Bewertungen behalten: eine fehlgeschlagene oder unlesbare "
            "Neubewertung ersetzt keine."
        )
    if open_cells:
        parts.append(
            "Bereits gespeicherte Bewertungen bleiben erhalten; ein erneutes `touchstone judge` "
            f"bewertet die {count_de(open_cells)} offenen Zellen."
        )
    if unreadable:
        parts.append(
            f"`touchstone judge --rejudge unscored` bewertet die {count_de(unreadable)} Zellen mit "
            "unlesbarer Judge-Ausgabe erneut."
        )
    if refused:
        parts.append(
            f"Ein erneutes `touchstone judge` fragt die {count_de(refused)} vom Judge-Filter "
            "abgelehnten Zellen erneut."
        )
    if not open_cells and not unreadable:
        parts.append("Keine Zelle ist ohne Bewertung.")
    return " ".join(parts)


def _cause_advice(
    kind: StopKind, *, judge_model: str, base_url: str, available: Sequence[str]
) -> str:
    if kind == "auth":
        return (
            "Prüfen Sie den API-Schlüssel: `endpoint.api_key` oder besser `endpoint.api_key_env` "
            "(der Name einer Umgebungsvariablen) in der Judge-Konfiguration. (Ein LiteLLM-Proxy "
            "ohne Datenbank meldet einen falschen Schlüssel als 400 „No connected db.“.)"
        )
    if kind == "not_found":
        hint = suggestions(judge_model, available)
        return (
            f"Prüfen Sie den Modellnamen (`model` in der Judge-Konfiguration oder --model)"
            f"{': ' + hint if hint else '.'}"
        )
    if kind == "quota":
        return "Laden Sie beim Anbieter Guthaben auf oder warten Sie auf das nächste Kontingent."
    if kind == "connection":
        return (
            f"Läuft der Server unter {base_url or '(ohne base_url)'}? Prüfen Sie "
            f"`endpoint.base_url` in der Judge-Konfiguration und ob er erreichbar ist."
        )
    if kind == "rate_limit":
        return (
            "Der Server drosselt (429) länger, als die Frist erlaubt: senken Sie `concurrency` "
            "(oder --concurrency) oder erhöhen Sie `call_timeout_s`."
        )
    if kind == "server":
        return "Der Server meldet Fehler (5xx); sein Log sagt, warum."
    if kind == "bad_request":
        return (
            "Der Server lehnt die Anfrage ab (400/422): prüfen Sie `max_tokens`, `temperature` "
            "und `extra_body` in der Judge-Konfiguration."
        )
    if kind == "refused":
        return (
            "Ein Inhaltsfilter des Anbieters lehnt die Eingaben ab; ein anderes Judge-Modell "
            "oder ein anderer Endpunkt kann sie bewerten."
        )
    if kind == "too_large":
        return (
            "Die Antworten des Judges überschreiten die Obergrenze (`max_reply_mb` in der "
            "Judge-Konfiguration, Standard 4 MB): prüfen Sie `max_tokens` und ob der Server "
            "gewöhnliche Chat-Completions schickt; erhöhen Sie `max_reply_mb` nur, wenn so "
            "lange Antworten gewollt sind."
        )
    if kind == "unparseable":
        return (
            "Der Judge antwortet nicht im verlangten JSON-Format. Wählen Sie ein Judge-Modell, "
            "das Formatvorgaben befolgt."
        )
    return THINKING  # timeout, reasoning_only, other
