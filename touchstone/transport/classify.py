"""The boundary: every exception of a chat call is classified here, once (design.md §8).

``classify`` maps any exception of a chat call (openai SDK errors, touchstone's own
``CallFailed`` subclasses, anything else) onto an error kind; ``retry_after_s`` reads what a
rate-limited server asked for; ``call_error`` builds the ``CallError`` the rest of touchstone
sees, with the original as ``__cause__``. This is the only module that knows the openai
exception classes.
"""

from __future__ import annotations

import email.utils
import math
import socket
import time
from typing import TYPE_CHECKING, Any, TypeVar

from touchstone.errors import (
    BrokenReply,
    CallError,
    DeadlineExceeded,
    ErrorKind,
    MalformedReply,
    ReasoningOnly,
    ReplyTooLarge,
    StreamError,
    describe,
)
from touchstone.limits import MAX_RETRY_AFTER_S

if TYPE_CHECKING:
    import openai

E = TypeVar("E", bound=CallError)

# Proxies (LiteLLM and other gateways) rewrap upstream errors, often as a 400 whatever the
# cause, so the status alone does not tell; these words in the message or body do.
# Content filters and prompt shields (Azure, OpenAI, OpenRouter moderation, guard models):
# the input was rejected, the request was fine.
_REFUSAL_MARKERS = (
    "content_filter",
    "content filter",
    "content_policy",
    "content policy",
    "content management policy",
    "responsibleaipolicyviolation",
    "prompt shield",
    "jailbreak",
    "moderation",
    "flagged",
    "safety system",
    "guardrail",
    "request blocked",
    "prompt injection",
)
_QUOTA_MARKERS = (
    "insufficient_quota",
    "exceeded your current quota",
    "quota exceeded",
    "insufficient credits",
    "insufficient balance",
    "requires more credits",
    "budget has been exceeded",
    "budget_exceeded",
)
# A prompt too long for the model's context: no retry helps (llama.cpp says so with a 500).
_CONTEXT_MARKERS = (
    "context size has been exceeded",
    "exceeds the available context",
    "maximum context length",
    "context_length_exceeded",
)
# A 400 that means: no such model (LiteLLM: "Invalid model name passed in model=...").
_MODEL_MARKERS = (
    "invalid model name",
    "model not found",
    "model_not_found",
    "does not exist",
    "no such model",
    "unknown model",
    "not found",
    "not a valid model",
    "invalid model identifier",
    "no models loaded",
)
# A 400 that means: the key is wrong (LiteLLM without a database: "No connected db.").
_AUTH_MARKERS = (
    "no connected db",
    "invalid api key",
    "invalid_api_key",
    "incorrect api key",
    "api key not valid",
    "authentication",
    "unauthorized",
)


def _status_text(exc: openai.APIStatusError) -> str:
    parts = [str(exc.message)]
    body = exc.body
    if isinstance(body, dict):
        parts.extend(str(value) for value in body.values())
    elif body is not None:
        parts.append(str(body))
    return " ".join(parts).lower()


def _has(text: str, markers: tuple[str, ...]) -> bool:
    return any(marker in text for marker in markers)


def _by_status(status: int, text: str) -> ErrorKind:
    if status == 402 or (400 <= status < 500 and _has(text, _QUOTA_MARKERS)):
        return "quota"
    if status == 429:
        return "rate_limit"
    if status == 408:  # a proxy's own deadline for the upstream call (LiteLLM's timeout)
        return "timeout"
    if status >= 500:
        return "bad_request" if _has(text, _CONTEXT_MARKERS) else "server"
    if status in (400, 403, 422) and _has(text, _REFUSAL_MARKERS):
        return "refused"
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    if status in (400, 422):
        if "model" in text and _has(text, _MODEL_MARKERS):
            return "not_found"
        if _has(text, _AUTH_MARKERS):
            return "auth"
        return "bad_request"
    return "other"


def _by_text(text: str) -> ErrorKind:
    """The kind of an error object without a usable status (inside a stream or a 200)."""
    if _has(text, _QUOTA_MARKERS):
        return "quota"
    if _has(text, _REFUSAL_MARKERS):
        return "refused"
    if "model" in text and _has(text, _MODEL_MARKERS):
        return "not_found"
    if _has(text, _AUTH_MARKERS):
        return "auth"
    if "rate limit" in text or "rate_limit" in text:
        return "rate_limit"
    if _has(text, _CONTEXT_MARKERS):
        return "bad_request"
    if "server_error" in text or "internal" in text or "overloaded" in text:
        return "server"
    return "other"


def classify(exc: BaseException) -> ErrorKind:
    """The error kind (design.md §8) of an exception raised by a chat call."""
    if isinstance(exc, CallError):
        return exc.kind
    # Imported here, not at the top: the SDK takes a second to import, and commands that
    # call no endpoint (report, cache, --help, bad input) should not wait for it. An SDK
    # exception cannot exist before a call imported the SDK, so this costs nothing then.
    import httpx2
    import openai

    if isinstance(
        exc, DeadlineExceeded | TimeoutError | openai.APITimeoutError | httpx2.TimeoutException
    ):
        return "timeout"
    if isinstance(exc, ReasoningOnly | openai.LengthFinishReasonError):
        return "reasoning_only"
    if isinstance(exc, ReplyTooLarge):
        return "too_large"
    if isinstance(exc, MalformedReply):
        return "malformed"
    if isinstance(exc, BrokenReply | openai.APIConnectionError | httpx2.TransportError):
        # (httpx errors reach us unwrapped while a stream's body is read.)
        return "connection"
    if isinstance(exc, StreamError):
        text = f"{exc} {exc.code}".lower()
        return _by_status(exc.status, text) if exc.status else _by_text(text)
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return "refused"
    if isinstance(exc, openai.APIStatusError):
        return _by_status(exc.status_code, _status_text(exc))
    if isinstance(exc, ConnectionError | OSError):
        return "connection"
    return "other"


def retry_after_s(exc: BaseException) -> float | None:
    """The wait a rate-limited server asked for (``retry-after-ms``, ``retry-after``), or None.

    ``retry-after`` may be seconds or an HTTP date. A value that is no usable wait (not a
    number or date, a date before now, not finite, longer than ``MAX_RETRY_AFTER_S``) is
    ignored: the next name is read, and without one the engine backs off on its own.
    """
    import openai  # see ``classify``

    if not isinstance(exc, openai.APIStatusError):
        return None
    headers: Any = exc.response.headers
    # A LiteLLM proxy passes the upstream's wait on under names of its own.
    names = (
        ("retry-after-ms", 1000.0),
        ("retry-after", 1.0),
        ("llm_provider-retry-after-ms", 1000.0),
        ("llm_provider-retry-after", 1.0),
    )
    for name, divisor in names:
        value = headers.get(name)
        if value is None:
            continue
        seconds = _seconds(str(value), divisor)
        if seconds is not None and math.isfinite(seconds) and 0 <= seconds <= MAX_RETRY_AFTER_S:
            return seconds
    return None


def _seconds(value: str, divisor: float) -> float | None:
    """``value`` as seconds from now: a number (divided by ``divisor``) or an HTTP date."""
    try:
        return float(value) / divisor
    except ValueError:
        pass
    # Any failure of the date parser is the server's nonsense, not ours: a year 10000 is a
    # ValueError, a 20-digit year an OverflowError, and the parser promises nothing narrower.
    try:
        parsed = email.utils.parsedate_tz(value)
        return None if parsed is None else email.utils.mktime_tz(parsed) - time.time()
    except Exception:
        return None


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes: the SDK's error, httpx's, httpcore's, anyio's, the OS's."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 8:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def unread_by_server(exc: BaseException) -> bool:
    """Whether the server's TCP stack reset the connection before a reply began: it
    discarded the request unread (a reset is what closing a socket with unread data sends,
    and what a closed socket answers data with), so no generation can be running.

    The SDK reports it as ``APIConnectionError`` from a reset or a broken pipe. A server that
    read the request and then closed cleanly ("Server disconnected without sending a
    response") is not one: it may have started to generate.
    """
    import openai  # see ``classify``

    if not isinstance(exc, openai.APIConnectionError) or isinstance(exc, openai.APITimeoutError):
        return False
    reset = ConnectionResetError | BrokenPipeError | ConnectionAbortedError
    return any(isinstance(link, reset) for link in _chain(exc))


def refused_connection(exc: BaseException) -> bool:
    """Whether the request provably never reached the server: the connection was refused
    (or never made), or the server reset it before reading the request (``unread_by_server``).

    That is what a server does whose listen queue overflows, or that takes fewer connections
    at once than are opened, or that closes an idle keep-alive connection as the request
    arrives. A reply that broke off, or a server that closed the connection after it read
    the request (``RemoteProtocolError`` before any reply), may have been generating: not one.
    """
    import httpx2  # see ``classify``
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return False
    connect = httpx2.ConnectError | ConnectionRefusedError
    return unread_by_server(exc) or any(isinstance(link, connect) for link in _chain(exc))


# What the resolver answers for a name it does not know: "Name or service not known" and "No
# address associated with hostname" (Linux), WSAHOST_NOT_FOUND (Windows). Not EAI_AGAIN
# ("Temporary failure in name resolution"): no resolver reachable now, the name may exist.
_NAME_UNKNOWN = frozenset(
    getattr(socket, name)
    for name in ("EAI_NONAME", "EAI_NODATA", "EAI_ADDRFAMILY")
    if hasattr(socket, name)
) | {11001}


def unknown_host(exc: BaseException) -> bool:
    """Whether the call failed because the base URL's host name does not resolve: httpx
    reports it as ``ConnectError`` caused by the ``socket.gaierror`` of ``getaddrinfo``."""
    return any(
        isinstance(link, socket.gaierror) and link.errno in _NAME_UNKNOWN for link in _chain(exc)
    )


# A 404 that names what it misses: a model (OpenAI, vLLM, Ollama, the simulator) or an Azure
# deployment (a model by another name). Any other 404 is a path the server does not serve:
# OpenAI's "Invalid URL (POST /v2/chat/completions)", FastAPI's {"detail": "Not Found"} (vLLM,
# LiteLLM), llama.cpp's "File Not Found", Ollama's "404 page not found".
_NAMED_MISSING = ("model", "deployment")


def unknown_path(exc: BaseException) -> bool:
    """Whether ``exc`` is a 404 for a path the server does not serve (a wrong base-URL path),
    not for an unknown model: the body names no model."""
    import openai  # see ``classify``

    if not isinstance(exc, openai.APIStatusError) or exc.status_code != 404:
        return False
    return not _has(_status_text(exc), _NAMED_MISSING)


# A 400 about the reply's schema: the endpoint takes no ``response_format`` (or not this one).
_SCHEMA_MARKERS = ("response_format", "json_schema", "response format")


def schema_refused(exc: BaseException) -> bool:
    """Whether ``exc`` is a 400/422 whose body is about the request's ``response_format``."""
    import openai  # see ``classify``

    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in (400, 422):
        return False
    return _has(_status_text(exc), _SCHEMA_MARKERS)


def call_error(cls: type[E], exc: BaseException) -> E:
    """``exc`` as a ``CallError`` subclass: kind, wait and ``"<Type>: <message>"`` as text.

    Raise it ``from exc``, so that the original stays the ``__cause__``.
    """
    if isinstance(exc, cls):
        return exc
    kind = classify(exc)
    return cls(
        describe(exc),
        kind=kind,
        retry_after_s=retry_after_s(exc),
        refused_connection=kind == "connection" and refused_connection(exc),
        unknown_path=kind == "not_found" and unknown_path(exc),
        schema_refused=kind == "bad_request" and schema_refused(exc),
        unknown_host=kind == "connection" and unknown_host(exc),
        progress=exc.progress if isinstance(exc, DeadlineExceeded) else None,
    )
