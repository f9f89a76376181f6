"""Chat calls to OpenAI-compatible endpoints: the transport and the replies it reads."""

from touchstone.transport.chat import PLACEHOLDER_API_KEY, ChatTransport, without_credentials
from touchstone.transport.replies import REASONING_FIELDS, ChatReply, split_think

__all__ = [
    "PLACEHOLDER_API_KEY",
    "REASONING_FIELDS",
    "ChatReply",
    "ChatTransport",
    "split_think",
    "without_credentials",
]
