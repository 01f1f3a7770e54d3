"""The protocol codec (arena/protocol/codec.py) against docs/PROTOCOL.md. Pure: no processes, no I/O.

- every message type round trips: decode(encode(m)) == m (referee messages through decode_referee_line,
  bot messages through decode_bot_line), for hand-picked and for random messages, including turn lines
  built from real game states;
- garbage from a bot (empty, bad UTF-8, over-long, unknown, bad cards, bad handshakes) gives a
  BotProtocolError with the right code, garbage from a referee a RefereeProtocolError, and never any other
  exception;
- LineSplitter reassembles lines across arbitrary chunk boundaries and stops over-long lines.
"""

from __future__ import annotations

import dataclasses
import random
import re

import pytest
from conftest import ROOT
from hypothesis import example, given, settings
from hypothesis import strategies as st

from arena.game import ALL_CARDS, CLOSE, DECLARE, EXCHANGE, MARRIAGE, PLAY, PRESETS, Action, Match
from arena.protocol.codec import (
    BotProtocolError,
    LineSplitter,
    ProtocolError,
    RefereeProtocolError,
    decode_bot_bytes,
    decode_bot_line,
    decode_referee_line,
    encode,
    rules_to_wire,
)
from arena.protocol.messages import (
    MAX_LINE_BYTES,
    V1_0,
    V1_1,
    BotHello,
    Closed,
    DealEnd,
    DealStart,
    Declared,
    Drew,
    Error,
    Exchanged,
    Hello,
    Info,
    MarriageShown,
    MatchEnd,
    MatchStart,
    Played,
    Quit,
    Reply,
    TrickWon,
    Turn,
    Version,
)

PROTOCOL_MD = (ROOT / "docs/PROTOCOL.md").read_text()
SETTINGS = settings(deadline=None, derandomize=True, database=None)
ALL_ACTIONS = (*PLAY, *MARRIAGE, EXCHANGE, CLOSE, DECLARE)
DEAL_END_REASONS = ("reached-66", "declared-66", "closed-and-reached-66", "closed-and-declared-66",
                    "failed-close", "wrong-declaration", "last-trick", "more-points", "forfeit")
TERMINATIONS = ("handshake", "timeout", "malformed", "overlong", "encoding", "illegal", "unexpected", "crash",
                "disconnect")


def referee_round_trip(msg, version=V1_0):
    """The line for a bot that chose ``version``; a 1.0 line carries none of 1.1's keys, so it decodes to the
    view without them."""
    line = encode(msg, version)
    assert "\n" not in line and "\r" not in line and line == line.rstrip(" "), line
    if isinstance(msg, Turn) and version < V1_1:
        msg = dataclasses.replace(msg, view=without_11(msg.view))
    assert decode_referee_line(line) == msg, line
    return line


def without_11(view):
    return dataclasses.replace(view, taken=None, opponent_pending=None, led_marriage=None)


def bot_round_trip(msg):
    line = encode(msg)
    assert decode_bot_line(line) == msg, line
    assert decode_bot_bytes(line.encode()) == msg, line
    return line


# ------------------------------------------------------------------------------------------ fixed examples
TURN_LINE = (
    "turn seat=0 hand=9c,Jc,Kc,9d,Jh,Qs trump=c turned=Ac talon=12 closed=- led=- leader=0 dealer=1 points=0 "
    "opp_points=0 pending=0 tricks=0 opp_tricks=0 marriages=- played=- known=- score=0 opp_score=0 time=1000 "
    "bank=- legal=exchange,close,play:9c,play:Jc,play:Kc,play:9d,play:Jh,play:Qs"
)
# The same decision as a 1.1 bot gets it: four more keys, each next to the 1.0 key it completes.
TURN_LINE_11 = (
    TURN_LINE.replace("led=-", "led=- led_marriage=false").replace("pending=0", "pending=0 opp_pending=0")
    .replace("played=-", "played=- taken=- opp_taken=-")
)
KEYS_10 = [token.split("=")[0] for token in TURN_LINE.split()[1:]]
KEYS_11 = [token.split("=")[0] for token in TURN_LINE_11.split()[1:]]

REFEREE_LINES = [
    "arena 1",
    "arena 1 2",
    "arena 1 1.1",
    "arena 1.1 2.10",
    "match m1 seat=0 opponent=greedy variant=santase deck=24 deal_batches=3,3 must_head=true",
    "deal 0 dealer=1",
    "play 1 Ah",
    "marriage 0 Qc 40",
    "exchange 0 Ac",
    "close 1",
    "trick 1 21",
    "draw 0 Qs",
    "draw 1 ?",
    "declare 0 67",
    "deal-end 1 2 reached-66 31,70 0,2",
    "match-end 1 3,11 target",
    "match-end - 0,0 crash",
    "error timeout no reply within 1000 ms",
    "quit",
    TURN_LINE,
    TURN_LINE.replace("closed=-", "closed=1").replace("led=-", "led=Qh").replace("bank=-", "bank=9000")
    .replace("marriages=-", "marriages=0h,1s").replace("played=-", "played=9d,Th").replace("known=-", "known=Kh"),
    TURN_LINE_11,
    TURN_LINE_11.replace("led=- led_marriage=false", "led=Qh led_marriage=true")
    .replace("opp_pending=0", "opp_pending=20")
    .replace("played=- taken=- opp_taken=-", "played=9d,Th,Jc,Ac taken=9d,Th opp_taken=Jc,Ac"),
]


@pytest.mark.parametrize("line", REFEREE_LINES)
def test_referee_lines_decode_and_encode_back_exactly(line):
    msg = decode_referee_line(line)
    version = V1_1 if line == TURN_LINE_11 or "led_marriage=" in line else V1_0
    assert encode(msg, version) == line
    assert decode_referee_line(line + "\n") == msg


def test_a_1_0_line_decodes_without_the_1_1_fields_and_a_1_1_line_with_them():
    old = decode_referee_line(TURN_LINE).view
    assert (old.taken, old.opponent_pending, old.led_marriage) == (None, None, None)
    new = decode_referee_line(TURN_LINE_11.replace(" taken=-", " taken=9d,Th")
                              .replace("opp_pending=0", "opp_pending=20")
                              .replace("led_marriage=false", "led_marriage=true")).view
    assert new.taken == ((ALL_CARDS[6], ALL_CARDS[16]), ())
    assert (new.opponent_pending, new.led_marriage) == (20, True)
    assert without_11(new) == dataclasses.replace(old, led=old.led)
    # the referee cannot send a 1.1 line without the 1.1 fields: that is its own bug, not the bot's
    with pytest.raises(RefereeProtocolError) as info:
        encode(decode_referee_line(TURN_LINE), V1_1)
    assert info.value.code == "internal"


def test_versions_are_numbers_with_a_text_form():
    assert [str(v) for v in (V1_0, V1_1, Version(2), Version(1, 10))] == ["1", "1.1", "2", "1.10"]
    assert Version.parse("1") == Version.parse("1.0") == V1_0 and Version.parse("1.1") == V1_1
    assert V1_0 < V1_1 < Version(1, 10) < Version(2)
    assert encode(Hello()) == "arena 1 1.1"
    for bad in ["", "1.", ".1", "1.1.1", "v1", "1,1", "-1", "\u00b2", "1 1", "1234567890"]:
        with pytest.raises(ValueError):
            Version.parse(bad)


def test_every_referee_message_type_round_trips():
    c = ALL_CARDS
    turn = decode_referee_line(TURN_LINE)
    messages = [
        Hello(), Hello((Version(1), Version(2))), Hello((V1_1,)),
        MatchStart("m1", 1, "greedy", rules_to_wire(PRESETS["schnapsen"])),
        DealStart(3, 0),
        Played(0, c[5]), MarriageShown(1, c[2], 20), MarriageShown(0, c[9], 0), Exchanged(0, c[11]), Closed(1),
        TrickWon(0, 21), Drew(1, c[3]), Drew(0, None), Declared(1, 66),
        DealEnd(0, 3, "closed-and-reached-66", (70, 0), (3, 5)),
        turn, Turn(turn.view, turn.legal, 250, 0), decode_referee_line(TURN_LINE_11),
        MatchEnd(1, (4, 11), "target"), MatchEnd(None, (0, 0), "disconnect"),
        Error("illegal", "play As: As is not in your hand"),
        Quit(),
    ]
    assert {type(m) for m in messages} == {Hello, MatchStart, DealStart, Played, MarriageShown, Exchanged, Closed,
                                            TrickWon, Drew, Declared, DealEnd, Turn, MatchEnd, Error, Quit}
    for msg in messages:
        referee_round_trip(msg)
        if isinstance(msg, Turn) and msg.view.taken is not None:
            referee_round_trip(msg, V1_1)


def test_every_bot_message_type_round_trips():
    for msg in [BotHello(V1_0, "mybot"), BotHello(V1_1, "mybot"),
                BotHello(V1_0, "mybot", {"author": "ada", "version": "1.2"}),
                Info("depth 7 eval +0.35"), *(Reply(a) for a in ALL_ACTIONS)]:
        bot_round_trip(msg)


def test_the_protocol_docs_transcript_decodes_and_encodes_back():
    block = PROTOCOL_MD.split("<!-- transcript:start -->")[1].split("<!-- transcript:end -->")[0]
    lines = [line for line in block.splitlines() if line[:2] in ("> ", "< ")]
    assert len(lines) > 30
    for line in lines:
        text = line[2:]
        decode = decode_referee_line if line[0] == ">" else decode_bot_line
        assert encode(decode(text)) == text


def test_turn_lines_carry_exactly_the_keys_protocol_md_lists():
    """The table lists every key of a 1.1 line; those marked (1.1) are exactly the ones a 1.0 line lacks."""
    section = PROTOCOL_MD.split("### `turn")[1].split("### Events")[0]
    documented, new = set(), set()
    for first, second, since in re.findall(r"^\| `(\w+)`(?: / `(\w+)`)?( \(1\.1\))? \|", section, re.M):
        documented |= {first, second} - {""}
        if since:
            new |= {first, second} - {""}
    assert set(KEYS_11) == documented
    assert set(KEYS_10) == documented - new
    assert KEYS_10 == [k for k in KEYS_11 if k not in new]  # the 1.0 keys keep their order
    assert KEYS_10[-1] == KEYS_11[-1] == "legal"


def test_bot_line_endings_and_the_colon_form():
    play_th = Reply(Action.parse("play Th"))
    for line in ["play Th", "play Th\n", "play Th\r\n", "play Th   ", "play Th \t \r\n", "play:Th", "play:Th\r\n"]:
        assert decode_bot_line(line) == play_th, repr(line)
        assert decode_bot_bytes(line.encode()) == play_th, repr(line)
    assert decode_bot_line("exchange\r\n") == Reply(EXCHANGE)
    assert decode_bot_line("marriage:Qh  \r") == Reply(Action.parse("marriage Qh"))
    assert decode_bot_line("bot 1 mybot author=ada \r\n") == BotHello(V1_0, "mybot", {"author": "ada"})
    assert decode_bot_line("bot 1.0 mybot") == BotHello(V1_0, "mybot")
    assert decode_bot_line("bot 1.1 mybot") == BotHello(V1_1, "mybot")
    assert decode_bot_line("info searching  \r\n") == Info("searching")
    for action in ALL_ACTIONS:  # every legal= entry is a reply as it stands, and with ':' written as a space
        assert decode_bot_line(action.token()) == Reply(action)
        assert decode_bot_line(action.token().replace(":", " ")) == Reply(action)


# --------------------------------------------------------------------------------- garbage from a bot
def bot_error(line: str | bytes) -> BotProtocolError:
    with pytest.raises(BotProtocolError) as info:
        decode_bot_bytes(line) if isinstance(line, bytes) else decode_bot_line(line)
    assert not isinstance(info.value, RefereeProtocolError)
    return info.value


@pytest.mark.parametrize("line", ["", "\n", "\r\n", "   ", " \t\r\n", "hello world ~~~", "resign", "pass",
                                  "play", "play Th Qs", "exchange now", "PLAY Th", "turn seat=0", "arena 1",
                                  "play Xx", "play 1h", "play T", "play Thh", "marriage Zz", "play 9c,Th",
                                  "play:Xx", "infox"])
def test_malformed_bot_lines(line):
    assert bot_error(line).code == "malformed"


@pytest.mark.parametrize("line", ["bot", "bot x y", "bot 1 a,b", "bot 1 a=b", "bot 1", "bot -1 x", "bot 1. x",
                                  "bot .1 x", "bot 1.1.1 x", "bot 1,1 x", "bot v1.1 x", "bot 1.1", "bot 1.x y",
                                  "bot  1 x", "bot 1  x", "bot 1 x author", "bot 1 x =ada"])
def test_bad_handshake_lines(line):
    assert bot_error(line).code == "handshake"


@pytest.mark.parametrize("raw", [b"play \xff\xfe", b"\xff", b"\x80", b"play T\xc3", b"\xc0\xaf",
                                 b"\xed\xa0\x80", b"bot 1 caf\xe9", b"\xf8\x88\x80\x80\x80"])
def test_invalid_utf8_is_an_encoding_error(raw):
    assert bot_error(raw).code == "encoding"


def test_empty_bytes_are_malformed_and_valid_utf8_is_decoded():
    assert bot_error(b"").code == "malformed"
    assert decode_bot_bytes("info caf\u00e9 \u2663".encode()) == Info("caf\u00e9 \u2663")


def test_a_well_formed_action_that_is_not_legal_is_left_to_the_referee():
    """The codec accepts any well-formed action; whether it is in `legal` is the referee's check."""
    deal = Match(PRESETS["santase"], 5).new_deal()
    legal = deal.legal_actions()
    hand = set(deal.hand(deal.to_move))
    not_held = next(c for c in ALL_CARDS if c not in hand)
    for text in [f"play {not_held}", "declare", f"marriage {not_held}"]:
        reply = decode_bot_line(text)
        assert reply == Reply(Action.parse(text)) and reply.action not in legal


# ---------------------------------------------------------------------------- garbage from a referee
@pytest.mark.parametrize("line", ["", "hello", "arena x", "arena 1 ?", "arena 1 1.", "arena 1.1.1",
                                  "match", "match m1", "match m1 seat=0",
                                  "match m1 seat=x opponent=a", "match m1 seat=0 opponent=a deck", "deal",
                                  "deal 0", "deal x dealer=0", "deal 0 dealer=", "play", "play 0", "play x Th",
                                  "play 0 Xx", "marriage 0 Qc", "marriage 0 Qc x", "exchange 0 X", "trick 0",
                                  "trick 0 x", "draw 0", "draw 0 !", "declare 0", "deal-end 0 1 reached-66 1,2",
                                  "deal-end 0 1 reached-66 1 2,3", "deal-end 0 1 r 1,2 3,x", "match-end 0 1,1",
                                  "match-end 0 11 target", "match-end x 1,1 target", "error", "turn",
                                  "turn seat=0", TURN_LINE.replace("hand=9c,Jc", "hand=9c,Xx"),
                                  TURN_LINE.replace("talon=12", "talon=many"), TURN_LINE.replace("legal=", "legal=x,"),
                                  TURN_LINE.replace(" time=1000", ""), TURN_LINE.replace("led=-", "led="),
                                  TURN_LINE_11.replace("led_marriage=false", "led_marriage=yes"),
                                  TURN_LINE_11.replace(" taken=-", " taken=Xx"),
                                  TURN_LINE_11.replace("opp_pending=0", "opp_pending=x"),
                                  TURN_LINE_11.replace(" opp_taken=-", "")])
def test_malformed_referee_lines(line):
    with pytest.raises(RefereeProtocolError) as info:
        decode_referee_line(line)
    assert not isinstance(info.value, BotProtocolError)
    assert info.value.code == "malformed"


def test_encoding_an_impossible_message_is_the_referees_fault():
    for bad in [MatchStart("m 1", 0, "x", {}), MatchStart("m1", 0, "a,b", {}), MatchStart("m1", 0, "a=b", {})]:
        with pytest.raises(RefereeProtocolError) as info:
            encode(bad)
        assert info.value.code == "internal"


# ------------------------------------------------------------------------------- bugs these tests found
@pytest.mark.parametrize("line", ["bot \u00b2 x", "bot \u2460 x", "bot 1.\u00b2 x"])
def test_bot_version_with_a_superscript_digit_is_a_handshake_error(line):
    assert bot_error(line).code == "handshake"


@pytest.mark.parametrize("line", [TURN_LINE.replace("trump=c", "trump=x"),
                                  TURN_LINE.replace("marriages=-", "marriages=0x")])
def test_turn_with_an_unknown_suit_is_malformed(line):
    with pytest.raises(RefereeProtocolError):
        decode_referee_line(line)


@pytest.mark.parametrize("line", [TURN_LINE.replace("trump=c", "trump="), TURN_LINE.replace("trump=c", "trump=dh")])
def test_turn_with_a_trump_that_is_not_one_suit_is_malformed(line):
    with pytest.raises(RefereeProtocolError):
        decode_referee_line(line)


def test_close_without_a_seat_is_malformed():
    with pytest.raises(RefereeProtocolError):
        decode_referee_line("close")


def test_error_without_text_has_no_trailing_space():
    assert not encode(Error("timeout", "")).endswith(" ")


# ------------------------------------------------------------------------------------ random messages
seats = st.integers(0, 1)
counts = st.integers(0, 10**6)
cards = st.sampled_from(ALL_CARDS)
# A name: one token, no whitespace, '=' or ','. The codec's own definition is [^\s=,]+.
tokens = st.from_regex(r"[^\s=,]+", fullmatch=True)
keys = tokens.filter(lambda k: k not in ("seat", "opponent"))
values = st.from_regex(r"[^\s]*", fullmatch=True)  # a key=value value may hold '=' and ','


@st.composite
def match_starts(draw):
    rules = rules_to_wire(draw(st.sampled_from(list(PRESETS.values()))))
    extra = draw(st.dictionaries(keys, values, max_size=3))  # keys a later 1.x may add
    return MatchStart(draw(tokens), draw(seats), draw(tokens), {**rules, **extra})


@st.composite
def game_turns(draw):
    """A turn from a real game: a random preset (or a variation), a whole match of random legal actions with a
    seeded random, and one of its decisions as the seat to move saw it."""
    rules = draw(st.sampled_from(list(PRESETS.values())))
    rules = rules.with_overrides(draw(st.sampled_from([
        {}, {"declare_66": "manual"}, {"exchange_leader_only": False}, {"marriage_lead": "either"},
        {"marriage_without_trick": "void"}, {"follow_while_open": "strict"}, {"match_target": 3},
    ])))
    seed = draw(st.integers(0, 2**32))
    rng = random.Random(seed)
    match = Match(rules, seed)
    decisions = []
    while not match.over:
        deal = match.new_deal()
        while not deal.over:
            seat = deal.to_move
            legal = deal.legal_actions()
            decisions.append((deal.view(seat, match.score_for(seat)), tuple(legal)))
            deal.apply(rng.choice(legal))
        match.finish_deal()
    view, legal = decisions[draw(st.integers(0, len(decisions) - 1))]
    return Turn(view, legal, draw(st.integers(1, 60_000)), draw(st.none() | counts))


versions = st.builds(Version, st.integers(0, 10**9 - 1), st.integers(0, 10**9 - 1))


referee_messages = st.one_of(
    st.builds(Hello, st.lists(versions, min_size=1, max_size=4).map(tuple)),
    match_starts(),
    st.builds(DealStart, counts, seats),
    st.builds(Played, seats, cards),
    st.builds(MarriageShown, seats, cards, st.sampled_from([0, 20, 40])),
    st.builds(Exchanged, seats, cards),
    st.builds(Closed, seats),
    st.builds(TrickWon, seats, st.integers(0, 22)),
    st.builds(Drew, seats, st.none() | cards),
    st.builds(Declared, seats, st.integers(0, 130)),
    st.builds(DealEnd, seats, st.integers(0, 3), st.sampled_from(DEAL_END_REASONS), st.tuples(counts, counts),
              st.tuples(counts, counts)),
    game_turns(),
    st.builds(MatchEnd, st.none() | seats, st.tuples(counts, counts), st.sampled_from(("target", *TERMINATIONS))),
    # the text of an error is sent with single spaces (encode joins its words); an empty text is a known bug
    st.builds(Error, st.sampled_from(TERMINATIONS), st.lists(tokens, min_size=1, max_size=5).map(" ".join)),
    st.just(Quit()),
)

bot_messages = st.one_of(
    st.builds(BotHello, versions, tokens, st.dictionaries(keys, values, max_size=3)),
    # info text: anything on one line; trailing blanks are stripped like on every bot line
    st.builds(Info, st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"))
              .filter(lambda t: t == t.rstrip(" \t"))),
    st.builds(Reply, st.sampled_from(ALL_ACTIONS)),
)


@SETTINGS
@given(referee_messages)
def test_random_referee_messages_round_trip(msg):
    referee_round_trip(msg)


@settings(SETTINGS, max_examples=200)
@given(game_turns())
def test_random_turns_from_real_games_round_trip(turn):
    old = referee_round_trip(turn)
    new = referee_round_trip(turn, V1_1)
    for line in (old, new):
        assert line.startswith(f"turn seat={turn.view.seat} ")
        assert len(line.encode()) <= MAX_LINE_BYTES
    assert [t.split("=")[0] for t in old.split()[1:]] == KEYS_10
    assert [t.split("=")[0] for t in new.split()[1:]] == KEYS_11
    assert [t for t in new.split()[1:] if t.split("=")[0] in KEYS_10] == old.split()[1:]  # 1.1 only adds


@SETTINGS
@given(bot_messages)
def test_random_bot_messages_round_trip(msg):
    bot_round_trip(msg)


# ---------------------------------------------------------------------- arbitrary input: typed errors only
prefixes = st.sampled_from(["", "bot ", "bot 1 ", "play ", "play:", "marriage ", "info ", "exchange", "close"])
texts = st.builds(lambda p, t: p + t, prefixes, st.text())


def _decodes_or_protocol_error(decode, arg, error_class):
    try:
        return decode(arg)
    except ProtocolError as e:
        assert isinstance(e, error_class), (arg, e)
        assert e.code in ("malformed", "handshake", "encoding"), (arg, e.code)
        return None


@settings(SETTINGS, max_examples=300)
@given(texts)
@example("bot 1 x y=z=w,v")
@example("play:Th:Qs")
def test_arbitrary_text_from_a_bot_gives_a_message_or_a_bot_protocol_error(text):
    _decodes_or_protocol_error(decode_bot_line, text, BotProtocolError)


@settings(SETTINGS, max_examples=300)
@given(st.one_of(st.binary(), st.builds(lambda t: t.encode(), texts),
                 st.builds(lambda t, b: t.encode() + b, texts, st.binary(max_size=4))))
def test_arbitrary_bytes_from_a_bot_give_a_message_or_a_bot_protocol_error(raw):
    msg = _decodes_or_protocol_error(decode_bot_bytes, raw, BotProtocolError)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        assert msg is None


referee_prefixes = st.sampled_from(["", "arena ", "match ", "deal ", "turn ", "deal-end ", "match-end ", "error ",
                                    "play ", "marriage ", "exchange ", "close ", "trick ", "draw ", "declare "])


@settings(SETTINGS, max_examples=300)
@given(st.builds(lambda p, t: p + t, referee_prefixes, st.text()))
def test_arbitrary_text_from_a_referee_gives_a_message_or_a_referee_protocol_error(text):
    _decodes_or_protocol_error(decode_referee_line, text, RefereeProtocolError)


@settings(SETTINGS, max_examples=300)
@given(st.sampled_from(KEYS_11),
       st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n")))
def test_a_turn_with_one_garbled_value_gives_a_turn_or_a_referee_protocol_error(key, value):
    line = re.sub(rf"(?<= ){key}=\S*", lambda _: f"{key}={value}", TURN_LINE_11)
    _decodes_or_protocol_error(decode_referee_line, line, RefereeProtocolError)


# ------------------------------------------------------------------------------------------ LineSplitter
line_bodies = st.binary(max_size=80).map(lambda b: b.replace(b"\n", b""))


@st.composite
def chunked(draw, data: bytes):
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=12)))
    edges = [0, *cuts, len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:], strict=False)]


@SETTINGS
@given(st.data(), st.lists(line_bodies, max_size=10), line_bodies)
def test_lines_split_across_any_chunks_reassemble_exactly(data, lines, tail):
    stream = b"".join(line + b"\n" for line in lines) + tail
    splitter = LineSplitter()
    got = []
    for chunk in data.draw(chunked(stream)):
        got += splitter.feed(chunk)
    assert got == lines
    assert splitter.pending == tail


def test_line_length_limit_is_4096_bytes_without_the_newline():
    assert MAX_LINE_BYTES == 4096
    ok = b"x" * MAX_LINE_BYTES
    assert LineSplitter().feed(ok + b"\n") == [ok]
    s = LineSplitter()
    assert s.feed(ok) == [] and s.pending == ok
    for data in (ok + b"x", ok + b"x\n", b"play Th\n" + ok + b"xx\n"):
        with pytest.raises(BotProtocolError) as info:
            LineSplitter().feed(data)
        assert info.value.code == "overlong"


@SETTINGS
@given(st.data(), st.lists(line_bodies, max_size=4), st.integers(MAX_LINE_BYTES + 1, 3 * MAX_LINE_BYTES),
       st.booleans())
def test_an_overlong_line_in_any_chunks_is_overlong(data, before, length, newline):
    stream = b"".join(line + b"\n" for line in before) + b"y" * length + (b"\n" if newline else b"")
    splitter = LineSplitter()
    got = []
    with pytest.raises(BotProtocolError) as info:
        for chunk in data.draw(chunked(stream)):
            got += splitter.feed(chunk)
    assert info.value.code == "overlong"
    assert got == before[: len(got)]  # lines before the long one may come out first, never anything else
