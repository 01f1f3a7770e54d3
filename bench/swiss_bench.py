"""A Swiss's pairing on simulated fields: the time to pair a round, how often a round cannot be paired, and
whether the strongest bot ends first.

    .venv/bin/python bench/swiss_bench.py [--fields 16,64,256] [--tournaments 20] [--rounds R]

Each tournament draws a strength per bot (Elo, normal with sd 200; listed in random order, so the seeding
knows nothing) and plays every pair as two matches won by Bradley-Terry odds; it is paired round by round
by arena.tournament.swiss from arena.stats.swiss's table, exactly as `arena run` pairs from the store. The
rounds default to the config's default (ceil(log2(bots)) + 2). docs/PERFORMANCE.md has a recorded run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.stats.swiss import SwissGame, swiss_table  # noqa: E402
from arena.tournament.config import default_rounds  # noqa: E402
from arena.tournament.swiss import SwissError, swiss_pairings  # noqa: E402


def tournament(n: int, rounds: int, seed: int) -> tuple[list[float], bool, int]:
    """Seconds per round paired, whether a round could not be paired, the strongest bot's final place."""
    rng = random.Random(seed)
    bots = [f"b{i}" for i in range(n)]
    elo = {b: rng.gauss(0, 200) for b in bots}
    games: list[SwissGame] = []
    times = []
    for r in range(rounds):
        table = swiss_table(bots, games)
        start = time.perf_counter()
        try:
            pairs, _ = swiss_pairings(bots, table, rounds)
        except SwissError:
            return times, True, -1
        times.append(time.perf_counter() - start)
        for a, b in pairs:
            p_a = 1 / (1 + 10 ** ((elo[b] - elo[a]) / 400))
            games += [SwissGame(r, (a, b), True, a if rng.random() < p_a else b) for _ in range(2)]
    ranking = swiss_table(bots, games).ranking()
    best = max(bots, key=elo.__getitem__)
    return times, False, ranking.index(best) + 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fields", default="16,64,256")
    p.add_argument("--tournaments", type=int, default=20)
    p.add_argument("--rounds", type=int, default=None)
    args = p.parse_args()
    print("| bots | rounds | tournaments | pairing a round: median, worst | unpairable | strongest 1st / top 3 |")
    print("|---:|---:|---:|---|---:|---|")
    for n in (int(x) for x in args.fields.split(",")):
        rounds = args.rounds or default_rounds("swiss", n)
        times: list[float] = []
        failed = 0
        places = []
        for seed in range(args.tournaments):
            t, fail, place = tournament(n, rounds, seed)
            times += t
            failed += fail
            if not fail:
                places.append(place)
        print(f"| {n} | {rounds} | {args.tournaments} | {statistics.median(times) * 1000:.0f} ms, "
              f"{max(times) * 1000:.0f} ms | {failed} | {sum(p == 1 for p in places)} / "
              f"{sum(p <= 3 for p in places)} of {len(places)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
