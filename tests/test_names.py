"""Names as values: Termination, DealEndReason and ViolationPolicy are enums whose text is what users, bots and
the database have always seen; the drawn-card rule of game/views.py is the one the codec applies."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT

from arena.game import PLAY, Card, Deal, DealEndReason, Event, preset, shuffled_deck
from arena.game.views import drawn_card_seen
from arena.protocol import messages as m
from arena.protocol.codec import BotProtocolError, LineSplitter, decode_bot_bytes, encode, event_message
from arena.records import parse_actions
from arena.referee.policy import ViolationPolicy
from arena.referee.record import BotTermination, DealRecord, MatchRecord, Termination
from arena.tournament.config import ConfigFileError, parse_config

# The texts as they were before they became enums (databases, configs and bots hold them).
TERMINATION_TEXTS = ("handshake", "timeout", "malformed", "overlong", "encoding", "illegal", "unexpected", "crash",
                     "disconnect", "tampered")
DEAL_END_TEXTS = ("reached 66", "declared 66", "closed and reached 66", "closed and declared 66", "wrong declaration",
                  "failed close", "last trick", "more points", "forfeit")
POLICY_TEXTS = ("lose-match", "lose-deal", "random-move")


@pytest.mark.parametrize("enum, texts", [(Termination, TERMINATION_TEXTS), (DealEndReason, DEAL_END_TEXTS),
                                         (ViolationPolicy, POLICY_TEXTS)])
def test_each_enum_keeps_its_text(enum: type, texts: tuple[str, ...]) -> None:
    members = list(enum)  # type: ignore[call-overload]
    assert [member.value for member in members] == list(texts)
    for member, text in zip(members, texts, strict=True):
        assert member == text and str(member) == text and f"{member}" == text
        assert json.dumps(member) == json.dumps(text)
        assert enum(text) is member


def test_the_protocol_doc_lists_every_termination_and_deal_end_reason() -> None:
    doc = (ROOT / "docs/PROTOCOL.md").read_text()
    for t in Termination:
        assert f"`{t}`" in doc
    for r in DealEndReason:  # on the wire a space is a '-'
        assert f"`{r.replace(' ', '-')}`" in doc
    line = encode(m.DealEnd(0, 3, DealEndReason.CLOSED_AND_REACHED_66, (70, 0), (3, 5)))
    assert line == "deal-end 0 3 closed-and-reached-66 70,0 3,5"


def test_every_protocol_error_of_a_bot_is_a_termination() -> None:
    # The session turns a BotProtocolError's code into a Termination: each code must be one.
    bad: list[bytes] = [b"hello world", b"bot x", b"\xff\xfe", b"play Xx"]
    codes = set()
    for raw in bad:
        with pytest.raises(BotProtocolError) as info:
            decode_bot_bytes(raw)
        codes.add(info.value.code)
    with pytest.raises(BotProtocolError) as info:
        LineSplitter(max_line=8).feed(b"x" * 20)
    codes.add(info.value.code)
    assert codes == {"malformed", "handshake", "encoding", "overlong"}
    assert all(Termination(code) for code in codes)


def test_a_match_record_round_trips_through_json_with_its_enums() -> None:
    rec = MatchRecord(
        match_id="m1", bots=("a", "b"), rules=preset("santase"), deal_seed=1, match_seed=2, winner=1,
        score=(0, 11), reason=Termination.TIMEOUT,
        deals=[DealRecord(0, Card.parse("Ah"), (), parse_actions(["0:play:Th"]), None, None, "forfeit", None, None)],
        terminations=[BotTermination(Termination.TIMEOUT, 0, "a", "no answer to the turn in time", None, 0, 12.5)],
    )
    again = MatchRecord.from_dict(json.loads(json.dumps(rec.to_dict())))
    assert again == rec
    assert again.terminations[0].kind is Termination.TIMEOUT and again.reason is Termination.TIMEOUT
    empty = MatchRecord("m", ("a", "b"), preset("santase"), 0, 0)
    assert MatchRecord.from_dict(json.loads(json.dumps(empty.to_dict()))).reason == "target"


def test_the_policy_names_in_the_config_and_on_the_command_line() -> None:
    base = ("name: t\nbots:\n  - {name: a, command: python bots/random.py}\n"
            "  - {name: b, command: python bots/random.py}\n")
    assert parse_config(base, ROOT / "t.yaml").on_violation is ViolationPolicy.LOSE_MATCH
    for text in POLICY_TEXTS:
        config = parse_config(base + f"on_violation: {text}\n", ROOT / "t.yaml")
        assert config.on_violation is ViolationPolicy(text)
    with pytest.raises(ConfigFileError) as info:
        parse_config(base + "on_violation: lose\n", ROOT / "t.yaml")
    assert "did you mean 'lose-deal'?); expected lose-match | lose-deal | random-move" in str(info.value)
    result = subprocess.run([sys.executable, "-m", "arena", "match", "a", "b", "--policy", "lose"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "(choose from 'lose-match', 'lose-deal', 'random-move')" in result.stderr


def test_only_the_drawer_and_the_face_up_card_are_seen() -> None:
    th, qs, ah = Card.parse("Th"), Card.parse("Qs"), Card.parse("Ah")
    assert drawn_card_seen(th, drawer=0, viewer=0, face_up=ah) == th
    assert drawn_card_seen(th, drawer=0, viewer=1, face_up=ah) is None
    assert drawn_card_seen(ah, drawer=0, viewer=1, face_up=ah) == ah  # the turned card both seats saw
    assert drawn_card_seen(qs, drawer=1, viewer=0, face_up=None) is None
    # the codec applies that rule
    assert event_message(Event("draw", 0, th), 1, ah) == m.Drew(0, None)
    assert event_message(Event("draw", 0, th), 0, ah) == m.Drew(0, th)
    assert event_message(Event("draw", 1, ah), 0, ah) == m.Drew(1, ah)


def test_the_last_draw_of_a_deal_shows_the_turned_card_to_both_seats() -> None:
    rules = preset("santase")
    for seed in range(100):  # the first deal in which plain play empties the talon
        deal = Deal(rules, shuffled_deck(rules, seed, 0), 0)
        turned = deal.trump_card
        opponent_saw: list[Card] = []
        while deal.talon and not deal.over:
            before = len(deal.events)
            legal = deal.legal_actions()
            deal.apply(next(a for a in legal if a in PLAY))  # no exchange, no close
            for ev in deal.events[before:]:
                for viewer in (0, 1):
                    msg = event_message(ev, viewer, deal.trump_card)
                    if isinstance(msg, m.Drew) and ev.seat != viewer and msg.card is not None:
                        opponent_saw.append(msg.card)
        if not deal.talon:
            assert opponent_saw == [turned]
            return
    pytest.fail("no deal emptied its talon")
