"""What a chat call brings back: ``ChatReply``, read from a JSON body or from an SSE stream.

A reply is only a reply when it is complete. A stream that broke off before its end (no
``finish_reason`` and no ``[DONE]``) is a ``BrokenReply``: a connection failure. A reply that
arrived whole but is no chat completion (a body or an event that is no JSON, or JSON Python
cannot hold, such as an integer of 4,301 digits; no choice; content of no known shape) is a
``MalformedReply``: a finding about the server. Neither is ever an empty answer.

Reasoning is kept apart from content, under whichever name the server uses
(``reasoning_content``, ``reasoning``, ``thinking``) or inline as ``<think>…</think>``.

Only choice 0 is the answer (a server may send more than asked for). Content is a string or
a list of parts (Mistral: ``[{"type": "text", "text": …}]``, with ``thinking`` parts for its
reasoning); content that is neither is a ``MalformedReply``, never an empty answer. A stream's
content and reasoning together are capped (``ReplyTooLarge``), as is one event of it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from touchstone import jsontext
from touchstone.errors import BrokenReply, MalformedReply, Progress, ReplyTooLarge, StreamError
from touchstone.limits import token_count
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_BYTES

REASONING_FIELDS = ("reasoning_content", "reasoning", "thinking")

_DECODER = json.JSONDecoder()
# What ``_DECODER.raw_decode`` calls: an object and where it ends (``StopIteration``: none).
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]

_THINK_BLOCK = re.compile(r"<think>(.*?)</think>", re.DOTALL)


# Whether a call asked for a JSON schema (``seam.ReplySchema``): "sent"; "refused": the endpoint
# refused it and the reply came without one; "": none was asked for.
SchemaUse = Literal["", "sent", "refused"]


@dataclass(slots=True)
class ChatReply:
    content: str
    reasoning: str
    finish_reason: str
    latency_s: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    # Prompt tokens the server's prefix cache served (``prompt_tokens_details.cached_tokens``).
    cached_tokens: int | None = None
    schema: SchemaUse = ""


def split_think(content: str) -> tuple[str, str]:
    """Move inline ``<think>…</think>`` reasoning out of ``content``: ``(content, reasoning)``.

    Handles an unterminated ``<think>`` (a model cut off while thinking) and a closing tag
    without an opening one (chat templates that put ``<think>`` into the prompt).
    """
    if "think>" not in content:
        return content.strip(), ""  # nothing inline (the usual reply)
    reasoning: list[str] = []

    def take(match: re.Match[str]) -> str:
        reasoning.append(match.group(1))
        return ""

    text = _THINK_BLOCK.sub(take, content)
    if "<think>" in text:
        before, _, after = text.partition("<think>")
        reasoning.append(after)
        text = before
    elif "</think>" in text:
        before, _, after = text.partition("</think>")
        reasoning.insert(0, before)
        text = after
    return text.strip(), "\n".join(r.strip() for r in reasoning if r.strip())


def reasoning_in(fields: Mapping[str, Any]) -> str:
    """The reasoning text a message or delta carries, under whichever name the server uses."""
    for name in REASONING_FIELDS:
        if name in fields:
            value = fields[name]
            if isinstance(value, str) and value:
                return value
    return ""


_Usage = tuple[int | None, int | None, int | None, int | None]


def _usage(data: Mapping[str, Any]) -> _Usage:
    """Prompt, completion, reasoning and cached prompt tokens as reported; a count that is no
    plausible one (negative, 10**400, a float, a string) is unknown, never stored
    (``token_count``)."""
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return None, None, None, None
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    prompt_details = usage.get("prompt_tokens_details")
    cached = prompt_details.get("cached_tokens") if isinstance(prompt_details, dict) else None
    return (
        token_count(usage.get("prompt_tokens")),
        token_count(usage.get("completion_tokens")),
        token_count(reasoning),
        token_count(cached),
    )


def _excerpt(value: object) -> str:
    return " ".join(str(value)[:1000].split())[:200]


def _unreadable(value: object) -> MalformedReply:
    return MalformedReply(f"Inhalt der Antwort nicht lesbar: „{_excerpt(value)}“")


def _text_of_parts(parts: list[Any]) -> str:
    """The text of a list of text parts (what a ``thinking`` part holds)."""
    texts = []
    for part in parts:
        if not (isinstance(part, dict) and part.get("type") == "text"):
            raise _unreadable(part)
        text = part.get("text")
        if not isinstance(text, str):
            raise _unreadable(part)
        texts.append(text)
    return "".join(texts)


def content_of(value: object) -> tuple[str, str]:
    """``(content, reasoning)`` of a message's or a delta's ``content``: a string, nothing,
    or a list of ``text`` and ``thinking`` parts. Anything else is a ``MalformedReply``."""
    if isinstance(value, str):
        return value, ""
    if value is None:
        return "", ""
    if not isinstance(value, list):
        raise _unreadable(value)
    texts: list[str] = []
    thoughts: list[str] = []
    for part in value:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "thinking" and isinstance(part.get("thinking"), str):
            thoughts.append(part["thinking"])
        elif kind == "thinking" and isinstance(part.get("thinking"), list):
            thoughts.append(_text_of_parts(part["thinking"]))
        else:
            raise _unreadable(part)
    return "".join(texts), "".join(thoughts)


def first_choice(choices: object) -> dict[str, Any] | None:
    """Choice 0 of ``choices`` (by its ``index``; a choice without one counts as 0)."""
    if not isinstance(choices, list):
        return None
    for choice in choices:
        if isinstance(choice, dict) and choice.get("index", 0) == 0:
            return choice
    return None


def reply_from_json(data: object, latency_s: float) -> ChatReply:
    """A ``ChatReply`` from a chat completion's JSON (a dict, or the body that holds one).

    A body that is no chat completion at all (not JSON, or no choice with a message, as
    proxies send with a 200) is a ``MalformedReply``, not an empty answer.
    """
    if isinstance(data, str | bytes):
        # The body as it came, whatever its Content-Type (some servers label JSON text/plain).
        try:
            data = jsontext.loads(data)
        except ValueError as exc:  # jsontext.NotJson, or bytes that are no text
            shown = _excerpt(data.decode("utf-8", "replace") if isinstance(data, bytes) else data)
            raise MalformedReply(
                f"Antwort ist kein JSON ({jsontext.problem(exc)}): „{shown}“"
            ) from None
    choice = first_choice(data.get("choices")) if isinstance(data, dict) else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(data, dict) or not isinstance(choice, dict) or not isinstance(message, dict):
        if isinstance(data, dict) and data.get("error"):
            raise _stream_error(data["error"])
        raise MalformedReply(f"Antwort ist keine Chat-Completion: „{_excerpt(data)}“")
    content, thinking = content_of(message.get("content"))
    prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens = _usage(data)
    return ChatReply(
        content=content,
        reasoning=reasoning_in(message) or thinking,
        finish_reason=str(choice.get("finish_reason") or ""),
        latency_s=latency_s,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        reasoning_tokens=reasoning_tokens,
        cached_tokens=cached_tokens,
    )


class StreamReader:
    """Collects a streamed chat completion from its SSE lines (``feed`` each, then ``reply``).

    Server-sent events: ``data:`` lines make up an event, a blank line ends it, lines starting
    with ``:`` are comments (keep-alives). ``data: [DONE]`` marks the regular end. The openai
    SDK would parse the events too, but it hides whether ``[DONE]`` arrived, and that is how a
    complete stream is told from one that broke off.
    """

    def __init__(self, max_bytes: int = DEFAULT_MAX_REPLY_BYTES) -> None:
        self.done = False
        self._max_bytes = max_bytes
        self._size = 0  # characters of content and reasoning so far
        self._data_size = 0
        self._data: list[str] = []
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._finish_reason = ""
        self._saw_choice = False
        self._usage: _Usage = (None, None, None, None)
        # How far the reply got (``progress``): when its first text came (``time.monotonic``),
        # and the events that carried content or reasoning.
        self.first_at: float | None = None
        self.content_chunks = 0
        self.reasoning_chunks = 0

    def feed(self, line: str) -> None:
        self.feed_lines((line,))

    def feed_lines(self, lines: Iterable[str]) -> None:
        """``feed`` each of ``lines`` (the lines of a piece of the stream, in one call)."""
        for line in lines:
            if not line:
                if self._data:
                    self._dispatch()
            elif line.startswith("data:"):
                data = line[6:] if line[5:6] == " " else line[5:]
                self._data.append(data)
                self._data_size += len(data)
                if self._data_size > self._max_bytes:
                    raise ReplyTooLarge(self._max_bytes, "Ein Ereignis des Streams")
            elif line.startswith("error:"):
                # Older llama.cpp servers report an error in a field of its own.
                payload = line[6:].strip()
                try:
                    error = jsontext.loads(payload)
                except ValueError:
                    error = payload
                raise _stream_error(error)
            # Comments (":"), "event:", "id:" and "retry:" lines carry nothing a reply needs.

    def _dispatch(self, *, last: bool = False) -> None:
        """Read the event the data lines make up; ``last``: the stream ended before the
        blank line that ends it (an event that is no JSON then may just be cut off)."""
        if not self._data:
            return
        data = self._data
        payload = data[0] if len(data) == 1 else "\n".join(data)
        self._data, self._data_size = [], 0
        if payload[:1] != "{" and payload.strip() == "[DONE]":
            self.done = True
            return
        try:
            # The usual event: one JSON object, nothing around it. The decoder's scanner (what
            # ``raw_decode`` calls) spares the whitespace scans of ``json.loads``; anything
            # else takes ``_object_of``.
            chunk, end = _SCAN(payload, 0)
        except (StopIteration, ValueError, RecursionError):
            chunk, end = None, -1
        if end != len(payload):
            chunk = _object_of(payload, cut_off=last)
        if not isinstance(chunk, dict):
            raise MalformedReply(f"Stream enthält kein JSON-Objekt: „{_excerpt(payload)}“")
        error = chunk.get("error")
        if error:
            raise _stream_error(error)
        if chunk.get("usage"):
            self._usage = _usage(chunk)
        choices = chunk.get("choices")
        if type(choices) is list and choices and type(choices[0]) is dict:
            choice = choices[0] if choices[0].get("index", 0) == 0 else first_choice(choices)
        else:
            choice = first_choice(choices)
        if choice is None:
            return
        self._saw_choice = True
        delta = choice.get("delta")
        if isinstance(delta, dict):
            content = delta.get("content")
            # A string, as a rule: ``content_of`` for the rest (parts, nothing, garbage).
            piece, thinking = (content, "") if type(content) is str else content_of(content)
            thought = reasoning_in(delta) or thinking
            self._size += len(piece) + len(thought)
            if self._size > self._max_bytes:
                raise ReplyTooLarge(self._max_bytes, "Der Inhalt der Antwort")
            if piece:
                self._content.append(piece)
                self.content_chunks += 1
            if thought:
                self._reasoning.append(thought)
                self.reasoning_chunks += 1
            if self.first_at is None and (piece or thought):
                self.first_at = time.monotonic()
        if choice.get("finish_reason"):
            self._finish_reason = str(choice["finish_reason"])

    def progress(self, started: float, now: float) -> Progress:
        """How far the reply got from ``started`` to ``now`` (``time.monotonic`` both)."""
        return Progress(
            streamed=True,
            elapsed_s=now - started,
            first_s=None if self.first_at is None else self.first_at - started,
            content_chars=sum(map(len, self._content)),
            content_chunks=self.content_chunks,
            reasoning_chars=sum(map(len, self._reasoning)),
            reasoning_chunks=self.reasoning_chunks,
        )

    def reply(self, latency_s: float) -> ChatReply:
        """The complete reply; ``BrokenReply`` when the stream ended before it was complete."""
        self._dispatch(last=True)  # a last event without its blank line
        if not self._saw_choice:
            # Ended as a stream ends ([DONE]): the server sent it so; else it broke off.
            broken = MalformedReply if self.done else BrokenReply
            raise broken("Stream endete ohne eine einzige Auswahl (choices)")
        if not self.done and not self._finish_reason:
            raise BrokenReply(
                "Stream brach ab (weder finish_reason noch [DONE]) nach "
                f"{len(''.join(self._content))} Zeichen"
            )
        prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens = self._usage
        return ChatReply(
            content="".join(self._content),
            reasoning="".join(self._reasoning),
            finish_reason=self._finish_reason,
            latency_s=latency_s,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            reasoning_tokens=reasoning_tokens,
            cached_tokens=cached_tokens,
        )


def _object_of(payload: str, *, cut_off: bool) -> object:
    """The JSON value of an event's data that is not one JSON object alone (``_dispatch``
    reads those); if it is none a ``MalformedReply``, or a ``BrokenReply`` where the stream
    ended inside the event (``cut_off``)."""
    try:
        return jsontext.loads(payload)
    except ValueError as exc:
        broken = BrokenReply if cut_off else MalformedReply
        raise broken(
            f"Stream enthält kein JSON ({jsontext.problem(exc)}): „{_excerpt(payload)}“"
        ) from None


def _stream_error(error: object) -> StreamError:
    if not isinstance(error, dict):
        return StreamError(_excerpt(error) or "unbekannter Fehler")
    raw_code = error.get("code")
    status = raw_code if isinstance(raw_code, int) and not isinstance(raw_code, bool) else None
    if status is None and isinstance(raw_code, str) and raw_code.isdigit():
        status = int(raw_code)
    message = _excerpt(error.get("message") or error)
    kind_words = " ".join(str(error.get(k) or "") for k in ("type", "code"))
    return StreamError(message, status=status, code=kind_words.strip())
