"""Protocol 1.1 (docs/PROTOCOL.md, "What changed in 1.1") through the real referee, and the handshake name.

- A bot that answers `bot 1.1` gets `taken`, `opp_taken`, `opp_pending` and `led_marriage` in every turn line;
  each value is checked against an independent computation from the match record (the deck's trump, the
  actions, the trick-taking rule written out here), in every preset, and by the 1.1 test bot
  (tests/bots/tracker11.py) against its own record of the events.
- A bot that answers `bot 1` (or `bot 1.0`), the reference bots among them, gets exactly the 1.0 keys.
- The bot kit exposes the 1.1 fields to choose(view) when asked for 1.1, and keeps 1.0 by default.
- `arena match` without --names shows the names the bots give in their handshake, made valid and unique.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BOTS, ROOT

import arena
from arena.api import display_names
from arena.game import PRESETS
from arena.protocol import botkit
from arena.protocol.codec import decode_referee_line, encode
from arena.protocol.messages import V1_1, Hello
from arena.referee.record import MatchRecord, Termination
from arena.tournament.preflight import BotStartError

PY = sys.executable
TRACKER = [PY, str(BOTS / "tracker11.py")]
RANDOM = [PY, str(ROOT / "bots" / "random.py")]
ARENA = [PY, "-m", "arena"]

# The keys of a 1.0 turn line, in order: what a 1.0 bot always got, and still gets.
KEYS_10 = ["seat", "hand", "trump", "turned", "talon", "closed", "led", "leader", "dealer", "points", "opp_points",
           "pending", "tricks", "opp_tricks", "marriages", "played", "known", "score", "opp_score", "time", "bank",
           "legal"]
NEW_KEYS = {"taken", "opp_taken", "opp_pending", "led_marriage"}
RANKS = "9JQKTA"  # trick-taking order, low to high (docs/PROTOCOL.md, "Cards, points and tricks")
SUITS = "cdhs"


def play(bot_a: list[str], bot_b: list[str], variant: str, seed: int, matches: int = 2, **kw) -> list[MatchRecord]:
    """A real series through arena.play_match; the records in match order."""
    records: dict[int, MatchRecord] = {}
    arena.play_match(bot_a, bot_b, matches=matches, seed=seed, rules=variant, sandbox="none", concurrency=1,
                     on_record=lambda spec, rec: records.__setitem__(spec.order, rec), **kw)
    return [records[i] for i in sorted(records)]


def turn_lines(rec: MatchRecord, seat: int) -> list[str]:
    return [text for _, direction, text in rec.transcripts[seat] if direction == ">" and text.startswith("turn ")]


def keys(line: str) -> list[str]:
    return [token.split("=")[0] for token in line.split()[1:]]


def wire_order(cards: set[str]) -> list[str]:
    return sorted(cards, key=lambda c: (SUITS.index(c[1]), RANKS.index(c[0])))


# ------------------------------------------------------------------------ the independent computation
def expected_fields(rec: MatchRecord) -> tuple[list[dict], list[dict]]:
    """For each seat, in the order of its decisions, what the 1.1 keys must say: computed from the record
    alone (each deal's turned trump card and its actions), with the rules of PROTOCOL.md written out here
    rather than taken from the engine."""
    rules = rec.rules
    out: tuple[list[dict], list[dict]] = ([], [])
    for deal in rec.deals:
        trump = str(deal.trump)[1]
        taken: list[set[str]] = [set(), set()]
        tricks, pending = [0, 0], [0, 0]
        table: list[tuple[int, str, bool]] = []  # (seat, card, led with a marriage)
        for entry in deal.action_texts():
            seat_text, kind, *card = entry.split(":")
            seat = int(seat_text)
            out[seat].append({
                "taken": wire_order(taken[seat]), "opp_taken": wire_order(taken[1 - seat]),
                "opp_pending": pending[1 - seat], "led_marriage": len(table) == 1 and table[0][2],
            })
            if kind == "marriage":
                points = rules.trump_marriage_points if card[0][1] == trump else rules.marriage_points
                if tricks[seat] == 0 and rules.marriage_without_trick == "pending":
                    pending[seat] += points
                table.append((seat, card[0], True))
            elif kind == "play":
                table.append((seat, card[0], False))
            if len(table) == 2:
                (leader, led, _), (answerer, answer, _) = table
                if answer[1] == led[1]:
                    winner = answerer if RANKS.index(answer[0]) > RANKS.index(led[0]) else leader
                else:
                    winner = answerer if answer[1] == trump else leader
                taken[winner] |= {led, answer}
                tricks[winner] += 1
                pending[winner] = 0
                table = []
    return out


def sent_fields(line: str) -> dict:
    view = decode_referee_line(line).view
    assert view.taken is not None
    return {"taken": [str(c) for c in view.taken[0]], "opp_taken": [str(c) for c in view.taken[1]],
            "opp_pending": view.opponent_pending, "led_marriage": view.led_marriage}


def check_11_seat(rec: MatchRecord, seat: int, expected: list[dict]) -> list[dict]:
    lines = turn_lines(rec, seat)
    assert len(lines) == len(expected) > 0
    for i, (line, want) in enumerate(zip(lines, expected, strict=True)):
        assert sent_fields(line) == want, f"{rec.match_id} seat {seat} decision {i}: {line}"
        assert [k for k in keys(line) if k not in NEW_KEYS] == KEYS_10
    assert "tracker: checked" in rec.stderr[seat] and "DISAGREE" not in rec.stderr[seat], rec.stderr[seat]
    return expected


def check_10_seat(rec: MatchRecord, seat: int) -> None:
    lines = turn_lines(rec, seat)
    assert lines
    for line in lines:
        assert keys(line) == KEYS_10, line
    assert "UNEXPECTED" not in rec.stderr[seat], rec.stderr[seat]


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_a_1_1_bot_gets_fields_that_match_the_record_and_a_1_0_bot_gets_the_1_0_line(variant):
    seen: list[dict] = []
    # two 1.1 bots (both seats checked; each leads marriages whenever it can, so pending points and marriage
    # leads occur), then a 1.1 bot against the reference random bot, a 1.0 bot, in both seats
    for rec in play(TRACKER + ["1"], TRACKER + ["2"], variant, seed=11):
        assert rec.bot_info[0]["name"] == rec.bot_info[1]["name"] == "tracker"
        expected = expected_fields(rec)
        for seat in (0, 1):
            seen += check_11_seat(rec, seat, expected[seat])
    for rec in play(TRACKER + ["3"], RANDOM + ["--seed", "4"], variant, seed=12):
        seat = rec.bots.index("tracker")
        seen += check_11_seat(rec, seat, expected_fields(rec)[seat])
        check_10_seat(rec, 1 - seat)
    # what makes the comparison worth something: every field took values other than its initial one
    assert any(f["taken"] for f in seen) and any(f["opp_taken"] for f in seen)
    assert any(f["led_marriage"] for f in seen)
    if PRESETS[variant].marriage_without_trick == "pending":
        assert any(f["opp_pending"] > 0 for f in seen)
    else:
        assert all(f["opp_pending"] == 0 for f in seen)


@pytest.mark.parametrize("answer", ["1", "1.0"])
def test_a_bot_that_chooses_1_0_gets_no_1_1_key(answer):
    (rec,) = play(TRACKER + ["5", "--version", answer], RANDOM + ["--seed", "6"], "schnapsen", seed=13, matches=1)
    assert rec.reason == "target"
    assert any(text == f"bot {answer} tracker" for _, d, text in rec.transcripts[0] if d == "<")
    check_10_seat(rec, 0)
    assert "tracker: checked" in rec.stderr[0]


async def test_a_version_the_referee_did_not_offer_is_a_handshake_violation():
    from arena.referee.clock import TimeControl
    from arena.referee.match import Player, play_match
    from arena.referee.process import BotSpec

    tc = TimeControl()
    players = (Player(BotSpec("tracker", tuple(TRACKER + ["--version", "1.2"]), sandbox="none"), tc),
               Player(BotSpec("random", tuple(RANDOM), sandbox="none"), tc))
    rec = await play_match("m", players, PRESETS["santase"], 14, 14)
    (term,) = rec.terminations
    assert term.kind is Termination.HANDSHAKE and term.seat == 0
    assert "version 1.2 is not offered (the referee speaks 1 1.1)" in term.detail
    assert tuple(rec.transcripts[0][0][1:]) == (">", "arena 1 1.1")


def test_a_series_with_a_bot_of_a_version_not_offered_stops_before_its_first_match():
    """`arena match` starts each bot once first, and stops there with the same reason."""
    with pytest.raises(BotStartError) as info:
        play(TRACKER + ["--version", "1.2"], RANDOM, "santase", seed=14, matches=1)
    [failure] = info.value.failures
    assert failure.kind == "handshake" and "version 1.2 is not offered" in failure.detail


def test_the_1_1_example_in_protocol_md_follows_from_the_transcripts_events():
    doc = (ROOT / "docs" / "PROTOCOL.md").read_text()
    example = doc.split("<!-- turn-1.1:start -->")[1].split("<!-- turn-1.1:end -->")[0].strip().strip("`").strip()
    block = doc.split("<!-- transcript:start -->")[1].split("<!-- transcript:end -->")[0]
    sent = [line[2:] for line in block.splitlines() if line.startswith("> ")]
    as_10 = " ".join(t for t in example.split() if t.split("=")[0] not in NEW_KEYS)
    assert as_10 in sent  # the same decision as the (replayed, hence real) 1.0 transcript shows
    assert encode(decode_referee_line(example), V1_1) == example
    # recompute the 1.1 keys from the events before it, as a bot with memory would
    taken: list[set[str]] = [set(), set()]
    table: list[str] = []
    for line in sent[:sent.index(as_10)]:
        head, *args = line.split()
        if head == "play":
            table.append(args[1])
        elif head == "trick":
            taken[int(args[0])] |= set(table)
            table = []
    fields = sent_fields(example)
    assert (fields["taken"], fields["opp_taken"]) == (wire_order(taken[0]), wire_order(taken[1]))
    assert fields["taken"] and fields["opp_taken"]
    assert (fields["opp_pending"], fields["led_marriage"]) == (0, False)  # no marriage by seat 1; Kd led plainly


# ------------------------------------------------------------------------------------------ the bot kit
TURN_11 = ("turn seat=1 hand=9c,Th trump=h turned=Ah talon=8 closed=- led=Qs led_marriage=true leader=0 dealer=0 "
           "points=0 opp_points=0 pending=0 opp_pending=40 tricks=0 opp_tricks=0 marriages=0s played=Jd,Ad "
           "taken=Jd,Ad opp_taken=- known=Ks score=0 opp_score=0 time=1000 bank=- legal=play:9c,play:Th")


def run_kit(lines: list[str], **kw) -> tuple[list[str], list]:
    seen: list = []
    out = io.StringIO()

    def choose(view, legal):
        seen.append((view.taken, view.opponent_pending, view.led_marriage))
        return legal[0]

    botkit.run(choose, name="kit", stdin=io.StringIO("".join(x + "\n" for x in lines)), stdout=out, **kw)
    return out.getvalue().splitlines(), seen


def test_the_kit_gives_choose_the_1_1_fields_when_asked_for_1_1():
    out, seen = run_kit([encode(Hello()), TURN_11], version="1.1")
    assert out == ["bot 1.1 kit", "play 9c"]
    (taken, opp_pending, led_marriage), = seen
    assert [[str(c) for c in side] for side in taken] == [["Jd", "Ad"], []]
    assert (opp_pending, led_marriage) == (40, True)
    # against a referee that offers only 1.0 it falls back to 1.0, and the fields are None
    turn_10 = re.sub(r" (taken|opp_taken|opp_pending|led_marriage)=\S*", "", TURN_11)
    assert keys(turn_10) == KEYS_10
    out, seen = run_kit(["arena 1", turn_10], version="1.1")
    assert out == ["bot 1 kit", "play 9c"] and seen == [(None, None, None)]
    # by default it stays 1.0: a kit bot written before 1.1 sends what it always sent
    out, _ = run_kit([encode(Hello())])
    assert out == ["bot 1 kit"]
    with pytest.raises(SystemExit, match="offers versions 2; this bot speaks 1 to 1.1"):
        run_kit(["arena 2"], version="1.1")


KIT_11_BOT = '''
import sys
sys.path.insert(0, {root!r})
from arena.protocol.botkit import run

def choose(view, legal):
    if view.taken is None or view.opponent_pending is None or view.led_marriage is None:
        print("kit11: a 1.1 field is missing", file=sys.stderr)
    elif set(view.taken[0]) | set(view.taken[1]) != set(view.played):
        print("kit11: taken and opp_taken are not played", file=sys.stderr)
    return legal[-1]

run(choose, name="kit11", version="1.1")
print("kit11: done", file=sys.stderr)
'''


def test_a_kit_bot_asking_for_1_1_gets_the_fields_from_the_real_referee(tmp_path):
    script = tmp_path / "kit11.py"
    script.write_text(KIT_11_BOT.format(root=str(ROOT)))
    (rec,) = play([PY, str(script)], RANDOM, "sixty-six", seed=15, matches=1)
    assert rec.reason == "target" and rec.bots[0] == "kit11"
    assert any(text == "bot 1.1 kit11" for _, d, text in rec.transcripts[0] if d == "<")
    assert all(NEW_KEYS <= set(keys(line)) for line in turn_lines(rec, 0))
    assert "kit11: done" in rec.stderr[0] and "missing" not in rec.stderr[0] and "not played" not in rec.stderr[0]


# ------------------------------------------------------------------------------- names from the handshake
SH_BOT = """#!/bin/sh
# answers the handshake with the name {name!r}, then plays the first legal action (the ':' form is a reply)
set -f
read -r hello || exit 0
echo "bot 1 {name}"
while IFS= read -r line; do
    case $line in
        turn\\ *) for token in $line; do case $token in legal=*) legal=${{token#legal=}} ;; esac; done
                 echo "${{legal%%,*}}" ;;
        quit) exit 0 ;;
    esac
done
"""


def sh_bot(tmp_path: Path, folder: str, name: str) -> str:
    """``sh .../<folder>/bot.sh``: every such bot has the same interpreter and the same script name."""
    where = tmp_path / folder
    where.mkdir()
    (where / "bot.sh").write_text(SH_BOT.format(name=name))
    for d in (tmp_path, where):
        d.chmod(0o755)  # a sandboxed bot runs as another user
    return f"sh {where / 'bot.sh'}"


def test_arena_match_shows_the_names_bots_give_in_their_handshake(tmp_path):
    a, b = sh_bot(tmp_path, "first", "alice"), sh_bot(tmp_path, "second", "bob")
    out = tmp_path / "t"
    result = subprocess.run([*ARENA, "match", a, b, "--matches", "2", "--seed", "3", "--set", "match_target=2",
                             "--json", "--transcripts", str(out)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["bots"] == ["alice", "bob"]  # not bot-1 and bot-2, the names from the command lines
    assert sum(summary["wins"].values()) == 2
    logs = sorted(p.name for p in out.iterdir())
    assert logs == ["alice-vs-bob-p0-g0-seat0-alice.log", "alice-vs-bob-p0-g0-seat1-bob.log",
                    "alice-vs-bob-p0-g1-seat0-bob.log", "alice-vs-bob-p0-g1-seat1-alice.log"]
    alice = (out / logs[0]).read_text()
    assert re.search(r"> match alice-vs-bob-p0-g0 seat=0 opponent=bob ", alice)


def test_handshake_names_are_made_valid_and_unique(tmp_path):
    twins = [sh_bot(tmp_path, "one", "twin"), sh_bot(tmp_path, "two", "twin")]
    outcome = arena.play_match(*twins, matches=1, seed=1, rules="santase", sandbox="none")
    assert outcome.names == ("twin-1", "twin-2")
    odd = [sh_bot(tmp_path, "three", "fine_name"), sh_bot(tmp_path, "four", "not/a/name")]
    outcome = arena.play_match(*odd, matches=1, seed=1, rules="santase", sandbox="none")
    assert outcome.names == ("fine_name", "bot-2")  # the second from its command line, as without a handshake
    # a bot that gives no hello plays no match: the series stops before, naming it by its command's name
    crash = f"{PY} {BOTS / 'crash_start.py'}"
    with pytest.raises(BotStartError) as info:
        arena.play_match(crash, sh_bot(tmp_path, "five", "steady"), matches=1, seed=1, sandbox="none")
    assert [(f.name, f.kind) for f in info.value.failures] == [("crash_start", "crash")]
    # names given win over the handshake
    outcome = arena.play_match(*odd, matches=1, seed=1, sandbox="none", names=("x", "y"))
    assert outcome.names == ("x", "y")


def test_display_names_rules():
    fallback = ("perl-1", "perl-2")
    assert display_names(("mybot", "yourbot"), fallback) == ("mybot", "yourbot")
    assert display_names(("mybot", "mybot"), fallback) == ("mybot-1", "mybot-2")
    assert display_names((None, "yourbot"), fallback) == ("perl-1", "yourbot")
    assert display_names(("caf\u00e9", "x" * 65), fallback) == fallback
    assert display_names(("a-vs-b", "ok"), fallback) == ("perl-1", "ok")  # -vs- separates names in match ids
    assert display_names(("x" * 63, "x" * 63), fallback) == fallback  # x...-1 would be too long
    assert display_names(("perl-2", None), fallback) == ("perl-2-1", "perl-2-2")  # taken by a fallback name
