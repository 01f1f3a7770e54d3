#!/usr/bin/env python3
"""A greedy bot: a handful of card-player's rules of thumb, no search, no memory beyond the turn line.

- declare 66 (variants with declare_66=manual) as soon as it is safe: 66 points and a trick won;
- exchange the trump 9 (or J) for the turned card whenever it may;
- close the talon when its sure trumps and marriages are enough to reach 66;
- declare marriages, the trump one (40) first, but not while a marriage would be void (no trick yet);
- answering: take a trick worth taking (a ten or an ace led, or 66 in reach) with the cheapest card that
  wins it, take low cards when the led suit allows it; otherwise throw the cheapest card, never an ace or
  a ten while something else will do;
- leading: while the talon is open lead low cards; once it is closed or empty, cash sure winners first.

Run it from the repository root:  python bots/greedy.py
A weaker greedy, for the house levels (arena/levels.py):  python bots/greedy.py --blunder 0.3 --seed 7
plays a uniformly random legal action instead with probability 0.3 at each turn (seeded; bots/c/greedy
takes the same options and draws the same numbers, so the two still make the same decisions).
"""

import argparse
import os
import sys

# Let `import arena` work from a checkout; keep this directory off sys.path (bots/random.py would hide
# the standard library's random module).
BOTS = os.path.dirname(os.path.abspath(__file__))
sys.path = [os.path.dirname(BOTS)] + [p for p in sys.path if os.path.abspath(p) != BOTS]

from arena.game import Action, Card, RuleSet, SeatView  # noqa: E402
from arena.game.cards import KING, QUEEN, TEN  # noqa: E402
from arena.protocol.botkit import run  # noqa: E402

DECLARE, EXCHANGE, CLOSE = Action("declare"), Action("exchange"), Action("close")
rules = RuleSet()  # the current match's rules; on_match_start replaces it


def on_match_start(msg, match_rules):
    global rules
    rules = match_rules or RuleSet()


def beats(card: Card, led: Card, trump: int) -> bool:
    """Does ``card``, played to ``led``, win the trick?"""
    if card.suit == led.suit:
        return card.rank > led.rank
    return card.suit == trump


def in_pair(card: Card, hand: tuple[Card, ...]) -> bool:
    """A K or Q whose partner is in the hand: playing it would give up a marriage."""
    partner = {KING: QUEEN, QUEEN: KING}.get(card.rank)
    return partner is not None and Card.of(partner, card.suit) in hand


def unseen(view: SeatView) -> set[Card]:
    """Cards that may still be in the opponent's hand or in the talon."""
    seen = set(view.hand) | set(view.played) | {view.led}
    return {Card.of(rank, suit) for suit in range(4) for rank in range(6)} - seen


def sure_winner(card: Card, view: SeatView) -> bool:
    """No unseen card of its suit ranks above it (a trump that is sure wins; another card can be trumped)."""
    return all(c.rank < card.rank for c in unseen(view) if c.suit == card.suit)


def marriage_points(suit: int, trump: int) -> int:
    return rules.trump_marriage_points if suit == trump else rules.marriage_points


def should_close(view: SeatView) -> bool:
    """Close when sure trump tricks and the marriages in hand bring us to 66."""
    trump = view.trump_suit
    sure = [c for c in view.hand if c.suit == trump and sure_winner(c, view)]
    pairs = {c.suit for c in view.hand if c.rank == KING and in_pair(c, view.hand)}
    total = view.points[0] + view.pending_marriage + sum(c.points for c in sure)
    total += sum(marriage_points(s, trump) for s in pairs)
    return total >= 66 and (sure or view.tricks[0] > 0)


def answer(view: SeatView, cards: list[Card]) -> Card:
    led, trump = view.led, view.trump_suit
    winners = [c for c in cards if beats(c, led, trump)]
    losers = [c for c in cards if c not in winners]
    # Cheapest winner: follow suit rather than trump, keep marriages, then the lowest rank.
    winners.sort(key=lambda c: (c.suit != led.suit, in_pair(c, view.hand), c.rank))
    # Cheapest card to give away: no trump, no ace or ten, no marriage card, then the fewest points.
    losers.sort(key=lambda c: (c.suit == trump, c.rank >= TEN, in_pair(c, view.hand), c.points))
    if not winners:
        return losers[0]
    best = winners[0]
    reaches_66 = view.points[0] + view.pending_marriage + led.points + best.points >= 66
    worth_it = led.rank >= TEN or (best.suit == led.suit and led.suit != trump)
    throw_is_costly = not losers or losers[0].suit == trump or losers[0].rank >= TEN
    if reaches_66 or worth_it or throw_is_costly:
        return best
    return losers[0]


def lead(view: SeatView, cards: list[Card]) -> Card:
    trump = view.trump_suit
    if view.closed_by is not None or view.talon_size == 0:
        # The follow rules apply: the opponent must follow and head, so cash sure winners, trumps first
        # (they pull the opponent's trumps, which makes our other winners sure).
        sure = [c for c in cards if sure_winner(c, view)]
        if sure:
            return max(sure, key=lambda c: (c.suit == trump, c.rank))
    # Lead cheap: no ace or ten, no trump, no marriage card.
    return min(cards, key=lambda c: (c.rank >= TEN, c.suit == trump, in_pair(c, view.hand), c.points))


# --blunder P: the chance of a random legal action at each turn, drawn from splitmix64 seeded by --seed
# (the same generator as bots/c/greedy.c, so that both bots blunder at the same turns with the same action).
MASK = (1 << 64) - 1
blunder = 0.0
rng_state = 0


def next_random() -> int:
    """splitmix64: the next 64-bit number of the blunder stream."""
    global rng_state
    rng_state = (rng_state + 0x9E3779B97F4A7C15) & MASK
    z = rng_state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def choose(view: SeatView, legal: list[Action]) -> Action:
    if blunder > 0:  # one draw at every turn, a second to pick the action when it blunders
        if (next_random() >> 11) < blunder * 2.0**53:
            return legal[next_random() % len(legal)]
    if DECLARE in legal and view.points[0] >= 66 and view.tricks[0] > 0:
        return DECLARE
    if EXCHANGE in legal:
        return EXCHANGE
    cards = [a.card for a in legal if a.kind == "play"]
    if view.led is not None:
        return Action("play", answer(view, cards))
    if CLOSE in legal and should_close(view):
        return CLOSE
    marriages = [a for a in legal if a.kind == "marriage"]
    if marriages and (view.tricks[0] > 0 or rules.marriage_without_trick == "pending"):
        # The trump marriage first; lead the queen when the rules let us choose (it is worth less).
        return max(marriages, key=lambda a: (a.card.suit == view.trump_suit, a.card.rank == QUEEN))
    return Action("play", lead(view, cards))


def main() -> None:
    global blunder, rng_state
    parser = argparse.ArgumentParser(description="greedy: rules of thumb, no search (bots/README.md)")
    parser.add_argument("--blunder", type=float, default=0.0, metavar="P",
                        help="play a random legal action with probability P (0 to 1) at each turn (default 0)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the blunders (default 0)")
    args = parser.parse_args()
    if not 0.0 <= args.blunder <= 1.0:
        parser.error(f"--blunder must be between 0 and 1, not {args.blunder}")
    if args.seed < 0:
        parser.error(f"--seed must be 0 or more, not {args.seed}")
    blunder, rng_state = args.blunder, args.seed & MASK
    run(choose, name="greedy", author="arena", on_match_start=on_match_start)


if __name__ == "__main__":
    main()
