"""Protocol 1.x (1.0 and 1.1) between the referee and a bot: messages and their codec. Pure: no I/O.

Modules: messages (one frozen dataclass per message; docs/PROTOCOL.md is the contract), codec (encode a
message to a line, decode a line to a message; who broke the protocol, the referee or the bot, is a
different error), session (the referee's side of one bot's conversation as a state machine without I/O,
h11's shape) and botkit (the Python bot kit: a loop over stdin and stdout around a bot's `choose`; the bot
side's I/O edge, which `import arena.protocol` does not load).
"""

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
