"""Protocol v1 between the referee and a bot: messages and their codec. Pure: no I/O."""

from arena.protocol.codec import (
    BotProtocolError,
    LineSplitter,
    ProtocolError,
    RefereeProtocolError,
    decode_bot_bytes,
    decode_bot_line,
    decode_referee_line,
    encode,
    rules_to_wire,
)
from arena.protocol.messages import MAX_LINE_BYTES, PROTOCOL_NAME, VERSIONS

__all__ = [
    "MAX_LINE_BYTES", "PROTOCOL_NAME", "VERSIONS", "BotProtocolError", "LineSplitter", "ProtocolError",
    "RefereeProtocolError", "decode_bot_bytes", "decode_bot_line", "decode_referee_line",
    "encode", "rules_to_wire",
]
