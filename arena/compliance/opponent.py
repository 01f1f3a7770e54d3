#!/usr/bin/env python3
"""The opponent of `arena check`: the random bot (a seeded, uniformly random legal action, as bots/random.py
plays), which can be told its first actions so that a set-up deal arises exactly as planned, or told to steer
the deal towards a follow rule the bot must obey.

    python opponent.py --seed 7 --script close,play:Kd
    python opponent.py --seed 7 --steer head

Standard library only, and shipped inside the arena package, so `arena check` works wherever arena is
installed (the repository's bots/ folder need not be there) and starts it in a few milliseconds. A scripted
action that is not legal when its turn comes ends the script; from then on it plays at random.

Steering (``--steer follow|head|trump``) is for rules where no deal can put a follow rule before the bot at its
first decision: the talon is free while it lasts and cannot be closed, so the follow rules bind only once it
has run out. The opponent then never declares, closes or marries (the deal must last), keeps both sides
below 66 while the talon lasts, and once it is empty, when every card is known, searches the rest of the
deal for a line of play that puts the follow rule before the bot whatever the bot answers.
"""

import argparse
import random
import sys
from collections.abc import Sequence

SUITS = "cdhs"
RANKS = "9JQKTA"
POINTS = (0, 2, 3, 4, 10, 11)
STEER = ("follow", "head", "trump")
Hand = tuple[int, ...]


def card(text: str) -> int:
    """A card as an index: suit * 6 + rank (9c is 0, As is 23)."""
    return SUITS.index(text[1]) * 6 + RANKS.index(text[0])


def text(c: int) -> str:
    return RANKS[c % 6] + SUITS[c // 6]


def cards(field: str) -> list[int]:
    return [] if field in ("-", "") else [card(t) for t in field.split(",")]


def points(c: int) -> int:
    return POINTS[c % 6]


def playable(hand: Sequence[int], led: int, trump: int, rules: dict[str, str]) -> list[int]:
    """The cards of ``hand`` that may answer ``led`` in the strict phase (the engine's follow rules)."""
    same = [c for c in hand if c // 6 == led // 6]
    if rules.get("must_follow_suit") == "true" and same:
        if rules.get("must_head") == "true":
            higher = [c for c in same if c > led]
            if higher:
                return higher
        return same
    if not same and rules.get("must_trump") == "true" and led // 6 != trump:
        trumps = [c for c in hand if c // 6 == trump]
        if trumps:
            return trumps
    return list(hand)


def situation(hand: Sequence[int], led: int, trump: int, rules: dict[str, str]) -> str | None:
    """Which follow rule the answer to ``led`` from ``hand`` would face (as arena.compliance.situations
    names it), or None when the rules leave every card of the hand playable."""
    plays = playable(hand, led, trump, rules)
    if len(plays) == len(hand):
        return None
    same = [c for c in hand if c // 6 == led // 6]
    if all(c // 6 == led // 6 for c in plays):
        heads = all(c > led for c in plays)
        return "head" if heads and any(c < led for c in same) else "follow"
    if not same and all(c // 6 == trump for c in plays):
        return "trump"
    return None


def beats(answer: int, led: int, trump: int) -> bool:
    if answer // 6 == led // 6:
        return answer > led
    return answer // 6 == trump


class Steer:
    """Can the opponent force the follow rule ``kind`` on the bot in the strict phase, whatever the bot plays?
    Every card is known there; the bot's marriages and declarations are not modelled (they are its choice)."""

    def __init__(self, kind: str, trump: int, rules: dict[str, str]) -> None:
        self.kind, self.trump, self.rules = kind, trump, rules
        self.automatic = rules.get("declare_66", "automatic") == "automatic"
        self.memo: dict[tuple[Hand, Hand, bool, int, int], bool] = {}

    def trick(self, lead: int, answer: int, leader_is_us: bool, mine: int, theirs: int) -> tuple[bool, int, int, bool]:
        """(we win the trick, our points, their points, the deal ends) after ``answer`` to ``lead``."""
        answer_wins = beats(answer, lead, self.trump)
        we_win = answer_wins != leader_is_us
        worth = points(lead) + points(answer)
        if we_win:
            mine += worth
        else:
            theirs += worth
        over = self.automatic and (mine if we_win else theirs) >= 66
        return we_win, mine, theirs, over

    def we_lead(self, ours: Hand, bot: Hand, mine: int, theirs: int) -> int | None:
        """A card to lead that forces the follow rule now or later, or None."""
        for c in ours:
            if situation(bot, c, self.trump, self.rules) == self.kind:
                return c
        for c in ours:
            if self._leads_to_it(c, ours, bot, mine, theirs):
                return c
        return None

    def _leads_to_it(self, c: int, ours: Hand, bot: Hand, mine: int, theirs: int) -> bool:
        rest = tuple(x for x in ours if x != c)
        for answer in playable(bot, c, self.trump, self.rules):
            if not self._after(rest, tuple(x for x in bot if x != answer), c, answer, True, mine, theirs):
                return False
        return True

    def we_answer(self, ours: Hand, bot: Hand, led: int, mine: int, theirs: int) -> int | None:
        """A card to answer ``led`` with that forces the follow rule later, or None."""
        for c in playable(ours, led, self.trump, self.rules):
            if self._after(tuple(x for x in ours if x != c), bot, led, c, False, mine, theirs):
                return c
        return None

    def _after(self, ours: Hand, bot: Hand, lead: int, answer: int, leader_is_us: bool, mine: int,
               theirs: int) -> bool:
        if not ours or not bot:
            return False
        we_win, mine, theirs, over = self.trick(lead, answer, leader_is_us, mine, theirs)
        if over:
            return False
        key = (ours, bot, we_win, mine, theirs)
        if key not in self.memo:
            self.memo[key] = False  # (no cycles: every step plays cards)
            if we_win:
                self.memo[key] = self.we_lead(ours, bot, mine, theirs) is not None
            else:
                self.memo[key] = all(self.we_answer(ours, tuple(x for x in bot if x != b), b, mine, theirs)
                                     is not None for b in bot)
        return self.memo[key]


def steer(kind: str, turn: dict[str, str], legal: list[str], rules: dict[str, str]) -> str:
    """The steering opponent's action token (``legal`` without declare, close and marriages)."""
    plays = [card(t.split(":")[1]) for t in legal if t.startswith("play:")]
    hand = cards(turn["hand"])
    trump = SUITS.index(turn["trump"])
    led = None if turn["led"] == "-" else card(turn["led"])
    mine, theirs = int(turn["points"]), int(turn["opp_points"])
    strict = turn["talon"] == "0" or turn["closed"] != "-" or rules.get("follow_while_open") == "strict"
    choice = None
    if strict and turn["talon"] == "0":  # every card is known: the bot holds the rest
        deck = [c for c in range(24) if rules.get("deck") != "20" or c % 6 != 0]
        seen = set(hand) | set(cards(turn["played"])) | ({led} if led is not None else set())
        bot = tuple(c for c in deck if c not in seen)
        solver = Steer(kind, trump, rules)
        ours = tuple(hand)
        if led is None:
            choice = solver.we_lead(ours, bot, mine, theirs)
        else:
            choice = solver.we_answer(ours, bot, led, mine, theirs)
    if choice is None:
        choice = _keep_going(plays, led, trump, mine)
    return "play:" + text(choice)


def _keep_going(plays: list[int], led: int | None, trump: int, mine: int) -> int:
    """No forcing line (yet): keep the deal going: lead low; answer by taking the trick cheaply while that
    keeps us below 66 (the bot scores less, and the next lead is ours), else throw the cheapest card."""
    def cheap(c: int) -> tuple[int, bool, int]:
        return (points(c), c // 6 == trump, c)

    if led is None:
        return min(plays, key=cheap)
    winners = [c for c in plays if beats(c, led, trump) and mine + points(c) + points(led) < 66]
    if winners:
        return min(winners, key=cheap)
    losers = [c for c in plays if not beats(c, led, trump)]
    return min(losers or plays, key=cheap)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--script", default="", help="comma-separated action tokens to play first")
    parser.add_argument("--steer", default="", choices=("", *STEER), help="steer towards this follow rule")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    script = [a for a in args.script.split(",") if a]
    rules: dict[str, str] = {}

    def send(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split()
        head = words[0] if words else ""
        if head == "arena":
            send("bot 1 random author=arena")
        elif head == "match":
            rules = dict(w.split("=", 1) for w in words[2:] if "=" in w)
        elif head == "turn":
            turn = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            legal = turn["legal"].split(",")
            if script and script[0] in legal:
                action = script.pop(0)
            elif args.steer and any(a.startswith("play:") for a in legal):
                script.clear()
                action = steer(args.steer, turn, legal, rules)
            else:
                script.clear()
                action = rng.choice(legal)
            send(action.replace(":", " ", 1))
        elif head == "quit":
            return


if __name__ == "__main__":
    main()
