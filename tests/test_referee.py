"""The referee against misbehaving bots: real executables, real pipes, real short time limits.

Every bad bot must end in its named termination, within a bounded time, with nothing left in the process
table, and the referee must go on to play a clean match afterwards.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import trio
from conftest import BOTS

from arena.game import preset
from arena.referee.clock import TimeControl
from arena.referee.match import MAX_VIOLATIONS, BotHandle, Player, play_match
from arena.referee.policy import ViolationPolicy
from arena.referee.pool import MatchPool
from arena.referee.process import INFO_CAP, BotSpec, Limits
from arena.referee.record import MatchSpec

# Limits a busy machine cannot make a bot miss, for every bot whose test is not about a limit: a crash, a bad
# line or a flood must end in its own termination, not in a timeout because the machine was slow.
TC = TimeControl(move_ms=10_000, handshake_ms=30_000, grace_ms=50)
# Short limits only for what a bot never does: SHORT_TURN for one that never answers a turn (however long it
# is given), SHORT_HANDSHAKE for one that never answers the handshake. The test waits this long, no longer.
SHORT_TURN = TimeControl(move_ms=300, handshake_ms=30_000, grace_ms=50)
SHORT_HANDSHAKE = TimeControl(move_ms=10_000, handshake_ms=1500, grace_ms=50)
SANTASE = preset("santase")


def player(name: str, *args: str, tc: TimeControl = TC) -> Player:
    # cwd: the test bots import _common.py beside them, and a sandboxed bot sees its cwd's files
    return Player(BotSpec(name, (str(BOTS / f"{name}.py"), *args), cwd=BOTS), tc)


def alive_in_groups(pgids: list[int]) -> list[str]:
    """Processes (zombies included) still in any of the bots' process groups."""
    left = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        rest = stat[stat.rfind(b")") + 2:].split()
        if int(rest[2]) in pgids:
            left.append(f"pid {entry} state {rest[0].decode()}")
    return left


async def play(bad: Player, seat: int = 0, policy: str = "lose-match", rules=SANTASE):
    async with trio.open_nursery() as nursery:
        good = Player(BotSpec("good", (str(BOTS / "good.py"),), cwd=BOTS), TC)
        handles = [BotHandle(bad, nursery), BotHandle(good, nursery)]
        if seat == 1:
            handles.reverse()
        with trio.fail_after(60):  # only stops a hang; the limits above are what is tested
            rec = await play_match("m", (handles[0].player, handles[1].player), rules, 7, 7, policy,
                                   handles=(handles[0], handles[1]))
        for h in handles:
            await h.quit()
    pgids = [pid for h in handles for pid in h.pids]
    return rec, pgids


# What a line means (a wrong version, bad UTF-8, an illegal or unheld card, a reply nobody asked for) is the
# protocol session's to decide, and tests/test_protocol_session.py gives each of those its own unit case. Here,
# through real pipes: what only a process can do (silence, crashes, forks, hangs, a closed stdout, a line too
# long for the reader), and one bad line (garbage) to show that the session's verdict becomes the termination.
CASES = [
    ("silent", (), "handshake", SHORT_HANDSHAKE),
    ("crash_start", (), "crash", TC),
    ("slow", ("60000",), "timeout", SHORT_TURN),
    ("sleep_after_hello", (), "timeout", SHORT_TURN),
    ("ignore_term", (), "timeout", SHORT_TURN),
    ("exit_mid_deal", ("3",), "crash", TC),
    ("fork_child", (), "crash", TC),
    ("garbage", (), "malformed", TC),
    ("huge_line", (), "overlong", TC),
    ("closed_stdout", (), "disconnect", TC),
]


@pytest.mark.parametrize("name,args,kind,tc", CASES, ids=[c[0] for c in CASES])
async def test_misbehaving_bot_gets_its_named_termination(name, args, kind, tc):
    rec, pgids = await play(player(name, *args, tc=tc))
    assert [(t.kind, t.bot) for t in rec.terminations] == [(kind, name)]
    assert rec.winner == 1 and rec.reason == kind  # default policy: the offender loses the match
    assert rec.terminations[0].detail
    assert alive_in_groups(pgids) == []
    # the transcript says why, for the bot's author
    assert any(d == "!" and kind in text for _, d, text in rec.transcripts[0])
    # and the referee is healthy for the next match
    clean, pgids = await play(player("good"))
    assert clean.terminations == [] and clean.reason == "target" and max(clean.score) >= 11
    assert alive_in_groups(pgids) == []


async def test_offending_line_is_recorded():
    rec, _ = await play(player("garbage"), seat=1)
    term = rec.terminations[0]
    assert term.seat == 1 and term.line == "hello world ~~~"
    assert ("<", "hello world ~~~") in [(d, t) for _, d, t in rec.transcripts[1]]


async def test_error_line_is_sent_before_the_bot_is_stopped():
    rec, _ = await play(player("not_held"))
    sent = [t for _, d, t in rec.transcripts[0] if d == ">"]
    assert sent[-1].startswith("error illegal ")


async def test_stderr_flood_is_drained_and_capped():
    rec, pgids = await play(player("stderr_flood"))
    assert rec.terminations == [] and rec.reason == "target"
    assert 0 < len(rec.stderr[0]) < 200_000 and "dropped" in rec.stderr[0]
    assert alive_in_groups(pgids) == []


async def test_an_info_flood_is_read_and_kept_only_up_to_the_cap():
    rec, pgids = await play(player("info_flood"))
    assert rec.terminations == [] and rec.reason == "target"  # every line read, every reply taken in time
    infos = [t for _, d, t in rec.transcripts[0] if d == "<" and t.startswith("info ")]
    assert infos and infos[0].startswith("info flood turn 0 ")
    assert sum(map(len, infos)) <= INFO_CAP  # of the 1 MB before every reply
    notes = [t for _, d, t in rec.transcripts[0] if d == "!"]
    assert notes == [f"info lines past {INFO_CAP // 1024} KiB in a match are not kept; from here on this "
                     "match's are dropped"]
    replies = [t for _, d, t in rec.transcripts[0] if d == "<" and not t.startswith("info ")]
    assert len(replies) == len(rec.think_ms[0]) + 1  # the hello, then every reply: none was dropped
    assert alive_in_groups(pgids) == []


@pytest.mark.parametrize(("where", "kind"), [("turn", "timeout"), ("handshake", "handshake")])
async def test_a_bot_that_never_stops_writing_info_lines_still_times_out(where: str, kind: str):
    rec, pgids = await play(player("chatter", where, tc=SHORT_TURN if where == "turn" else SHORT_HANDSHAKE))
    term = rec.terminations[0]
    assert (term.kind, term.seat) == (kind, 0) and term.detail.endswith("in time (only info lines)")
    assert rec.winner == 1
    kept = [t for _, d, t in rec.transcripts[0] if d == "<" and t.startswith("info ")]
    assert 0 < sum(map(len, kept)) <= INFO_CAP  # of the gigabytes it would write meanwhile
    assert alive_in_groups(pgids) == []


async def test_debugging_output_before_the_hello_is_a_handshake_termination():
    rec, _ = await play(player("chatter", "junk"))
    term = rec.terminations[0]
    assert (term.kind, term.line) == ("handshake", "Loading model...")
    assert term.detail == "expected 'bot <version> <name>', got Loading model..."


async def test_time_bank_absorbs_slow_decisions():
    tc = TimeControl(move_ms=100, bank_ms=60_000, handshake_ms=30_000, grace_ms=50)
    rec, _ = await play(player("slow", "150", tc=tc), rules=preset("schnapsen").with_overrides({"match_target": 1}))
    assert rec.terminations == []
    # every decision went over the move's 100 ms (the bot sleeps 150; the referee's clock starts when it has
    # written the turn, which a busy machine may note a few ms late) and the bank paid for it
    assert rec.think_ms[0] and all(t > tc.move_ms for t in rec.think_ms[0])


async def test_lose_deal_policy_restarts_the_bot_and_goes_on():
    rec, pgids = await play(player("exit_mid_deal", "3"), policy="lose-deal")
    assert len(rec.terminations) >= 2 and all(t.kind == "crash" for t in rec.terminations)
    forfeits = [d for d in rec.deals if d.forfeit]
    assert forfeits and all(d.reason == "forfeit" and d.winner == 1 for d in forfeits)
    assert rec.winner == 1
    assert alive_in_groups(pgids) == []


async def test_random_move_policy_substitutes_and_counts():
    rec, _ = await play(player("illegal_card"), policy="random-move",
                        rules=SANTASE.with_overrides({"match_target": 1}))
    assert rec.substitutions[0] >= 1
    if rec.reason == "illegal":  # after MAX_VIOLATIONS even this policy forfeits the match
        assert len(rec.terminations) == MAX_VIOLATIONS and rec.substitutions[0] == MAX_VIOLATIONS - 1
    else:
        assert len(rec.terminations) == rec.substitutions[0]


async def test_same_seed_same_match():
    a = Player(BotSpec("random", (sys.executable, str(BOTS.parent.parent / "bots/random.py"), "--seed", "3")), TC)
    b = Player(BotSpec("good", (str(BOTS / "good.py"),), cwd=BOTS), TC)
    r1 = await play_match("m", (a, b), SANTASE, 11, 11)
    r2 = await play_match("m", (a, b), SANTASE, 11, 11)
    assert [d.actions for d in r1.deals] == [d.actions for d in r2.deals]
    assert r1.score == r2.score


async def test_memory_limit_turns_a_hog_into_a_crash():
    limited = Player(BotSpec("memory_hog", (str(BOTS / "memory_hog.py"),), cwd=BOTS,
                             limits=Limits(memory_bytes=512 * 1024**2)), TC)
    rec, pgids = await play(limited)
    assert [(t.kind, t.bot) for t in rec.terminations] == [("crash", "memory_hog")]
    assert "MemoryError" in rec.stderr[0]  # one allocation over the limit fails at once, sandbox or not
    assert alive_in_groups(pgids) == []


async def test_reused_bot_plays_several_matches_in_one_process():
    good = Player(BotSpec("good", (str(BOTS / "good.py"),), cwd=BOTS), TC)
    other = Player(BotSpec("other", (str(BOTS / "good.py"),), cwd=BOTS), TC)
    players = {"good": good, "other": other}
    async with trio.open_nursery() as nursery:
        pool = MatchPool(nursery, reuse=True)
        records = []
        for i in range(3):
            seats = ("good", "other") if i % 2 == 0 else ("other", "good")
            spec = MatchSpec(f"m{i}", ("good", "other"), i // 2, i % 2, *seats, deal_seed=i, match_seed=i, order=i)
            records.append(await pool.play(spec, players, SANTASE, ViolationPolicy.LOSE_MATCH))
        handles = [h for hs in pool.idle.values() for h in hs]
        assert sorted(len(h.pids) for h in handles) == [1, 1]  # one process per bot for all three matches
        pgids = [pid for h in handles for pid in h.pids]
        await pool.close()
    assert all(r.terminations == [] and r.reason == "target" for r in records)
    # each match's transcript starts at its own match line, not at the handshake of the first
    assert records[1].transcripts[0][0][2].startswith("match m1 ")
    assert alive_in_groups(pgids) == []


async def test_a_bot_never_sees_the_opponents_hidden_draws():
    a = Player(BotSpec("random", (sys.executable, str(BOTS.parent.parent / "bots/random.py"), "--seed", "5")), TC)
    b = Player(BotSpec("good", (str(BOTS / "good.py"),), cwd=BOTS), TC)
    rec = await play_match("m", (a, b), SANTASE, 45, 45)  # each bot sees the other draw the turned card
    for seat in (0, 1):
        opponent_draws_seen: list[int] = []
        for _, _direction, text in rec.transcripts[seat]:
            if text.startswith("deal "):
                opponent_draws_seen.append(0)
            elif text.startswith(f"draw {1 - seat} ") and not text.endswith(" ?"):
                opponent_draws_seen[-1] += 1
        # only the face-up trump card, drawn last from the talon, may be shown
        assert opponent_draws_seen and all(n <= 1 for n in opponent_draws_seen)
        assert any(n == 1 for n in opponent_draws_seen)
