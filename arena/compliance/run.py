"""Playing `arena check`'s matches through the real referee, and collecting what happened.

One bot process plays every match of the check in a row, as a tournament that reuses processes would run
it: the handshake first (with a probe for unflushed output when no answer comes), then the set-up deals
and the matches against the random bot of every variant, then (where the rules bind the follow rules only
once the talon has run out) steered deals until each follow rule has been put before the bot, and `quit` at
the end. A violation ends the
bot's part in that match (the referee's lose-match policy); the next match starts a new process.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena.compliance import situations as s
from arena.compliance.situations import FORCED, SETUPS, SetUp, find_setup, steered_setups
from arena.game.variants import RuleSet
from arena.protocol import messages as m
from arena.referee.clock import TimeControl
from arena.referee.match import BotHandle, Player, Violation, play_match
from arena.referee.policy import ViolationPolicy
from arena.referee.process import BotProcess, BotSpec, Line
from arena.referee.record import BotTermination, MatchRecord, Termination
from arena.seeds import derive_seed

OPPONENT = str(Path(__file__).with_name("opponent.py"))
OPPONENT_TIME = TimeControl(move_ms=30_000, handshake_ms=30_000)  # ours: never the reason a check fails
QUIT_GRACE_S = 2.0  # docs/PROTOCOL.md: exit within 2 seconds of `quit`
# After this many matches that cost a time limit each (the bot timed out, or a new process gave no handshake),
# the rest are skipped: a bot that never answers would take minutes. Other failures are quick, and all are played.
MAX_SLOW_FAILURES = 2
_SLOW = (Termination.TIMEOUT, Termination.HANDSHAKE)
PROBE_S = 2.0  # how long the flush probe waits for the output a bot writes when its input ends
# Steered deals per follow rule at most: each is played only while the bot has not met the rule yet, and the
# bot's own choices (a declaration of 66, say) can end a deal before the talon runs out.
STEER_TRIES = 30


@dataclass(frozen=True)
class Plan:
    """One match of the check."""

    match_id: str
    rules: RuleSet
    deal_seed: int
    bot_seat: int
    opponent_seed: int
    setup: SetUp | None = None  # None: a whole match against the random bot
    steer: str = ""  # a follow rule: a placeholder for steered deals (setup None), played while it is not met

    @property
    def variant(self) -> str:
        return self.rules.name


@dataclass
class Played:
    plan: Plan
    record: MatchRecord | None = None  # None: skipped
    skipped: str = ""  # why it was not played
    reused: bool = False  # the bot's process had played a whole match before this one

    @property
    def ended(self) -> Termination | None:
        """How the bot's part ended, if it did not play the match to its end."""
        t = self.termination
        return None if t is None else t.kind

    @property
    def termination(self) -> BotTermination | None:
        if self.record is None:
            return None
        return next((t for t in self.record.terminations if t.seat == self.plan.bot_seat), None)


@dataclass
class HelloResult:
    line: str | None = None  # the bot's handshake line when it was valid
    kind: Termination | None = None  # how the handshake failed
    detail: str = ""
    transcript: list[tuple[float, str, str]] = field(default_factory=list)
    stderr: str = ""
    late: list[str] = field(default_factory=list)  # lines that came only once the bot's input had ended


@dataclass
class QuitResult:
    reached: bool = False
    already_exited: str = ""  # the bot had exited before `quit` was sent (its exit description)
    exited: bool = False
    description: str = ""  # exited with status N / killed by signal
    ms: float = 0.0
    transcript: list[tuple[float, str, str]] = field(default_factory=list)
    stderr: str = ""


@dataclass
class Evidence:
    hello: HelloResult
    played: list[Played] = field(default_factory=list)
    quit: QuitResult = field(default_factory=QuitResult)


def make_plans(variants: list[RuleSet], seed: int, matches: int) -> list[Plan]:
    """Per variant: the set-up deals (one-deal matches), then ``matches`` matches against the random bot, the
    bot's seat alternating and each pair on the same deals, then a placeholder for the steered deals of each
    follow rule the rules produce, but at no first decision (see _play_steered)."""
    plans: list[Plan] = []
    for rules in variants:
        one_deal = rules.with_overrides({"match_target": 1})
        steer = []
        for kind in SETUPS:
            setup = find_setup(one_deal, kind, seed)
            if setup is None:
                if kind in FORCED and s.never_arises(rules, kind) is None:
                    steer.append(kind)
                continue
            plans.append(Plan(f"check-{rules.name}-{kind}", one_deal, setup.deal_seed, setup.bot_seat,
                              derive_seed("arena-check", seed, rules.name, kind, "opponent"), setup))
        for i in range(matches):
            deal_seed = derive_seed("arena-check", seed, rules.name, "match", i // 2)
            plans.append(Plan(f"check-{rules.name}-match{i + 1}", rules, deal_seed, i % 2,
                              derive_seed("arena-check", seed, rules.name, "match", i, "opponent")))
        plans += [Plan(f"check-{rules.name}-{kind}", one_deal, seed, 0, 0, steer=kind) for kind in steer]
    return plans


def run_session(spec: BotSpec, time: TimeControl, plans: list[Plan]) -> Evidence:
    return trio.run(_session, spec, time, plans)


async def _session(spec: BotSpec, time: TimeControl, plans: list[Plan]) -> Evidence:
    async with trio.open_nursery() as nursery:
        handle = BotHandle(Player(spec, time), nursery, kill_grace=QUIT_GRACE_S)
        try:
            hello = await _handshake(handle)
            evidence = Evidence(hello)
            if hello.kind is None:
                await _play_all(handle, spec, plans, evidence, nursery)
                evidence.quit = await _quit(handle)
            return evidence
        finally:
            await handle.discard()


async def _handshake(handle: BotHandle) -> HelloResult:
    result = HelloResult()
    try:
        await handle.start()
    except Violation as v:
        result.kind, result.detail = v.kind, v.detail
        bot = handle.bot
        if bot is not None:
            if v.kind is Termination.HANDSHAKE and v.line is None and bot.alive:
                result.late = await _late_lines(bot)
            await handle.discard()
            bot.transcript.add("!", f"termination {v.kind}: {v.detail}")
            result.transcript = bot.transcript.entries
            result.stderr = bot.stderr_text()
        return result
    bot = handle.bot
    hello = handle.hello
    assert bot is not None and hello is not None
    from arena.protocol.codec import encode

    result.line = encode(hello)
    return result


async def _late_lines(bot: BotProcess) -> list[str]:
    """The flush probe: end the bot's input and collect what it writes as it exits. A bot that buffers its
    output writes its answer now, which shows that the answer was there but never flushed."""
    stdin = bot.proc.stdin
    assert stdin is not None
    await stdin.aclose()
    lines: list[str] = []
    with trio.move_on_after(PROBE_S):
        while len(lines) < 5:
            item = await bot.receive()
            if not isinstance(item, Line):
                break
            lines.append(item.raw[:200].decode("utf-8", "replace"))
    return lines


@dataclass
class _Session:
    handle: BotHandle
    spec: BotSpec
    evidence: Evidence
    nursery: trio.Nursery
    matches_by_pid: dict[int, int] = field(default_factory=dict)
    failed: int = 0  # matches that ran into a time limit


async def _play_all(handle: BotHandle, spec: BotSpec, plans: list[Plan], evidence: Evidence,
                    nursery: trio.Nursery) -> None:
    session = _Session(handle, spec, evidence, nursery)
    for plan in plans:
        if plan.steer:
            await _play_steered(session, plan)
        else:
            await _play(session, plan)


async def _play(session: _Session, plan: Plan) -> Played:
    handle, evidence = session.handle, session.evidence
    if session.failed >= MAX_SLOW_FAILURES:
        played = Played(plan, skipped=f"skipped after {session.failed} matches that ran into a time limit")
        evidence.played.append(played)
        return played
    pid = handle.bot.proc.pid if handle.bot is not None else None
    played = Played(plan, reused=pid is not None and session.matches_by_pid.get(pid, 0) > 0)
    opponent = BotHandle(Player(_opponent_spec(session.spec, plan), OPPONENT_TIME), session.nursery)
    handles = (handle, opponent) if plan.bot_seat == 0 else (opponent, handle)
    try:
        played.record = await play_match(plan.match_id, (handles[0].player, handles[1].player), plan.rules,
                                          plan.deal_seed, plan.opponent_seed, ViolationPolicy.LOSE_MATCH,
                                          handles=handles)
    finally:
        await opponent.quit()
    ours = [t for t in played.record.terminations if t.seat != plan.bot_seat]
    if ours:  # arena's own random bot failed: a bug (or a machine too loaded for 30 s a move)
        raise RuntimeError(f"arena check's opponent failed in {plan.match_id}: {ours[0].kind}: {ours[0].detail}")
    evidence.played.append(played)
    if played.ended in _SLOW:
        session.failed += 1
    if handle.bot is not None:
        now = handle.bot.proc.pid
        session.matches_by_pid[now] = session.matches_by_pid.get(now, 0) + 1
    return played


async def _play_steered(session: _Session, placeholder: Plan) -> None:
    """Steered deals for the follow rule ``placeholder.steer``, one at a time until the bot has met it (here
    or in any match of the variant before), STEER_TRIES have been played, or the bot's part in one ended
    early (that failure is reported; more deals would not change the verdict)."""
    kind, rules = placeholder.steer, placeholder.rules
    setups = steered_setups(rules, kind, placeholder.deal_seed)
    for attempt in range(STEER_TRIES):
        if met(session.evidence.played, rules.name, kind):
            return
        setup = next(setups, None)
        if setup is None:
            return
        name = placeholder.match_id + ("" if attempt == 0 else f"-{attempt + 1}")
        plan = Plan(name, rules, setup.deal_seed, setup.bot_seat,
                    derive_seed("arena-check", placeholder.deal_seed, rules.name, kind, attempt, "opponent"), setup)
        played = await _play(session, plan)
        if played.record is None or played.ended is not None:
            return


def met(played: list[Played], variant: str, kind: str) -> bool:
    """The bot was put before the situation ``kind`` in a match of ``variant`` (answered or not)."""
    for p in played:
        if p.record is None or p.plan.variant != variant:
            continue
        t = p.termination
        for d in s.decisions(p.plan.rules, p.record.deals, p.plan.bot_seat, None if t is None else t.deal):
            if kind in d.situations:
                return True
    return False


def _opponent_spec(bot: BotSpec, plan: Plan) -> BotSpec:
    script = ",".join(plan.setup.script) if plan.setup is not None else ""
    steer: tuple[str, ...] = ()
    if plan.setup is not None and plan.setup.steered:
        steer = ("--steer", plan.setup.kind, "--talon", plan.setup.talon(plan.rules))
    name = "random" if bot.name != "random" else "random-opponent"
    return BotSpec(name, (sys.executable, OPPONENT, "--seed", str(plan.opponent_seed), "--script", script, *steer),
                   sandbox=bot.sandbox)


async def _quit(handle: BotHandle) -> QuitResult:
    """Send `quit` to the bot's process (a fresh one if its last match ended it) and time its exit."""
    result = QuitResult()
    if handle.bot is None:
        try:
            await handle.start()
        except Violation:
            return result
    bot = handle.bot
    assert bot is not None
    result.reached = True
    bot.transcript.entries = []
    if not bot.alive or await bot.wait_exit(0):
        result.already_exited = bot.exit_description()
    else:
        from arena.protocol.codec import encode

        start = trio.current_time()
        await bot.send([encode(m.Quit())])
        result.exited = await bot.wait_exit(QUIT_GRACE_S)
        result.ms = (trio.current_time() - start) * 1000
        if result.exited:
            result.description = bot.exit_description()
        else:
            bot.transcript.add("!", f"still running {QUIT_GRACE_S:g} s after quit: killed")
            result.description = f"still running {QUIT_GRACE_S:g} s after quit (killed)"
    await handle.discard()
    result.transcript = bot.transcript.entries
    result.stderr = bot.stderr_text()
    return result
