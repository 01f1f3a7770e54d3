"""A Swiss tournament (``format: swiss``): round by round, each pairing one duplicate pair.

Round r's pairings are a pure function of the config and the results of the rounds before it, so a Swiss is
as deterministic and resumable as a round robin: the store holds the rounds scheduled so far, a resume plays
what is left of the last one, and each next round is paired from the stored results, the same ones an
uninterrupted run had. A round is paired only once every match before it is final.

The pairing is the FIDE Dutch system of caissify-pairings (a library cross-checked against the FIDE-endorsed
bbpPairings), not code of ours. What it is told:

- the players in the config's order as their starting numbers, all with the same rating: the config's order
  is the seeding;
- each bot's Swiss points (arena.stats.swiss) halved, so a pair counts as one chess game does (2-0 a win,
  1-1 a draw) and a bye is the draw-like 0.5;
- colours: the library's white is the pairing's first bot, which sits in seat 0 of game 0 (and seat 1 of
  game 1). Both bots play both seats on the same deals, so colour balance is moot; the library's colour
  history is kept only so that its input is the one it expects;
- every pairing so far, which it never repeats (no rematches), and each bot's floats and byes.

A round it can only fill with a rematch or a second bye is refused: the run stops with a message that asks
for fewer rounds (`SwissError`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from arena.errors import ArenaError
from arena.referee.record import MatchSpec
from arena.stats.swiss import SwissTable, swiss_table
from arena.tournament.config import TournamentConfig
from arena.tournament.pairs import pair_specs

__all__ = ["SwissError", "first_round", "next_round", "round_specs", "swiss_pairings"]

# The library logs a warning of its own for a round it cannot pair; SwissError says it once, in our words.
logging.getLogger("caissify_pairings").setLevel(logging.ERROR)


class SwissError(ArenaError):
    """A Swiss round that cannot be paired without a rematch."""


def swiss_pairings(bots: Sequence[str], table: SwissTable, rounds: int) -> tuple[list[tuple[str, str]], list[str]]:
    """The next round's pairings (first bot = the library's white) and its bye (none in an even field),
    from the ``table`` of the rounds before it. ``rounds`` is the tournament's number of rounds."""
    from caissify_pairings import generate_pairings

    ids = {b: i + 1 for i, b in enumerate(bots)}
    colours: dict[str, list[str]] = {b: [] for b in bots}
    floats: dict[str, list[str]] = {b: [] for b in bots}
    byes = dict.fromkeys(bots, 0)
    for r in table.rounds:
        before = r.points_before
        for p in r.pairings:
            colours[p.a].append("white")
            colours[p.b].append("black")
            up_a = before[p.a] < before[p.b]
            down_a = before[p.a] > before[p.b]
            floats[p.a].append("up" if up_a else "down" if down_a else "none")
            floats[p.b].append("down" if up_a else "up" if down_a else "none")
        for b in r.byes:
            colours[b].append("none")
            floats[b].append("down")  # a bye is a downfloat to the FIDE rules (A.4)
            byes[b] += 1
    players = [{
        "id": ids[b], "name": b, "score": table.points[b] / 2, "rating": 0, "starting_number": ids[b],
        "color_hist": colours[b], "float_history": floats[b], "bye_count": byes[b],
    } for b in bots]
    previous = {(min(ids[p.a], ids[p.b]), max(ids[p.a], ids[p.b])) for r in table.rounds for p in r.pairings}
    number = len(table.rounds) + 1
    rows = generate_pairings(system="dutch", players=players, previous_pairings=previous, round_number=number,
                             total_rounds=rounds, max_byes_per_player=1)
    name = {i: b for b, i in ids.items()}
    pairs = [(name[r["white_id"]], name[r["black_id"]]) for r in rows if r.get("black_id") is not None]
    bye = [name[r["white_id"]] for r in rows if r.get("black_id") is None]
    met = table.met()
    if len(bye) != len(bots) % 2 or any(byes[b] for b in bye) or any(frozenset(p) in met for p in pairs):
        raise SwissError(f"round {number} of {rounds} cannot be paired without a rematch or a second bye; "
                         f"expected fewer rounds (rounds: {number - 1}, and arena run --force keeps the "
                         "results so far)")
    return pairs, bye


def round_specs(pairings: Sequence[tuple[str, str]], index: int, n_bots: int, seed: int,
                duplicate: bool) -> list[MatchSpec]:
    """Round ``index``'s (0-based) matches: one duplicate pair per pairing, its ``pair_index`` the round.
    Every round takes the same block of the schedule's order, so the order of a match never depends on the
    rounds before it."""
    first = index * (n_bots // 2) * 2
    specs: list[MatchSpec] = []
    for a, b in pairings:
        specs.extend(pair_specs(a, b, index, seed, duplicate, first + len(specs)))
    return specs


def first_round(config: TournamentConfig, seed: int) -> list[MatchSpec]:
    """Round 1: paired from the config alone."""
    return next_round(config, swiss_table([b.name for b in config.bots], []), seed)


def next_round(config: TournamentConfig, table: SwissTable, seed: int) -> list[MatchSpec]:
    """The matches of the round after those in ``table`` (the stored results: `Store.swiss_games`); [] when
    its last round is not finished or was the tournament's last. Pure, but seconds of CPU for a field of a
    hundred bots: the runner calls it in a thread."""
    if len(table.rounds) >= config.rounds or (table.rounds and not table.rounds[-1].complete):
        return []
    bots = [b.name for b in config.bots]
    pairs, _ = swiss_pairings(bots, table, config.rounds)
    return round_specs(pairs, len(table.rounds), len(bots), seed, config.duplicate)
