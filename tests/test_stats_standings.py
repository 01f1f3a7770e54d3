"""Standings: every per-bot total from hand-built match facts (the one computation the report, `arena run`
and `arena match` share), and the facts of real games, from a match record and read back from the store."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.game import Match, preset
from arena.referee.record import BotTermination, DealRecord, MatchRecord, MatchSpec, Termination
from arena.stats import BotStanding, DealFacts, MatchFacts, TerminationFacts, ThinkTime, standings
from arena.store import Store
from arena.tournament.build import BotProvenance


def deal(winner: int | None, gp: int = 1, closes: tuple[int, int] = (0, 0),
         marriages: tuple[int, int] = (0, 0)) -> DealFacts:
    return DealFacts(winner, gp if winner is not None else 0, closes, marriages)


# a beats b 7-3: deals won by a, b, a (a closed and won it); a married twice, b once
M1 = MatchFacts(
    "m1", ("a", "b"), 0, (7, 3),
    deals=(deal(0, 3, marriages=(1, 0)), deal(1, 3, marriages=(0, 1)), deal(0, 4, closes=(1, 0), marriages=(1, 0))),
    think_ms=((3.0, 1.0), (10.0,)),
)
# b (seat 0) against a: b closes and fails, then a times out mid-deal and forfeits the match
M2 = MatchFacts(
    "m2", ("b", "a"), 0, (7, 2),
    deals=(deal(1, 2, closes=(1, 0)), deal(None)),
    terminations=(TerminationFacts("a", "timeout"),),
    think_ms=((20.0, 30.0), (250.0, 2.0)),
)
# c against a, abandoned: nobody won, no deal finished
M3 = MatchFacts("m3", ("c", "a"), None, (0, 0), deals=(deal(None),),
                terminations=(TerminationFacts("c", "crash"), TerminationFacts("a", "crash"),
                              TerminationFacts("a", "timeout")))


def test_per_bot_totals() -> None:
    s = standings([M1, M2, M3], bots=["a", "b", "c"])
    a, b, c = s["a"], s["b"], s["c"]
    assert (a.matches, a.wins, a.losses) == (3, 1, 1)
    assert (b.matches, b.wins, b.losses) == (2, 1, 1)
    assert (c.matches, c.wins, c.losses) == (1, 0, 0)
    assert (a.game_points, a.game_points_against) == (9, 10)
    assert (b.game_points, b.game_points_against) == (10, 9)
    # deals: only decided ones count for a bot; the totals count every deal played
    assert (a.deals, a.deals_won, a.deal_game_points) == (4, 3, 9)
    assert (b.deals, b.deals_won, b.deal_game_points) == (4, 1, 3)
    assert (c.deals, c.deals_won) == (0, 0)
    assert (s.matches, s.deals, s.terminations) == (3, 6, 4)
    # closes: a closed once and won that deal; b closed once and lost it
    assert (a.closes, a.closes_won, a.close_win_rate) == (1, 1, 1.0)
    assert (b.closes, b.closes_won, b.close_win_rate) == (1, 0, 0.0)
    assert (a.marriages, b.marriages) == (2, 1)
    # terminations by kind, in first-seen order; sorted by count for display
    assert dict(a.terminations) == {"timeout": 2, "crash": 1}
    assert list(a.terminations) == ["timeout", "crash"]
    assert a.terminations_by_count == [("timeout", 2), ("crash", 1)]
    assert a.terminations_total == 3 and b.terminations_total == 0
    assert dict(c.terminations) == {"crash": 1}


def test_rates() -> None:
    s = standings([M1, M2, M3])
    a = s["a"]
    assert a.score == pytest.approx(1 / 3)
    assert a.deal_win_rate == 0.75
    assert a.game_points_per_deal == 2.25
    assert a.marriages_per_deal == 0.5
    c = s["c"]
    assert c.score == 0.0
    assert c.deal_win_rate is None and c.game_points_per_deal is None and c.marriages_per_deal is None
    assert c.close_win_rate is None


def test_think_time() -> None:
    s = standings([M1, M2, M3])
    t = s["a"].think
    assert t.ms == (1.0, 2.0, 3.0, 250.0)  # both seats, every match, ascending
    assert t.decisions == 4 and t.median_ms == 2.5 and t.worst_ms == 250.0 and t.total_ms == 256.0
    assert t.p90_ms == pytest.approx(3.0 + 0.7 * 247.0)
    assert s["b"].think.median_ms == 20.0
    none = s["c"].think
    assert none == ThinkTime()
    assert (none.decisions, none.median_ms, none.p90_ms, none.worst_ms, none.total_ms) == (0, None, None, None, 0)


def test_order_and_bots_without_matches() -> None:
    s = standings([M3, M1], bots=["z", "b"])
    assert [x.bot for x in s] == ["z", "b", "c", "a"]  # given first, then as they first sit down
    assert len(s) == 4
    assert s["z"] == BotStanding("z")
    assert s["z"].score is None and s["z"].terminations_total == 0
    empty = standings([])
    assert len(empty) == 0 and (empty.matches, empty.deals, empty.terminations) == (0, 0, 0)


def test_a_bot_playing_itself_counts_both_seats() -> None:
    s = standings([MatchFacts("m", ("a", "a"), 1, (2, 7), deals=(deal(1, 3, closes=(1, 0)),))])
    a = s["a"]
    assert (a.matches, a.wins, a.losses, a.game_points, a.game_points_against) == (2, 1, 1, 9, 9)
    assert (a.deals, a.deals_won, a.closes, a.closes_won) == (2, 1, 1, 0)


def test_a_termination_by_someone_not_in_the_match_counts_only_in_the_total() -> None:
    s = standings([MatchFacts("m", ("a", "b"), 0, (7, 0), terminations=(TerminationFacts("ghost", "crash"),))])
    assert "ghost" not in s.bots and s.terminations == 1


# ------------------------------------------------------------------------------------------- real games
def _played(n: int, bots: tuple[str, str]) -> tuple[MatchRecord, dict[str, list[int]]]:
    """A match of random legal play as the referee records it, and what its deals' own state says about
    closes and marriages by seat (the oracle: the engine, not the action log)."""
    rules = preset("schnapsen" if n % 2 else "santase")
    rng = random.Random(n)
    m = Match(rules, n)
    deals = []
    seen = {"closes": [0, 0], "marriages": [0, 0]}
    while not m.over:
        d = m.new_deal()
        while not d.over:
            d.apply(rng.choice(d.legal_actions()))
        m.finish_deal()
        if d.closed_by is not None:
            seen["closes"][d.closed_by] += 1
        for seat, _ in d.marriages:
            seen["marriages"][seat] += 1
        deals.append(DealRecord.of_deal(d))
    terms = [BotTermination(Termination.TIMEOUT, 0, bots[0], "slow", None, 0, 5.0)] if n == 3 else []
    think = ([1.0 + n, 2.0], [0.5] * (n + 1))
    record = MatchRecord(match_id=f"m{n}", bots=bots, rules=rules, deal_seed=n, match_seed=n,
                         winner=m.winner, score=(m.score[0], m.score[1]), deals=deals, terminations=terms,
                         think_ms=think, started_at="2026-01-01T00:00:00+00:00")
    return record, {bots[s]: [seen[k][s] for k in ("closes", "marriages")] for s in (0, 1)}


def test_a_record_and_the_store_give_the_same_facts(tmp_path: Path) -> None:
    seats = [("x", "y"), ("y", "x")] * 4
    played = [_played(n, seats[n]) for n in range(len(seats))]
    records = [r for r, _ in played]
    store = Store(tmp_path / "arena.db")
    try:
        specs = [MatchSpec(f"m{n}", ("x", "y"), n // 2, n % 2, *seats[n], deal_seed=n, match_seed=n, order=n)
                 for n in range(len(seats))]
        store.begin("t", "t.yaml", "name: t\n", "h", preset("santase").to_dict(), 1, "round-robin", specs,
                    [BotProvenance(b, b, (), b) for b in ("x", "y")])
        for rec in records[:-1]:  # the last one is not finished: it counts for nothing
            store.save(rec)
        facts = store.match_facts("t")
        assert facts == [r.facts() for r in records[:-1]]
        assert [f.think_ms for f in store.match_facts("t", think_times=False)] == [((), ())] * (len(records) - 1)
    finally:
        store.close()
    totals = standings(facts, bots=["x", "y"])
    for bot in ("x", "y"):
        closes = sum(seen[bot][0] for _, seen in played[:-1])
        marriages = sum(seen[bot][1] for _, seen in played[:-1])
        assert (totals[bot].closes, totals[bot].marriages) == (closes, marriages)
        assert closes and marriages  # random play does close and marry (else this test would prove little)
    assert totals.deals == sum(len(r.deals) for r in records[:-1])
    assert dict(totals["y"].terminations) == {"timeout": 1} and totals["x"].terminations_total == 0
    assert totals["x"].wins + totals["y"].wins == len(records) - 1
