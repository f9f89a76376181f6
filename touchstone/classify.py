"""The boundary: every exception of a chat call is classified here, once (DESIGN §8).

``classify`` maps any exception of a chat call (openai SDK errors, touchstone's own
``CallFailed`` subclasses, anything else) onto an error kind; ``retry_after_s`` reads what a
rate-limited server asked for; ``call_error`` builds the ``CallError`` the rest of touchstone
sees, with the original as ``__cause__``. This is the only module that knows the openai
exception classes.
"""

from __future__ import annotations

import email.utils
import math
import time
from typing import Any, TypeVar

import httpx2
import openai

from touchstone.errors import (
    BrokenReply,
    CallError,
    DeadlineExceeded,
    ErrorKind,
    ReasoningOnly,
    StreamError,
    describe,
)

E = TypeVar("E", bound=CallError)

# Words by which content filters and prompt shields (Azure, OpenAI, OpenRouter, vLLM guard
# models) say that they rejected the input rather than that the request was malformed.
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
    "safety system",
)
_QUOTA_MARKERS = ("insufficient_quota", "quota exceeded", "exceeded your current quota")


def _status_text(exc: openai.APIStatusError) -> str:
    parts = [str(exc.message)]
    body = exc.body
    if isinstance(body, dict):
        parts.extend(str(value) for value in body.values())
    return " ".join(parts).lower()


def _by_status(status: int, text: str) -> ErrorKind:
    if status == 402 or (status == 429 and any(m in text for m in _QUOTA_MARKERS)):
        return "quota"
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server"
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    if status in (400, 422):
        return "refused" if any(m in text for m in _REFUSAL_MARKERS) else "bad_request"
    return "other"


def classify(exc: BaseException) -> ErrorKind:
    """The error kind (DESIGN §8) of an exception raised by a chat call."""
    if isinstance(exc, CallError):
        return exc.kind
    if isinstance(
        exc, DeadlineExceeded | TimeoutError | openai.APITimeoutError | httpx2.TimeoutException
    ):
        return "timeout"
    if isinstance(exc, ReasoningOnly | openai.LengthFinishReasonError):
        return "reasoning_only"
    if isinstance(exc, BrokenReply | openai.APIConnectionError | httpx2.TransportError):
        # (httpx errors reach us unwrapped while a stream's body is read.)
        return "connection"
    if isinstance(exc, StreamError):
        return _by_status(exc.status, f"{exc} {exc.code}".lower()) if exc.status else "server"
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return "refused"
    if isinstance(exc, openai.APIStatusError):
        return _by_status(exc.status_code, _status_text(exc))
    if isinstance(exc, ConnectionError | OSError):
        return "connection"
    return "other"


def retry_after_s(exc: BaseException) -> float | None:
    """The wait a rate-limited server asked for (``retry-after-ms``, ``retry-after``), or None.

    ``retry-after`` may be seconds or an HTTP date. Nonsense (negative, not finite) is None.
    """
    if not isinstance(exc, openai.APIStatusError):
        return None
    headers: Any = exc.response.headers
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            parsed = email.utils.parsedate_tz(value)
            if parsed is None:
                continue
            seconds = email.utils.mktime_tz(parsed) - time.time()
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    return None


def call_error(cls: type[E], exc: BaseException) -> E:
    """``exc`` as a ``CallError`` subclass: kind, wait and ``"<Type>: <message>"`` as text.

    Raise it ``from exc``, so that the original stays the ``__cause__``.
    """
    if isinstance(exc, cls):
        return exc
    return cls(describe(exc), kind=classify(exc), retry_after_s=retry_after_s(exc))
