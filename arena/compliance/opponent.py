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
SEARCH_TRICKS = 1  # with the talon known: search once this many tricks (or fewer) are left before it runs out


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
    """How likely the follow rule ``kind`` is to be put before the bot, if it plays at random (1.0: whatever it
    plays), and the card that makes it likeliest. The search knows every card (the bot's hand and the talon's
    order, see steer()); it models the free and the strict phase, the draws and the automatic end at 66, not
    the bot's marriages, exchanges and declarations."""

    def __init__(self, kind: str, trump: int, rules: dict[str, str]) -> None:
        self.kind, self.trump, self.rules = kind, trump, rules
        self.automatic = rules.get("declare_66", "automatic") == "automatic"
        self.always_strict = rules.get("follow_while_open") == "strict"
        self.memo: dict[tuple[Hand, Hand, Hand, bool, int, int], float] = {}

    def _plays(self, hand: Hand, led: int, talon: Hand) -> Sequence[int]:
        return playable(hand, led, self.trump, self.rules) if self.always_strict or not talon else hand

    def we_lead(self, ours: Hand, bot: Hand, talon: Hand, mine: int, theirs: int) -> tuple[float, int | None]:
        if self.always_strict or not talon:
            for c in ours:
                if situation(bot, c, self.trump, self.rules) == self.kind:
                    return 1.0, c
        best: tuple[float, int | None] = (0.0, None)
        for c in ours:
            rest = tuple(x for x in ours if x != c)
            answers = self._plays(bot, c, talon)
            value = sum(self._after(rest, tuple(x for x in bot if x != a), talon, c, a, True, mine, theirs)
                        for a in answers) / len(answers)
            if value > best[0]:
                best = (value, c)
                if value == 1.0:
                    break
        return best

    def we_answer(self, ours: Hand, bot: Hand, talon: Hand, led: int, mine: int,
                  theirs: int) -> tuple[float, int | None]:
        best: tuple[float, int | None] = (0.0, None)
        for c in self._plays(ours, led, talon):
            value = self._after(tuple(x for x in ours if x != c), bot, talon, led, c, False, mine, theirs)
            if value > best[0]:
                best = (value, c)
                if value == 1.0:
                    break
        return best

    def _after(self, ours: Hand, bot: Hand, talon: Hand, lead: int, answer: int, leader_is_us: bool, mine: int,
               theirs: int) -> float:
        we_win = beats(answer, lead, self.trump) != leader_is_us
        if self.automatic:  # (else the points change nothing here: a declaration is the bot's choice)
            worth = points(lead) + points(answer)
            if we_win:
                mine += worth
            else:
                theirs += worth
            if max(mine, theirs) >= 66:
                return 0.0  # the deal ends here
        if talon:  # the winner draws first; the loser gets the next card (the last one is the turned card)
            first, second = (talon[0],), (talon[1],)
            ours, bot = (ours + first, bot + second) if we_win else (ours + second, bot + first)
            talon = talon[2:]
        if not ours or not bot:
            return 0.0
        key = (ours, bot, talon, we_win, mine, theirs)
        if key not in self.memo:
            if we_win:
                self.memo[key] = self.we_lead(ours, bot, talon, mine, theirs)[0]
            else:
                self.memo[key] = sum(self.we_answer(ours, tuple(x for x in bot if x != b), talon, b, mine, theirs)[0]
                                     for b in bot) / len(bot)
        return self.memo[key]


def steer(kind: str, turn: dict[str, str], legal: list[str], rules: dict[str, str],
          talon: Sequence[int] = (), lookahead: int | None = None) -> str:
    """The steering opponent's action token (``legal`` without declare, close and marriages). ``talon`` is the
    deal's talon in drawing order as dealt (its last card the turned one): with it the opponent knows every
    card, and searches once no more than ``lookahead`` tricks remain before the talon runs out; without it,
    only once the talon has run out (every card is known then)."""
    plays = [card(t.split(":")[1]) for t in legal if t.startswith("play:")]
    hand = cards(turn["hand"])
    trump = SUITS.index(turn["trump"])
    led = None if turn["led"] == "-" else card(turn["led"])
    mine, theirs = int(turn["points"]), int(turn["opp_points"])
    size = int(turn["talon"])
    lookahead = SEARCH_TRICKS if lookahead is None else lookahead
    choice = None
    if turn["closed"] == "-" and (size == 0 or (talon and size <= 2 * lookahead)):
        rest: Hand = ()
        if size:
            turned = talon[-1] if turn["turned"] == "-" else card(turn["turned"])
            rest = (*talon[len(talon) - size:-1], turned)
        deck = [c for c in range(24) if rules.get("deck") != "20" or c % 6 != 0]
        seen = set(hand) | set(cards(turn["played"])) | set(rest) | ({led} if led is not None else set())
        bot = tuple(c for c in deck if c not in seen)
        solver = _solver(kind, trump, rules)
        ours = tuple(hand)
        if led is None:
            choice = solver.we_lead(ours, bot, rest, mine, theirs)[1]
        else:
            choice = solver.we_answer(ours, bot, rest, led, mine, theirs)[1]
    if choice is None or choice not in plays:
        choice = _keep_going(plays, led, trump, mine)
    return "play:" + text(choice)


_SOLVERS: dict[tuple[str, int, tuple[tuple[str, str], ...]], Steer] = {}


def _solver(kind: str, trump: int, rules: dict[str, str]) -> Steer:
    """One search (and its memory of positions) for every decision of a deal, and of the next ones."""
    key = (kind, trump, tuple(sorted(rules.items())))
    solver = _SOLVERS.get(key)
    if solver is None or len(solver.memo) > 200_000:
        solver = _SOLVERS[key] = Steer(kind, trump, rules)
    return solver


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
    parser.add_argument("--talon", default="", help="with --steer: the deal's talon as dealt, in drawing order")
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
                action = steer(args.steer, turn, legal, rules, cards(args.talon))
            else:
                script.clear()
                action = rng.choice(legal)
            send(action.replace(":", " ", 1))
        elif head == "quit":
            return


if __name__ == "__main__":
    main()
