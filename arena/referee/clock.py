"""Time control for one bot in one match: a per-decision limit, an optional bank, a grace."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class TimeControl:
    move_ms: int = 1000
    bank_ms: int | None = None
    handshake_ms: int = 5000
    grace_ms: int = 50

    def to_dict(self) -> dict[str, int | None]:
        return asdict(self)


class Clock:
    def __init__(self, tc: TimeControl) -> None:
        self.tc = tc
        self.bank_ms: float | None = None if tc.bank_ms is None else float(tc.bank_ms)

    def allowed_s(self) -> float:
        """Seconds the bot may take for this decision before it is a timeout."""
        return (self.tc.move_ms + (self.bank_ms or 0.0) + self.tc.grace_ms) / 1000

    def charge(self, think_ms: float) -> None:
        """Book a decision: time over the move limit comes out of the bank."""
        over = think_ms - self.tc.move_ms
        if over > 0 and self.bank_ms is not None:
            self.bank_ms = max(0.0, self.bank_ms - over)

    def bank_left_ms(self) -> int | None:
        return None if self.bank_ms is None else int(self.bank_ms)
