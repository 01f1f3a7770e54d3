"""A small synchronous referee for tests: plays seeded matches between two bot commands over pipes.

It speaks protocol v1 exactly as docs/PROTOCOL.md says (handshake, match, deal, events with the
opponent's draws hidden, turn, deal-end, match-end, quit) and raises BotError on anything a bot does
wrong: a bad line, an illegal action, a timeout (every read has a deadline, via select), a crash, a
reply nobody asked for, or a slow or failed exit after ``quit``. The real (trio) referee is elsewhere.

    results = run_session(["python bots/random.py", "sh bots/sh/random.sh"], [("santase", 1)])
"""

from __future__ import annotations

import os
import select
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import NoReturn

from conftest import ROOT

from arena.game import Deal, Match, RuleSet, preset
from arena.protocol.codec import BotProtocolError, LineSplitter, decode_bot_bytes, encode, event_message, rules_to_wire
from arena.protocol.messages import (
    VERSIONS,
    BotHello,
    DealEnd,
    DealStart,
    Error,
    Hello,
    Info,
    MatchEnd,
    MatchStart,
    Quit,
    Reply,
    Turn,
)

TIME_MS = 10_000  # the time= sent with each turn; the harness waits `timeout` seconds regardless


class BotError(AssertionError):
    """A bot broke the protocol. ``code`` is the protocol's termination name (timeout, illegal, ...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code


@dataclass
class MatchResult:
    rules: str
    seed: int | str
    winner: int | None
    score: tuple[int, int]
    deals: int
    names: tuple[str, str]


class BotProcess:
    """One bot process: write lines, read decoded messages with a deadline, keep a transcript."""

    def __init__(self, command: str | list[str], timeout: float = 10.0) -> None:
        self.command = command if isinstance(command, str) else shlex.join(command)
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.timeout = timeout
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, cwd=ROOT, bufsize=0)
        self.splitter = LineSplitter()
        self.lines: list[bytes] = []
        self.transcript: list[str] = []  # "> " referee to bot, "< " bot to referee
        self.infos: list[str] = []
        self.name = "?"

    # ------------------------------------------------------------ writing
    def send(self, lines: list[str]) -> None:
        """Write lines in one write, as the referee writes events together with the next request."""
        self.transcript += ["> " + line for line in lines]
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write("".join(line + "\n" for line in lines).encode())
        except (BrokenPipeError, ConnectionResetError):
            self.fail("crash", "stdin closed: the bot exited")

    # ------------------------------------------------------------ reading
    def _line(self, deadline: float) -> bytes | None:
        """The next raw line, or None at end of output; BotError on timeout or an over-long line."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while not self.lines:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.fail("timeout", f"no line within {self.timeout} s")
            data = os.read(fd, 65536)
            if not data:
                return None
            try:
                self.lines += self.splitter.feed(data)
            except BotProtocolError as e:
                self.fail(e.code, str(e))
        return self.lines.pop(0)

    def read(self) -> BotHello | Reply:
        """The next message that is not ``info`` (those are kept in ``infos``)."""
        deadline = time.monotonic() + self.timeout
        while True:
            raw = self._line(deadline)
            if raw is None:
                self.proc.poll()
                self.fail("crash", f"stdout closed (exit status {self.proc.returncode})")
            try:
                msg = decode_bot_bytes(raw)
            except BotProtocolError as e:
                self.transcript.append("< " + raw.decode(errors="replace"))
                self.fail(e.code, str(e))
            self.transcript.append("< " + raw.decode())
            if isinstance(msg, Info):
                self.infos.append(msg.text)
                continue
            return msg

    # ------------------------------------------------------------ ending
    def quit(self) -> None:
        """Send quit; the bot may still write info lines, then must exit with status 0."""
        self.send([encode(Quit())])
        deadline = time.monotonic() + self.timeout
        while (raw := self._line(deadline)) is not None:
            try:
                msg = decode_bot_bytes(raw)
            except BotProtocolError as e:
                self.fail(e.code, str(e))
            if not isinstance(msg, Info):
                self.fail("unexpected", f"{raw!r} after the last request")
            self.infos.append(msg.text)
        try:
            code = self.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.fail("timeout", "still running after quit")
        if code != 0:
            self.fail("crash", f"exit status {code} after quit")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f:
                f.close()
        self.stderr.close()

    def fail(self, code: str, text: str) -> NoReturn:
        if self.proc.poll() is None:  # tell the bot, as the referee would
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(f"{encode(Error(code, text))}\n".encode())
            except OSError:
                pass
        self.stderr.seek(0)
        err = self.stderr.read()[-2000:].decode(errors="replace")
        tail = "\n".join(self.transcript[-12:])
        raise BotError(code, f"bot {self.command!r} ({self.name}): {text}\n--- transcript tail:\n{tail}"
                             f"\n--- stderr tail:\n{err}")


# ---------------------------------------------------------------- the game, in protocol messages
def _play_deal(bots: list[BotProcess], match: Match, deal: Deal) -> list[list[str]]:
    """Play one deal to its end; returns the event lines still owed to each seat."""
    pending: list[list[str]] = [[], []]
    draws = 0
    last_draw = deal.rules.deck_size - 2 * deal.rules.hand_size - 1  # the face-up card is drawn last
    while True:
        for ev in deal.events:
            for viewer in (0, 1):
                face_up = ev.card if ev.kind == "draw" and draws == last_draw else None
                event = event_message(ev, viewer, face_up)
                if event is not None:
                    pending[viewer].append(encode(event))
            draws += ev.kind == "draw"
        deal.events.clear()
        if deal.over:
            return pending
        seat = deal.to_move
        legal = tuple(deal.legal_actions())
        turn = Turn(deal.view(seat, match.score_for(seat)), legal, TIME_MS, None)
        bots[seat].send(pending[seat] + [encode(turn)])
        pending[seat] = []
        reply = bots[seat].read()
        if not isinstance(reply, Reply):
            bots[seat].fail("malformed", f"expected a reply to turn, got {reply}")
        if reply.action not in legal:
            bots[seat].fail("illegal", f"{reply.action} is not in the legal list")
        deal.apply(reply.action, seat)


def play_match(bots: list[BotProcess], rules: RuleSet, seed: int | str, match_id: str) -> MatchResult:
    """One match between two bots that have done the handshake; bots[i] sits in seat i."""
    match = Match(rules, seed)
    wire = rules_to_wire(rules)
    for seat in (0, 1):
        bots[seat].send([encode(MatchStart(match_id, seat, bots[1 - seat].name, wire))])
    while not match.over:
        deal = match.new_deal()
        for bot in bots:
            bot.send([encode(DealStart(len(match.deals) - 1, deal.dealer))])
        pending = _play_deal(bots, match, deal)
        match.finish_deal()
        r = deal.result
        assert r is not None
        end = DealEnd(r.winner, r.game_points, r.reason.replace(" ", "-"), r.points,
                      (match.score[0], match.score[1]))
        for seat in (0, 1):
            bots[seat].send(pending[seat] + [encode(end)])
    score = (match.score[0], match.score[1])
    for bot in bots:
        bot.send([encode(MatchEnd(match.winner, score, "target"))])
    return MatchResult(rules.name, seed, match.winner, score, len(match.deals), (bots[0].name, bots[1].name))


def handshake(bot: BotProcess) -> None:
    bot.send([encode(Hello(VERSIONS))])
    try:
        msg = bot.read()
    except BotError as e:  # no line in time or a malformed one: all handshake failures
        if e.code == "crash":
            raise
        raise BotError("handshake", str(e)) from None
    if not isinstance(msg, BotHello):
        bot.fail("handshake", f"expected 'bot <version> <name>', got {msg}")
    if msg.version not in VERSIONS:
        bot.fail("handshake", f"version {msg.version} was not offered")
    bot.name = msg.name


def run_session(commands: list[str], games: list[tuple[str | RuleSet, int | str]],
                timeout: float = 10.0, bots: list[BotProcess] | None = None) -> list[MatchResult]:
    """Start both bots, play the games ((preset or RuleSet, seed), ...) in a row in the same processes,
    send quit, check both exit cleanly. commands[i] plays seat i. Pass a list as ``bots`` to get the
    BotProcess objects (their ``infos`` and ``transcript``) afterwards."""
    bots = [] if bots is None else bots
    try:
        for command in commands:
            bots.append(BotProcess(command, timeout))
        for bot in bots:
            handshake(bot)
        results = []
        for i, (rules, seed) in enumerate(games):
            rules = preset(rules) if isinstance(rules, str) else rules
            results.append(play_match(bots, rules, seed, f"m{i + 1}"))
        for bot in bots:
            bot.quit()
        return results
    finally:
        for bot in bots:
            bot.kill()


def run_match(command0: str, command1: str, rules: str | RuleSet = "santase", seed: int | str = 0,
              timeout: float = 10.0) -> MatchResult:
    return run_session([command0, command1], [(rules, seed)], timeout)[0]

