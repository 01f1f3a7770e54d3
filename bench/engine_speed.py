"""Random deals per second of the rules engine (arena.game), per preset, in one process.

    .venv/bin/python bench/engine_speed.py                 # every preset, about 1 s each
    .venv/bin/python bench/engine_speed.py --seconds 3 santase
    .venv/bin/python bench/engine_speed.py --schnapsen     # also the `schnapsen` package's engine
    .venv/bin/python bench/engine_speed.py --json

A deal is: shuffle the preset's deck with a seeded random.Random, build a Deal, then until it is over pick a
uniformly random legal action with the same generator and apply it. The figure is the median of several
timed rounds (so a passing hiccup of the machine does not move it).

The yardstick (``--schnapsen``, and row 1 of ``make bench``) is the PyPI package ``schnapsen`` (VU
Amsterdam's teaching platform): its SchnapsenGamePlayEngine plays one deal (a "game" in its terms) between
two of its RandBots. It is installed by ``make bench`` into bench/out/site with ``--no-deps``: its engine
(schnapsen.game, schnapsen.deck) imports only the standard library, and its RandBot is loaded from its file
so that schnapsen/bots/__init__.py, which imports scikit-learn and flask for other bots, is never run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SITE = BENCH / "out" / "site"  # where `make bench` installs schnapsen (pip install --no-deps --target)

if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from arena.game import DECLARE, PRESETS, Deal, full_deck, preset  # noqa: E402


def arena_deal_loop(
    preset_name: str, seed: int = 1, manual_random: bool = False
) -> tuple[Callable[[], int], Callable[[], int]]:
    """(play one deal, actions played so far) for a preset; each call plays one random deal.

    Where declaring 66 is manual, ``declare`` is played when it wins and never otherwise, unless
    ``manual_random`` (then it is one more uniformly random choice, which ends most deals early)."""
    rules = preset(preset_name)
    rng = random.Random(seed)
    deck0 = full_deck(rules)
    actions = [0]

    def one() -> int:
        deck = list(deck0)
        rng.shuffle(deck)
        deal = Deal(rules, deck, rng.randrange(2))
        n = 0
        while deal.result is None:
            legal = deal.legal_actions()
            if legal[0] is DECLARE and not manual_random:
                # Declaring 66 is legal at every turn where it is manual: a uniformly random bot would
                # declare wrongly in its first turns and end most deals at once. Declare when it wins.
                seat = deal.to_move
                legal = legal[:1] if deal.tricks[seat] and deal.total(seat) >= 66 else legal[1:]
            deal.apply(rng.choice(legal))
            n += 1
        actions[0] += n
        return n

    return one, lambda: actions[0]


def load_schnapsen() -> tuple[Any, Any]:
    """(schnapsen.game module, RandBot class), or raise ImportError saying how to install it."""
    if SITE.is_dir() and str(SITE) not in sys.path:
        sys.path.insert(0, str(SITE))
    try:
        import schnapsen.game as sgame
    except ImportError:
        raise ImportError(
            "the schnapsen package is not installed: run `make bench`, or "
            f"`.venv/bin/python -m pip install --no-deps --target {SITE} schnapsen==0.0.5`"
        ) from None
    rand_py = Path(sgame.__file__).parent / "bots" / "rand.py"
    spec = importlib.util.spec_from_file_location("schnapsen_bots_rand", rand_py)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return sgame, mod.RandBot


def schnapsen_deal_loop(seed: int = 1) -> Callable[[], int]:
    sgame, RandBot = load_schnapsen()
    engine = sgame.SchnapsenGamePlayEngine()
    rng = random.Random(seed)
    bot1, bot2 = RandBot(random.Random(seed + 1), "rand1"), RandBot(random.Random(seed + 2), "rand2")

    def one() -> int:
        engine.play_game(bot1, bot2, rng)
        return 0

    return one


def timed_calls(one: Callable[[], Any], seconds: float) -> tuple[int, float]:
    """Call ``one`` for about ``seconds`` (checking the clock every 16 calls): (calls, elapsed seconds)."""
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(16):
            one()
        n += 16
        now = time.perf_counter()
        if now >= deadline:
            return n, now - start


def rate(one: Callable[[], Any], seconds: float) -> float:
    n, elapsed = timed_calls(one, seconds)
    return n / elapsed


def compare(seconds: float, rounds: int = 5, seed: int = 1) -> dict[str, Any]:
    """Row 1 of `make bench`: arena santase deals/s against schnapsen's engine, rounds interleaved."""
    ours, _ = arena_deal_loop("santase", seed)
    theirs = schnapsen_deal_loop(seed)
    ours(), theirs()  # warm up
    a: list[float] = []
    s: list[float] = []
    for _ in range(rounds):
        a.append(rate(ours, seconds / rounds / 2))
        s.append(rate(theirs, seconds / rounds / 2))
    return {"arena_deals_per_s": statistics.median(a), "schnapsen_deals_per_s": statistics.median(s),
            "arena_rounds": a, "schnapsen_rounds": s}


def per_preset(names: list[str], seconds: float, rounds: int = 3, seed: int = 1) -> list[dict[str, Any]]:
    out = []
    for name in names:
        one, actions = arena_deal_loop(name, seed)
        one()  # warm up
        rates = []
        before, deals = actions(), 0
        for _ in range(rounds):
            n, elapsed = timed_calls(one, seconds / rounds)
            rates.append(n / elapsed)
            deals += n
        med = statistics.median(rates)
        per_deal = (actions() - before) / deals
        out.append({"preset": name, "deals_per_s": med, "actions_per_deal": per_deal,
                    "actions_per_s": med * per_deal})
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("presets", nargs="*", help=f"presets to time (default all: {', '.join(PRESETS)})")
    p.add_argument("--seconds", type=float, default=1.0, help="time per preset (default 1)")
    p.add_argument("--schnapsen", action="store_true", help="also time the schnapsen package's engine")
    p.add_argument("--json", action="store_true", help="print JSON")
    args = p.parse_args(argv)
    names = args.presets or list(PRESETS)
    for name in names:
        if name not in PRESETS:
            p.error(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    rows = per_preset(names, args.seconds)
    result: dict[str, Any] = {"python": sys.version.split()[0], "presets": rows}
    if args.schnapsen:
        try:
            result["schnapsen"] = compare(2 * args.seconds)
        except ImportError as e:
            print(f"engine_speed: {e}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{'preset':<12} {'deals/s':>10} {'actions/deal':>13} {'actions/s':>11}")
    for r in rows:
        print(f"{r['preset']:<12} {r['deals_per_s']:>10,.0f} {r['actions_per_deal']:>13.1f} "
              f"{r['actions_per_s']:>11,.0f}")
    if "schnapsen" in result:
        c = result["schnapsen"]
        ratio = c["arena_deals_per_s"] / c["schnapsen_deals_per_s"]
        print(f"\nsantase (arena) {c['arena_deals_per_s']:,.0f} deals/s; schnapsen package "
              f"{c['schnapsen_deals_per_s']:,.0f} deals/s; ratio {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
