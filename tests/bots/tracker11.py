#!/usr/bin/env python3
"""A protocol 1.1 bot that checks the 1.1 keys of every `turn` line against its own record of the events.

    python tracker11.py [SEED] [--version 1.1|1] [--think MS]

It answers `bot 1.1 tracker` and keeps, from the event lines alone (never from a turn line), the cards each
seat has won in tricks, each seat's pending marriage points and whether the card on the table was led with
a marriage. At each turn it compares `taken`, `opp_taken`, `opp_pending`, `led_marriage` (and 1.0's
`pending` and `played`) with that record, and writes `tracker: DISAGREE ...` to stderr for any difference.
With `--version 1` it answers `bot 1 tracker` and instead reports any 1.1 key it is sent (`tracker:
UNEXPECTED ...`). After each `match-end` it writes a summary line to stderr:

    tracker: checked <turns> turns, <n> with cards taken, <n> with opp_pending>0, <n> with led_marriage=true

It plays legally: declares 66 when it has it (and a trick), leads a marriage whenever it can (so that
pending points and marriage leads happen often), and otherwise picks a seeded random action other than a
declaration. With `--think MS` it spends at least MS milliseconds on every decision (so a short move limit
draws on the bank whatever the machine's speed). Stdlib only; exits 0 on `quit` or EOF.
"""

import os
import random
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

NEW_KEYS = ("taken", "opp_taken", "opp_pending", "led_marriage")
argv = sys.argv[1:]
version = "1.1"
if "--version" in argv:
    at = argv.index("--version")
    version = argv[at + 1]
    del argv[at:at + 2]
think_s = 0.0
if "--think" in argv:
    at = argv.index("--think")
    think_s = float(argv[at + 1]) / 1000
    del argv[at:at + 2]
rng = random.Random(int(argv[0]) if argv else 0)


class Record:
    """What the events of one deal said so far."""

    def __init__(self) -> None:
        self.taken: list[set[str]] = [set(), set()]
        self.tricks = [0, 0]
        self.pending = [0, 0]
        self.table: list[str] = []  # cards of the trick on the table
        self.marriage: tuple[str, str] | None = None  # (seat, card) of the last marriage event
        self.led_marriage = False

    def event(self, head: str, args: list[str]) -> None:
        if head == "marriage":
            seat, card, points = int(args[0]), args[1], int(args[2])
            self.marriage = (args[0], card)
            if self.tricks[seat] == 0:
                self.pending[seat] += points  # 0 where such a marriage is void
        elif head == "play":
            if not self.table:
                self.led_marriage = self.marriage == (args[0], args[1])
            self.table.append(args[1])
            self.marriage = None
        elif head == "trick":
            winner = int(args[0])
            self.taken[winner].update(self.table)
            self.tricks[winner] += 1
            self.pending[winner] = 0
            self.table = []
            self.led_marriage = False


def card_set(value: str) -> set[str]:
    return set() if value == "-" else set(value.split(","))


def check(turn: dict[str, str], rec: Record, where: str) -> None:
    if version != "1.1":
        for key in NEW_KEYS:
            if key in turn:
                _common.log(f"tracker: UNEXPECTED {where}: a 1.0 turn line carries {key}={turn[key]}")
        return
    seat = int(turn["seat"])
    other = 1 - seat
    expected = {
        "taken": rec.taken[seat], "opp_taken": rec.taken[other], "played": rec.taken[0] | rec.taken[1],
        "opp_pending": str(rec.pending[other]), "pending": str(rec.pending[seat]),
        "led_marriage": "true" if rec.led_marriage and len(rec.table) == 1 else "false",
    }
    for key, want in expected.items():
        if key not in turn:
            _common.log(f"tracker: DISAGREE {where}: no {key} in the turn line")
            continue
        got = card_set(turn[key]) if isinstance(want, set) else turn[key]
        if got != want:
            shown = (",".join(sorted(want)) or "-") if isinstance(want, set) else want
            _common.log(f"tracker: DISAGREE {where}: {key}={turn[key]}, the events say {shown}")


def choose(turn: dict[str, str]) -> str:
    legal = _common.legal(turn)
    if "declare" in legal and int(turn["points"]) >= 66 and int(turn["tricks"]) >= 1:
        return "declare"
    marriages = [a for a in legal if a.startswith("marriage:")]
    if marriages:
        return marriages[0]
    return rng.choice([a for a in legal if a != "declare"])


def main() -> None:
    _common.handshake("tracker", version=version)
    rec = Record()
    deal = turns = with_taken = with_pending = with_led_marriage = 0
    while True:
        line = _common.read_line()
        if line is None or line == "quit":
            return
        head, *args = line.split(" ")
        if head == "deal":
            deal, rec = int(args[0]), Record()
        elif head in ("play", "marriage", "trick"):
            rec.event(head, args)
        elif head == "turn":
            turn = _common.parse_turn(line)
            turns += 1
            check(turn, rec, f"deal {deal} turn {turns}")
            time.sleep(think_s)
            with_taken += turn.get("opp_taken", "-") != "-"
            with_pending += turn.get("opp_pending", "0") != "0"
            with_led_marriage += turn.get("led_marriage") == "true"
            _common.send(choose(turn).replace(":", " "))
        elif head == "match-end":
            _common.log(f"tracker: checked {turns} turns, {with_taken} with cards taken, {with_pending} with "
                        f"opp_pending>0, {with_led_marriage} with led_marriage=true")
            turns = with_taken = with_pending = with_led_marriage = 0


main()
