"""Chat calls: the seam both roles call (``seam``), its OpenAI-compatible implementation
(``endpoint``) over the transport (``chat``) and the replies it reads, and the fake for tests
(``fake``)."""

from touchstone.transport.chat import PLACEHOLDER_API_KEY, ChatTransport, without_credentials
from touchstone.transport.replies import REASONING_FIELDS, ChatReply, split_think
from touchstone.transport.seam import ChatSeam

__all__ = [
    "PLACEHOLDER_API_KEY",
    "REASONING_FIELDS",
    "ChatReply",
    "ChatSeam",
    "ChatTransport",
    "split_think",
    "without_credentials",
]
