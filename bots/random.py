#!/usr/bin/env python3
"""A random bot: plays a uniformly random legal action. The smallest complete bot built on the bot kit.

Run it from the repository root:  python bots/random.py --seed 7   (the seed defaults to 0)
"""

import argparse
import os
import sys

# Let `import arena` work from a checkout, and take this directory off sys.path: this file is named
# random.py, and from here it would hide the standard library's random module.
BOTS = os.path.dirname(os.path.abspath(__file__))
sys.path = [os.path.dirname(BOTS)] + [p for p in sys.path if os.path.abspath(p) != BOTS]

import random  # noqa: E402  (the standard library's, thanks to the lines above)

from arena.protocol.botkit import run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    rng = random.Random(parser.parse_args().seed)
    run(lambda view, legal: rng.choice(legal), name="random", author="arena")


if __name__ == "__main__":
    main()
