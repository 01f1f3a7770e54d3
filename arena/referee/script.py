"""The lines the referee sends each seat in a match that goes by the book, rebuilt from the match's record.

A transcript is mostly the referee's own lines: the match line, the deal lines, the events and a full
``turn`` line before every decision, all of them a function of the record (the rules, the decks and
actions, the think times that drew on the bank) and of two things the seat's first ``turn`` line shows (the
protocol version the bot chose and its time control). The store keeps only what is not such a function
(the bot's lines, every line's time, and any referee line that is off this script: a handshake, a restart,
an error) and rebuilds the rest from here (docs/DATABASE.md, "Transcripts").

This follows the order of ``MatchRunner._play`` (arena.referee.match) line for line; tests/test_script.py
holds the two equal over real matches of every preset, both protocol versions, a bank and reused bots. Pure:
no I/O, no trio.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.game.cards import parse_cards
from arena.game.hand import Deal, parse_seat_action
from arena.game.variants import RuleSet
from arena.protocol import messages as m
from arena.protocol.codec import encode, event_lines, rules_to_wire, turn_line
from arena.protocol.messages import V1_0, V1_1, Version
from arena.referee.clock import Clock, TimeControl


@dataclass(frozen=True)
class SeatScript:
    """What a seat's lines depend on beyond the record, read off its first ``turn`` line."""

    version: Version
    move_ms: int
    bank_ms: int | None

    def to_json(self) -> list[Any]:
        return [[*self.version], self.move_ms, self.bank_ms]

    @classmethod
    def from_json(cls, value: Any) -> SeatScript | None:
        try:
            (major, minor), move_ms, bank_ms = value
            return cls(Version(int(major), int(minor)), int(move_ms), None if bank_ms is None else int(bank_ms))
        except (TypeError, ValueError):
            return None

    @classmethod
    def of_turn_line(cls, line: str) -> SeatScript | None:
        """From the first ``turn`` line the seat was sent (None if there is no such line)."""
        fields = dict(part.partition("=")[::2] for part in line.split(" ")[1:])
        try:
            bank = fields["bank"]
            return cls(V1_1 if "led_marriage" in fields else V1_0, int(fields["time"]),
                       None if bank == "-" else int(bank))
        except (KeyError, ValueError):
            return None


@dataclass
class MatchScript:
    """Each seat's lines in a match that goes by the book: the referee's, from the match line to
    ``match-end``, and the bot's replies (each action as its protocol text, ``play Th``)."""

    referee: tuple[list[str], list[str]]
    replies: tuple[list[str], list[str]]


def match_script(
    rules: RuleSet,
    match_id: str,
    bots: Sequence[str],
    deals: Sequence[tuple[int | None, str, Sequence[str]]],
    think_ms: Sequence[Sequence[float]],
    scripts: Sequence[SeatScript | None],
    reason: str,
) -> MatchScript:
    """Each seat's referee lines and replies, as they go when every decision is a legal reply. ``deals``
    are the stored deals as ``(dealer, deck, actions)``: the deck as its cards' text, space-separated, each
    action as ``<seat>:<token>``. A record the rules cannot replay gives the lines up to that point."""
    wire = rules_to_wire(rules)
    script = MatchScript(([], []), ([], []))
    out = script.referee
    for seat in (0, 1):
        out[seat].append(encode(m.MatchStart(match_id, seat, bots[1 - seat], wire)))
    clocks = [None if s is None else Clock(TimeControl(move_ms=s.move_ms, bank_ms=s.bank_ms)) for s in scripts]
    decisions = [0, 0]
    score = [0, 0]
    winner: int | None = None
    try:
        for index, (dealer, deck, actions) in enumerate(deals):
            if dealer is None:
                return script
            deal = Deal(rules, parse_cards(deck), dealer)
            for seat in (0, 1):
                out[seat].append(encode(m.DealStart(index, deal.dealer)))
            seen = 0
            for text in actions:
                mover, action = parse_seat_action(text)
                if deal.over or mover != deal.to_move:
                    return script
                legal = deal.legal_actions()
                if action not in legal:
                    return script  # a record the rules do not allow: off the script from here
                seat_script, clock = scripts[mover], clocks[mover]
                if seat_script is not None and clock is not None:  # a seat without one gets no turn lines here
                    out[mover].append(turn_line(deal, mover, (score[mover], score[1 - mover]), legal,
                                                seat_script.move_ms, clock.bank_left_ms(), seat_script.version))
                    clock.charge(think_ms[mover][decisions[mover]])
                decisions[mover] += 1
                deal.apply_legal(action)
                script.replies[mover].append(str(action))
                face_up = deal.trump_card
                for ev in deal.events[seen:]:
                    for seat, line in enumerate(event_lines(ev, face_up)):
                        if line is not None:
                            out[seat].append(line)
                seen = len(deal.events)
            result = deal.result
            if result is None:
                return script  # ended by the referee: off the script from here
            score[result.winner] += result.game_points
            end = encode(m.DealEnd(result.winner, result.game_points, result.reason, result.points,
                                   (score[0], score[1])))
            for seat in (0, 1):
                out[seat].append(end)
            if score[result.winner] >= rules.match_target:
                winner = result.winner
                break
    except Exception:  # noqa: BLE001 - a record arena did not write (a hand-edited database, say): the lines
        return script  # rebuilt so far, the same on every read, and every later line is stored as it was
    end = encode(m.MatchEnd(winner, (score[0], score[1]), reason))
    for seat in (0, 1):
        out[seat].append(end)
    return script
