"""Play one match between two bot processes. Every way a match can end has a named Termination.

The referee owns the game (arena.game) and the clock. A bot only ever receives its seat's view: events
are filtered per seat (the opponent's draws are hidden) and the turn line is built from ``Deal.view``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import trio

from arena.botspec import fingerprint
from arena.game.actions import Action
from arena.game.hand import Deal, DealResult
from arena.game.match import Match
from arena.game.variants import RuleSet
from arena.protocol import messages as m
from arena.protocol.codec import BotProtocolError, decode_bot_bytes, encode, event_message, rules_to_wire
from arena.referee.clock import Clock, TimeControl
from arena.referee.process import BotProcess, BotSpec, Broken, Eof, Line, start_bot
from arena.referee.record import MatchRecord, Termination

Policy = Literal["lose-match", "lose-deal", "random-move"]
POLICIES: tuple[str, ...] = ("lose-match", "lose-deal", "random-move")
MAX_VIOLATIONS = 5  # per bot per match, after which even lenient policies forfeit the match
FORFEIT_GAME_POINTS = 3


class Violation(Exception):
    """The bot broke the protocol or the rules; ``kind`` is the termination's name."""

    def __init__(self, kind: str, detail: str, line: str | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.line = line


@dataclass(frozen=True)
class Player:
    spec: BotSpec
    time: TimeControl


class BotHandle:
    """A seat's bot across its processes: starts one on demand, handshakes, replaces it after a violation.

    A handle may outlive a match (bot reuse): the runner keeps it open and passes it to the next match.
    """

    def __init__(self, player: Player, nursery: trio.Nursery, kill_grace: float = 1.0) -> None:
        self.player = player
        self.nursery = nursery  # where the bot's pipe readers run; it must outlive the handle's use
        self.kill_grace = kill_grace
        self.bot: BotProcess | None = None
        self.hello: m.BotHello | None = None
        self.pids: list[int] = []  # every process started for this handle (each leads its own group)

    @property
    def name(self) -> str:
        return self.player.spec.name

    async def start(self) -> BotProcess:
        """A handshaken process (the current one if it is still usable). Raises Violation."""
        if self.bot is not None:
            return self.bot
        try:
            bot = await start_bot(self.player.spec, self.nursery, self.kill_grace)
        except OSError as e:
            raise Violation("crash", f"cannot start {' '.join(self.player.spec.argv)}: {e}") from None
        self.bot = bot
        self.pids.append(bot.proc.pid)
        self.hello = await _handshake(bot, self.player.time)
        return bot

    async def discard(self, error: Violation | None = None) -> None:
        """Tell the bot why (if it is a violation), then stop its process group."""
        bot, self.bot = self.bot, None
        if bot is None:
            return
        with trio.CancelScope(shield=True):
            if error is not None and bot.alive:
                with trio.move_on_after(1):
                    await bot.send([encode(m.Error(error.kind, error.detail))])
            await bot.stop()

    async def quit(self) -> None:
        """End the session politely: ``quit``, then the grace period, then the group is stopped."""
        bot = self.bot
        if bot is not None and bot.alive:
            with trio.CancelScope(shield=True):
                await bot.send([encode(m.Quit())])
                with trio.move_on_after(self.kill_grace):
                    await bot.exited.wait()
        await self.discard()

    async def aclose(self) -> None:
        await self.quit()


async def _handshake(bot: BotProcess, tc: TimeControl) -> m.BotHello:
    await bot.send([encode(m.Hello())])
    deadline = trio.current_time() + (tc.handshake_ms + tc.grace_ms) / 1000
    while True:
        item = await _next_item(bot, deadline, "handshake")
        msg = _decode(bot, item)
        if isinstance(msg, m.Info):
            continue
        if not isinstance(msg, m.BotHello):
            raise Violation("handshake", f"expected 'bot <version> <name>', got {_show(item)}", _show(item))
        if msg.version not in m.VERSIONS:
            raise Violation(
                "handshake", f"version {msg.version} is not offered (the referee speaks {m.VERSIONS})", _show(item)
            )
        return msg


def _show(item: Line | Eof | Broken) -> str:
    if isinstance(item, Line):
        return item.raw[:200].decode("utf-8", "replace")
    return ""


async def _next_item(bot: BotProcess, deadline: float, waiting_for: str) -> Line:
    """The next line before the deadline, or a Violation naming what went wrong."""
    with trio.move_on_at(deadline) as scope:
        item = await bot.receive()
    if scope.cancelled_caught:
        # Look at the pipe once more before blaming the bot: if we were late to wake, the reply may be
        # sitting there already, and that is our lag, not the bot's slowness.
        late = bot.poll()
        if late is None:
            kind = "handshake" if waiting_for == "handshake" else "timeout"
            raise Violation(kind, f"no answer to the {waiting_for} in time")
        item = late
    if isinstance(item, Eof):
        if item.exited:
            raise Violation("crash", f"the bot {bot.exit_description()} while the referee waited for the {waiting_for}")
        raise Violation("disconnect", "the bot closed its stdout")
    if isinstance(item, Broken):
        raise Violation(item.error.code, str(item.error))
    return item


def _decode(bot: BotProcess, item: Line) -> m.BotMessage:
    text = item.raw.decode("utf-8", "replace")
    bot.transcript.add("<", text, item.at)
    try:
        return decode_bot_bytes(item.raw)
    except BotProtocolError as e:
        raise Violation(e.code, str(e), text[:200]) from None


class _Seat:
    def __init__(self, index: int, handle: BotHandle) -> None:
        self.index = index
        self.handle = handle
        self.clock = Clock(handle.player.time)
        self.outbox: list[str] = []
        self.think_ms: list[float] = []
        self.violations = 0
        self.substitutions = 0
        self.transcript: list[tuple[float, str, str]] = []
        self.stderr: list[str] = []

    def harvest(self, bot: BotProcess | None = None) -> None:
        """Move a process's transcript and stderr (default: the current one's) into the match's copy."""
        bot = bot or self.handle.bot
        if bot is not None:
            self.transcript.extend(bot.transcript.entries)
            bot.transcript.entries = []
            err = bot.take_stderr()
            if err:
                self.stderr.append(err)


class MatchRunner:
    """One object per running match (the habit is cutechess's): state, seats, and the record."""

    def __init__(
        self,
        match_id: str,
        handles: tuple[BotHandle, BotHandle],
        rules: RuleSet,
        deal_seed: int,
        match_seed: int,
        policy: Policy = "lose-match",
    ) -> None:
        self.rules = rules
        self.policy = policy
        self.seats = (_Seat(0, handles[0]), _Seat(1, handles[1]))
        self.match = Match(rules, deal_seed)
        self.rng = random.Random(f"arena/{match_seed}/substitutions")
        self.record = MatchRecord(
            match_id=match_id,
            bots=(handles[0].name, handles[1].name),
            rules=rules.to_dict(),
            deal_seed=deal_seed,
            match_seed=match_seed,
        )
        self.t0 = trio.current_time()
        self.wire_rules = rules_to_wire(rules)
        self.max_lag = 0.0

    # ----------------------------------------------------------------- the match
    async def play(self) -> MatchRecord:
        rec = self.record
        rec.started_at = datetime.now(UTC).isoformat(timespec="seconds")
        wall = time.monotonic()
        try:
            await self._play()
        finally:
            for seat in self.seats:
                seat.harvest()
            rec.score = (self.match.score[0], self.match.score[1])
            rec.winner = self.match.winner
            rec.think_ms = (self.seats[0].think_ms, self.seats[1].think_ms)
            rec.substitutions = (self.seats[0].substitutions, self.seats[1].substitutions)
            rec.transcripts = (self.seats[0].transcript, self.seats[1].transcript)
            rec.stderr = ("".join(self.seats[0].stderr), "".join(self.seats[1].stderr))
            rec.max_lag_ms = round(self.max_lag * 1000, 3)
            rec.duration_s = round(time.monotonic() - wall, 3)
            for seat in self.seats:
                hello = seat.handle.hello
                if hello is not None:
                    rec.bot_info[seat.index].update({"name": hello.name, **hello.extras})
        return rec

    async def _play(self) -> None:
        for seat in self.seats:
            if not await self._ensure_started(seat, deal=None):
                return
        match = self.match
        while not match.over:
            deal = match.new_deal()
            index = len(match.deals) - 1
            for seat in self.seats:
                seat.outbox.append(encode(m.DealStart(index, deal.dealer)))
            seen = 0
            while not deal.over and not match.over:
                seat = self.seats[deal.to_move]
                action: Action | None
                try:
                    action = await self._decide(seat, deal, index)
                except Violation as v:
                    action = await self._violation(seat, v, deal, index)
                if action is None:
                    break
                deal.apply(action)
                seen = self._distribute(deal, seen)
            if match.over:  # forfeited during the deal
                self._record_deal(deal, forfeit=True)
                break
            assert deal.result is not None
            match.finish_deal()
            self._record_deal(deal, forfeit=deal.result.reason == "forfeit")
            await self._send_deal_end(deal.result)
        await self._send_match_end()

    async def _ensure_started(self, seat: _Seat, deal: int | None) -> bool:
        """Start (or restart) the seat's bot and send it the match line. False if the match was forfeited."""
        try:
            _check_program(seat.handle.player.spec)
            bot = await seat.handle.start()
        except Violation as v:
            self._terminate(seat, v, deal)
            failed = seat.handle.bot
            await seat.handle.discard(v)
            seat.harvest(failed)
            self.match.concede(seat.index)
            self.record.reason = v.kind
            return False
        bot.transcript.start = self.t0
        seat.outbox.append(
            encode(m.MatchStart(self.record.match_id, seat.index, self.seats[1 - seat.index].handle.name,
                                self.wire_rules))
        )
        return True

    async def _decide(self, seat: _Seat, deal: Deal, index: int) -> Action:
        bot = seat.handle.bot
        assert bot is not None
        legal = deal.legal_actions()
        for item in bot.pending_now():  # anything but commentary before we asked is out of turn
            if isinstance(item, Line):
                msg = _decode(bot, item)
                if isinstance(msg, m.Info):
                    continue
                raise Violation("unexpected", "a line arrived when no decision was asked for", _show(item))
            raise Violation(*_item_violation(bot, item))
        view = deal.view(seat.index, self.match.score_for(seat.index))
        turn = m.Turn(view, tuple(legal), seat.clock.tc.move_ms, seat.clock.bank_left_ms())
        seat.outbox.append(encode(turn))
        lines, seat.outbox = seat.outbox, []
        if not await bot.send(lines):
            await _wait_briefly(bot)
            if bot.alive:
                raise Violation("disconnect", "the bot closed its stdin")
            raise Violation("crash", f"the bot {bot.exit_description()}")
        sent = trio.current_time()
        deadline = sent + seat.clock.allowed_s()
        while True:
            item = await _next_item(bot, deadline, "turn")
            lag = trio.current_time() - max(deadline, item.at) if trio.current_time() > deadline else 0.0
            self.max_lag = max(self.max_lag, lag)
            msg = _decode(bot, item)
            if isinstance(msg, m.Info):
                continue
            if not isinstance(msg, m.Reply):
                raise Violation("malformed", "expected an action", _show(item))
            think = (item.at - sent) * 1000
            seat.think_ms.append(round(think, 3))
            seat.clock.charge(think)
            if msg.action not in legal:
                raise Violation(
                    "illegal",
                    f"{msg.action} is not legal now; legal: {', '.join(str(a) for a in legal)}",
                    _show(item),
                )
            return msg.action

    async def _violation(self, seat: _Seat, v: Violation, deal: Deal, index: int) -> Action | None:
        """Apply the violation policy. Returns an action to play instead, or None when the deal is over."""
        self._terminate(seat, v, index)
        seat.violations += 1
        bot = seat.handle.bot
        await seat.handle.discard(v)
        seat.harvest(bot)
        policy = self.policy if seat.violations < MAX_VIOLATIONS else "lose-match"
        seat.outbox.clear()  # a new process starts from the match line
        if policy == "lose-match" or not await self._ensure_started(seat, index):
            self.match.concede(seat.index)
            self.record.reason = v.kind
            return None
        if policy == "random-move":
            # the new process has missed this deal's events; the next turn line carries the whole view
            seat.outbox.append(encode(m.DealStart(index, deal.dealer)))
            seat.substitutions += 1
            return self.rng.choice(deal.legal_actions())
        winner = 1 - seat.index
        deal.result = DealResult(
            winner, FORFEIT_GAME_POINTS, "forfeit", (deal.total(0), deal.total(1)), (deal.tricks[0], deal.tricks[1])
        )
        return None

    def _terminate(self, seat: _Seat, v: Violation, deal: int | None) -> None:
        self.record.terminations.append(
            Termination(
                kind=v.kind, seat=seat.index, bot=seat.handle.name, detail=v.detail, line=v.line, deal=deal,
                at_ms=round((trio.current_time() - self.t0) * 1000, 3),
            )
        )
        bot = seat.handle.bot
        if bot is not None:
            bot.transcript.add("!", f"termination {v.kind}: {v.detail}")

    def _distribute(self, deal: Deal, seen: int) -> int:
        """Turn the engine's new public events into event lines for each seat's outbox."""
        events = deal.events
        for ev in events[seen:]:
            for seat in self.seats:
                # the face-up trump card is the only drawn card both seats saw
                msg = event_message(ev, seat.index, ev.card == deal.trump_card)
                if msg is not None:
                    seat.outbox.append(encode(msg))
        return len(events)

    def _record_deal(self, deal: Deal, forfeit: bool) -> None:
        rec = deal.record()
        rec["forfeit"] = forfeit
        if forfeit and deal.result is None:
            rec["reason"] = "forfeit"
        self.record.deals.append(rec)

    async def _send_deal_end(self, result: DealResult) -> None:
        line = encode(m.DealEnd(result.winner, result.game_points, result.reason, result.points,
                                (self.match.score[0], self.match.score[1])))
        async with trio.open_nursery() as nursery:
            for seat in self.seats:
                seat.outbox.append(line)
                nursery.start_soon(self._flush, seat)

    async def _send_match_end(self) -> None:
        match = self.match
        line = encode(m.MatchEnd(match.winner, (match.score[0], match.score[1]), self.record.reason))
        async with trio.open_nursery() as nursery:
            for seat in self.seats:
                seat.outbox.append(line)
                nursery.start_soon(self._flush, seat)

    async def _flush(self, seat: _Seat) -> None:
        lines, seat.outbox = seat.outbox, []
        bot = seat.handle.bot
        if bot is not None and bot.alive:
            await bot.send(lines)


def _check_program(spec: BotSpec) -> None:
    """Raise Violation("tampered") if the bot's program is no longer what it was when the run began.

    Checked before every match and every restart, reused processes included: without a sandbox a bot (or
    its opponent) could rewrite a program between matches.
    """
    if spec.fingerprint is None:
        return
    try:
        now = fingerprint(spec.argv)
    except OSError as e:
        now = f"unreadable ({e.strerror})"
    if now != spec.fingerprint:
        raise Violation("tampered", f"the bot's program changed since the run began (fingerprint "
                                    f"{spec.fingerprint}, now {now}); it is not started again")


def _item_violation(bot: BotProcess, item: Eof | Broken) -> tuple[str, str]:
    if isinstance(item, Broken):
        return item.error.code, str(item.error)
    if item.exited:
        return "crash", f"the bot {bot.exit_description()}"
    return "disconnect", "the bot closed its stdout"


async def _wait_briefly(bot: BotProcess) -> None:
    with trio.move_on_after(0.5):
        await bot.exited.wait()


async def play_match(
    match_id: str,
    players: tuple[Player, Player],
    rules: RuleSet,
    deal_seed: int,
    match_seed: int = 0,
    policy: Policy = "lose-match",
    handles: tuple[BotHandle, BotHandle] | None = None,
) -> MatchRecord:
    """Play one match. With ``handles`` the caller's (possibly reused) bot processes are used and left
    running; without, processes are started for this match and stopped after it."""
    if handles is not None:
        return await MatchRunner(match_id, handles, rules, deal_seed, match_seed, policy).play()
    async with trio.open_nursery() as nursery:
        own = (BotHandle(players[0], nursery), BotHandle(players[1], nursery))
        try:
            return await MatchRunner(match_id, own, rules, deal_seed, match_seed, policy).play()
        finally:
            with trio.CancelScope(shield=True):
                async with trio.open_nursery() as quitters:
                    for h in own:
                        quitters.start_soon(h.quit)
