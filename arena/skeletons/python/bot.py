#!/usr/bin/env python3
"""@@NAME@@: a bot for arena (Santase / Sixty-Six / Schnapsen), speaking protocol 1 (docs/PROTOCOL.md).

Plain Python 3, standard library only: copy it anywhere. The referee writes lines to our stdin; we answer
on stdout, one line per `turn`, flushed at once. Debug output goes to stderr, which arena keeps.

It plays a little better than random: it declares 66 when it has it, exchanges the trump card, declares
marriages once it has won a trick, wins a trick with the cheapest card that wins it, and otherwise throws
its cheapest card. Make it yours in choose().
"""

from __future__ import annotations

import sys

NAME = "@@NAME@@"
POINTS = {"9": 0, "J": 2, "Q": 3, "K": 4, "T": 10, "A": 11}  # card points by rank
ORDER = "9JQKTA"  # trick-taking order within a suit, lowest first


def send(line: str) -> None:
    """Write one line and flush it: a reply left in the output buffer never reaches the referee."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def beats(card: str, led: str, trump: str) -> bool:
    """Does `card`, played to `led`, take the trick? (a card is rank + suit: "Th")"""
    if card[1] == led[1]:
        return ORDER.index(card[0]) > ORDER.index(led[0])
    return card[1] == trump


def cost(card: str, trump: str) -> int:
    """What giving the card away costs: its points, and a trump costs more than any other card."""
    return POINTS[card[0]] + (20 if card[1] == trump else 0)


def choose(turn: dict[str, str]) -> str:
    """The action to take, as written in the turn's legal= list (play:Th, close, ...)."""
    legal = turn["legal"].split(",")
    trump = turn["trump"]
    if "declare" in legal and int(turn["points"]) >= 66 and int(turn["tricks"]) > 0:
        return "declare"  # only with 66 points and a won trick: a wrong declaration loses the deal
    if "exchange" in legal:
        return "exchange"  # the 9 (or J) of trumps for the turned trump card: we stay to move
    marriages = [a for a in legal if a.startswith("marriage:")]
    if marriages and int(turn["tricks"]) > 0:
        return marriages[0]
    cards = [a.split(":")[1] for a in legal if a.startswith("play:")]
    if not cards:
        return next((a for a in legal if a != "declare"), legal[0])
    led = turn["led"]
    if led != "-":
        winners = [c for c in cards if beats(c, led, trump)]
        if winners:
            return "play:" + min(winners, key=lambda c: cost(c, trump))
    return "play:" + min(cards, key=lambda c: cost(c, trump))


def main() -> None:
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "arena":  # the handshake: the versions the referee speaks; we choose 1
            if "1" not in words[1:]:
                sys.exit(f"{NAME}: the referee does not offer protocol version 1: {line.strip()}")
            send(f"bot 1 {NAME}")
        elif words[0] == "turn":  # our decision: key=value pairs, looked up by name
            turn = dict(word.split("=", 1) for word in words[1:] if "=" in word)
            send(choose(turn).replace(":", " ", 1))  # "play:Th" is answered "play Th"
        elif words[0] == "quit":
            return
        # match, deal, events, deal-end, match-end, error: nothing to answer (a new match may follow)


if __name__ == "__main__":
    main()
