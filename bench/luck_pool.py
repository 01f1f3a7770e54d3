"""Play the pool of real matches that bench/luck_bench.py resamples: duplicate pairs for four bot pairs,
through the real referee (arena.api.play_match), each pair into its own database under bench/out/luck/.

    .venv/bin/python bench/luck_pool.py [PAIRS_PER_BOT_PAIR] [--out DIR] [--only NAME ...]   # default 150

Resumable: a database that already holds its series is continued. Concurrency 1: the machine is shared.
``--out`` plays into another folder (bench/out/luck-twin held the pool dealt with the twin rule, whose
decks differ from the first pool's), ``--only`` plays only the named bot pairs, ``--first-seed`` deals other
decks (bench/out/luck-twin2 was played from 2900).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.api import play_match
from arena.referee.clock import TimeControl

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out" / "luck"
STRONG = "bots/ismcts/ismcts --ms 4"  # a few ms a move: strong against greedy, cheap enough for a pool
WEAK = "bots/ismcts/ismcts --iters 150"  # the weakened ismcts: 150 iterations a decision
PAIRS = {  # name -> (candidate, opponent)
    "ismcts-greedy": (STRONG, "bots/c/greedy"),
    "greedy-random": ("bots/c/greedy", "bots/c/random 7"),
    "ismcts-weak": (STRONG, WEAK),
    "weak-greedy": (WEAK, "bots/c/greedy"),
    "ismcts-ismcts": (STRONG + " --seed 1", STRONG + " --seed 2"),  # one bot, two seeds: the luck alone
}
FIRST_SEED = 2800  # bot pair i plays from seed FIRST_SEED + i


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pairs", type=int, nargs="?", default=150)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--only", nargs="+", choices=list(PAIRS), default=list(PAIRS))
    p.add_argument("--first-seed", type=int, default=FIRST_SEED, help="another pool on other decks")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only:
        a, b = PAIRS[name]
        seed = args.first_seed + list(PAIRS).index(name)
        out = play_match(a, b, matches=2 * args.pairs, seed=seed, names=(name.split("-")[0] + "A",
                         name.split("-")[1] + "B"), time_control=TimeControl(move_ms=2000), duplicate=True,
                         concurrency=1, db=args.out / f"{name}.db")
        print(name, out.summary["wins"], flush=True)


if __name__ == "__main__":
    main()
