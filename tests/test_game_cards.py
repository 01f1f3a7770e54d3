"""Cards and actions: the two-letter text form every other part of arena (protocol, database, reports) uses."""

from __future__ import annotations

import pytest

from arena.game import (
    ALL_CARDS,
    CLOSE,
    DECLARE,
    EXCHANGE,
    MARRIAGE,
    PLAY,
    Action,
    ActionSyntaxError,
    Card,
    CardError,
    Deal,
    full_deck,
    parse_seat_action,
    preset,
)
from arena.game.cards import card_list, format_cards, mask_of, mask_points, parse_cards


def test_there_are_24_distinct_cards_with_two_letter_names() -> None:
    names = [str(c) for c in ALL_CARDS]
    assert len(set(names)) == 24
    assert all(len(n) == 2 for n in names)
    assert {n[0] for n in names} == set("9JQKTA")
    assert {n[1] for n in names} == set("cdhs")


@pytest.mark.parametrize("card", ALL_CARDS, ids=str)
def test_parse_of_str_gives_back_the_card(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert Card.parse(str(card)) is card  # interned
    assert eval(repr(card)) == card  # the repr can be pasted back


def test_parse_accepts_either_case() -> None:
    assert Card.parse("th") == Card.parse("Th") == Card.parse("TH")
    assert Card.parse("qS") == Card.parse("Qs")


@pytest.mark.parametrize("text", ["", "T", "10h", "Xh", "Tx", "Th ", " Th", "hT", "1h", "♥T"])
def test_parse_of_a_bad_string_raises_card_error_naming_the_string(text: str) -> None:
    with pytest.raises(CardError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError)  # callers that only know ValueError still catch it


def test_card_points_and_trick_order_follow_the_seeds() -> None:
    # Seed 002: "9's = 0 points  J = 2 points  Q = 3 points  K = 4 points  10's = 10 points  A = 11 points"
    # and "a ten is more powerful than a jack, queen or king"; seed 003: "Trick rank from high to low:
    # A, 10, K, Q, J, 9."
    points = {r: Card.parse(r + "h").points for r in "9JQKTA"}
    assert points == {"9": 0, "J": 2, "Q": 3, "K": 4, "T": 10, "A": 11}
    hearts = [Card.parse(r + "h") for r in "9JQKTA"]
    assert [c.rank for c in hearts] == sorted(c.rank for c in hearts)
    assert sum(c.points for c in ALL_CARDS) == 120


def test_full_decks_of_the_presets() -> None:
    # Seed 002: "You will only use the 9's, 10's, J's, Q's, K's, and Aces (24 cards, all suits)."
    assert len(full_deck(preset("santase"))) == 24
    assert len(full_deck(preset("sixty-six"))) == 24
    # Seed 003, Schnapsen: "It uses only 20 cards (Ace down to 10 in each suit, with no 9s)": the 24 card
    # deck without its four 9s, i.e. J Q K T A of each suit.
    schnapsen = full_deck(preset("schnapsen"))
    assert len(schnapsen) == 20
    assert not any(str(c)[0] == "9" for c in schnapsen)
    assert sum(c.points for c in schnapsen) == 120


def test_card_set_helpers() -> None:
    cards = parse_cards("Ah Th 9c")
    m = mask_of(cards)
    assert mask_points(m) == 21
    assert card_list(m) == sorted(cards)
    assert format_cards(card_list(m)) == "9c Th Ah"
    assert mask_points(mask_of(ALL_CARDS)) == 120


# ------------------------------------------------------------------ actions


@pytest.mark.parametrize(
    "text, action",
    [
        ("play Th", PLAY[Card.parse("Th")]),
        ("marriage Qh", MARRIAGE[Card.parse("Qh")]),
        ("exchange", EXCHANGE),
        ("close", CLOSE),
        ("declare", DECLARE),
    ],
)
def test_action_text_round_trips(text: str, action: Action) -> None:
    assert Action.parse(text) is action
    assert str(action) == text


def test_every_play_and_marriage_round_trips() -> None:
    for c in ALL_CARDS:
        for a in (PLAY[c], MARRIAGE[c]):
            assert Action.parse(str(a)) is a


@pytest.mark.parametrize("text", ["", "play", "play Xh", "marriage", "lead Th", "Play Th", "close now", "66"])
def test_bad_action_text_raises_action_syntax_error(text: str) -> None:
    with pytest.raises(ActionSyntaxError) as info:
        Action.parse(text)
    assert isinstance(info.value, ValueError)
    if "X" in text:
        assert "'Xh'" in str(info.value)  # the bad card is named


ALL_ACTIONS = [*PLAY, *MARRIAGE, EXCHANGE, CLOSE, DECLARE]


@pytest.mark.parametrize(
    "token, action",
    [("play:Th", PLAY[Card.parse("Th")]), ("marriage:Qh", MARRIAGE[Card.parse("Qh")]), ("exchange", EXCHANGE),
     ("close", CLOSE), ("declare", DECLARE)],
)
def test_action_token_is_one_word_with_a_colon(token: str, action: Action) -> None:
    # the form of the protocol's legal= list and of the database's action log
    assert action.token() == token
    assert Action.parse(token) is action


def test_every_action_parses_back_from_its_token_and_its_text() -> None:
    for a in ALL_ACTIONS:
        assert Action.parse(a.token()) is a
        assert Action.parse(str(a)) is a
        assert " " not in a.token() and "," not in a.token()


@pytest.mark.parametrize("token", ["play:", "play:Xh", ":Th", "play:Th:Qs", "close:Th", "lead:Th",
                                   "play:Th,play:Qs"])
def test_a_bad_token_is_a_syntax_error_not_an_illegal_action(token: str) -> None:
    with pytest.raises(ActionSyntaxError):
        Action.parse(token)


def test_a_seat_action_log_entry_round_trips() -> None:
    deal = Deal(preset("santase"), full_deck(preset("santase")), 0)
    seat = deal.to_move
    action = deal.legal_actions()[0]
    deal.apply(action)
    entry = deal.record()["actions"][0]  # type: ignore[index]
    assert entry == f"{seat}:{action.token()}"
    assert parse_seat_action(entry) == (seat, action)
    for bad in ("2:play:Th", "play:Th", "0 play Th", "0:play Th:x"):
        with pytest.raises(ValueError):
            parse_seat_action(bad)


def test_display_is_how_people_read_a_card() -> None:
    assert Card.parse("Th").display() == "10\u2665" and Card.parse("As").display(symbols=False) == "As"
    assert Card.parse("9c").display(symbols=False) == "9c" and Card.parse("Td").display(symbols=False) == "10d"
