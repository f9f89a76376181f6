"""What the cells of one (prompt, variant) share, worked out once for all of them.

A judge run has few (prompt, variant) pairs but up to 100k cells. Each cell's judge prompt
is the pair's frame with the answer in its fence (``rubric.user_prompt_frame``), and its
verdict-cache key hashes that prompt whole (``cache.cache_key``). Rendered and hashed per
cell, the shared part cost more CPU than the rest of a judge call's bookkeeping; here it is
rendered once, and hashed once up to the answer (``cache.key_start``), per pair. The user
prompt and the key of a cell are the same strings as without the frame.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from touchstone.judge.cache import finish_key, key_start
from touchstone.judge.rubric import (
    answer_as_data,
    judge_system_prompt,
    rubric_hash,
    user_prompt_frame,
)
from touchstone.pack import Pack, Prompt, Scale


@dataclass(frozen=True, slots=True)
class Frame:
    """One (prompt, variant) as the judge sees it, without the answer."""

    prompt: Prompt
    scale: Scale
    system: str
    rubric: str
    head: str
    tail: str
    # The cache key's hash up to the answer.
    key_start: hashlib._Hash

    @classmethod
    def of(
        cls,
        pack: Pack,
        prompt: Prompt,
        variant: str,
        judge_identity: str,
        *,
        system: str = "",
        rubric: str = "",
    ) -> Frame:
        """``system`` and ``rubric`` (its hash) may be passed in when the caller has them."""
        system = system or judge_system_prompt(pack)
        head, tail = user_prompt_frame(prompt, pack, variant)
        return cls(
            prompt,
            pack.scale,
            system,
            rubric or rubric_hash(pack, prompt, variant),
            head,
            tail,
            key_start(judge_identity, system, head),
        )

    def user(self, answer: str) -> str:
        """The judge's user prompt for ``answer`` (``rubric.judge_user_prompt``)."""
        return self.head + answer_as_data(answer) + self.tail

    def key(self, answer: str) -> str:
        """The verdict-cache key of ``answer`` (``cache.cache_key`` of the whole prompt)."""
        return finish_key(self.key_start, answer_as_data(answer) + self.tail)


class Frames:
    """``Frame`` per (prompt id, variant) of ``pack`` for the judge ``judge_identity``,
    made on first use."""

    def __init__(self, pack: Pack, judge_identity: str, system: str = "") -> None:
        self.pack = pack
        self.identity = judge_identity
        self.system = system or judge_system_prompt(pack)
        self._known: dict[tuple[str, str], Frame] = {}

    def __call__(self, prompt_id: str, variant: str) -> Frame:
        """The frame of ``prompt_id`` in ``variant``; ``KeyError`` when the pack has no such
        prompt."""
        frame = self._known.get((prompt_id, variant))
        if frame is None:
            prompt = self.pack.prompt(prompt_id)
            frame = Frame.of(self.pack, prompt, variant, self.identity, system=self.system)
            self._known[prompt_id, variant] = frame
        return frame
