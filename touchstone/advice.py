"""What to do about a failed call: advice that fits the cause (design.md §12, §22).

One text per error kind, for the judge (``judge``, ``judge-check``) and for the evaluated
models (``run``) alike; they differ only in where the user changes a thing: the judge
configuration's keys, or the options of ``touchstone run`` (``Settings``). A wrong key needs
another key, not another model; a misspelt model a name the endpoint knows (asked with
``GET /models``: "Meinten Sie …?"); a dead endpoint a running server at the named base URL,
but a server that refuses connections while it answers others fewer calls at once; a 404
for a path the server does not serve the path of the base URL, not the model's name.

``cause`` tells what went wrong in the same words everywhere: the error kind's German name
(``errors.kind_label``), then the status and the server's own words, never the class name of
the SDK's exception.

A call that overran its deadline is advised by what was measured (``Slowness``, design.md
§26): reasoning seen means a thinking judge (``thinking: off``); none, a slow server, told
with its measured speed (the seconds to the first characters, the tokens per second) and what
helps there (``call_timeout_s``, fewer calls at once, a smaller ``max_tokens``, a faster
server). A longer deadline only lets a thinking judge think longer, so it is never offered
for one; ``thinking: off`` never for a judge seen not to think.
"""

from __future__ import annotations

import difflib
import re
import urllib.parse
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from touchstone import german
from touchstone.errors import CallError, ErrorKind, kind_label

# A name this much less alike than the closest one is no longer what the user meant:
# "sim-gutt" is "sim-gut" (0.93), not also "sim-quota" (0.71).
_CLOSENESS_MARGIN = 0.1
# ``describe``'s "<Type>: " and the SDK's "Error code: 404 - " before the server's own words.
_TYPE_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*: ")
_STATUS_PREFIX = re.compile(r"^Error code: (\d{3}) - ")
_WORDS_MAX = 200
# The name of a 404 for a path the server does not serve (``CallError.unknown_path``).
UNKNOWN_PATH_LABEL = "Pfad unbekannt"
# The name of a call whose host name does not resolve (``CallError.unknown_host``).
UNKNOWN_HOST_LABEL = "Rechnername nicht gefunden"


def cause(error: CallError) -> str:
    """``Modell nicht gefunden (404: „The model … does not exist“)``: the kind in German, then
    the status and the server's words, without the class name of the exception."""
    what = UNKNOWN_PATH_LABEL if error.unknown_path else kind_label(error.kind)
    if error.unknown_host:
        what = UNKNOWN_HOST_LABEL
    if error.kind == "connection":
        return what  # the SDK's words ("Connection error.") add nothing to it
    text = _TYPE_PREFIX.sub("", str(error).strip(), count=1)
    status = _STATUS_PREFIX.match(text)
    words = text[status.end() :] if status else text
    words = " ".join(words.split()).rstrip(".")
    if len(words) > _WORDS_MAX:
        words = words[: _WORDS_MAX - 1] + "…"
    quoted = f"„{words}“" if words else ""
    inner = ": ".join(part for part in (status.group(1) if status else "", quoted) if part)
    return f"{what} ({inner})" if inner else what


@dataclass(frozen=True)
class Settings:
    """Where the user changes what an advice speaks of (German, ready to be quoted)."""

    model: str  # the model's name
    base_url: str  # the endpoint
    key: str  # the API key
    concurrency: str  # parallel calls
    timeout: str  # the deadline of one call
    request: str  # what the request asks for (max_tokens and the like)
    reply_cap: str  # the cap on one reply
    # The switch that turns a judge's thinking off; "" where there is none (``run``): then a
    # call that overran its deadline or thought without answering gets no advice here.
    thinking: str
    max_tokens: str  # the cap on one reply's tokens


@dataclass(frozen=True)
class Slowness:
    """What the calls of a stopped judge measured, for the advice on its deadline stop.

    ``reasoning``: reasoning was seen (in a reply, or in a stream before its deadline).
    ``silent``: calls that hit their deadline before a first character; ``first_s``: the
    slowest first character of a call cut at its deadline; ``tokens_per_s``: the speed
    measured (answered calls' completion tokens by their latency, or a cut stream's events);
    ``blind``: calls cut at their deadline that were not streamed (nothing seen before the
    whole reply); ``deadline_s``: the deadline of one call."""

    reasoning: bool = False
    silent: int = 0
    first_s: float | None = None
    tokens_per_s: float | None = None
    blind: int = 0
    deadline_s: float | None = None

    @property
    def measured(self) -> bool:
        return bool(self.reasoning or self.silent or self.first_s is not None or self.tokens_per_s)


def speed(tokens_per_s: float) -> str:
    """``≈ 3 Tokens/s``, ``≈ 0,4 Tokens/s``: a measured generation speed, held together by
    no-break spaces as ``german.seconds`` holds a duration."""
    digits = 0 if tokens_per_s >= 3 else 1
    return f"≈\u00a0{german.number(tokens_per_s, digits)}\u00a0Tokens/s"


def slow_advice(slowness: Slowness, settings: Settings, *, only_reasoning: bool = False) -> str:
    """The advice for calls that overran their deadline (``only_reasoning``: or replied with
    reasoning alone), by the measured cause; "" where ``settings`` has no thinking switch."""
    if not settings.thinking:
        return ""
    think = (
        f"schalten Sie das Denken mit {settings.thinking} ab, oder wählen Sie ein "
        "Judge-Modell ohne Thinking/Reasoning"
    )
    if only_reasoning or slowness.reasoning:
        seen = "Der Judge denkt (Reasoning gesehen), statt rechtzeitig zu urteilen"
        return f"{seen}: {think}. Eine längere Frist ließe ihn nur länger denken."
    server = (
        "oder nehmen Sie einen schnelleren Server (llama-server: --threads auf die Zahl der Kerne)"
    )
    fewer = f"senken Sie {settings.concurrency}, denn parallele Aufrufe teilen sich den Server"
    if not slowness.measured:
        how = (
            "ohne Stream sieht touchstone vor der Frist nichts von der Antwort"
            if slowness.blind
            else "touchstone hat nichts davon gemessen"
        )
        return (
            f"Ob der Judge denkt oder der Server langsam ist, ist offen ({how}). Denkt er: "
            f"{think}. Ist der Server langsam: erhöhen Sie {settings.timeout} oder {fewer}."
        )
    facts = []
    if slowness.silent:
        within = (
            f" der Frist von {german.seconds(slowness.deadline_s)}"
            if slowness.deadline_s
            else " der Frist"
        )
        facts.append(
            f"{german.counted(slowness.silent, 'Aufruf', 'Aufrufe')} ohne ein erstes Zeichen "
            f"innerhalb{within}"
        )
    if slowness.first_s is not None:
        facts.append(f"erste Zeichen nach {german.seconds(slowness.first_s)}")
    if slowness.tokens_per_s:
        facts.append(speed(slowness.tokens_per_s))
    what = "erzeugt zu langsam" if slowness.tokens_per_s else "verarbeitet den Prompt zu langsam"
    told = f"Kein Reasoning gesehen: der Server {what} ({', '.join(facts)})."
    steps = [f"Erhöhen Sie {settings.timeout}", fewer]
    if slowness.tokens_per_s:
        steps.append(f"senken Sie {settings.max_tokens}")
    return f"{told} {'; '.join(steps)}; {server}."


JUDGE_SETTINGS = Settings(
    model="`model` in der Judge-Konfiguration oder --model",
    base_url="`endpoint.base_url` in der Judge-Konfiguration",
    key=(
        "`endpoint.api_key` oder besser `endpoint.api_key_env` (der Name einer "
        "Umgebungsvariablen) in der Judge-Konfiguration"
    ),
    concurrency="`concurrency` (oder --concurrency)",
    timeout="`call_timeout_s`",
    request="`max_tokens`, `temperature` und `extra_body` in der Judge-Konfiguration",
    reply_cap="`max_reply_mb` in der Judge-Konfiguration, Standard 4 MB",
    thinking="`thinking: off` in der Judge-Konfiguration",
    max_tokens="`max_tokens` in der Judge-Konfiguration",
)

RUN_SETTINGS = Settings(
    model="--model",
    base_url="--base-url (oder die Umgebungsvariable OPENAI_BASE_URL)",
    key="--api-key oder die Umgebungsvariable OPENAI_API_KEY",
    concurrency="--concurrency",
    timeout="--call-timeout-s",
    request="--max-tokens",
    reply_cap="--max-reply-mb, Standard 4 MB",
    thinking="",
    max_tokens="--max-tokens",
)


def close_names(model: str, available: Sequence[str]) -> list[str]:
    """The names of ``available`` the user probably meant by ``model``, the closest first
    (the facts behind "Meinten Sie …?", for the GUI's own wording too)."""
    close = difflib.get_close_matches(model, available, n=3, cutoff=0.5)
    if not close:
        return []
    best = difflib.SequenceMatcher(None, model, close[0]).ratio()
    return [
        name
        for name in close
        if difflib.SequenceMatcher(None, model, name).ratio() >= best - _CLOSENESS_MARGIN
    ]


async def known_models(list_models: Callable[[], Awaitable[list[str]]]) -> list[str]:
    """The names an endpoint lists, for ``suggestions``. A listing that fails (no
    ``GET /models``, the same wrong path, a dead server) leaves the advice without names: it
    still says which name to check, so the failure is no reason to hide the advice."""
    try:
        return await list_models()
    except CallError:
        return []


def suggestions(model: str, available: Sequence[str]) -> str:
    """ "Meinten Sie …?" from the names an endpoint lists, or what it offers at all."""
    if not available:
        return ""
    close = close_names(model, available)
    if close:
        return "Meinten Sie " + " oder ".join(f"„{name}“" for name in close) + "?"
    shown = ", ".join(sorted(available)[:12])
    more = f" (und {len(available) - 12} weitere)" if len(available) > 12 else ""
    return f"Der Endpunkt bietet: {shown}{more}."


def cause_advice(
    kind: ErrorKind | str,
    settings: Settings,
    *,
    model: str,
    base_url: str,
    available: Sequence[str] = (),
    server_busy: bool = False,
    unknown_path: bool = False,
    unknown_host: bool = False,
    slowness: Slowness | None = None,
) -> str:
    """The German advice for calls that failed by ``kind``; ``available``: the model names
    the endpoint lists (for ``not_found``); ``server_busy``: the server refused connections
    while other calls to it succeeded (``CallError.server_busy``); ``unknown_path``: the 404
    was for a path the server does not serve (``CallError.unknown_path``); ``unknown_host``:
    the base URL's host name does not resolve (``CallError.unknown_host``); ``slowness``: what
    the calls measured, for ``timeout`` and ``reasoning_only`` (``slow_advice``)."""
    endpoint = base_url or "(ohne base_url)"
    if kind == "connection" and unknown_host:
        host = urllib.parse.urlsplit(base_url).hostname or endpoint
        return (
            f"Rechnername „{host}“ nicht gefunden – ein Tippfehler? Prüfen Sie {settings.base_url}."
        )
    if kind == "not_found" and unknown_path:
        return (
            f"Der Server unter {endpoint} antwortet, kennt aber den Pfad nicht: prüfen Sie den "
            f"Pfad in {settings.base_url} (OpenAI-kompatible Server erwarten meist …/v1, ohne "
            "/chat/completions)."
        )
    if kind == "connection" and server_busy:
        return (
            f"Der Server unter {endpoint} läuft, lehnt aber Verbindungen ab, während andere "
            "Aufrufe gelingen: er nimmt nicht so viele Verbindungen auf einmal an. touchstone "
            f"hat die parallelen Aufrufe schon gesenkt; senken Sie {settings.concurrency} oder "
            f"erhöhen Sie {settings.timeout}."
        )
    if kind == "auth":
        return (
            f"Prüfen Sie den API-Schlüssel: {settings.key}. (Ein LiteLLM-Proxy ohne Datenbank "
            "meldet einen falschen Schlüssel als 400 „No connected db.“.)"
        )
    if kind == "not_found":
        hint = suggestions(model, available)
        return f"Prüfen Sie den Modellnamen ({settings.model}){': ' + hint if hint else '.'}"
    if kind == "quota":
        return "Laden Sie beim Anbieter Guthaben auf oder warten Sie auf das nächste Kontingent."
    if kind == "connection":
        return (
            f"Läuft der Server unter {endpoint}? Prüfen Sie {settings.base_url} und ob er "
            "erreichbar ist."
        )
    if kind == "rate_limit":
        return (
            f"Der Server drosselt (429) länger, als die Frist erlaubt: senken Sie "
            f"{settings.concurrency} oder erhöhen Sie {settings.timeout}."
        )
    if kind == "server":
        return "Der Server meldet Fehler (5xx); sein Log sagt, warum."
    if kind == "bad_request":
        return f"Der Server lehnt die Anfrage ab (400/422): prüfen Sie {settings.request}."
    if kind == "malformed":
        return (
            f"Der Server unter {endpoint} antwortet, aber nicht mit einer lesbaren "
            "Chat-Completion (kein gültiges JSON oder keine Auswahl): prüfen Sie, ob unter "
            f"{settings.base_url} ein OpenAI-kompatibler Server antwortet und kein Proxy "
            "dazwischen die Antworten verändert; sein Log sagt mehr."
        )
    if kind == "too_large":
        return (
            f"Die Antworten überschreiten die Obergrenze ({settings.reply_cap}): prüfen Sie "
            f"{settings.request} und ob der Server gewöhnliche Chat-Completions schickt; "
            "erhöhen Sie die Obergrenze nur, wenn so lange Antworten gewollt sind."
        )
    if kind == "other":
        return slow_advice(Slowness(), settings)  # nothing measured of an unknown failure
    # timeout, reasoning_only
    measured = slowness or Slowness()
    return slow_advice(measured, settings, only_reasoning=kind == "reasoning_only")
