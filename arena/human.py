"""The human seat of `arena play`: a person at a terminal, playing as one more bot of arena's own referee.

    python -m arena.human --in FD --out FD [--scripted] [--ascii]

Why a bot process, and not a game loop of its own: the person must meet exactly what a bot meets, the
same rules, the same clock and the same named terminations, and the least intrusive way to get that is to
make the person a bot. `arena play` starts this module as the seat's process, unsandboxed (it is arena's
own code), through the very match loop a tournament uses (arena.referee.match). It speaks the protocol on
its stdin/stdout like any bot, built on the Python bot kit, and renders each ``turn`` for the person. The
person's terminal (or script) reaches it as two descriptors that `arena play` passes down (``--in`` and
``--out``): inherited, they share the terminal's open files with `arena play`, so the screen interleaves
in order and a redirected output file is appended to, not overwritten. The alternative, an in-process
object standing in for a bot process, would have to mimic the session's process interface (pipes, exit,
stderr, transcript) and could drift from it; this way the referee cannot tell a person from a program.

The screen is built from what the protocol carries to every bot (the ``turn`` line of protocol 1.0 and
the events), so it shows the person what a bot may know, no more.

Leaving: at end of input (Ctrl-D, or the end of a script), on ``q``, or after too many wrong entries in a
row in a script, the seat closes its protocol stdout and waits: the referee records a ``disconnect``, the
termination of a player who walked away (exiting instead would read as a ``crash``). If the referee writes
while the person is deciding (``error`` on a timeout, ``quit`` when `arena play` is interrupted) or goes
away, the seat stops asking and exits at once.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
from typing import NoReturn, TextIO

from arena.game.actions import Action
from arena.game.cards import KING, QUEEN, RANKS, SUIT_SYMBOLS, SUITS, Card
from arena.game.variants import RuleSet
from arena.game.views import SeatView
from arena.protocol.botkit import run
from arena.protocol.messages import (
    Closed,
    DealEnd,
    DealStart,
    Declared,
    Drew,
    Exchanged,
    MarriageShown,
    MatchEnd,
    MatchStart,
    Played,
    TrickWon,
)

NAME = "human"  # the seat's name in its handshake
MAX_WRONG_SCRIPTED = 5  # wrong entries in a row for one decision before a script's player leaves
MAX_ENTRY = 200  # characters of one entry read at a time: a line without end is many wrong entries

# What ended a deal, as the deal-end line names it: {w} the winner, {l} the loser
_REASONS = {
    "reached-66": "{w} reached 66",
    "declared-66": "{w} declared 66",
    "closed-and-reached-66": "{w} closed the talon and reached 66",
    "closed-and-declared-66": "{w} closed the talon and declared 66",
    "failed-close": "{l} closed the talon but did not make 66 first",
    "wrong-declaration": "{l} declared 66 without having it",
    "last-trick": "nobody reached 66, and {w} took the last trick",
    "more-points": "nobody reached 66, and {w} had more points",
    "forfeit": "{l} forfeited the deal",
}


class Leave(Exception):
    """The person leaves the match; the message says why."""


class _Referee(Exception):
    """The referee wrote while the person was deciding (an error, or quit), or went away."""


class PersonInput:
    """Lines typed by the person (or read from a script), one at a time, from a descriptor.

    Read with os.read, not through a buffered file, so that waiting for the person can also watch the
    protocol's stdin (see `readline`). Never more than MAX_ENTRY characters per entry: a script of garbage
    without line ends costs memory no more than a wrong entry each.
    """

    def __init__(self, fd: int, referee_fd: int) -> None:
        self.fd = fd
        self.referee_fd = referee_fd
        self.buf = b""
        self.eof = False

    def readline(self) -> str | None:
        """The next entry without its line end, or None at end of input. Raises _Referee if the referee
        writes (or closes the pipe) meanwhile: nothing it sends during a decision leaves the seat playing."""
        while True:
            nl = self.buf.find(b"\n")
            if 0 <= nl <= MAX_ENTRY:
                line, self.buf = self.buf[:nl], self.buf[nl + 1:]
            elif len(self.buf) >= MAX_ENTRY or (self.eof and self.buf):
                line, self.buf = self.buf[:MAX_ENTRY], self.buf[MAX_ENTRY:]
            elif self.eof:
                return None
            else:
                line = None
            if line is not None:
                return line.decode("utf-8", "replace").rstrip("\r")
            ready, _, _ = select.select([self.fd, self.referee_fd], [], [])
            if self.referee_fd in ready:
                raise _Referee
            try:
                data = os.read(self.fd, 4096)
            except OSError:  # a terminal that hung up
                data = b""
            if data:
                self.buf += data
            else:
                self.eof = True


def card_text(card: Card, ascii_only: bool) -> str:
    """``10♥``, ``A♠``; with ``ascii_only`` ``10h``, ``As``."""
    return card.display(symbols=not ascii_only)


def suit_text(suit: str, ascii_only: bool) -> str:
    return suit if ascii_only else SUIT_SYMBOLS[suit]


class HumanSeat:
    """The seat's state (built from the match line, the events and each turn) and its screen."""

    def __init__(self, person: PersonInput, out: TextIO, scripted: bool, ascii_only: bool) -> None:
        self.person = person
        self.out = out
        self.scripted = scripted
        self.ascii_only = ascii_only
        self.gone = False  # the screen is gone (the reader of our output left): write nothing more
        self.seat = 0
        self.opponent = "bot"
        self.rules: RuleSet | None = None
        self.score = [0, 0]  # game points by seat
        self.deal_number = 0
        self.tricks = [0, 0]  # tricks won in this deal, by seat
        self.opponent_pending = 0  # the opponent's marriage points waiting for its first won trick
        self.refused = 0  # wrong entries in this match

    # ------------------------------------------------------------------ output
    def say(self, text: str = "", end: str = "\n") -> None:
        if self.gone:
            return
        try:
            self.out.write(text + end)
            self.out.flush()
        except OSError:  # the terminal or the pipe we write to is gone: the person has left
            self.gone = True
            self.leave("the screen is gone")

    def card(self, card: Card) -> str:
        return card_text(card, self.ascii_only)

    def cards(self, cards: tuple[Card, ...] | list[Card]) -> str:
        return " ".join(self.card(c) for c in cards) or "none"

    def who(self, seat: int) -> str:
        return "you" if seat == self.seat else self.opponent

    def verb(self, seat: int, verb: str) -> str:
        """``you take`` / ``random takes``."""
        if seat == self.seat:
            return f"you {verb}"
        return f"{self.opponent} {verb}es" if verb.endswith(("s", "sh", "ch")) else f"{self.opponent} {verb}s"

    def match_line(self) -> str:
        me, other = self.score[self.seat], self.score[1 - self.seat]
        target = f" (first to {self.rules.match_target})" if self.rules is not None else ""
        return f"you {me} - {other} {self.opponent}{target}"

    # ------------------------------------------------------------------ the bot kit's hooks
    def on_match_start(self, msg: MatchStart, rules: RuleSet | None) -> None:
        self.seat, self.opponent, self.rules = msg.seat, msg.opponent, rules
        self.score = [0, 0]
        self.refused = 0

    def on_deal_start(self, msg: DealStart) -> None:
        self.deal_number = msg.index + 1
        self.tricks = [0, 0]
        self.opponent_pending = 0
        self.say()
        self.say(f"=== deal {self.deal_number}, dealt by {self.who(msg.dealer)}; match: {self.match_line()} ===")

    def on_event(self, msg: object) -> None:
        match msg:
            case Played(seat, card):
                self.say(f"  {self.verb(seat, 'play')} {self.card(card)}")
            case MarriageShown(seat, card, points):
                suit = suit_text(card.suit_char, self.ascii_only)
                if points == 0:
                    worth = "worth nothing: no trick won yet"
                elif self.tricks[seat] == 0:
                    worth = f"{points}, counted once {self.verb(seat, 'win')} a trick"
                    if seat != self.seat:
                        self.opponent_pending += points
                else:
                    worth = str(points)
                self.say(f"  {self.verb(seat, 'declare')} the marriage in {suit} ({worth})")
            case Exchanged(seat, card):
                self.say(f"  {self.verb(seat, 'take')} the turned trump card {self.card(card)} by exchange")
            case Closed(seat):
                self.say(f"  {self.verb(seat, 'close')} the talon")
            case TrickWon(seat, points):
                self.tricks[seat] += 1
                if seat != self.seat:
                    self.opponent_pending = 0  # counted now
                self.say(f"  {self.verb(seat, 'take')} the trick (+{points})")
            case Drew(seat, card) if card is not None:  # the opponent's hidden draws are not worth a line
                self.say(f"  {self.verb(seat, 'draw')} {self.card(card)}")
            case Declared(seat, points):
                self.say(f"  {self.verb(seat, 'declare')} 66 with {points} points")

    def on_deal_end(self, msg: DealEnd) -> None:
        self.score = list(msg.score)
        winner, loser = self.who(msg.winner), self.who(1 - msg.winner)
        why = _REASONS.get(msg.reason, "{w} won: " + msg.reason.replace("-", " "))
        gp = f"{msg.game_points} game point{'s' if msg.game_points != 1 else ''}"
        self.say(f"--- deal {self.deal_number}: {self.verb(msg.winner, 'win')} {gp}: "
                 f"{why.format(w=winner, l=loser)}")
        self.say(f"    points: you {msg.points[self.seat]}, {self.opponent} {msg.points[1 - self.seat]}; "
                 f"match: {self.match_line()}")

    def on_match_end(self, msg: MatchEnd) -> None:
        self.score = list(msg.score)
        refused = f" ({self.refused} wrong entries refused)" if self.refused else ""
        self.say()
        self.say(f"=== match over: {self.match_line()}{refused} ===")

    # ------------------------------------------------------------------ a decision
    def show_turn(self, view: SeatView, legal: list[Action]) -> None:
        self.say()
        trump = suit_text(SUITS[view.trump_suit], self.ascii_only)
        if view.talon_size == 0:
            talon = "talon empty"
        else:
            talon = f"talon {view.talon_size} card{'s' if view.talon_size != 1 else ''}"
            if view.closed_by is not None:
                talon += f", closed by {self.who(view.closed_by)}"
        turned = ""
        if view.trump_card is not None:
            turned = f" ({self.card(view.trump_card)} {'turned down' if view.closed else 'turned up'})"
        self.say(f"trump:  {trump}{turned}, {talon}")
        if view.led is None:
            self.say("table:  empty, you lead")
        else:
            self.say(f"table:  {self.opponent} led {self.card(view.led)}, you answer")
        mine = f"you {view.points[0]} ({self.tricks_text(view.tricks[0])}"
        mine += f", +{view.pending_marriage} pending)" if view.pending_marriage else ")"
        theirs = f"{self.opponent} {view.points[1]} ({self.tricks_text(view.tricks[1])}"
        theirs += f", +{self.opponent_pending} pending)" if self.opponent_pending else ")"
        self.say(f"points: {mine}, {theirs}")
        if view.opponent_known:
            self.say(f"known:  {self.opponent} holds {self.cards(view.opponent_known)}")
        self.say(f"match:  you {view.match_score[0]} - {view.match_score[1]} {self.opponent}")
        self.say(f"hand:   {self.cards(view.hand)}")
        for i, action in enumerate(legal, 1):
            self.say(f"  {i:>2}  {self.action_text(action, view)}")

    def tricks_text(self, n: int) -> str:
        return f"{n} trick{'s' if n != 1 else ''}"

    def action_text(self, action: Action, view: SeatView) -> str:
        card = action.card
        if action.kind == "play" and card is not None:
            return f"play {self.card(card)}"
        if action.kind == "marriage" and card is not None:
            partner = Card.of(QUEEN if card.rank == KING else KING, card.suit)
            points = ""
            if self.rules is not None:
                trump = card.suit == view.trump_suit
                value = self.rules.trump_marriage_points if trump else self.rules.marriage_points
                points = f" (+{value}{', trump' if trump else ''})"
            return f"marriage: show {self.card(partner)}, lead {self.card(card)}{points}"
        if action.kind == "exchange":
            mine = [c for c in view.hand if c.suit == view.trump_suit and self.rules is not None
                    and RANKS[c.rank] == self.rules.exchange_rank]
            take = f" {self.card(view.trump_card)}" if view.trump_card is not None else " the turned card"
            give = f" for your {self.card(mine[0])}" if mine else ""
            return f"exchange: take{take}{give}"
        if action.kind == "close":
            return "close the talon"
        if action.kind == "declare":
            return f"declare 66 (you have {view.points[0]}; a wrong declaration loses the deal)"
        return str(action)

    def choose(self, view: SeatView, legal: list[Action]) -> Action:
        self.show_turn(view, legal)
        wrong = 0
        while True:
            self.say(f"your move (1-{len(legal)}, q leaves): ", end="")
            try:
                entry = self.person.readline()
            except _Referee:  # `arena play` says what ended the seat
                raise SystemExit(0) from None
            if entry is None:
                self.say()
                self.leave("end of input")
            if self.scripted:
                self.say(entry)  # a script's entry is not echoed by a terminal: show what was chosen
            text = entry.strip()
            if text.lower() in ("q", "quit"):
                self.leave("you typed q")
            if text.isascii() and text.isdigit() and 1 <= int(text) <= len(legal):
                return legal[int(text) - 1]
            wrong += 1
            self.refused += 1
            shown = text if len(text) <= 20 else text[:20] + "..."
            self.say(f"{shown!r} is not one of the choices: type a number from 1 to {len(legal)}")
            if self.scripted and wrong >= MAX_WRONG_SCRIPTED:
                self.leave(f"{wrong} wrong entries in a row")

    def leave(self, why: str) -> NoReturn:
        """End the seat as a person who walks away: a ``disconnect`` (see the module's doc)."""
        if not self.gone:
            self.say(f"{why}: you leave the match.")
        raise Leave(why)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m arena.human",
                                 description="The human seat of `arena play` (started by it; see docs/PLAY.md).")
    ap.add_argument("--in", dest="in_fd", type=int, required=True, help="descriptor the person's entries come from")
    ap.add_argument("--out", dest="out_fd", type=int, required=True, help="descriptor of the person's screen")
    ap.add_argument("--scripted", action="store_true", help="entries come from a script: echo each one")
    ap.add_argument("--ascii", action="store_true", help="suits as letters c d h s, not symbols")
    args = ap.parse_args(argv)
    out = open(args.out_fd, "w", encoding="utf-8", errors="replace", closefd=True)
    seat = HumanSeat(PersonInput(args.in_fd, sys.stdin.fileno()), out, args.scripted, args.ascii)
    try:
        run(seat.choose, name=NAME, author="arena", on_match_start=seat.on_match_start,
            on_deal_start=seat.on_deal_start, on_event=seat.on_event, on_deal_end=seat.on_deal_end,
            on_match_end=seat.on_match_end)
    except Leave:
        # Close the protocol's stdout and stay: the referee sees a disconnect, sends `error`, then stops us.
        os.close(sys.stdout.fileno())
        for _ in sys.stdin:
            pass
        os._exit(0)  # sys.stdout's descriptor is closed: leave without the interpreter's final flush
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
