#!/usr/bin/env python3
"""The opponent of `arena check`: the random bot (a seeded, uniformly random legal action, as bots/random.py
plays), which can be told its first actions so that a set-up deal arises exactly as planned.

    python opponent.py --seed 7 --script close,play:Kd

Standard library only, and shipped inside the arena package, so `arena check` works wherever arena is
installed (the repository's bots/ folder need not be there) and starts it in a few milliseconds. A scripted
action that is not legal when its turn comes ends the script; from then on it plays at random.
"""

import argparse
import random
import sys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--script", default="", help="comma-separated action tokens to play first")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    script = [a for a in args.script.split(",") if a]

    def send(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split()
        head = words[0] if words else ""
        if head == "arena":
            send("bot 1 random author=arena")
        elif head == "turn":
            legal = next(w[len("legal="):] for w in words if w.startswith("legal=")).split(",")
            if script and script[0] in legal:
                action = script.pop(0)
            else:
                script.clear()
                action = rng.choice(legal)
            send(action.replace(":", " ", 1))
        elif head == "quit":
            return


if __name__ == "__main__":
    main()
