"""A match: deals until one seat reaches the target in game points.

Every shuffle comes from the match seed and the deal's index (`shuffled_deck`), and (rules, seed, actions)
replays a match exactly. A deal dealt by the match's first dealer gets that deck as shuffled; a deal dealt
by the other seat gets its twin (`twin_deck`: the two hands exchanged, and each pair of talon cards), so
that whoever deals, seat 0 holds the same cards in deal n of every match with that seed (`dealt_deck`).
That is what duplicate matches rely on: the two matches of a pair have the same seed and swapped seats, so
each bot holds in one the hand the other held in the other, in every deal, even once their results no
longer keep their dealers in step. Each deck is still uniformly random and independent of the deals
before it (the twin map is one to one, and which seat deals is decided before the shuffle is looked at).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.game.actions import Action
from arena.game.cards import Card
from arena.game.hand import Deal, DealResult, full_deck
from arena.game.variants import RuleSet


def shuffled_deck(rules: RuleSet, seed: int | str, deal_index: int) -> list[Card]:
    """Deal ``deal_index``'s deck as the seed shuffles it (before `dealt_deck` decides whether to twin it)."""
    deck = full_deck(rules)
    random.Random(f"arena/{seed}/deal/{deal_index}").shuffle(deck)
    return deck


def twin_deck(rules: RuleSet, deck: Sequence[Card]) -> list[Card]:
    """The deck whose deal gives each seat the other's hand: the non-dealer's k-th dealt card and the dealer's
    exchange places, and so do the talon's cards 2i and 2i+1 in drawing order (the last odd one and the
    turned card stay). Its own inverse, whoever deals; arena.game.luck's dealt-card luck changes sign."""
    twin = list(deck)
    at = 0
    for batch in rules.deal_batches:
        for k in range(batch):
            twin[at + k], twin[at + batch + k] = deck[at + batch + k], deck[at + k]
        at += 2 * batch
    talon = list(range(at + 1, len(deck)) if rules.trump_card == "after-deal" else range(at, len(deck) - 1))
    for i in range(0, len(talon) - 1, 2):
        a, b = talon[i], talon[i + 1]
        twin[a], twin[b] = deck[b], deck[a]
    return twin


def dealt_deck(rules: RuleSet, seed: int | str, deal_index: int, dealer: int) -> list[Card]:
    """The deck deal ``deal_index`` of a match with this seed is dealt from when seat ``dealer`` deals: the
    shuffled deck if that seat dealt the match's first deal, else its twin."""
    deck = shuffled_deck(rules, seed, deal_index)
    return deck if dealer == first_dealer(seed) else twin_deck(rules, deck)


def first_dealer(seed: int | str) -> int:
    return random.Random(f"arena/{seed}/first-dealer").randrange(2)


class Match:
    def __init__(self, rules: RuleSet, seed: int | str) -> None:
        self.rules = rules
        self.seed = seed
        self.score = [0, 0]
        self.deals: list[Deal] = []
        self.next_dealer = first_dealer(seed)
        self.winner: int | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def new_deal(self) -> Deal:
        if self.winner is not None:
            raise ValueError("the match is over")
        if self.deals and not self.deals[-1].over:
            raise ValueError("the current deal is not over")
        deck = dealt_deck(self.rules, self.seed, len(self.deals), self.next_dealer)  # a full deck
        deal = Deal(self.rules, deck, self.next_dealer, check_deck=False)
        self.deals.append(deal)
        return deal

    def finish_deal(self, result: DealResult | None = None) -> None:
        """Book the current deal's result (or a result imposed by the referee, e.g. a forfeited deal)."""
        deal = self.deals[-1]
        result = result or deal.result
        if result is None:
            raise ValueError("the deal has no result yet")
        if deal.result is None:
            deal.result = result
        self.score[result.winner] += result.game_points
        rule = self.rules.next_dealer
        if rule == "loser":
            self.next_dealer = 1 - result.winner
        elif rule == "winner":
            self.next_dealer = result.winner
        else:
            self.next_dealer = 1 - deal.dealer
        if self.score[result.winner] >= self.rules.match_target:
            self.winner = result.winner

    def concede(self, loser: int) -> None:
        """The referee ends the match: ``loser`` forfeits (its opponent is given the target)."""
        self.winner = 1 - loser

    def score_for(self, seat: int) -> tuple[int, int]:
        return (self.score[seat], self.score[1 - seat])


def replay_match(rules: RuleSet, seed: int | str, actions: Sequence[Sequence[tuple[int, Action]]]) -> Match:
    m = Match(rules, seed)
    for deal_actions in actions:
        deal = m.new_deal()
        for seat, action in deal_actions:
            deal.apply(action, seat)
        m.finish_deal()
    return m
