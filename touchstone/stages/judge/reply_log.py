"""Each verdict's raw judge reply, appended to judge-replies.jsonl as the verdict lands."""

from __future__ import annotations

from collections.abc import Callable

from touchstone.results import Verdict, cell_key
from touchstone.store.jsonl import JsonlAppender
from touchstone.store.judge_replies import reply_line
from touchstone.transport.replies import ChatReply


def reply_sink(appender: JsonlAppender) -> Callable[[Verdict, ChatReply], None]:
    """The session's ``on_reply``: one line per verdict a reply gave (design.md §4)."""

    def keep(verdict: Verdict, reply: ChatReply) -> None:
        appender.append(
            reply_line(
                cell_key(verdict),
                cache_key=verdict.cache_key,
                judge_model=verdict.judge_model,
                finish_reason=reply.finish_reason,
                reply=reply.content,
            )
        )

    return keep
