"""The referee lines the database does not keep (arena.referee.script): for real matches of every preset, a
protocol 1.0 and a 1.1 bot, a time bank that decisions draw on, and bot processes reused across matches,
the store gives back every transcript exactly as the referee recorded it, while keeping almost none of the
referee's lines and none of the replies that are the recorded actions. `arena transcript` prints them."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import BOTS, ROOT

from arena.api import run_tournament
from arena.game import preset
from arena.game.variants import RuleSet
from arena.referee.channel import ChannelBot
from arena.referee.clock import TimeControl
from arena.referee.match import Player, play_match
from arena.referee.process import BotSpec
from arena.referee.record import MatchRecord, MatchSpec
from arena.store import Store
from arena.store import codec as store_codec
from tests.test_game_properties import VARIANTS


def _config(tmp: Path, variant: str, reuse: bool) -> Path:
    path = tmp / f"{variant}-{reuse}.yaml"
    path.write_text(
        f"name: script-{variant}\nvariant: {variant}\nformat: round-robin\nrounds: 2\nseed: 11\n"
        f"reuse_bots: {str(reuse).lower()}\nsandbox: none\nconcurrency: 2\n"
        # a 1 ms move limit and a bank: the tracker thinks 3 ms a move, so the bank= it is sent changes
        "time:\n  move: 1ms\n  bank: 20s\n  handshake: 10s\n"
        f"output:\n  database: {tmp / f'{variant}-{reuse}.db'}\n"
        "bots:\n"
        f"  - name: greedy\n    command: {sys.executable} {ROOT / 'bots' / 'greedy.py'}\n"
        f"  - name: tracker\n    command: {sys.executable} {BOTS / 'tracker11.py'} 5 --think 3\n"
    )
    return path


def assert_by_the_book_needs_no_replay(rec: MatchRecord) -> None:
    """The store does not replay a match that went by the book to find which referee lines it rebuilds:
    it takes every one from the match line to match-end. Replaying it and comparing line by line (what it
    does for any other match) must find exactly the same."""
    assert store_codec._by_the_book(rec)
    deals = [(d.dealer, d.deck_text(), d.action_texts()) for d in rec.deals]
    args = (rec.rules, rec.match_id, rec.bots, deals, rec.think_ms, str(rec.reason),
            rec.transcripts)
    trusted = store_codec._rebuilt_payloads(*args, by_the_book=True)
    assert trusted == store_codec._rebuilt_payloads(*args, by_the_book=False), rec.match_id
    assert all("script" in value for value in trusted)


def _payloads(db: Path) -> list[dict[str, Any]]:
    """Every stored transcript as plain SQL and one decompress call give it (docs/DATABASE.md)."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT t.lines, d.data FROM transcripts t LEFT JOIN dictionaries d ON d.id = t.dict"
                           ).fetchall()
    finally:
        con.close()
    return [json.loads(zlib.decompressobj(zdict=zd or b"").decompress(blob)) for blob, zd in rows]


@pytest.mark.parametrize(("variant", "reuse"), [("santase", False), ("sixty-six", True), ("schnapsen", False)])
def test_every_transcript_comes_back_from_the_record(tmp_path: Path, variant: str, reuse: bool) -> None:
    records: list[MatchRecord] = []
    outcome = run_tournament(_config(tmp_path, variant, reuse), report=False,
                             on_progress=lambda _, rec: records.append(rec) if rec is not None else None)
    assert len(records) == 4 and not any(rec.terminations for rec in records)
    for rec in records:
        assert_by_the_book_needs_no_replay(rec)
    versions = set()
    banks = set()
    store = Store.open_existing(outcome.database)
    try:
        for rec in records:
            for seat in store.seats(rec.match_id):
                assert seat.transcript == json.loads(json.dumps(rec.transcripts[seat.seat])), (rec.match_id, seat)
                turns = [t for _, d, t in rec.transcripts[seat.seat] if d == ">" and t.startswith("turn ")]
                versions.add("led_marriage=" in turns[0])
                banks.update(t.partition(" bank=")[2].split(" ")[0] for t in turns)
            # without the referee's lines (no replay): the bots' own lines with their times, and where the
            # turns and deals are
            for seat in store.seats(rec.match_id, referee_lines=False):
                original = rec.transcripts[seat.seat]
                assert [e for e in seat.transcript if e[1] != ">"] == [list(e) for e in original if e[1] != ">"]
                marks = [e for e in seat.transcript if e[1] == ">" and e[2] in ("turn", "deal")]
                assert marks == [[ms, d, t.split(" ")[0]] for ms, d, t in original
                                 if d == ">" and t.startswith(("turn ", "deal "))]
    finally:
        store.close()
    assert versions == {True, False}  # greedy speaks 1.0, tracker 1.1
    assert len(banks) > 2  # the bank was drawn on, and each bank= came back from the stored think times
    payloads = _payloads(outcome.database)
    lines = [line for p in payloads for line in p["lines"]]
    kept = [line for line in lines if line[0] in "<>"]
    assert all("script" in p for p in payloads)
    # what is kept: the handshakes, `quit`, and nothing a replay gives back
    assert len(kept) < len(lines) / 20, kept[:20]
    assert not any(line.startswith((">turn", ">play", "<play")) for line in kept)


def test_arena_transcript_prints_a_match(tmp_path: Path) -> None:
    records: list[MatchRecord] = []
    outcome = run_tournament(_config(tmp_path, "santase", False), report=False,
                             on_progress=lambda _, rec: records.append(rec) if rec is not None else None)
    rec = records[-1]
    run = subprocess.run([sys.executable, "-m", "arena", "transcript", str(outcome.database), rec.match_id,
                          "--seat", "1"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    want = [f"{ms:10.3f} {d} {text}" for ms, d, text in rec.transcripts[1]]
    assert run.stdout.splitlines()[:len(want)] == want
    if rec.stderr[1]:
        assert rec.stderr[1].splitlines()[0] in run.stdout
    bad = subprocess.run([sys.executable, "-m", "arena", "transcript", str(outcome.database), "no-such-match"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no-such-match" in bad.stderr and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_arena_transcript_does_not_let_a_bot_drive_the_terminal(tmp_path: Path) -> None:
    """What a bot wrote (an info line, its stderr) is printed with its control characters as '?': ESC, the
    8-bit CSI and BEL never reach the terminal. The database keeps them as they were."""
    config = tmp_path / "t.yaml"
    config.write_text(f"name: esc\nseed: 3\nvariant: {{preset: santase, match_target: 1}}\n"
                      f"output: {{database: {tmp_path / 'esc.db'}}}\nbots:\n"
                      f"  - {{name: escapes, command: python {BOTS / 'escapes.py'}}}\n"
                      f"  - {{name: good, command: python {BOTS / 'good.py'}}}\n")
    records: list[MatchRecord] = []
    outcome = run_tournament(config, report=False, sandbox="none",
                             on_progress=lambda _, rec: records.append(rec) if rec is not None else None)
    rec = records[0]
    seat = rec.bots.index("escapes")
    assert any("\x1b]0;owned" in text for _, _, text in rec.transcripts[seat]) and "\x9b" in rec.stderr[seat]
    run = subprocess.run([sys.executable, "-m", "arena", "transcript", str(outcome.database), rec.match_id],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert not any(c in run.stdout for c in "\x1b\x07\x9b"), run.stdout
    assert "< info ?[2J?]0;owned?" in run.stdout and "escapes: ?[31mred?[0m ?2J ?" in run.stdout


# ------------------------------------------------------------------------------- every rule switch, in process
def _channel_player(name: str, version: str, seed: int) -> Player:
    """A seat played in this process (the ChannelBot arena serve uses for people): a seeded random legal
    action at every turn, any of them (declarations, closes, exchanges, marriages)."""
    rng = random.Random(seed)

    def connect() -> ChannelBot:
        def on_lines(lines: Sequence[str]) -> None:
            for line in lines:
                if line.startswith("arena "):
                    bot.reply(f"bot {version} {name}")
                elif line.startswith("turn "):
                    legal = line.rpartition(" legal=")[2].split(",")
                    bot.reply(rng.choice(legal).replace(":", " "))
                elif line == "quit":
                    bot.exit()

        bot = ChannelBot(name, on_lines)
        return bot

    return Player(BotSpec(name, ("in-process",), sandbox="none"), TimeControl(move_ms=0, bank_ms=10_000),
                  connect=connect)


RULE_SETS = [preset("santase"), preset("sixty-six"), preset("schnapsen"), *VARIANTS]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name + str(RULE_SETS.index(r)))
def test_the_script_follows_the_referee_under_every_switch(tmp_path: Path, rules: RuleSet) -> None:
    rules = rules.with_overrides({"match_target": 7})
    store = Store(tmp_path / "arena.db")
    specs = [MatchSpec(f"m{i}", ("a", "b"), i, 0, "a", "b", deal_seed=100 + i, match_seed=i, order=i)
             for i in range(4)]
    store.begin("t", "t.yaml", "name: t\n", "h", rules.to_dict(), 1, "round-robin", specs, [])
    records = []
    for i, spec in enumerate(specs):
        players = (_channel_player("a", "1.1" if i % 2 else "1", i), _channel_player("b", "1.1", 50 + i))
        rec = trio.run(play_match, spec.match_id, players, rules, spec.deal_seed, spec.match_seed)
        assert not rec.terminations
        assert_by_the_book_needs_no_replay(rec)
        store.save(rec)
        records.append(rec)
    kinds = {line.split(" ")[0] for rec in records for _, d, line in rec.transcripts[0] if d == ">"}
    assert {"turn", "play", "trick", "deal-end"} <= kinds
    for rec in records:
        for seat in store.seats(rec.match_id):
            assert seat.transcript == json.loads(json.dumps(rec.transcripts[seat.seat])), (rec.match_id, seat.seat)
            assert list(seat.think_ms) == rec.think_ms[seat.seat]
    lines = [line for p in _payloads(tmp_path / "arena.db") for line in p["lines"]]
    assert sum(line[0] in "<>" for line in lines) < len(lines) / 20
    con = sqlite3.connect(tmp_path / "arena.db")
    try:  # the think times came back from the transcripts: none was stored
        assert con.execute("SELECT count(*), count(think_ms) FROM seats").fetchone() == (8, 0)
    finally:
        con.close()
    store.close()
