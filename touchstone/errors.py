"""The one error tree of touchstone, and the one place foreign exceptions are classified.

    Exception
    └── TouchstoneError
        ├── InputError          bad input (pack, config, run dir, JSONL line): exit 2
        ├── CallFailed          transport-level failures raised by touchstone itself
        │   ├── DeadlineExceeded    the wall-clock deadline of one call ran out
        │   └── ReasoningOnly       the model answered with reasoning but no content
        ├── JudgeCallError      one judge call failed; carries ``kind`` (judge.py re-exports it)
        ├── JudgeAborted        the judge is unusable, the judge run stops: exit 1
        └── ModelCallError      one call to an evaluated model failed; carries ``kind``

Per-item failures are data (an unscored verdict, a failed answer); only run-level failures
abort. ``cli.py`` is the single place that turns these into messages and exit codes.

``classify`` maps any exception of a chat call (openai SDK errors, our own ``CallFailed``
subclasses, anything else) onto one of the error kinds of DESIGN §8. It is the only place
that knows the openai exception classes.
"""

from __future__ import annotations

from typing import Literal, get_args

import openai

ErrorKind = Literal[
    "timeout",
    "connection",
    "rate_limit",
    "server",
    "auth",
    "not_found",
    "refused",
    "bad_request",
    "reasoning_only",
    "other",
]

ERROR_KINDS: tuple[ErrorKind, ...] = get_args(ErrorKind)

# Words by which content filters and prompt shields (Azure, OpenAI, OpenRouter, vLLM guard
# models) say that they rejected the input rather than that the request was malformed.
_REFUSAL_MARKERS = (
    "content_filter",
    "content filter",
    "content_policy",
    "content policy",
    "responsibleaipolicyviolation",
    "prompt shield",
    "jailbreak",
    "moderation",
    "safety system",
)


class TouchstoneError(Exception):
    """Base of every error touchstone raises on purpose."""


class InputError(TouchstoneError):
    """Bad input from the user: the message (German) names the file and the problem."""


class CallFailed(TouchstoneError):
    """A chat call failed for a reason touchstone detected itself (not the SDK)."""


class DeadlineExceeded(CallFailed):
    """The hard wall-clock deadline of a call (retries included) ran out."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"keine vollständige Antwort innerhalb der Frist von {seconds:g} s")
        self.seconds = seconds


class ReasoningOnly(CallFailed):
    """The reply had no content, only reasoning (or was cut off by max_tokens)."""


class JudgeCallError(TouchstoneError):
    """One judge call failed (timeout, API status, connection, reasoning only)."""

    def __init__(self, message: str, *, kind: ErrorKind = "other") -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind


class JudgeAborted(TouchstoneError):
    """The judge is unusable; the judge run stops (exit 1)."""

    # Filled in by the pipeline so that the CLI can show what the calls did before the stop.
    health_summary: str = ""


class ModelCallError(TouchstoneError):
    """One call to an evaluated model failed; the runner decides by ``kind`` what follows."""

    def __init__(self, message: str, *, kind: ErrorKind) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind


def describe(exc: BaseException) -> str:
    """``"<ExceptionType>: <message>"``, the text every call failure is reported with."""
    text = str(exc).strip() or repr(exc)
    return f"{type(exc).__name__}: {text}"


def _looks_refused(exc: openai.APIStatusError) -> bool:
    parts = [str(exc.message)]
    body = exc.body
    if isinstance(body, dict):
        parts.extend(str(value) for value in body.values())
    text = " ".join(parts).lower()
    return any(marker in text for marker in _REFUSAL_MARKERS)


def classify(exc: BaseException) -> ErrorKind:
    """The error kind (DESIGN §8) of an exception raised by a chat call."""
    if isinstance(exc, JudgeCallError | ModelCallError):
        return exc.kind
    if isinstance(exc, DeadlineExceeded | TimeoutError | openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, ReasoningOnly):
        return "reasoning_only"
    if isinstance(exc, openai.APIConnectionError):
        return "connection"
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return "auth"
    if isinstance(exc, openai.NotFoundError):
        return "not_found"
    if isinstance(exc, openai.RateLimitError):
        return "rate_limit"
    if isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError):
        return "refused" if _looks_refused(exc) else "bad_request"
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return "refused"
    if isinstance(exc, openai.LengthFinishReasonError):
        return "reasoning_only"
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status >= 500:
            return "server"
        if status == 429:
            return "rate_limit"
        if status in (401, 403):
            return "auth"
        if status == 404:
            return "not_found"
        if status in (400, 422):
            return "refused" if _looks_refused(exc) else "bad_request"
        return "other"
    if isinstance(exc, ConnectionError | OSError):
        return "connection"
    return "other"
