"""The protocol session (arena.protocol.session): what each line from a bot means, with no bot and no pipe.

The referee's behaviour tests (test_referee, test_bad_input, test_protocol_11) play real misbehaving bots
through real pipes; these give every rule of the conversation its own case, in microseconds.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.game import Deal, preset, shuffled_deck
from arena.protocol import messages as m
from arena.protocol.session import Expect, ProtocolSession, Termination, Violation

RULES = preset("santase")


def legal_now() -> list:
    deal = Deal(RULES, shuffled_deck(RULES, 7, 0), 1)
    return deal.legal_actions()


def say(session: ProtocolSession, line: str):
    raw = line.encode()
    return session.receive(session.decode(raw), raw)


def violation(session: ProtocolSession, line: str) -> Violation:
    with pytest.raises(Violation) as info:
        say(session, line)
    return info.value


# ------------------------------------------------------------------------------------------ the handshake


def test_a_hello_with_an_offered_version_ends_the_handshake() -> None:
    s = ProtocolSession()
    s.asked_hello()
    assert isinstance(say(s, "info loading"), m.Info) and s.expect is Expect.HELLO  # commentary first is fine
    hello = say(s, "bot 1.1 mybot")
    assert isinstance(hello, m.BotHello) and s.version == m.V1_1 and s.hello is hello
    assert s.expect is Expect.NOTHING


@pytest.mark.parametrize(("line", "detail"), [
    ("Loading model...", "expected 'bot <version> <name>', got Loading model..."),
    ("play Th", "expected 'bot <version> <name>', got play Th"),
    ("bot 2 x", "version 2 is not offered (the referee speaks 1 1.1)"),
])
def test_anything_but_an_offered_hello_is_the_handshakes_fault(line: str, detail: str) -> None:
    s = ProtocolSession()
    s.asked_hello()
    v = violation(s, line)
    assert (v.kind, v.detail, v.line) == (Termination.HANDSHAKE, detail, line)
    assert s.hello is None and s.version == m.V1_0


def test_bytes_that_are_no_line_at_all_keep_their_own_name_even_in_the_handshake() -> None:
    s = ProtocolSession()
    s.asked_hello()
    with pytest.raises(Violation) as info:
        s.decode(b"bot 1 \xff\xfe")
    assert info.value.kind is Termination.ENCODING


# ------------------------------------------------------------------------------------------ a turn


def test_a_legal_reply_is_the_action_itself_and_ends_the_turn() -> None:
    s = ProtocolSession()
    legal = legal_now()
    s.asked_turn(legal)
    wanted = next(a for a in legal if a.token().startswith("play"))
    action = say(s, wanted.token().replace(":", " "))
    assert action is wanted and s.expect is Expect.NOTHING


def test_an_illegal_action_names_every_legal_one() -> None:
    s = ProtocolSession()
    legal = legal_now()
    s.asked_turn(legal)
    held = {a.token() for a in legal}
    card = next(c for c in ("9c", "Jc", "Qc", "Kc", "Tc", "Ac", "9d", "Jd") if f"play:{c}" not in held)
    v = violation(s, f"play {card}")
    assert v.kind is Termination.ILLEGAL
    assert v.detail == f"play {card} is not legal now; legal: {', '.join(str(a) for a in legal)}"
    assert s.expect is Expect.REPLY  # (the referee ends the bot; the session does not pretend it answered)


def test_a_hello_instead_of_an_action_is_malformed() -> None:
    s = ProtocolSession()
    s.asked_turn(legal_now())
    v = violation(s, "bot 1 again")
    assert (v.kind, v.detail) == (Termination.MALFORMED, "expected an action")


def test_commentary_may_come_at_any_time_and_changes_nothing() -> None:
    s = ProtocolSession()
    for ask in (None, s.asked_hello, lambda: s.asked_turn(legal_now())):
        if ask:
            ask()
        before = s.expect
        assert isinstance(say(s, "info depth=3 score=+0.4"), m.Info) and s.expect is before


# ------------------------------------------------------------------------------------------ unasked


@pytest.mark.parametrize("line", ["play Th", "close", "bot 1 x"])
def test_a_message_when_nothing_was_asked_is_unexpected(line: str) -> None:
    s = ProtocolSession()
    v = violation(s, line)
    assert (v.kind, v.detail, v.line) == (Termination.UNEXPECTED, "a line arrived when no decision was asked for",
                                          line)


def test_a_second_reply_to_one_turn_is_unexpected() -> None:
    s = ProtocolSession()
    legal = legal_now()
    s.asked_turn(legal)
    say(s, legal[-1].token().replace(":", " "))
    assert violation(s, legal[-1].token().replace(":", " ")).kind is Termination.UNEXPECTED


def test_garbage_is_malformed_whenever_it_comes() -> None:
    s = ProtocolSession()
    assert violation(s, "hello there").kind is Termination.MALFORMED
    s.asked_turn(legal_now())
    assert violation(s, "hello there").kind is Termination.MALFORMED


# ------------------------------------------------------------------------------------------ silence, exits


def test_no_answer_names_what_was_asked() -> None:
    s = ProtocolSession()
    s.asked_hello()
    v = s.no_answer()
    assert (v.kind, v.detail) == (Termination.HANDSHAKE, "no answer to the handshake in time")
    s.asked_turn(legal_now())
    v = s.no_answer(only_info=True)
    assert (v.kind, v.detail) == (Termination.TIMEOUT, "no answer to the turn in time (only info lines)")


def test_an_ended_stream_is_a_crash_when_the_bot_exited_and_a_disconnect_when_it_lives() -> None:
    s = ProtocolSession()
    v = s.ended(True, "exited with status 3")
    assert (v.kind, v.detail) == (Termination.CRASH, "the bot exited with status 3")
    s.asked_turn(legal_now())
    v = s.ended(True, "was killed by signal SIGKILL")
    assert v.detail == "the bot was killed by signal SIGKILL while the referee waited for the turn"
    assert s.ended(False, "").kind is Termination.DISCONNECT


@given(st.binary(max_size=300), st.sampled_from(["nothing", "hello", "turn"]))
def test_any_bytes_end_in_a_meaning_or_a_named_violation(raw: bytes, state: str) -> None:
    s = ProtocolSession()
    if state == "hello":
        s.asked_hello()
    elif state == "turn":
        s.asked_turn(legal_now())
    try:
        said = s.receive(s.decode(raw), raw)
    except Violation as v:
        assert v.kind in set(Termination) and v.detail
    else:
        assert isinstance(said, m.Info | m.BotHello) or said in legal_now()
