"""The one error tree of touchstone.

    BaseException
    ├── Exception
    │   └── TouchstoneError
    │       ├── InputError          bad input (pack, config, run dir, JSONL line, option): exit 2
    │       ├── CallFailed          a call failure touchstone detects itself, not the SDK
    │       │   ├── DeadlineExceeded    the wall-clock deadline of one call ran out
    │       │   ├── ReasoningOnly       reasoning but no content (or cut off by max_tokens)
    │       │   ├── BrokenReply         the reply is no chat completion, or its stream broke off
    │       │   │   └── MalformedReply      the reply arrived whole, but is no chat completion
    │       │   └── StreamError         the server sent an error object (in a stream or a 200)
    │       ├── CallError           one call failed, classified once: ``kind``, ``retry_after_s``
    │       │   ├── JudgeCallError      a call of the judge
    │       │   └── ModelCallError      a call of an evaluated model
    │       ├── JudgeAborted        the judge is unusable and the judge run stops: exit 1
    │       ├── JudgeUnfit          judge-check found the judge unfit (or could not tell): exit 1
    │       ├── BudgetReached       the invocation's cost cap stops run or judge: exit 1
    │       └── RunIncomplete       a run left cells for a later run: exit 1
    └── Terminated              SIGTERM (the GUI's cancel) unwinds like Ctrl-C: exit 143

Per-item failures are data (an unscored verdict, a failed answer); only run-level failures
abort. ``cli.py`` is the single place that turns these into messages and exit codes.
Foreign exceptions (the openai SDK's) are mapped once, at the boundary, by ``classify``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, get_args

from touchstone.german import seconds as seconds_text

ErrorKind = Literal[
    "timeout",
    "connection",
    "rate_limit",
    "quota",
    "server",
    "auth",
    "not_found",
    "refused",
    "bad_request",
    "reasoning_only",
    "too_large",
    "malformed",
    "other",
]

ERROR_KINDS: tuple[ErrorKind, ...] = get_args(ErrorKind)

# The one German name of each kind, wherever a person reads it (terminal, GUI, report, CSV):
# "Frist überschritten: 3", never "timeout: 3". "unparseable" is the judge session's own kind.
ERROR_LABELS: dict[str, str] = {
    "timeout": "Frist überschritten",
    "connection": "keine Verbindung",
    "rate_limit": "Ratenlimit",
    "quota": "Kontingent erschöpft",
    "server": "Serverfehler",
    "auth": "Zugang abgelehnt",
    "not_found": "Modell nicht gefunden",
    "refused": "Prompt verweigert",
    "bad_request": "ungültige Anfrage",
    "reasoning_only": "nur Reasoning",
    "too_large": "Antwort zu groß",
    "malformed": "fehlerhafte Antwort",
    "other": "sonstiger Fehler",
    "unparseable": "Judge-Ausgabe unlesbar",
    # A jury's cell with fewer scored verdicts than its quorum (design.md §18).
    "no_quorum": "kein Quorum",
}


def kind_label(kind: str) -> str:
    """The German name of an error kind; a kind this version does not know, as it came."""
    return ERROR_LABELS.get(kind, kind)


class TouchstoneError(Exception):
    """Base of every error touchstone raises on purpose.

    ``facts``: what the ``aborted`` event carries beside the message (the cause's kind, the
    model, the names the endpoint offers, the open cells), for a reader such as the GUI that
    words its own message. Assigned whole, never changed in place (the default is shared).
    """

    facts: Mapping[str, object] = MappingProxyType({})


class InputError(TouchstoneError):
    """Bad input from the user: the message (German) names the file and the problem."""


class CallFailed(TouchstoneError):
    """A chat call failed for a reason touchstone detected itself (not the SDK)."""


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a call's reply got before its deadline (design.md §26: advice by cause).

    ``streamed``: the reply was asked as a stream (without one nothing is seen before the
    whole reply). ``first_s``: seconds from the call's start to the first character of
    content or reasoning, ``None`` when none arrived. ``content_chunks``: stream events that
    carried content (a local server sends about one token per event)."""

    streamed: bool
    elapsed_s: float
    first_s: float | None = None
    content_chars: int = 0
    content_chunks: int = 0
    reasoning_chars: int = 0
    reasoning_chunks: int = 0

    @property
    def tokens_per_s(self) -> float | None:
        """Events of text per second after the first one (≈ tokens/s), when two came."""
        chunks = self.content_chunks + self.reasoning_chunks
        if self.first_s is None or chunks < 2 or self.elapsed_s <= self.first_s:
            return None
        return (chunks - 1) / (self.elapsed_s - self.first_s)


class DeadlineExceeded(CallFailed):
    """The hard wall-clock deadline of a call (retries included) ran out; ``progress``: how
    far its reply got."""

    def __init__(self, seconds: float, progress: Progress | None = None) -> None:
        super().__init__(
            f"keine vollständige Antwort innerhalb der Frist von {seconds_text(seconds)}"
        )
        self.seconds = seconds
        self.progress = progress


class ReasoningOnly(CallFailed):
    """The reply had no content, only reasoning (or was cut off by max_tokens)."""


class BrokenReply(CallFailed):
    """The reply is not a complete chat completion (a stream that broke off): the connection
    failed, as far as anyone can tell (kind ``connection``)."""


class MalformedReply(BrokenReply):
    """The server's reply arrived whole but is no chat completion: not JSON (or none Python
    can hold, such as an integer of more than 4,300 digits), no choice, content of no known
    shape. A finding about that server, not a connection that failed (kind ``malformed``)."""


class ReplyTooLarge(CallFailed):
    """The reply outgrew its cap: inflated body bytes, one line of a stream, or its content
    (a gzip bomb, a stream without end). Reading stops there, so memory stays bounded."""

    def __init__(self, limit_bytes: int, what: str) -> None:
        super().__init__(f"{what} ist größer als die Obergrenze von {limit_bytes / 2**20:g} MB")
        self.limit_bytes = limit_bytes


class StreamError(CallFailed):
    """The server sent an error object instead of a reply: inside a stream (OpenRouter's
    mid-stream errors, vLLM's generation errors) or as a 200 body (LM Studio)."""

    def __init__(self, message: str, *, status: int | None = None, code: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class CallError(TouchstoneError):
    """One call failed; ``kind`` says how (design.md §8), ``retry_after_s`` what a 429 asked for.

    ``refused_connection``: the server refused or dropped the connection before it answered
    (kind ``connection``). ``server_busy``: it did so while other calls to it succeeded (set
    by the engine): a server that takes fewer connections at once, not one that is down.
    ``unknown_path``: a 404 (kind ``not_found``) that names no model: the server does not
    serve the path (a wrong base-URL path), not a misspelt model.
    ``schema_refused``: a 400 (kind ``bad_request``) about the request's ``response_format``:
    the endpoint takes no JSON schema.
    ``unknown_host``: the resolver does not know the base URL's host name (kind
    ``connection``): no call to it can succeed, whatever the model.
    ``progress``: of a call that hit its deadline (kind ``timeout``), how far its reply got
    (``Progress``), as measured by the transport; ``None`` for any other failure.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind = "other",
        retry_after_s: float | None = None,
        refused_connection: bool = False,
        unknown_path: bool = False,
        schema_refused: bool = False,
        unknown_host: bool = False,
        progress: Progress | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.progress = progress
        self.retry_after_s = retry_after_s
        self.refused_connection = refused_connection
        self.unknown_path = unknown_path
        self.schema_refused = schema_refused
        self.unknown_host = unknown_host
        self.server_busy = False


class JudgeCallError(CallError):
    """One judge call failed (timeout, API status, connection, reasoning only)."""


class ModelCallError(CallError):
    """One call to an evaluated model failed; the run stage decides by ``kind`` what follows."""


class JudgeAborted(TouchstoneError):
    """The judge is unusable; the judge run stops (exit 1)."""

    def __init__(
        self,
        message: str,
        *,
        kind: str = "",
        reason: str = "",
        advice: str = "",
        facts: Mapping[str, object] = MappingProxyType({}),
        health_summary: str = "",
    ) -> None:
        super().__init__(message)
        # What stopped it: an error kind, or "unparseable" (the judge session says).
        self.kind = kind
        # The message in its two parts, why and what to do (the judge session says): a jury
        # names a dropped member with them.
        self.reason = reason
        self.advice = advice
        self.facts = facts
        # What the calls did before the stop, for the CLI to show (the judge stage says).
        self.health_summary = health_summary

    def restated(
        self, message: str, *, facts: Mapping[str, object], health_summary: str
    ) -> JudgeAborted:
        """This stop as the judge stage tells it at its end: ``message``, more ``facts``."""
        return JudgeAborted(
            message,
            kind=self.kind,
            reason=self.reason,
            advice=self.advice,
            facts={**self.facts, **facts},
            health_summary=health_summary,
        )


class JudgeUnfit(TouchstoneError):
    """``judge-check`` found the judge unfit; the message gives the reasons (exit 1)."""


class BudgetReached(TouchstoneError):
    """The cost cap of one invocation (``budget``) is reached: no further call starts, what
    landed is kept, and the command stops like the breaker (exit 1), resumable."""

    def __init__(
        self,
        message: str,
        *,
        facts: Mapping[str, object] = MappingProxyType({}),
        health_summary: str = "",
    ) -> None:
        super().__init__(message)
        self.facts = facts
        # As for ``JudgeAborted``.
        self.health_summary = health_summary

    def restated(
        self, message: str, *, facts: Mapping[str, object], health_summary: str
    ) -> BudgetReached:
        """This stop as the judge stage tells it at its end: ``message``, more ``facts``."""
        return BudgetReached(message, facts={**self.facts, **facts}, health_summary=health_summary)


class RunIncomplete(TouchstoneError):
    """A run ended with cells left for a later run (a stopped model, a dead endpoint)."""


class Terminated(BaseException):
    """SIGTERM arrived (the GUI's cancel): unwind like Ctrl-C, keeping what was persisted."""


def raise_terminated(signum: int, frame: object) -> None:
    """The SIGTERM handler of the CLI (outside an event loop; the engine installs its own
    while a loop runs and puts this one back)."""
    raise Terminated


def describe(exc: BaseException) -> str:
    """``"<ExceptionType>: <message>"``, the text every call failure is reported with."""
    text = str(exc).strip() or repr(exc)
    return f"{type(exc).__name__}: {text}"
