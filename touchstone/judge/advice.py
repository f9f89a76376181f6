"""What to do when the judge stopped: advice that fits the cause (design.md §12).

The advice by cause is ``touchstone.advice``'s, shared with ``run``, naming the judge
configuration's keys; here are what only a judge has: a filter that refuses its inputs, replies
that are no verdict, and how a stopped judge run goes on. A reply of reasoning alone points to
a thinking judge; a timeout only when reasoning was seen (``advice.slow_advice``).
"""

from __future__ import annotations

from collections.abc import Sequence

from touchstone import started
from touchstone.advice import JUDGE_SETTINGS, Slowness, cause_advice
from touchstone.german import counted
from touchstone.judge.health import count_de
from touchstone.judge.policy import StopKind

# Stops after which the same judge configuration fails the same way.
_FIX_FIRST = frozenset({"auth", "not_found"})


def advice(
    kind: StopKind,
    *,
    judge_model: str,
    base_url: str,
    available: Sequence[str] = (),
    resume: bool = True,
    server_busy: bool = False,
    unknown_path: bool = False,
    schema_refused: bool = False,
    schema_sent: bool = False,
    unknown_host: bool = False,
    slowness: Slowness | None = None,
    cut_verdicts: int = 0,
) -> str:
    """The German advice for a judge stopped by ``kind``; ``resume``: and how a judge run
    goes on (not for ``judge-check``, which persists nothing); ``server_busy``: the server
    refused connections while other calls to it succeeded (``CallError.server_busy``);
    ``unknown_path``: a 404 for a path the server does not serve (``CallError.unknown_path``);
    ``schema_refused``: the endpoint refused the reply schema ``schema: on`` demands
    (``CallError.schema_refused``); ``schema_sent``: the replies were asked in the schema;
    ``unknown_host``: the host name does not resolve (``CallError.unknown_host``);
    ``slowness``: what the calls measured (a deadline stop is advised by its cause);
    ``cut_verdicts``: unreadable replies cut at ``max_tokens`` in the middle of a verdict
    (only they make a larger ``max_tokens`` the advice)."""
    if schema_refused:
        return (
            "Der Endpunkt nimmt kein JSON-Schema (response_format), die Judge-Konfiguration "
            "verlangt es aber mit „schema: on“. Mit „schema: auto“ bewertet touchstone dann "
            "ohne Schema; oder ein Endpunkt mit strukturierter Ausgabe (llama.cpp, vLLM, "
            "Ollama, LM Studio, OpenAI)."
        )
    if kind == "unparseable" and cut_verdicts:
        return (
            f"{counted(cut_verdicts, 'Antwort brach', 'Antworten brachen')} bei `max_tokens` "
            "mitten im Urteil ab (finish_reason length): erhöhen Sie `max_tokens` in der "
            "Judge-Konfiguration."
        )
    if kind == "unparseable" and not schema_sent:
        return (
            "Der Judge antwortet nicht im verlangten JSON-Format. Zuerst: „schema: auto“ (oder "
            "„on“) in der Judge-Konfiguration, dann antwortet er im JSON-Schema der Bewertung; "
            "sonst ein Judge-Modell wählen, das Formatvorgaben befolgt."
        )
    text = _judge_advice(
        kind,
        judge_model=judge_model,
        base_url=base_url,
        available=available,
        busy=server_busy,
        unknown_path=unknown_path,
        unknown_host=unknown_host,
        slowness=slowness,
    )
    if resume and kind == "quota":
        text += " Der Run lässt sich dann fortsetzen."
    return text


def after_stop(
    *, open_cells: int, kept: int, unreadable: int, refused: int = 0, kind: str = ""
) -> str:
    """What a stopped judge run left, and how a later run goes on, from the run dir as it is
    now: a re-judge that stopped keeps every prior verdict it did not replace, so the cells it
    was asked to judge are not open, and advice about open or unreadable cells would point at
    nothing. Cells a content filter refused have a verdict, but the next run asks again.
    ``kind``: what stopped it; after a wrong key or an unknown model or path the same command
    fails the same way, so the next run comes after the configuration is fixed."""
    parts = []
    if kept:
        parts.append(
            f"{counted(kept, 'bisherige Bewertung', 'bisherige Bewertungen')} behalten: eine "
            "fehlgeschlagene oder unlesbare Neubewertung ersetzt keine."
        )
    if open_cells:
        when = "nach der Korrektur ein" if kind in _FIX_FIRST else "ein"
        parts.append(
            f"Bereits gespeicherte Bewertungen bleiben erhalten; {when} erneutes "
            f"`{started.command('judge')}` bewertet "
            f"{_the(open_cells, 'offene Zelle', 'offenen Zellen')}."
        )
    if unreadable:
        parts.append(
            f"`{started.command('judge --rejudge unscored')}` bewertet "
            f"{_the(unreadable, 'Zelle', 'Zellen')} mit unlesbarer Judge-Ausgabe erneut."
        )
    if refused:
        cells = _the(
            refused, "vom Judge-Filter abgelehnte Zelle", "vom Judge-Filter abgelehnten Zellen"
        )
        parts.append(f"Ein erneutes `{started.command('judge')}` fragt {cells} erneut.")
    if not open_cells and not unreadable:
        parts.append("Keine Zelle ist ohne Bewertung.")
    return " ".join(parts)


def _the(count: int, one: str, many: str) -> str:
    """``die offene Zelle`` / ``die 3 offenen Zellen``: a count after the article."""
    return f"die {one}" if count == 1 else f"die {count_de(count)} {many}"


def _judge_advice(
    kind: StopKind,
    *,
    judge_model: str,
    base_url: str,
    available: Sequence[str],
    busy: bool,
    unknown_path: bool,
    unknown_host: bool,
    slowness: Slowness | None,
) -> str:
    if kind == "refused":
        return (
            "Ein Inhaltsfilter des Anbieters lehnt die Eingaben ab; ein anderes Judge-Modell "
            "oder ein anderer Endpunkt kann sie bewerten."
        )
    if kind == "unparseable":
        return (
            "Der Judge antwortet trotz JSON-Schema nicht lesbar. Wählen Sie ein Judge-Modell, "
            "das Formatvorgaben befolgt."
        )
    return cause_advice(
        kind,
        JUDGE_SETTINGS,
        model=judge_model,
        base_url=base_url,
        available=available,
        server_busy=busy,
        unknown_path=unknown_path,
        unknown_host=unknown_host,
        slowness=slowness,
    )
