"""An OpenAI-compatible endpoint behind the call seam (``seam.ChatSeam``), in either role.

The roles differ only where they must (``Role``): an evaluated model is sent the system
message only when its variant has one, and its reply is kept whole (``answers`` splits the
reasoning off); a judge is always sent both messages, and a reply with reasoning but no
content is a failed call (persisting it as an unscored verdict would hide a runaway judge
from the breaker and from every resume). Every exception of a call is mapped here, once,
onto the role's ``CallError`` (``classify.call_error``), with the original as its cause.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from touchstone.errors import CallError, ReasoningOnly
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_MB, reply_limit_bytes
from touchstone.transport.chat import ChatTransport
from touchstone.transport.classify import call_error
from touchstone.transport.identity import endpoint_identity
from touchstone.transport.replies import ChatReply, split_think
from touchstone.transport.seam import ReplySchema, SchemaMode
from touchstone.urls import without_credentials


@dataclass(frozen=True, slots=True)
class Role:
    """What sets a role's calls apart: its error class and its request and reply shape."""

    error: type[CallError]
    # Send the system message even when it is empty (the judge's prompt always has one).
    system_always: bool
    # A reply must have content besides its reasoning; the content is returned without it.
    content_required: bool


class OpenAIChat:
    """One OpenAI-compatible endpoint in one role (``Role``); see the module docstring.

    ``deadline_s`` bounds each call as a whole, retries included, and is the SDK's read
    timeout too (``None`` leaves both to the SDK defaults, not advisable). ``max_retries`` is
    the SDK's retry count inside the deadline; ``temperature`` and ``max_tokens`` are sent
    only when set; ``extra_body`` is merged into every request. ``stream=False`` asks for
    whole replies (a server then cannot notice that a call was given up on until it has
    written its reply). ``max_reply_mb`` caps each reply: beyond it the call fails as
    ``too_large``. ``schema_mode`` (``seam.SchemaMode``) says whether a call's ``schema`` is
    sent as ``response_format``: with "auto", the first refusal (a 400 about it) turns it off
    for this endpoint's life and the call goes again without it, within its deadline.
    """

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        role: Role,
        model: str = "",
        deadline_s: float | None = None,
        max_retries: int = 0,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        stream: bool = True,
        max_reply_mb: float = DEFAULT_MAX_REPLY_MB,
        schema_mode: SchemaMode = "off",
    ) -> None:
        self.role = role
        self.schema_mode = schema_mode
        self._schema_refused = False
        self.url = url
        self.model = model
        self.deadline_s = deadline_s
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self.stream = stream
        self._transport = ChatTransport(
            url,
            api_key,
            read_timeout_s=deadline_s,
            max_retries=max_retries,
            max_reply_bytes=reply_limit_bytes(max_reply_mb),
        )

    @property
    def base_url(self) -> str:
        return without_credentials(self.url)

    @property
    def identity(self) -> dict[str, Any]:
        return endpoint_identity(
            model=self.model,
            url=self.url,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            extra_body=self.extra_body,
            schema_mode=self.schema_mode,
        )

    async def call(
        self,
        *,
        model: str,
        system: str,
        user: str,
        deadline_s: float | None,
        schema: ReplySchema | None = None,
    ) -> ChatReply:
        messages = [{"role": "user", "content": user}]
        if system or self.role.system_always:
            messages.insert(0, {"role": "system", "content": system})
        sent = schema if self.schema_mode != "off" and not self._schema_refused else None
        started = time.monotonic()
        try:
            reply = await self._chat(model, messages, deadline_s, sent)
        except CallError as error:  # mapped by ``_chat``, its cause kept
            if sent is None or not error.schema_refused or self.schema_mode != "auto":
                raise
            # The endpoint takes no schema: said once (``ChatReply.schema``), then none is
            # sent again; this call goes again without, in what is left of its deadline.
            self._schema_refused = True
            left = (
                None if deadline_s is None else max(0.01, deadline_s - (time.monotonic() - started))
            )
            reply = await self._chat(model, messages, left, None)
            return dataclasses.replace(reply, schema="refused")
        if sent is not None:
            reply = dataclasses.replace(reply, schema="sent")
        elif schema is not None and self._schema_refused:
            reply = dataclasses.replace(reply, schema="refused")
        return reply

    async def _chat(
        self,
        model: str,
        messages: list[dict[str, str]],
        deadline_s: float | None,
        schema: ReplySchema | None,
    ) -> ChatReply:
        try:
            reply = await self._transport.chat(
                model=model,
                messages=messages,
                deadline_s=deadline_s,
                stream=self.stream,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                extra_body=self.extra_body,
                response_format=None if schema is None else schema.response_format(),
            )
            if self.role.content_required:
                reply = _content_only(reply)
        except Exception as exc:
            raise call_error(self.role.error, exc) from exc
        return reply

    async def model_ids(self) -> list[str]:
        return await self._transport.model_ids()

    async def aclose(self) -> None:
        await self._transport.aclose()


def _content_only(reply: ChatReply) -> ChatReply:
    """``reply`` with its content only; ``ReasoningOnly`` when there is none."""
    content, inline_reasoning = split_think(reply.content)
    if not content:
        reasoning_chars = len(reply.reasoning) + len(inline_reasoning)
        raise ReasoningOnly(
            f"Antwort ohne Inhalt (finish_reason={reply.finish_reason or '-'}, "
            f"{reasoning_chars} Zeichen Reasoning)"
        )
    return dataclasses.replace(reply, content=content)
