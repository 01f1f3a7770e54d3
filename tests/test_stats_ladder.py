"""The ladder's ratings and matchmaking (arena.stats.ladder): seeded simulations and properties."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.stats import Entrant, PairResult, Result, expected_score, ladder_ratings, next_pair, ratings
from arena.stats.ladder import (
    FAIR_PAIRS,
    PROVISIONAL_HALF_WIDTH,
    LadderState,
    choose_pair,
    prior,
    rank_interval,
    replay,
    settled,
)


def play(rng: random.Random, truth: dict[str, float], first: str, second: str) -> PairResult:
    """A duplicate pair as two independent draw-free matches at the true Bradley-Terry probability."""
    p = expected_score(truth[first] - truth[second])
    return PairResult(first, second, float((rng.random() < p) + (rng.random() < p)))


def simulate(truth: dict[str, float], pairs: int, seed: int, results: list[PairResult] | None = None,
             entrants: list[Entrant] | None = None) -> tuple[list[Entrant], list[PairResult]]:
    """``pairs`` more pairs chosen as next_pair chooses them (from beliefs kept as the pairs are applied,
    rather than replayed for each pair); every bot its own program, all active by default."""
    rng = random.Random(seed)
    entrants = entrants or [Entrant(key, key, True) for key in truth]
    results = list(results or [])
    state = replay(entrants, results)
    for _ in range(pairs):
        recent = [(r.first, r.second) for r in results[-len(entrants):]]
        pair = choose_pair(entrants, state.beliefs, state.played, rng, recent=recent)
        assert pair is not None
        results.append(play(rng, truth, *pair))
        state.apply(results[-1])
    return entrants, results


class Flight:
    """A ladder with ``window`` pairs in flight, as `arena ladder run` plays it: pair k is chosen from the
    results of pairs 0 .. k - window, and the pairings of the pairs in flight (chosen, not finished).
    ``before_issue_34``: the rule before issue 34 (the pairs in flight unseen, every pairing open)."""

    def __init__(self, truth: dict[str, float], seed: int, window: int, before_issue_34: bool = False) -> None:
        self.truth, self.rng, self.window, self.old = dict(truth), random.Random(seed), window, before_issue_34
        self.entrants = [Entrant(key, key, True) for key in truth]
        self.state = LadderState(truth)
        self.results: list[PairResult] = []  # in the order chosen
        self.settled: list[set[str]] = []  # the versions settled when each pair was chosen
        self.active: list[int] = []  # the number of active versions when each pair was chosen
        self.applied = 0

    def enter(self, key: str, elo: float) -> None:
        self.truth[key] = elo
        self.entrants.append(Entrant(key, key, True))
        self.state.add(key)

    def run(self, pairs: int) -> None:
        for _ in range(pairs):
            k = len(self.results)
            while self.applied <= k - self.window:
                self.state.apply(self.results[self.applied])
                self.applied += 1
            active = [e.key for e in self.entrants if e.active]
            self.settled.append(settled(self.state.beliefs, active))
            self.active.append(len(active))
            if self.old:
                pair = choose_pair(self.entrants, self.state.beliefs, self.state.played, self.rng)
            else:
                recent = [(r.first, r.second) for r in self.results[-len(active) - self.window:]]
                pair = choose_pair(self.entrants, self.state.beliefs, self.state.played, self.rng, recent=recent,
                                   in_flight=min(self.window - 1, k))
            assert pair is not None
            self.results.append(play(self.rng, self.truth, *pair))

    def repeats(self, start: int = 0) -> int:
        """Back-to-back identical pairings from pair ``start`` on."""
        pairings = [frozenset((r.first, r.second)) for r in self.results[start:]]
        return sum(a == b for a, b in zip(pairings, pairings[1:], strict=False))


#: Issue 34's ladder: twelve reference bots (five random players of one strength, two greedy, five ismcts)
REFERENCE = {**{f"random{i}": 0.0 for i in range(5)}, "greedy-c": 200.0, "greedy-py": 210.0,
             **{f"ismcts{i}": 350.0 + 100.0 * i for i in range(5)}}


def test_next_pair_is_the_choice_from_the_kept_beliefs():
    truth = {f"b{i}": 90.0 * i for i in range(5)}
    entrants, results = simulate(truth, 40, seed=11)
    state = replay(entrants, results)
    recent = [(r.first, r.second) for r in results]
    for seed in range(5):
        assert next_pair(entrants, results, random.Random(seed)) == choose_pair(
            entrants, state.beliefs, state.played, random.Random(seed), recent=recent)
    flying = [("b1", "b2"), ("b0", "b4")]
    for seed in range(5):
        assert next_pair(entrants, results, random.Random(seed), in_flight=flying) == choose_pair(
            entrants, state.beliefs, state.played, random.Random(seed), recent=recent + flying, in_flight=2)


def by_key(entrants, results) -> dict:
    return {r.key: r for r in ladder_ratings(entrants, results)}


def test_ratings_order_known_strengths_and_ranks_hold_them():
    truth = {f"bot{i}": 250.0 * i for i in range(5)}
    entrants, results = simulate(truth, 200, seed=1)
    table = ladder_ratings(entrants, results)
    assert [r.key for r in table] == ["bot4", "bot3", "bot2", "bot1", "bot0"]
    assert [r.rank for r in table] == [1, 2, 3, 4, 5]
    for r in table:
        assert r.rank_low <= r.rank <= r.rank_high
        assert r.low < r.rating < r.high
    # 250 Elo apart and 80 pairs each: every bot is placed exactly, and the spread is about the truth's
    assert [(r.rank_low, r.rank_high) for r in table] == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    assert table[0].rating - table[-1].rating == pytest.approx(1000, abs=200)


def test_ratings_agree_with_the_joint_fit_on_the_same_pairs():
    """Pair by pair filtering and arena.stats.ratings' joint Bradley-Terry fit see the same pairs alike."""
    rng = random.Random(7)
    truth = {f"b{i}": 120.0 * i for i in range(6)}
    entrants = [Entrant(k, k, True) for k in truth]
    results = [play(rng, truth, *rng.sample(list(truth), 2)) for _ in range(400)]
    ladder = {r.key: r.rating for r in ladder_ratings(entrants, results)}
    matches = []
    for n, r in enumerate(results):  # a score of 1 is one win each; 0.5 and 1.5 do not occur here
        wins = int(r.score)
        matches += [Result(r.first, r.second, float(wins >= 1), f"p{n}"),
                    Result(r.second, r.first, float(wins < 2), f"p{n}")]
    joint = {r.bot: r.elo for r in ratings(matches, bootstrap=0).table}
    centre_l, centre_j = sum(ladder.values()) / 6, sum(joint.values()) / 6
    rms = math.sqrt(sum((ladder[k] - centre_l - joint[k] + centre_j) ** 2 for k in truth) / 6)
    assert rms < 5  # the refits converge to the joint fit; what is left is the prior's and the order's


def test_rank_intervals_hold_the_true_rank_most_of_the_time():
    held = total = 0
    for seed in range(6):
        rng = random.Random(seed)
        truth = {f"b{i}": rng.uniform(0, 800) for i in range(8)}
        entrants, results = simulate(truth, 120, seed=seed)
        for r in ladder_ratings(entrants, results):
            true_rank = 1 + sum(v > truth[r.key] for v in truth.values())
            held += r.rank_low <= true_rank <= r.rank_high
            total += 1
    assert held / total >= 0.9


entrant_sets = st.lists(
    st.tuples(st.sampled_from("pqrs"), st.booleans()), min_size=2, max_size=7,
).map(lambda rows: [Entrant(f"{program}{n}", program, active) for n, (program, active) in enumerate(rows)])


@st.composite
def ladders(draw):
    entrants = draw(entrant_sets)
    keys = [e.key for e in entrants]
    results = draw(st.lists(
        st.tuples(st.sampled_from(keys), st.sampled_from(keys), st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0]))
        .filter(lambda t: t[0] != t[1]).map(lambda t: PairResult(*t)),
        max_size=15,
    ))
    return entrants, results


@settings(max_examples=60, deadline=None)
@given(ladders(), st.data())
def test_a_pair_changes_only_its_two_ratings(ladder, data):
    entrants, results = ladder
    keys = [e.key for e in entrants]
    a = data.draw(st.sampled_from(keys))
    b = data.draw(st.sampled_from([k for k in keys if k != a]))
    score = data.draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0]))
    before = by_key(entrants, results)
    after = by_key(entrants, [*results, PairResult(a, b, score)])
    for key in keys:
        old, new = before[key], after[key]
        if key in (a, b):
            assert new.pairs == old.pairs + 1
        else:
            assert (new.rating, new.low, new.high, new.pairs) == (old.rating, old.low, old.high, old.pairs)


@settings(max_examples=80, deadline=None)
@given(ladders(), st.integers(0, 2**32), st.booleans())
def test_next_pair_never_schedules_a_retired_version_itself_or_its_own_program(ladder, seed, same_program):
    entrants, results = ladder
    pair = next_pair(entrants, results, random.Random(seed), same_program=same_program)
    by = {e.key: e for e in entrants}
    active = [e for e in entrants if e.active]
    can_meet = any(x.program != y.program or same_program for x in active for y in active if x is not y)
    if not can_meet:
        assert pair is None
        return
    assert pair is not None
    first, second = pair
    assert first != second and by[first].active and by[second].active
    assert same_program or by[first].program != by[second].program


def test_next_pair_is_none_with_fewer_than_two_active_entrants():
    entrants = [Entrant("a@1", "a", True), Entrant("b@1", "b", False)]
    assert next_pair(entrants, [], random.Random(0)) is None
    assert next_pair([], [], random.Random(0)) is None


def test_the_same_program_meets_itself_only_when_asked():
    entrants = [Entrant("a@1", "a", True), Entrant("a@2", "a", True)]
    assert next_pair(entrants, [], random.Random(0)) is None
    assert set(next_pair(entrants, [], random.Random(0), same_program=True) or ()) == {"a@1", "a@2"}


def test_a_new_version_is_scheduled_first_and_clears_provisional():
    truth = {f"b{i}": 100.0 * i for i in range(6)}
    entrants, results = simulate(truth, 150, seed=3)
    truth["new"] = 250.0
    entrants = [*entrants, Entrant("new", "new", True)]
    assert by_key(entrants, results)["new"].provisional
    firsts = [next_pair(entrants, results, random.Random(seed)) for seed in range(10)]
    assert all("new" in pair for pair in firsts if pair)
    _, results = simulate(truth, 40, seed=4, results=results, entrants=entrants)
    new = by_key(entrants, results)["new"]
    assert not new.provisional and new.high - new.low < 2 * PROVISIONAL_HALF_WIDTH
    assert 25 <= new.pairs <= 40  # it played most of the ladder's pairs since it came
    assert by_key(entrants, results)["new"].rank_low <= 4 <= by_key(entrants, results)["new"].rank_high


def test_next_pair_draws_only_from_its_rng():
    truth = {f"b{i}": 0.0 for i in range(5)}  # all alike: many near-ties, broken by the rng
    entrants = [Entrant(k, k, True) for k in truth]
    picks = {next_pair(entrants, [], random.Random(seed)) for seed in range(20)}
    assert len(picks) > 3
    assert next_pair(entrants, [], random.Random(5)) == next_pair(entrants, [], random.Random(5))


def test_a_retired_versions_rating_is_frozen():
    truth = {"a@1": 0.0, "b@1": 200.0, "c@1": 400.0}
    entrants, results = simulate(truth, 30, seed=2)
    frozen = by_key(entrants, results)["a@1"]
    retired = [Entrant("a@1", "a@1", False), *entrants[1:]]
    _, more = simulate(truth, 30, seed=5, results=results, entrants=retired)
    assert all("a@1" not in (r.first, r.second) for r in more[len(results):])
    now = by_key(retired, more)["a@1"]
    assert (now.rating, now.low, now.high) == (frozen.rating, frozen.low, frozen.high)
    assert now.rank == 1 + sum(r.rating > now.rating for r in ladder_ratings(retired, more) if r.key != "a@1")


def test_one_pair_refits_first_then_second_at_the_mode():
    state = LadderState(["a", "b"])
    state.apply(PairResult("a", "b", 1.0))
    assert state.beliefs["a"].mean == state.beliefs["b"].mean == 0.0  # one win each between equals
    state = LadderState(["a", "b"])
    state.apply(PairResult("a", "b", 2.0))
    a, b, start = state.beliefs["a"], state.beliefs["b"], prior()
    assert a.mean > 0 > b.mean and a.variance < start.variance and b.variance < start.variance
    # a's mode against b's prior: x / v0 = k (2 - 2 sigmoid(k x)), k = 1 / sqrt(1 + pi v0 / 8)
    k = 1 / math.sqrt(1 + math.pi * start.variance / 8)
    assert a.mean / start.variance == pytest.approx(k * (2 - 2 / (1 + math.exp(-k * a.mean))))
    # b's, against a's new belief
    kb = 1 / math.sqrt(1 + math.pi * a.variance / 8)
    assert b.mean / start.variance == pytest.approx(-kb * 2 / (1 + math.exp(-kb * (b.mean - a.mean))))


def test_intervals_narrow_as_a_version_plays():
    truth = {f"b{i}": 100.0 * i for i in range(6)}
    entrants, results = simulate(truth, 30, seed=8)
    early = by_key(entrants, results)
    _, results = simulate(truth, 150, seed=9, results=results, entrants=entrants)
    late = by_key(entrants, results)
    for key in truth:
        assert late[key].high - late[key].low < early[key].high - early[key].low


@pytest.mark.parametrize("results, message", [
    ([PairResult("a", "x", 1.0)], "'x', which is not an entrant"),
    ([PairResult("a", "a", 1.0)], "cannot play itself"),
    ([PairResult("a", "b", 0.7)], "not one of 0, 0.5, 1, 1.5, 2"),
    ([PairResult("a", "b", 3.0)], "not one of 0, 0.5, 1, 1.5, 2"),
])
def test_bad_results_are_named(results, message):
    with pytest.raises(ValueError, match=message):
        ladder_ratings([Entrant("a", "a", True), Entrant("b", "b", True)], results)


def test_a_kept_state_refuses_a_bad_pair_and_stays_as_it_was():
    state = LadderState(["a", "b"])
    for bad in (PairResult("a", "a", 1.0), PairResult("a", "b", 2.5), PairResult("a", "b", float("nan"))):
        with pytest.raises(ValueError, match="cannot play itself|not one of"):
            state.apply(bad)
    assert state.beliefs == {"a": prior(), "b": prior()} and not state.played


def test_an_entrant_listed_twice_is_named():
    with pytest.raises(ValueError, match="'a' is listed twice"):
        ladder_ratings([Entrant("a", "a", True), Entrant("a", "a", False)], [])


def test_a_pair_in_flight_is_not_chosen_again_next():
    """Two new versions are the pair that tells most; once it is in flight the next pair is another."""
    truth = {f"b{i}": 100.0 * i for i in range(5)}
    entrants, results = simulate(truth, 100, seed=12)
    entrants = [*entrants, Entrant("new1", "new1", True), Entrant("new2", "new2", True)]
    state = replay(entrants, results)
    recent = [(r.first, r.second) for r in results]
    for seed in range(10):
        first = choose_pair(entrants, state.beliefs, state.played, random.Random(seed), recent=recent)
        assert set(first or ()) == {"new1", "new2"}
        second = choose_pair(entrants, state.beliefs, state.played, random.Random(seed),
                             recent=[*recent, first], in_flight=1)
        assert second is not None and set(second) != {"new1", "new2"}
        assert {"new1", "new2"} & set(second)  # still a new version: it is not placed yet


@pytest.mark.parametrize("window", [1, 2, 3])
def test_no_pairing_repeats_back_to_back_when_another_may_be_played(window):
    ladder = Flight(REFERENCE, seed=window, window=window)
    ladder.run(120)
    ladder.enter("weak", -600.0)
    ladder.run(100)
    assert ladder.repeats() == 0
    before = Flight(REFERENCE, seed=window, window=window, before_issue_34=True)
    before.run(120)
    before.enter("weak", -600.0)
    before.run(100)
    assert before.repeats() > 5  # the rule before issue 34 (the measure works)


def test_two_versions_repeat_their_one_pairing():
    ladder = Flight({"a": 0.0, "b": 100.0}, seed=1, window=2)
    ladder.run(10)
    assert ladder.repeats() == 9


def test_a_settled_version_gets_no_more_than_its_fair_share():
    """Issue 34: a weak upload placed last keeps an uncertain rating; it played half the pairs that
    followed. Settled (its rank interval one rank wide), a version is in at most FAIR_PAIRS of any N
    consecutive pairs ending with one chosen while it is settled."""
    for seed in range(4):
        ladder = Flight(REFERENCE, seed=seed, window=2)
        ladder.run(150)
        ladder.enter("weak", -600.0)
        ladder.run(88)
        n = len(ladder.entrants)
        pairings = [(r.first, r.second) for r in ladder.results]
        for k, (pairing, marks) in enumerate(zip(pairings, ladder.settled, strict=True)):
            for key in set(pairing) & marks:
                window = pairings[max(0, k - ladder.active[k] + 1):k + 1]
                assert sum(key in p for p in window) <= FAIR_PAIRS, (seed, k, key)
        after = pairings[150:]
        weak_settled = sum("weak" in p and "weak" in m for p, m in zip(after, ladder.settled[150:], strict=True))
        settled_for = sum("weak" in m for m in ladder.settled[150:])
        assert weak_settled <= FAIR_PAIRS * math.ceil(settled_for / n)
        assert sum("weak" in p for p in after) <= 25  # the rule before issue 34: 45 of these 88
    before = Flight(REFERENCE, seed=0, window=2, before_issue_34=True)
    before.run(150)
    before.enter("weak", -600.0)
    before.run(88)
    assert sum("weak" in (r.first, r.second) for r in before.results[150:]) > 35  # the measure works


def test_a_new_version_is_still_placed_quickly():
    """The weak upload is placed last (rank interval [14, 14]) within a few pairs, as before issue 34's
    rule, while a mid-table one that came with it gets its many pairs too."""
    for seed in range(4):
        ladder = Flight(REFERENCE, seed=seed, window=2)
        ladder.run(150)
        ladder.enter("weak", -600.0)
        ladder.enter("mid", 280.0)
        ladder.run(30)
        active = [e.key for e in ladder.entrants]
        assert rank_interval("weak", ladder.state.beliefs, active)[1:] == (14, 14), seed
        assert sum("mid" in (r.first, r.second) for r in ladder.results[150:]) >= 12
