"""The evaluated models: one streamed chat call per cell, bounded by a wall-clock deadline."""

from __future__ import annotations

from typing import Protocol

from touchstone.errors import ModelCallError, classify, describe
from touchstone.transport import ChatReply, ChatTransport

DEFAULT_CALL_TIMEOUT_S = 300.0


class AnswerBackend(Protocol):
    """Anything that answers a prompt. Raises ``ModelCallError`` when the call fails."""

    def answer(self, *, model: str, system: str, user: str) -> ChatReply: ...


class OpenAIAnswerBackend:
    """Evaluated models behind one OpenAI-compatible endpoint, streamed.

    Streaming keeps content and reasoning apart as they arrive and lets the deadline cut a
    model that thinks for ever; ``call_timeout_s`` bounds each call as a whole.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> None:
        self.call_timeout_s = call_timeout_s
        self.max_tokens = max_tokens
        self.temperature = temperature
        self._transport = ChatTransport(base_url, api_key, timeout=call_timeout_s, max_retries=0)

    def answer(self, *, model: str, system: str, user: str) -> ChatReply:
        messages = [{"role": "user", "content": user}]
        if system:
            messages.insert(0, {"role": "system", "content": system})
        try:
            return self._transport.chat(
                model=model,
                messages=messages,
                deadline_s=self.call_timeout_s,
                stream=True,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
            )
        except Exception as exc:
            raise ModelCallError(describe(exc), kind=classify(exc)) from exc

    def close(self) -> None:
        self._transport.close()
