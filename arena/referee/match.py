"""Play one match between two bot processes (the match loop). Every way a match can end has a name: it
reaches the target, or a Termination decides it.

The referee owns the game (arena.game) and the clock. A bot only ever receives its seat's view: events
are filtered per seat (the opponent's draws are hidden) and the turn line is built from ``Deal.view``.
Starting a bot, the handshake and reading its lines are the session's (arena.referee.session).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import UTC, datetime

import trio

from arena.game.actions import Action
from arena.game.hand import Deal, DealEndReason, DealResult
from arena.game.match import Match
from arena.game.variants import RuleSet
from arena.protocol import messages as m
from arena.protocol.codec import EVENT_LINES, encode, event_lines, rules_to_wire, turn_line
from arena.referee.clock import Clock
from arena.referee.policy import FORFEIT_GAME_POINTS, MAX_VIOLATIONS, ViolationPolicy
from arena.referee.process import BotProcess
from arena.referee.record import BotTermination, DealRecord, MatchRecord
from arena.referee.session import (
    BotHandle,
    Commentary,
    Player,
    Violation,
    check_program,
    decode_line,
    line_now,
    next_line,
    not_sent,
    reject_unasked,
)

# Re-exported: callers of the match loop pass players and handles, and catch violations, through here.
__all__ = [
    "MAX_VIOLATIONS", "BotHandle", "Forfeit", "MatchRunner", "Player", "Violation", "ViolationPolicy", "play_match",
]


class Forfeit:
    """Ends a running match from outside the referee's task by one seat's termination, whichever seat is to
    move. The referee reads a seat only on its turn, so a seat that is gone while the other one thinks would
    otherwise forfeit only when the other one moves: arena serve decides a person's forfeit at the leave
    timeout, and both pages must say so then. ``now`` may be called before the match, during it (the wait
    for the other seat's move is cancelled, the move not played) or after it (nothing happens)."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.violation: Violation | None = None
        self._scope: trio.CancelScope | None = None

    def now(self, seat: int, violation: Violation) -> None:
        if self.seat is not None:
            return
        self.seat, self.violation = seat, violation
        if self._scope is not None:
            self._scope.cancel()


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
            # what the bot wrote before its last reply is in the pipe now; its reader task may not have had a
            # turn in a match that never waited (a kept process's lines would reach its next match's record)
            bot.drain_stderr()
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
        policy: ViolationPolicy = ViolationPolicy.LOSE_MATCH,
        keep: bool = False,
        on_change: Callable[[Match], None] | None = None,
        forfeit: Forfeit | None = None,
    ) -> None:
        self.rules = rules
        self.forfeit = forfeit
        # Called, in the referee's task, after each change of the game (a deal starts, an action is applied, a
        # deal or the match ends): what watches a match live (arena serve's table) asks the engine at once,
        # instead of waiting for a seat's next turn line. It must not block or raise.
        self.on_change = on_change
        self.keep = keep  # the caller keeps the processes for more matches: no `quit` after this one
        self.policy = ViolationPolicy(policy)  # the text form too, as it arrives from a worker's JSON
        self.seats = (_Seat(0, handles[0]), _Seat(1, handles[1]))
        self.match = Match(rules, deal_seed)
        self.match_seed = match_seed
        self._rng: random.Random | None = None
        self.record = MatchRecord(
            match_id=match_id,
            bots=(handles[0].name, handles[1].name),
            rules=rules,
            deal_seed=deal_seed,
            match_seed=match_seed,
        )
        self.now = trio.lowlevel.current_clock().current_time  # trio.current_time, minus two calls
        self.t0 = self.now()
        self.wire_rules = _wire_rules(rules)
        self.max_lag = 0.0

    @property
    def rng(self) -> random.Random:
        """The random moves of the ``random-move`` policy (seeded by the match seed; made when first needed:
        seeding from a string hashes it, and most matches never substitute a move)."""
        if self._rng is None:
            self._rng = random.Random(f"arena/{self.match_seed}/substitutions")
        return self._rng

    # ----------------------------------------------------------------- the match
    async def play(self) -> MatchRecord:
        rec = self.record
        rec.started_at = datetime.now(UTC).isoformat(timespec="seconds")
        wall = time.monotonic()
        played_s: float | None = None
        try:
            await self._play()
            played_s = time.monotonic() - wall
            if not self.keep:
                await self._quit_bots()
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
            rec.duration_s = round(time.monotonic() - wall if played_s is None else played_s, 3)
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
            line = encode(m.DealStart(index, deal.dealer))
            for seat in self.seats:
                seat.outbox.append(line)
            self._changed()
            seen = 0
            while deal.result is None and match.winner is None:
                seat = self.seats[deal.to_move]
                action: Action | None
                try:
                    action = await self._decide_unless_forfeit(seat, deal, index)
                except Violation as v:
                    action = await self._violation(seat, v, deal, index)
                if self.forfeit is not None and self.forfeit.seat is not None and not match.over:
                    await self._forfeited(self.forfeit, index)
                    break
                if action is None:
                    break
                deal.apply_legal(action)  # a reply is checked against the legal list (_decide)
                seen = self._distribute(deal, seen)
                self._changed()
            if match.over:  # forfeited during the deal
                self._record_deal(deal, forfeit=True)
                break
            assert deal.result is not None
            match.finish_deal()
            self._changed()
            self._record_deal(deal, forfeit=deal.result.reason is DealEndReason.FORFEIT)
            await self._send_deal_end(deal.result)
        self._changed()
        await self._send_match_end()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.match)

    async def _quit_bots(self) -> None:
        """End both sessions (``quit``, the grace, stop) before the record is final, so that what a bot
        writes to stderr while it quits, after ``match-end``, is this match's too."""
        async with trio.open_nursery() as nursery:
            for seat in self.seats:
                nursery.start_soon(self._quit_bot, seat)

    async def _quit_bot(self, seat: _Seat) -> None:
        bot = seat.handle.bot
        await seat.handle.quit()
        seat.harvest(bot)

    async def _ensure_started(self, seat: _Seat, deal: int | None) -> bool:
        """Start (or restart) the seat's bot and send it the match line. False if the match was forfeited."""
        try:
            check_program(seat.handle.player.spec)
            bot = await seat.handle.start()
        except Violation as v:
            await self._concede(seat, v, deal)
            return False
        bot.transcript.start = self.t0
        seat.outbox.append(
            encode(m.MatchStart(self.record.match_id, seat.index, self.seats[1 - seat.index].handle.name,
                                self.wire_rules))
        )
        return True

    async def _decide_unless_forfeit(self, seat: _Seat, deal: Deal, index: int) -> Action | None:
        """`_decide`, given up (None) when a Forfeit comes first, before or while the seat thinks."""
        forfeit = self.forfeit
        if forfeit is None:
            return await self._decide(seat, deal, index)
        if forfeit.seat is not None:
            return None
        try:
            with trio.CancelScope() as forfeit._scope:
                return await self._decide(seat, deal, index)
            return None  # (reached only when cancelled)
        finally:
            forfeit._scope = None

    async def _forfeited(self, forfeit: Forfeit, index: int) -> None:
        """The Forfeit's seat loses the match, its termination recorded as for any violation."""
        assert forfeit.seat is not None and forfeit.violation is not None
        await self._concede(self.seats[forfeit.seat], forfeit.violation, index)

    async def _concede(self, seat: _Seat, v: Violation, deal: int | None) -> None:
        """``seat`` loses the match by ``v`` (in ``deal``, None before the first): its termination recorded,
        its bot discarded and harvested."""
        self._terminate(seat, v, deal)
        bot = seat.handle.bot
        await seat.handle.discard(v)
        seat.harvest(bot)
        self.match.concede(seat.index)
        self.record.reason = v.kind

    async def _decide(self, seat: _Seat, deal: Deal, index: int) -> Action:
        """Send the seat its lines and the ``turn`` line, and take its reply: a legal action, or a Violation.

        This runs once per decision, and most of the referee's own CPU is spent here: the reply is usually
        on the pipe already when it is looked for (then nothing is awaited at all), and every step below
        is the cheap form of what it does."""
        bot = seat.handle.bot
        assert bot is not None
        session = seat.handle.session
        legal = deal.legal_actions()
        reject_unasked(bot, session)
        clock = seat.clock
        # encode(Turn(deal.view(...))) without the view (codec.turn_line); in the form the bot chose in its
        # handshake
        seat.outbox.append(turn_line(deal, seat.index, self.match.score_for(seat.index), legal,
                                     clock.tc.move_ms, clock.bank_left_ms(), session.version))
        lines, seat.outbox = seat.outbox, []
        session.asked_turn(legal)
        rest = bot.send_now(lines)
        sent = bot.sent_at  # when the lines were written (the transcript's time of them too)
        if rest:  # the pipe was full: the clock starts once the bot has taken the rest
            if not await bot.send_rest(rest):
                await not_sent(bot)
            sent = self.now()
        elif rest is None:
            await not_sent(bot)
        deadline = sent + clock.allowed_s()
        commentary: Commentary | None = None
        while True:
            item = line_now(bot, session) or await next_line(bot, session, deadline)
            now = self.now()
            if now > deadline:
                self.max_lag = max(self.max_lag, now - max(deadline, item.at))
            msg = decode_line(bot, session, item)
            if msg.__class__ is m.Reply:
                # From the turn line to the reply as the transcript times them (each rounded to the
                # microsecond), so the store can take the think times from the transcript; charged as
                # recorded (a reply that is then found illegal too), so that the stored think times give
                # back every bank= the bot was sent.
                start = bot.transcript.start
                think = round(round((item.at - start) * 1000, 3) - round((sent - start) * 1000, 3), 3)
                seat.think_ms.append(think)
                clock.charge(think)
            said = session.receive(msg, item.raw)  # the legal action, commentary, or a Violation
            if said.__class__ is m.Info:
                commentary = commentary or Commentary(bot, session, deadline)
                await commentary.took(now)
                continue
            return said  # type: ignore[return-value]  # (neither Info, above, nor a hello: a turn's answer)

    async def _violation(self, seat: _Seat, v: Violation, deal: Deal, index: int) -> Action | None:
        """Apply the violation policy. Returns an action to play instead, or None when the deal is over."""
        self._terminate(seat, v, index)
        seat.violations += 1
        bot = seat.handle.bot
        await seat.handle.discard(v)
        seat.harvest(bot)
        policy = self.policy if seat.violations < MAX_VIOLATIONS else ViolationPolicy.LOSE_MATCH
        seat.outbox.clear()  # a new process starts from the match line
        if policy is ViolationPolicy.LOSE_MATCH or not await self._ensure_started(seat, index):
            self.match.concede(seat.index)
            self.record.reason = v.kind
            return None
        if policy is ViolationPolicy.RANDOM_MOVE:
            # the new process has missed this deal's events; the next turn line carries the whole view
            seat.outbox.append(encode(m.DealStart(index, deal.dealer)))
            seat.substitutions += 1
            return self.rng.choice(deal.legal_actions())
        winner = 1 - seat.index
        deal.result = DealResult(
            winner, FORFEIT_GAME_POINTS, DealEndReason.FORFEIT, (deal.total(0), deal.total(1)),
            (deal.tricks[0], deal.tricks[1]),
        )
        return None

    def _terminate(self, seat: _Seat, v: Violation, deal: int | None) -> None:
        self.record.terminations.append(
            BotTermination(
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
        face_up = deal.trump_card
        out0 = self.seats[0].outbox
        out1 = self.seats[1].outbox
        lines = EVENT_LINES
        for ev in events[seen:]:
            pair = lines.get((ev, face_up))
            if pair is None:
                pair = event_lines(ev, face_up)
            if pair[0] is not None:
                out0.append(pair[0])
            if pair[1] is not None:
                out1.append(pair[1])
        return len(events)

    def _record_deal(self, deal: Deal, forfeit: bool) -> None:
        self.record.deals.append(DealRecord.of_deal(deal, forfeit))

    async def _send_deal_end(self, result: DealResult) -> None:
        line = encode(m.DealEnd(result.winner, result.game_points, result.reason, result.points,
                                (self.match.score[0], self.match.score[1])))
        await self._flush_both(line)

    async def _send_match_end(self) -> None:
        match = self.match
        line = encode(m.MatchEnd(match.winner, (match.score[0], match.score[1]), self.record.reason))
        await self._flush_both(line)

    async def _flush_both(self, line: str) -> None:
        """Add ``line`` to both outboxes and send them. Both pipes almost always take their lines at once;
        only what one does not take is sent in a nursery, so one bot that stopped reading does not hold up
        the other."""
        rests: list[tuple[BotProcess, bytes]] = []
        for seat in self.seats:
            seat.outbox.append(line)
            lines, seat.outbox = seat.outbox, []
            bot = seat.handle.bot
            if bot is not None and bot.alive:
                rest = bot.send_now(lines)
                if rest:
                    rests.append((bot, rest))
        if rests:
            async with trio.open_nursery() as nursery:
                for bot, rest in rests:
                    nursery.start_soon(bot.send_rest, rest)


_WIRE_RULES: dict[RuleSet, dict[str, str]] = {}


def _wire_rules(rules: RuleSet) -> dict[str, str]:
    """``rules_to_wire(rules)`` from a cache (the match line only reads it): it is made once per match."""
    wire = _WIRE_RULES.get(rules)
    if wire is None:
        if len(_WIRE_RULES) > 100:
            _WIRE_RULES.clear()
        wire = _WIRE_RULES[rules] = rules_to_wire(rules)
    return wire


async def play_match(
    match_id: str,
    players: tuple[Player, Player],
    rules: RuleSet,
    deal_seed: int,
    match_seed: int = 0,
    policy: ViolationPolicy = ViolationPolicy.LOSE_MATCH,
    handles: tuple[BotHandle, BotHandle] | None = None,
    keep: bool | None = None,
    on_change: Callable[[Match], None] | None = None,
    forfeit: Forfeit | None = None,
) -> MatchRecord:
    """Play one match. With ``handles`` the caller's (possibly reused) bot processes are used; without,
    processes are started for this match. ``keep`` (default: whether ``handles`` were given) leaves the
    processes running for more matches; otherwise each is sent ``quit`` and stopped before the record is
    final, so the record holds what it writes to stderr on its way out. ``on_change`` is called with the
    match after every change of its state (see MatchRunner); ``forfeit`` lets the caller end it by one seat's
    termination at any moment (see Forfeit)."""
    keep = handles is not None if keep is None else keep
    if handles is not None:
        return await MatchRunner(match_id, handles, rules, deal_seed, match_seed, policy, keep, on_change,
                                 forfeit).play()
    async with trio.open_nursery() as nursery:
        own = (BotHandle(players[0], nursery), BotHandle(players[1], nursery))
        try:
            return await MatchRunner(match_id, own, rules, deal_seed, match_seed, policy, keep, on_change,
                                     forfeit).play()
        finally:
            with trio.CancelScope(shield=True):
                async with trio.open_nursery() as quitters:
                    for h in own:
                        quitters.start_soon(h.quit)
