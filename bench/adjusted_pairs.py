"""Play the real duplicate pairs whose luck-adjusted scores tests/data/adjusted_pairs.json keeps (the SPRT
error-rate tests resample them, tests/test_sprt_errors.py; docs/STATISTICS.md).

    .venv/bin/python bench/adjusted_pairs.py [PAIRS] [--only NAME ...]   # default 150 pairs a bot pair

Each bot pair plays PAIRS duplicate pairs through the real referee (arena.api.play_match, santase, seed
FIRST_SEED + its index, concurrency 1); a pair's score is the first bot's mean over its two matches, raw
and luck-adjusted (arena.stats.luck.adjusted with the match's luck, arena.store.facts.record_luck). The file
keeps the pair scores (and each match's adjusted score), rounded to 4 places, per bot pair, with the bots
and seed that made them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.api import play_match  # noqa: E402
from arena.referee.clock import TimeControl  # noqa: E402
from arena.stats.luck import adjusted  # noqa: E402
from arena.store.facts import record_luck  # noqa: E402

OUT = ROOT / "tests" / "data" / "adjusted_pairs.json"
STRONG = "bots/ismcts/ismcts --ms 4"  # as bench/luck_pool.py: strong against greedy, cheap
WEAK = "bots/ismcts/ismcts --iters 150"
PAIRS = {  # name -> (candidate, opponent)
    "ismcts-greedy": (STRONG, "bots/c/greedy"),
    "weak-greedy": (WEAK, "bots/c/greedy"),
    "greedy-random": ("bots/c/greedy", "bots/c/random 7"),  # (not in the file: greedy won all 150 pairs)
    "ismcts-ismcts": (STRONG + " --seed 1", STRONG + " --seed 2"),  # one bot, two seeds: the luck alone
}
FIRST_SEED = 3600  # bot pair i plays from FIRST_SEED + i
# The file was made with `250 --only ismcts-greedy` and `150 --only weak-greedy ismcts-ismcts` (these two by a
# first version of this script, which kept no match_adjusted).


def play(name: str, pairs: int) -> dict[str, object]:
    a, b = PAIRS[name]
    seed = FIRST_SEED + list(PAIRS).index(name)
    scores: dict[int, list[tuple[float, float]]] = {}

    def on_record(spec, rec) -> None:
        first = rec.bots[0] == "A"
        score = 1.0 if rec.winner_name == "A" else 0.0
        luck = record_luck(rec)
        scores.setdefault(spec.order // 2, []).append((score, adjusted(score, luck if first else -luck)))

    play_match(a, b, matches=2 * pairs, seed=seed, names=("A", "B"), time_control=TimeControl(move_ms=2000),
               duplicate=True, concurrency=1, on_record=on_record)
    done = [scores[k] for k in sorted(scores) if len(scores[k]) == 2]
    return {"candidate": a, "opponent": b, "seed": seed, "rules": "santase",
            "raw": [round((x[0] + y[0]) / 2, 4) for x, y in done],
            "adjusted": [round((x[1] + y[1]) / 2, 4) for x, y in done],
            # each match alone, the pair's two in turn (the candidate's seats alternate): the units of a
            # series without duplicate deals
            "match_adjusted": [round(m[1], 4) for pair in done for m in pair]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pairs", type=int, nargs="?", default=150)
    p.add_argument("--only", nargs="+", choices=list(PAIRS), default=list(PAIRS))
    args = p.parse_args()
    for name in args.only:
        pool = play(name, args.pairs)
        data = json.loads(OUT.read_text()) if OUT.exists() else {}  # read again: keep what others wrote since
        data["about"] = ("Luck-adjusted duplicate-pair scores of real santase matches (the first bot's mean over "
                         "the pair's two matches), made by bench/adjusted_pairs.py; tests/test_sprt_errors.py "
                         "resamples them.")
        data.setdefault("pools", {})[name] = pool
        print(name, len(pool["raw"]), sum(pool["raw"]) / len(pool["raw"]), flush=True)
        OUT.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
