"""Protocol 1.x (1.0 and 1.1) between the referee and a bot: messages and their codec. Pure: no I/O."""

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
from arena.protocol.messages import MAX_LINE_BYTES, PROTOCOL_NAME, VERSIONS, Version

__all__ = [
    "MAX_LINE_BYTES", "PROTOCOL_NAME", "VERSIONS", "Version", "BotProtocolError", "LineSplitter", "ProtocolError",
    "RefereeProtocolError", "decode_bot_bytes", "decode_bot_line", "decode_referee_line",
    "encode", "rules_to_wire",
]
