"""A match: deals until one seat reaches the target in game points.

Every shuffle comes from the match seed and the deal's index, so the same (rules, seed) gives the same
deck for deal n whoever deals it, which is what duplicate matches rely on, and (rules, seed, actions)
replays a match exactly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.game.actions import Action
from arena.game.cards import Card
from arena.game.hand import Deal, DealResult, full_deck
from arena.game.variants import RuleSet


def shuffled_deck(rules: RuleSet, seed: int | str, deal_index: int) -> list[Card]:
    deck = full_deck(rules)
    random.Random(f"arena/{seed}/deal/{deal_index}").shuffle(deck)
    return deck


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
        deck = shuffled_deck(self.rules, self.seed, len(self.deals))  # a full deck by construction
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
