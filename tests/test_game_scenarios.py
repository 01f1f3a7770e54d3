"""Worked deals for each preset, built from hand-made decks, each checking one sentence of the seed texts.

Seeds: 000 = the santase site, 002 = the santase rules text, 003 = Jaques of London's Sixty-Six rules with
the Schnapsen variation. docs/RULES.md cites the same sentences per preset.

How to read a scenario: seat 1 deals, so seat 0 (N, the non-dealer) holds the first hand written and
leads the first trick; seat 1 (D) holds the second. ``turned`` is the face-up trump card; ``talon`` is the
order of the first cards drawn (the rest of the deck follows in card order). After every trick the winner
draws first. Moves are written "<seat> <action>" exactly as the protocol spells the action.

Card points: A 11, T 10, K 4, Q 3, J 2, 9 0.
"""

from __future__ import annotations

import pytest

from arena.game import (
    DECLARE,
    Action,
    Card,
    Deal,
    DealResult,
    IllegalActionError,
    Match,
    RuleSet,
    full_deck,
    preset,
    shuffled_deck,
)

SANTASE = preset("santase")
SIXTY_SIX = preset("sixty-six")
SCHNAPSEN = preset("schnapsen")
SIX_CARD_PRESETS = [SANTASE, SIXTY_SIX]  # 24 cards, free play while the talon is open
ALL_PRESETS = [SANTASE, SIXTY_SIX, SCHNAPSEN]
N, D = 0, 1


def rid(rules: RuleSet) -> str:
    return rules.name


def deal_from(rules: RuleSet, n: str, d: str, turned: str, talon: str = "") -> Deal:
    """Deal ``n`` to the non-dealer (seat 0) and ``d`` to the dealer (seat 1), in the rules' batches."""
    n_cards, d_cards = n.split(), d.split()
    order: list[str] = []
    pos = 0
    for batch in rules.deal_batches:  # seed 003: "Deal six cards to each player in two batches of three"
        order += n_cards[pos:pos + batch] + d_cards[pos:pos + batch]
        pos += batch
    order.append(turned)
    order += talon.split()
    cards = [Card.parse(t) for t in order]
    assert len(set(cards)) == len(cards), "a card is written twice"
    deck = cards + [c for c in full_deck(rules) if c not in cards]
    deal = Deal(rules, deck, dealer=D)
    assert sorted(map(str, deal.hand(N))) == sorted(n_cards)
    assert sorted(map(str, deal.hand(D))) == sorted(d_cards)
    return deal


def move(deal: Deal, *moves: str) -> Deal:
    for m in moves:
        seat, text = m.split(" ", 1)
        deal.apply(Action.parse(text), int(seat))
    return deal


def legal(deal: Deal, seat: int, kind: str | None = None) -> list[str]:
    return [str(a) for a in deal.legal_actions(seat) if kind is None or a.kind == kind]


def plays(deal: Deal, seat: int) -> set[str]:
    return {str(a)[5:] for a in deal.legal_actions(seat) if a.kind == "play"}


def hand(deal: Deal, seat: int) -> set[str]:
    return {str(c) for c in deal.hand(seat)}


def points(deal: Deal) -> tuple[int, int]:
    return deal.view(N).points


def result(deal: Deal) -> tuple[int, int, str]:
    r = deal.result
    assert r is not None, "the deal is not over"
    return r.winner, r.game_points, r.reason


def finish(deal: Deal) -> Deal:
    """Play on with the first legal card (never declaring) until the deal ends."""
    while not deal.over:
        seat = deal.to_move
        deal.apply(next(a for a in deal.legal_actions(seat) if a.kind == "play"), seat)
    return deal


def declare_if_manual(deal: Deal, seat: int) -> Deal:
    if deal.rules.declare_66 == "manual":
        assert not deal.over  # seed 003: play stops only when the player declares
        deal.apply(DECLARE, seat)
    return deal


# =================================================================== dealing and drawing


@pytest.mark.parametrize("rules", ALL_PRESETS, ids=rid)
def test_the_deal_the_turned_trump_and_who_leads(rules: RuleSet) -> None:
    deck = full_deck(rules)
    deal = Deal(rules, deck, dealer=D)
    size = rules.hand_size
    # Seed 003: "Turn the thirteenth card face up ... The suit of this card is trump for the hand." With five
    # cards each (Schnapsen) it is the eleventh.
    assert deal.trump_card == deck[2 * size]
    assert deal.view(N).trump_card == deck[2 * size]
    assert deal.view(N).trump_suit == deck[2 * size].suit
    # Seed 000: "the remaining 12 form the talon"; Schnapsen 20 - 2 * 5 = 10.
    assert deal.view(N).talon_size == len(deck) - 2 * size
    # Seed 003: "The non-dealer leads the first trick."
    assert deal.to_move == N
    assert deal.legal_actions(D) == []
    # Seed 003: "Deal six cards to each player in two batches of three" (non-dealer first).
    first = rules.deal_batches[0]
    assert set(deck[:first]) <= set(deal.hand(N))
    assert set(deck[first:2 * first]) <= set(deal.hand(D))


@pytest.mark.parametrize("rules", SIX_CARD_PRESETS, ids=rid)
def test_the_winner_draws_first_and_the_loser_of_the_sixth_trick_gets_the_trump_card(rules: RuleSet) -> None:
    # Seed 000: "After every trick the winner draws first and then the loser; the turned trump sits at the
    # bottom of the talon." Seed 003: "Players always hold six cards while the stock lasts."
    deal = deal_from(rules, "Ah 9c 9d 9s Jc Jd", "9h Qc Qd Qs Kc Kd", turned="Js", talon="Ac Ad")
    move(deal, "0 play Ah", "1 play 9h")  # N wins and draws Ac first; D draws Ad
    assert "Ac" in hand(deal, N) and "Ad" in hand(deal, D)
    assert len(hand(deal, N)) == len(hand(deal, D)) == 6
    for _ in range(5):  # five more tricks empty the talon
        assert not deal.over and deal.view(N).talon_size > 0
        seat = deal.to_move
        move(deal, f"{seat} {legal(deal, seat, 'play')[0]}")
        other = deal.to_move
        move(deal, f"{other} {legal(deal, other, 'play')[0]}")
    assert deal.view(N).talon_size == 0
    sixth_trick_loser = 1 - deal.to_move
    assert "Js" in hand(deal, sixth_trick_loser)
    # The face-up card was seen by both, so the winner of that trick knows where it is.
    assert Card.parse("Js") in deal.view(1 - sixth_trick_loser).opponent_known
    assert deal.view(N).trump_card is None
    # Seed 002 (the run-off): "Once no more cards are available in the deck ... If the other player has a
    # card of the same suit they must play it. If they do not, they must play a card from the trump suit if
    # they have one."
    if deal.over:
        return
    leader = deal.to_move
    led = Card.parse(legal(deal, leader, "play")[0][5:])
    move(deal, f"{leader} play {led}")
    answer = {Card.parse(c) for c in hand(deal, 1 - leader)}
    same = {c for c in answer if c.suit == led.suit}
    higher = {c for c in same if c.rank > led.rank}
    trumps = {c for c in answer if c.suit == deal.trump}
    expected = higher or same or trumps or answer
    assert plays(deal, 1 - leader) == {str(c) for c in expected}


# =================================================================== exchanging the trump card


@pytest.mark.parametrize("rules", SIX_CARD_PRESETS, ids=rid)
def test_exchange_the_nine_of_trumps(rules: RuleSet) -> None:
    # Seed 002: "If you have the 9 of the trump suit in your hand you may exchange it for the displayed
    # trump card." Seed 003: "The 9 must be shown and the swap is declared openly."
    deal = deal_from(rules, "9h Kc Qc Ts Js 9d", "Ac Tc As Ks Qd Jd", turned="Ah")
    assert "exchange" in legal(deal, N)
    move(deal, "0 exchange")
    assert "Ah" in hand(deal, N) and "9h" not in hand(deal, N)
    assert deal.view(D).trump_card == Card.parse("9h")  # the 9 now lies face up
    assert deal.view(D).opponent_known == (Card.parse("Ah"),)  # D saw N take the ace
    assert deal.view(N).trump_suit == Card.parse("Ah").suit  # the trump suit stays
    assert "exchange" not in legal(deal, N)  # one 9 of trumps, one exchange
    move(deal, "0 play Ah")
    assert deal.view(D).opponent_known == ()  # the ace is on the table, no longer in N's hand


def test_exchange_the_jack_of_trumps_in_schnapsen() -> None:
    # Seed 003 (Schnapsen): "20 cards ... with no 9s", so there is no 9 of trumps; established Schnapsen
    # exchanges the jack of trumps instead.
    deal = deal_from(SCHNAPSEN, "Jh Kc Qc Ts Js", "Ac Tc As Ks Qd", turned="Ah")
    assert "exchange" in legal(deal, N)
    move(deal, "0 exchange")
    assert "Ah" in hand(deal, N)
    assert deal.view(D).trump_card == Card.parse("Jh")


@pytest.mark.parametrize("rules", ALL_PRESETS, ids=rid)
def test_only_the_player_on_lead_may_exchange(rules: RuleSet) -> None:
    # Seed 002: "But only if you are leading the turn, and only at the start of your turn." Seed 003 (the
    # fine points): "it is only legal at the start of the holder's turn, before any lead".
    if rules.deck == "24":
        deal = deal_from(rules, "Kc Qc Ts Js Jd Qd", "9h Ac Tc As Ks Kd", turned="Ah", talon="Qh Kh")
    else:  # Schnapsen: the jack of trumps
        deal = deal_from(rules, "Kc Qc Ts Js Jd", "Jh Ac Tc As Ks", turned="Ah", talon="Qh Kh")
    move(deal, "0 play Kc")
    assert "exchange" not in legal(deal, D)  # D answers the trick: no exchange
    move(deal, "1 play Ac")  # D wins, draws first and is on lead
    assert "exchange" in legal(deal, D)
    move(deal, "1 exchange")
    assert "Ah" in hand(deal, D)


@pytest.mark.parametrize("rules", SIX_CARD_PRESETS, ids=rid)
def test_no_exchange_once_the_talon_is_closed(rules: RuleSet) -> None:
    # Seed 003: "only while the stock is open".
    deal = deal_from(rules, "9h Kc Qc Ts Js 9d", "Ac Tc As Ks Qd Jd", turned="Ah")
    move(deal, "0 close")
    assert "exchange" not in legal(deal, N)
    with pytest.raises(IllegalActionError) as info:
        move(deal, "0 exchange")
    assert info.value.rule == "exchange"


# =================================================================== marriages


def test_santase_marriage_before_the_first_trick_waits_for_it() -> None:
    # Seed 000: "King + Queen of a plain suit = 20 points ... They count only after you have taken at least
    # one trick." Seed 002: "Leave the queen down and take back the king" - the queen is led.
    deal = deal_from(SANTASE, "Qc Kc 9d Jd Ah Th", "Ac Tc Ad Td 9h Jh", turned="As")
    assert "marriage Qc" in legal(deal, N)
    assert deal.marriage_worth(N, Card.parse("Qc").suit) == 20  # pending, but worth it
    assert "marriage Kc" not in legal(deal, N)
    move(deal, "0 marriage Qc")
    assert deal.view(N).points == (0, 0)  # no trick yet: nothing counts ...
    assert deal.view(N).pending_marriage == 20  # ... but the 20 wait for N's first trick
    assert deal.view(D).marriages == ((N, Card.parse("Qc").suit),)
    assert Card.parse("Kc") in deal.view(D).opponent_known  # the king was shown
    move(deal, "1 play Ac")  # D wins 11 + 3
    move(deal, "1 play 9h", "0 play Ah")  # N's first trick: 11, and the marriage counts now
    assert points(deal) == (11 + 20, 14)
    assert deal.view(N).pending_marriage == 0


@pytest.mark.parametrize("rules", [SIXTY_SIX, SCHNAPSEN], ids=rid)
def test_sixty_six_marriage_before_the_first_trick_scores_nothing(rules: RuleSet) -> None:
    # Seed 003: "Marriage points count only if the declaring player has already won at least one trick."
    # and "A player who has taken no tricks cannot claim marriage points, though they may still show the
    # pair and lead from it." Seed 003: "Show both cards and lead one of them" - either card.
    n, d = ("Qc Kc 9d Jd Ah Th", "Ac Tc Ad Td 9h Jh") if rules.deck == "24" else (
        "Qc Kc Jd Ah Th", "Ac Tc Ad Td Jh")
    deal = deal_from(rules, n, d, turned="As")
    assert {"marriage Qc", "marriage Kc"} <= set(legal(deal, N))
    assert deal.marriage_worth(N, Card.parse("Qc").suit) == 0  # what its button says
    move(deal, "0 marriage Qc")
    assert deal.view(N).pending_marriage == 0
    move(deal, "1 play Ac")  # D wins 14 (in Schnapsen D must head the queen: Ac does)
    move(deal, "1 play Jh", "0 play Ah")  # N's first trick: 13 points, the marriage stays void
    assert points(deal) == (13, 14)


@pytest.mark.parametrize("rules", ALL_PRESETS, ids=rid)
def test_marriage_after_a_won_trick_counts_at_once_and_trump_marriage_is_40(rules: RuleSet) -> None:
    # Seed 000: "King + Queen of a plain suit = 20 points; of the trump suit = 40 points." Seed 003:
    # "Points for a declared marriage are added to the player's running total immediately".
    # Trump spades. N first wins Ah + Jh = 13.
    n, d = ("Ah Qs Ks Qc Kc 9d", "Jh 9h Ad Td Jd Tc") if rules.deck == "24" else (
        "Ah Qs Ks Qc Kc", "Jh Ad Td Jd Tc")
    deal = deal_from(rules, n, d, turned="As", talon="Qh Kh Kd Jc")
    move(deal, "0 play Ah", "1 play Jh")
    assert points(deal) == (13, 0)
    move(deal, "0 marriage Qc")  # a plain marriage: +20 at once
    assert points(deal) == (33, 0)
    move(deal, "1 play Tc")  # D takes the queen with the ten: 13
    move(deal, "1 play Jd", "0 play Ks")  # N (no diamond) trumps: +6; with the king gone, no trump marriage
    assert points(deal) == (39, 13)
    assert "marriage Qs" not in legal(deal, N)


@pytest.mark.parametrize("rules", ALL_PRESETS, ids=rid)
def test_trump_marriage_is_40(rules: RuleSet) -> None:
    n, d = ("Ah Qs Ks Qc Kc 9d", "Jh 9h Ad Td Jd Tc") if rules.deck == "24" else (
        "Ah Qs Ks Qc Kc", "Jh Ad Td Jd Tc")
    deal = deal_from(rules, n, d, turned="As", talon="Qh Kh Kd Jc")
    move(deal, "0 play Ah", "1 play Jh", "0 marriage Qs")
    assert points(deal) == (13 + 40, 0)
    # Seed 000: "Declaring a trump marriage does not change the trump."
    assert deal.view(D).trump_suit == Card.parse("As").suit


# =================================================================== closing


@pytest.mark.parametrize("rules", ALL_PRESETS, ids=rid)
def test_a_close_that_succeeds(rules: RuleSet) -> None:
    # Trump spades. N closes at once; D holds no trump. N: Ah + Qh = 14, trump marriage +40, Qs + a low
    # card, As + a low card: over 66 with D trickless.
    if rules.deck == "24":
        deal = deal_from(rules, "As Ts Ks Qs Ah Th", "9h Jh Qh 9c Ac Tc", turned="Js")
        throw = ["9c", "Jh"]  # N ends on 14 + 40 + 3 + 13 = 70
    else:
        deal = deal_from(rules, "As Ts Ks Qs Ah", "Th Jh Qh Ac Tc", turned="Js")
        throw = ["Jh", "Ac"]  # 14 + 40 + 5 + 22 = 81
    # Seed 000: "On lead you turn the trump card face down: no more drawing, strict rules apply".
    move(deal, "0 close")
    assert deal.view(D).closed and deal.view(D).closed_by == N
    assert "close" not in legal(deal, N)
    move(deal, "0 play Ah")
    assert plays(deal, D) == {c for c in hand(deal, D) if c[1] == "h"}  # follow suit (nothing beats A)
    move(deal, "1 play Qh")
    assert len(hand(deal, N)) == rules.hand_size - 1  # nobody drew
    assert deal.view(N).talon_size == len(full_deck(rules)) - 2 * rules.hand_size
    move(deal, "0 marriage Qs", f"1 play {throw[0]}", "0 play As", f"1 play {throw[1]}")
    if rules.declare_66 == "automatic":
        assert result(deal) == (N, 3, "closed and reached 66")
    else:
        move(deal, "0 declare")
        assert result(deal) == (N, 3, "closed and declared 66")


@pytest.mark.parametrize(
    "rules, close_scoring, game_points",
    [
        # Seeds 000/002 give game points by "the loser's card points and tricks" with no exception for a
        # close: santase counts the loser at the end of the deal (close_scoring = at-end).
        (SANTASE, None, 2),
        (SANTASE, "at-close", 3),
        # Seed 003: "if they close and win but the opponent has zero tricks, the closer scores 3 game
        # points". The seed does not say when the tricks are counted; established Sixty-Six / Schnapsen
        # counts the opponent's tricks and points at the moment of the close (close_scoring = at-close).
        (SIXTY_SIX, None, 3),
        (SIXTY_SIX, "at-end", 2),
    ],
    ids=["santase", "santase-at-close", "sixty-six", "sixty-six-at-end"],
)
def test_closer_game_points_count_the_opponent_at_the_end_or_at_the_close(
    rules: RuleSet, close_scoring: str | None, game_points: int
) -> None:
    if close_scoring:
        rules = rules.with_overrides({"close_scoring": close_scoring})
    deal = deal_from(rules, "As Ks Qs Ah Kh Th", "Ts 9h Ac Tc Kc Qd", turned="Js")
    move(deal, "0 close")  # D: 0 points, 0 tricks at the close
    move(deal, "0 play Ah", "1 play 9h")  # N 11
    move(deal, "0 marriage Qs")  # +40 = 51, and N leads the queen
    assert plays(deal, D) == {"Ts"}  # D must follow suit and beat the queen
    move(deal, "1 play Ts")  # D takes a trick after all: 13
    move(deal, "1 play Ac")
    assert plays(deal, N) == {"As", "Ks"}  # N is void in clubs and must trump
    move(deal, "0 play As")  # N 51 + 22 = 73
    assert points(deal) == (73, 13)
    declare_if_manual(deal, N)
    winner, gp, reason = result(deal)
    assert (winner, gp) == (N, game_points)
    assert reason.startswith("closed and")


@pytest.mark.parametrize("rules", SIX_CARD_PRESETS, ids=rid)
def test_a_close_that_fails_after_the_closer_took_a_trick(rules: RuleSet) -> None:
    # Trump spades. All twelve cards in hand hold 18 + 39 = 57 points: after the close nobody can reach 66.
    deal = deal_from(rules, "Ah 9c Jc Qc 9d Jd", "As Ts Ks 9h Th Kc", turned="Js")
    move(deal, "0 close", "0 play Ah")
    assert plays(deal, D) == {"9h", "Th"}  # strict at once: follow suit (nothing beats the ace)
    move(deal, "1 play 9h")  # N's one trick
    finish(deal)
    # Seed 000: "Failing to reach 66 after closing gives the opponent 2 points (3 if you took no tricks)."
    # Seed 003: "A player who closes the stock and fails to reach 66 concedes 2 game points".
    assert result(deal) == (D, 2, "failed close") and deal.game_points_why == ""
    # Seed 000: "there is no +10 for the last trick" after a close.
    assert sum(points(deal)) == 57


@pytest.mark.parametrize("rules, game_points", [(SANTASE, 3), (SIXTY_SIX, 2), (SCHNAPSEN, 2)],
                         ids=["santase", "sixty-six", "schnapsen"])
def test_a_close_that_fails_with_no_trick_for_the_closer(rules: RuleSet, game_points: int) -> None:
    # N holds only clubs and diamonds, D only spades (trump) and hearts: N cannot win a single trick.
    if rules.deck == "24":
        deal = deal_from(rules, "9c Jc Qc 9d Jd Qd", "As Ts Ks Ah Th Kh", turned="Js")
    else:
        deal = deal_from(rules, "Jc Qc Jd Qd Kd", "As Ts Ks Ah Th", turned="Js")
    move(deal, "0 close")
    finish(deal)
    # Seed 000: "(3 if you took no tricks)"; seed 003: "If the closer fails to reach 66, the opponent scores
    # 2 game points regardless of the actual card-point totals."
    assert result(deal) == (D, game_points, "failed close")
    assert deal.result is not None and deal.result.tricks[N] == 0
    assert deal.game_points_why == "closer-no-tricks"


def test_seed_002_close_penalty_is_an_override() -> None:
    # Seed 002: "If the player who closed does not score 66 points, the other player scores 3 points".
    rules = SANTASE.with_overrides({"failed_close_points": 3})
    deal = deal_from(rules, "Ah 9c Jc Qc 9d Jd", "As Ts Ks 9h Th Kc", turned="Js")
    move(deal, "0 close", "0 play Ah", "1 play 9h")
    finish(deal)
    assert result(deal) == (D, 3, "failed close")


@pytest.mark.parametrize("rules", ALL_PRESETS, ids=rid)
def test_only_the_leader_may_close_and_not_after_leading(rules: RuleSet) -> None:
    # Seed 002: "You must do this at the start of your turn and you must be leading".
    deal = Deal(rules, full_deck(rules), dealer=D)
    assert "close" in legal(deal, N)
    move(deal, f"0 {legal(deal, N, 'play')[0]}")
    assert "close" not in legal(deal, D)
    with pytest.raises(IllegalActionError) as info:
        move(deal, "1 close")
    assert info.value.rule == "close"


# =================================================================== following, heading, trumping

# Trump diamonds (the turned card is Jd). N leads the card; D's hand; the cards D may play in the strict
# phase. Seed 003: "Both players must now follow suit if able, and must trump if unable to follow suit but
# hold a trump." Heading (beating the led card when able) is established Santase / Sixty-Six / Schnapsen
# practice, not written in the seeds (must_head = true).
STRICT_CASES = [
    ("head", "Kh", "Ah Qh Jh Ad Tc", {"Ah"}),
    ("follow, cannot head", "Ah", "Kh Qh Jh Ad Tc", {"Jh", "Qh", "Kh"}),
    ("trump when void", "Kh", "Ad Qd Jc Tc Qs", {"Qd", "Ad"}),
    ("void and no trump", "Kh", "Jc Tc Ac Js Qs", {"Jc", "Tc", "Ac", "Js", "Qs"}),
    ("trump led: head it", "Kd", "Ad Qd Ah Jc Tc", {"Ad"}),
    ("trump led, none held", "Kd", "Ah Jc Tc Qs Ks", {"Ah", "Jc", "Tc", "Qs", "Ks"}),
]


def _strict_deal(rules: RuleSet, lead: str, d_hand: str) -> tuple[Deal, set[str]]:
    d_cards = d_hand.split()
    extra: set[str] = set()
    if rules.hand_size == 6:
        d_cards.append("9c")  # a sixth card for the 24 card decks
        extra = {"9c"}
    used = {lead, "Jd", *d_cards}
    others = [str(c) for c in full_deck(rules) if str(c) not in used and str(c)[0] != "9"]
    n_cards = [lead] + others[: rules.hand_size - 1]
    return deal_from(rules, " ".join(n_cards), " ".join(d_cards), turned="Jd"), extra


@pytest.mark.parametrize("rules", SIX_CARD_PRESETS, ids=rid)
@pytest.mark.parametrize("case, lead, d_hand, allowed", STRICT_CASES, ids=[c[0] for c in STRICT_CASES])
def test_after_a_close_the_follow_rules_apply(rules: RuleSet, case: str, lead: str, d_hand: str,
                                              allowed: set[str]) -> None:
    deal, extra = _strict_deal(rules, lead, d_hand)
    move(deal, "0 close", f"0 play {lead}")
    expected = allowed | (extra if len(allowed) == 5 else set())
    assert plays(deal, D) == expected
    bad = sorted(hand(deal, D) - expected)
    if bad:
        with pytest.raises(IllegalActionError) as info:
            move(deal, f"1 play {bad[0]}")
        assert info.value.rule == "follow"
        assert all(c in str(info.value) for c in expected)  # the message lists what D may play


@pytest.mark.parametrize("rules", SIX_CARD_PRESETS, ids=rid)
def test_while_the_talon_is_open_any_card_may_be_played(rules: RuleSet) -> None:
    # Seed 000: "While the talon lasts you may play any card." Seed 003: "While the stock has cards
    # remaining, there is no obligation to follow suit."
    deal, _ = _strict_deal(rules, "Kh", "Ah Qh Jh Ad Tc")
    move(deal, "0 play Kh")
    assert plays(deal, D) == hand(deal, D)


@pytest.mark.parametrize("case, lead, d_hand, allowed", STRICT_CASES, ids=[c[0] for c in STRICT_CASES])
def test_schnapsen_follows_suit_from_the_first_trick(case: str, lead: str, d_hand: str,
                                                     allowed: set[str]) -> None:
    # Seed 003 (Schnapsen): "there is no option to play carelessly while the stock is open: the rules of
    # following suit and trumping apply throughout."
    deal, _ = _strict_deal(SCHNAPSEN, lead, d_hand)
    move(deal, f"0 play {lead}")
    assert deal.view(D).talon_size == 10  # the stock is open
    assert plays(deal, D) == allowed


def test_trick_winner_by_suit_and_trump() -> None:
    # Seed 002: "High card of the same suit takes the cards. Aces are high. Alternatively, any card of the
    # trump suit takes any card of another suit." and "a ten takes a jack, queen or king." Trump spades.
    deal = deal_from(SANTASE, "Kh 9c Ad Td Qc 9d", "Th Qh Kd 9s As Ac", turned="Js")
    move(deal, "0 play Kh", "1 play Th")  # the ten takes the king
    assert deal.to_move == D and points(deal) == (0, 14)
    move(deal, "1 play Qh", "0 play 9c")  # another suit, no trump: the led card wins
    assert deal.to_move == D and points(deal) == (0, 17)
    move(deal, "1 play Kd", "0 play Ad")  # the ace takes the king
    assert deal.to_move == N and points(deal) == (15, 17)
    move(deal, "0 play Td", "1 play 9s")  # the lowest trump takes a ten of another suit
    assert deal.to_move == D and points(deal) == (15, 27)


# =================================================================== declaring 66


def _marriage_run(rules: RuleSet) -> Deal:
    # Trump spades. N: a trick (As + 9h = 11), the trump marriage (+40), the queen led takes Jh (+5), then
    # Ah + 9c (+11) = 67. D never takes a trick.
    deal = deal_from(rules, "As Ks Qs Ah Th Ac", "9h Jh 9c Jc 9d Jd", turned="Js")
    move(deal, "0 play As", "1 play 9h", "0 marriage Qs", "1 play Jh")
    assert points(deal) == (56, 0)
    return deal


def test_santase_66_is_automatic() -> None:
    # Seed 000: "At 66 or more points from cards and declared marriages you call 66 and win immediately".
    deal = _marriage_run(SANTASE)
    assert "declare" not in legal(deal, N)
    with pytest.raises(IllegalActionError) as info:
        move(deal, "0 declare")
    assert info.value.rule == "declare"
    move(deal, "0 play Ah", "1 play 9c")
    # Seed 003 (shared by seed 000's "1, 2 or 3 game points depending on the loser's card points and
    # tricks"): "3 game points if the opponent has won no tricks at all (schwarz)".
    assert result(deal) == (N, 3, "reached 66")
    assert deal.legal_actions(N) == deal.legal_actions(D) == []


def test_sixty_six_declared_correctly() -> None:
    # Seed 003: "A player who believes their running total has reached 66 may declare this at any point
    # during their turn, before leading. Play stops and scores are checked. If correct, they win the hand."
    deal = _marriage_run(SIXTY_SIX)
    move(deal, "0 play Ah", "1 play 9c")
    assert points(deal) == (67, 0)
    assert not deal.over  # 66 is not automatic: N has to say so
    assert "declare" in legal(deal, N)
    move(deal, "0 declare")
    assert result(deal) == (N, 3, "declared 66")


def test_sixty_six_declared_wrongly() -> None:
    # Seed 003: "If incorrect, the opponent wins two game points automatically."
    deal = _marriage_run(SIXTY_SIX)
    move(deal, "0 declare")  # 56 is not 66
    assert result(deal) == (D, 2, "wrong declaration")


def test_schnapsen_declared_right_and_wrong() -> None:
    # Trump spades. N: Ah + Th = 21, trump marriage +40, Qs + Jh = 5: 66 exactly.
    def start() -> Deal:
        deal = deal_from(SCHNAPSEN, "As Ah Ac Ks Qs", "Th Tc Kh Kc Jh", turned="Js")
        move(deal, "0 play Ah")
        assert plays(deal, D) == {"Th", "Kh", "Jh"}  # follow suit; nothing beats the ace
        return move(deal, "1 play Th")

    wrong = start()
    move(wrong, "0 declare")  # 21
    assert result(wrong) == (D, 2, "wrong declaration")

    right = move(start(), "0 marriage Qs", "1 play Jh")  # D has no spade and no trump: any card
    assert points(right) == (66, 0)
    move(right, "0 declare")
    assert result(right) == (N, 3, "declared 66")


@pytest.mark.parametrize("rules", [SIXTY_SIX, SCHNAPSEN], ids=rid)
def test_manual_mode_without_a_declaration_the_first_to_66_wins(rules: RuleSet) -> None:
    # Seed 003: a player wins "by being the first to accumulate 66 or more card points ... and either
    # declaring it correctly or being ahead when play ends naturally". Nobody declares here.
    deal = _marriage_run(rules) if rules.deck == "24" else deal_from(
        rules, "As Ah Ac Ks Qs", "Th Tc Kh Kc Jh", turned="Js")
    first_66: int | None = None
    while not deal.over:
        seat = deal.to_move
        deal.apply(next(a for a in deal.legal_actions(seat) if a.kind == "play"), seat)
        for s in (N, D):
            if first_66 is None and deal.view(s).points[0] >= 66:
                first_66 = s
    assert first_66 is not None
    r = deal.result
    assert r is not None and r.winner == first_66 and r.reason == "reached 66"


# =================================================================== the last trick


def _reaches_last_trick(deal: Deal) -> bool:
    probe = Deal(deal.rules, deal.deck, deal.dealer)
    finish(probe)
    return probe.view(N).talon_size == 0 and not probe.hand(N) and not probe.hand(D)


@pytest.mark.parametrize("rules", ALL_PRESETS, ids=rid)
def test_the_last_trick(rules: RuleSet) -> None:
    # Seed 000: "if nobody calls, the last trick adds +10 and otherwise the last-trick winner takes the
    # hand". Schnapsen: no bonus (seeds silent; established Schnapsen counts exactly the 120 card points).
    # The first shuffle (of a fixed series) in which first-legal play reaches the last trick.
    deal = next(d for d in (Deal(rules, shuffled_deck(rules, seed, 0), dealer=D) for seed in range(500))
                if _reaches_last_trick(d))
    trick_points = [0, 0]  # the card points of each side's tricks, added up here from the cards played
    last = -1
    on_table: list[Card] = []
    while not deal.over:
        seat = deal.to_move
        before = deal.view(N).tricks
        action = next(a for a in deal.legal_actions(seat) if a.kind == "play")
        deal.apply(action, seat)
        assert action.card is not None
        on_table.append(action.card)
        after = deal.view(N).tricks
        if after != before:
            last = N if after[N] > before[N] else D
            trick_points[last] += sum(c.points for c in on_table)
            on_table = []
    r = deal.result
    assert r is not None
    assert deal.view(N).talon_size == 0 and not hand(deal, N) and not hand(deal, D)
    assert r.points[1 - last] == trick_points[1 - last]
    assert r.points[last] == trick_points[last] + rules.last_trick_bonus
    assert sum(r.points) == 120 + rules.last_trick_bonus


def test_the_last_trick_bonus_counts_even_when_the_trick_itself_reached_66() -> None:
    # The +10 belongs to the last trick whenever the talon ran out, so the reported points are the same
    # whether santase's automatic 66 or sixty-six's declaration ends the deal.
    for seed in range(200):
        deal = finish(Deal(SANTASE, shuffled_deck(SANTASE, seed, 0), dealer=D))
        r = deal.result
        assert r is not None
        if deal.hand(N) or deal.hand(D) or r.winner != deal.last_trick_winner:
            continue
        without_bonus = r.points[r.winner] - 10
        if without_bonus >= 66:
            assert sum(r.points) == 130
            assert r.reason == "reached 66"
            return
    raise AssertionError("no such deal in 200 shuffles")


def test_last_trick_wins_when_nobody_reaches_66() -> None:
    # A Schnapsen deal where the 120 points split so that nobody reaches 66: the winner of the last trick
    # takes the deal for 1 game point (seed 003, and seed 002: "if neither player scores 66 points, the
    # player to take the final card wins").
    for seed in range(200):
        deal = Deal(SCHNAPSEN, shuffled_deck(SCHNAPSEN, seed, 0), dealer=D)
        finish(deal)
        r = deal.result
        assert r is not None
        if r.reason == "last trick":
            assert max(r.points) < 66
            assert r.game_points == 1
            assert r.winner == deal.last_trick_winner
            return
    raise AssertionError("no deal without 66 in 200 shuffles")


# =================================================================== game points 1 / 2 / 3


def _d_takes_then_n_reaches_66(rules: RuleSet, d_third: str) -> Deal:
    # Trump spades. D takes three tricks (N throws its nines), then N takes the rest:
    #   1. N 9h, D Ah: D 11        2. D Ac, N 9c: D 22        3. D <d_third>, N 9d: D 22 + (11 or 10)
    #   4. D Kc, N Ts: N 14        5. N marriage Qs (+40), D Kh: N 61      6. N Ks, D Kd: N 69
    deal = deal_from(rules, "9h 9c 9d Ks Qs Ts", f"Ah Ac {d_third} Kh Kc Kd", turned="Js")
    move(deal, "0 play 9h", "1 play Ah", "1 play Ac", "0 play 9c", f"1 play {d_third}", "0 play 9d")
    move(deal, "1 play Kc", "0 play Ts", "0 marriage Qs", "1 play Kh", "0 play Ks", "1 play Kd")
    return declare_if_manual(deal, N)


@pytest.mark.parametrize("rules", SIX_CARD_PRESETS, ids=rid)
@pytest.mark.parametrize(
    "d_third, schneider_below, game_points",
    [
        # Seeds 000 / 003 (the preset): "1 game point if the opponent has 33 or more card points, 2 game
        # points if the opponent has between 0 and 32 card points (schneider)".
        ("Ad", None, 1),  # D 33
        ("Td", None, 2),  # D 32
        # Seed 002 as an override: "If the loser has fewer than 31 points (30 or less), the winner scores
        # two points."
        ("Td", 31, 1),  # D 32
    ],
)
def test_game_points_by_the_losers_points(rules: RuleSet, d_third: str, schneider_below: int | None,
                                          game_points: int) -> None:
    if schneider_below is not None:
        rules = rules.with_overrides({"schneider_below": schneider_below})
    deal = _d_takes_then_n_reaches_66(rules, d_third)
    winner, gp, _ = result(deal)
    assert (winner, gp) == (N, game_points)
    assert deal.result is not None and deal.result.points == (69, 33 if d_third == "Ad" else 32)
    assert deal.game_points_why == ("schneider" if game_points == 2 else "")  # what the table tells a person


@pytest.mark.parametrize("rules", SIX_CARD_PRESETS, ids=rid)
@pytest.mark.parametrize("schwarz, game_points", [("no-tricks", 2), ("no-points", 3)])
def test_a_loser_with_a_trick_of_no_points(rules: RuleSet, schwarz: str, game_points: int) -> None:
    # Trump spades. D's only trick is 9h trumped with 9s: no points. Then N: Ah + Jh, marriage Qs (+40),
    # Qs + Qh, Ks + Qc = 66.
    # Preset (seed 003): "3 game points if the opponent has won no tricks at all (schwarz)" - D has a trick,
    # so 2. Seed 002 as an override: "If the loser has scored no points, the winner scores three."
    rules = rules.with_overrides({"schwarz": schwarz})
    deal = deal_from(rules, "9h Ah Qs Ks As Th", "9s Jh Qh Jc Qc Jd", turned="Js")
    move(deal, "0 play 9h", "1 play 9s", "1 play Jh", "0 play Ah", "0 marriage Qs", "1 play Qh")
    move(deal, "0 play Ks", "1 play Qc")
    assert points(deal) == (66, 0)
    declare_if_manual(deal, N)
    assert result(deal)[:2] == (N, game_points)
    assert deal.game_points_why == ("schneider" if game_points == 2 else "no-points")


@pytest.mark.parametrize("n_low, d_points, game_points", [("Tc Td", 42, 1), ("Jc Jd", 26, 2)])
def test_schnapsen_game_points(n_low: str, d_points: int, game_points: int) -> None:
    # Trump spades; follow rules from the start, so every answer below is the forced one.
    #   1. N <club>, D Ac (must head)  2. D Ad, N <diamond> (must follow)   D: 2 * (11 + 10) or 2 * (11 + 2)
    #   3. D Jh, N Ah (must head): N 13    4. N marriage Qs (+40), D Kh (void, no trump): N 60
    #   5. N Ks, D Qd: N 67
    club, diamond = n_low.split()
    other_club, other_diamond = ("Jc", "Jd") if club == "Tc" else ("Tc", "Td")
    deal = deal_from(SCHNAPSEN, f"{club} {diamond} Ah Qs Ks", "Ac Ad Jh Kh Qd", turned="Js",
                     talon=f"{other_club} Qc Kc {other_diamond} Kd Qh Ts Th As")
    move(deal, f"0 play {club}", "1 play Ac", "1 play Ad", f"0 play {diamond}", "1 play Jh", "0 play Ah")
    move(deal, "0 marriage Qs", "1 play Kh", "0 play Ks", "1 play Qd", "0 declare")
    assert result(deal) == (N, game_points, "declared 66")
    assert deal.result is not None and deal.result.points == (67, d_points)
    # Three game points: the declare scenario above (test_schnapsen_declared_right_and_wrong) with D
    # trickless.


# =================================================================== the match


def _book(match: Match, winner: int, game_points: int) -> None:
    match.new_deal()
    match.finish_deal(DealResult(winner, game_points, "test", (0, 0), (0, 0)))


def test_santase_match_to_11_and_the_loser_deals() -> None:
    # Seed 000: "the match is won at 11 game points". Seed 002: "After the first deal, the loser of the
    # previous hand deals and the winner lays down the first card."
    m = Match(SANTASE, seed=7)
    first = m.new_deal()
    m.finish_deal(DealResult(0, 3, "test", (0, 0), (0, 0)))
    dealers = [first.dealer]
    for winner, gp in [(1, 2), (0, 3), (0, 3), (1, 1)]:
        deal = m.new_deal()
        dealers.append(deal.dealer)
        assert deal.to_move == 1 - deal.dealer
        m.finish_deal(DealResult(winner, gp, "test", (0, 0), (0, 0)))
    assert dealers[1:] == [1, 0, 1, 1]  # the loser of 0, 1, 0, 0's wins
    assert m.score == [9, 3] and not m.over
    _book(m, 0, 1)
    assert m.score == [10, 3] and not m.over
    _book(m, 0, 1)
    assert m.score == [11, 3] and m.over and m.winner == 0
    with pytest.raises(ValueError):
        m.new_deal()


@pytest.mark.parametrize("rules", [SIXTY_SIX, SCHNAPSEN], ids=rid)
def test_sixty_six_match_to_7_and_the_deal_alternates(rules: RuleSet) -> None:
    # Seed 003: "The first player to accumulate 7 game points wins the match. Deal alternates each hand."
    m = Match(rules, seed=7)
    dealers = []
    for winner, gp in [(0, 3), (0, 3)]:
        m.new_deal()
        dealers.append(m.deals[-1].dealer)
        m.finish_deal(DealResult(winner, gp, "test", (0, 0), (0, 0)))
    assert m.score == [6, 0] and not m.over
    _book(m, 1, 3)
    _book(m, 1, 3)
    assert m.score == [6, 6] and not m.over
    _book(m, 1, 2)
    assert m.score == [6, 8] and m.winner == 1
    dealers += [d.dealer for d in m.deals[2:]]
    assert dealers == [dealers[0], 1 - dealers[0]] * 2 + [dealers[0]]


@pytest.mark.parametrize("rules, target", [(SANTASE, 11), (SIXTY_SIX, 7), (SCHNAPSEN, 7)], ids=["santase",
                                                                                                 "sixty-six",
                                                                                                 "schnapsen"])
def test_a_played_match_ends_at_the_target(rules: RuleSet, target: int) -> None:
    m = Match(rules, seed="scenario")
    while not m.over:
        deal = m.new_deal()
        while not deal.over:
            seat = deal.to_move
            if rules.declare_66 == "manual" and deal.view(seat).points[0] >= 66:
                deal.apply(DECLARE, seat)
            else:
                deal.apply(next(a for a in deal.legal_actions(seat) if a.kind == "play"), seat)
        before = max(m.score)
        m.finish_deal()
        assert before < target
    assert m.winner is not None
    assert m.score[m.winner] >= target > m.score[1 - m.winner]
    assert sum(d.result.game_points for d in m.deals if d.result and d.result.winner == m.winner) == \
        m.score[m.winner]


# =================================================================== switches for other platforms' conventions


@pytest.mark.parametrize(("without_trick", "credit", "after_first_win", "at_marriage", "after_next_win"), [
    ("pending", "immediate", 32, 52, 56),  # santase: the first marriage waits for the first trick, later ones count
    ("pending", "next-trick", 32, 32, 56),  # the course platform: every marriage waits for a won trick
    ("void", "immediate", 12, 32, 36),  # sixty-six: the first marriage is void, later ones count at once
    ("void", "next-trick", 12, 12, 36),  # void before the first trick, then each waits for the next won trick
])
def test_marriage_credit_and_marriage_without_trick(without_trick: str, credit: str, after_first_win: int,
                                                    at_marriage: int, after_next_win: int) -> None:
    # marriage_credit=next-trick (the PyPI `schnapsen` package, TU Delft / VU Amsterdam): a marriage's points
    # are pending until the declarer's next won trick, even when it has won tricks before.
    rules = SANTASE.with_overrides({"marriage_without_trick": without_trick, "marriage_credit": credit})
    deal = deal_from(rules, "Qc Kc Qh Kh 9d Td", "Ac Tc Ah 9h Jd Jh", turned="As", talon="9c Jc Qd Kd Ts Ks")
    move(deal, "0 marriage Qc")  # before any trick: 20 pending, or void
    assert deal.view(N).pending_marriage == (20 if without_trick == "pending" else 0)
    move(deal, "1 play Ac")  # D wins 11 + 3
    move(deal, "1 play Jd", "0 play Td")  # N's first won trick: 12 points, and the pending 20 count
    assert points(deal) == (after_first_win, 14) and deal.view(N).pending_marriage == 0
    move(deal, "0 marriage Qh")  # N has a trick now
    assert points(deal)[N] == at_marriage
    assert deal.view(N).pending_marriage == (20 if credit == "next-trick" else 0)
    assert deal.view(D).opponent_pending == deal.view(N).pending_marriage
    move(deal, "1 play Ah")  # D wins the marriage's trick: N's points wait on
    assert points(deal) == (at_marriage, 28)
    move(deal, "1 play 9c", "0 play Kc")  # N's next won trick: 4 points, and a pending marriage counts
    assert points(deal) == (after_next_win, 28) and deal.view(N).pending_marriage == 0
    assert [e.points for e in deal.events if e.kind == "marriage"] == [20 if without_trick == "pending" else 0, 20]


def test_next_trick_credit_reaches_66_only_at_the_won_trick() -> None:
    # automatic 66 with marriage_credit=next-trick: a 40 that would take the declarer past 66 does not end
    # the deal when declared (as it does under immediate credit), only when the declarer wins its trick.
    n, d, turned, talon = "Qs Ks Ac Ad Ah 9d", "Tc Td Th 9c 9h Jd", "9s", "Jc Qc Kc Qd Kd Jh"
    immediate = move(deal_from(SANTASE, n, d, turned, talon), "0 play Ac", "1 play Tc", "0 play Ad", "1 play Td")
    assert points(immediate) == (42, 0)
    move(immediate, "0 marriage Qs")  # 42 + 40: at once
    assert immediate.result is not None and immediate.result.winner == N and immediate.result.points == (82, 0)
    rules = SANTASE.with_overrides({"marriage_credit": "next-trick"})
    deal = move(deal_from(rules, n, d, turned, talon), "0 play Ac", "1 play Tc", "0 play Ad", "1 play Td")
    move(deal, "0 marriage Qs")
    assert deal.result is None and points(deal) == (42, 0) and deal.view(N).pending_marriage == 40
    move(deal, "1 play 9h")  # N's queen of trumps wins: 3 + 0 and the 40
    assert deal.result is not None and deal.result.winner == N and deal.result.points == (42 + 3 + 40, 0)


def test_close_min_talon_none_forbids_closing() -> None:
    # close_min_talon=none: closing is never legal (the course platform has no close), where santase's 3
    # allows it on a full talon.
    n, d = "9h Kc Qc Ts Js 9d", "Ac Tc As Ks Qd Jd"
    assert "close" in legal(deal_from(SANTASE, n, d, turned="Ah"), N)
    rules = SANTASE.with_overrides({"close_min_talon": "none"})
    deal = deal_from(rules, n, d, turned="Ah")
    assert "close" not in legal(deal, N) and deal.talon_open and len(deal.talon) == 12
    assert "exchange" in legal(deal, N)  # the other lead actions stay
    with pytest.raises(IllegalActionError, match="close_min_talon=none") as info:
        move(deal, "0 close")
    assert info.value.rule == "close"
    assert deal.closed_by is None and deal.to_move == N
