"""A standing ladder's ratings and matchmaking: one Gaussian belief per bot version, refitted when it plays.

Model: Bradley-Terry on the Elo scale, as in :mod:`arena.stats.ratings`: P(i beats j in a match) =
1 / (1 + 10^(-(R_i - R_j) / 400)). A duplicate pair is two matches, taken as a binomial observation of
two trials: its score s (0, 0.5, 1, 1.5 or 2) counts s wins of ``first`` and 2 - s of ``second``.

Each version holds a belief N(mean, variance) about its rating. A pair refits its two participants only:
each one's rating is the mode of its prior times the likelihood of *all* its pairs so far, judged against
its opponents' current beliefs (their uncertainty widening each term, MacKay's probit approximation), and
its variance the inverse curvature there (Laplace). That is one step of coordinate ascent on the joint
Bradley-Terry fit, restricted to the two versions that played: a ladder that runs converges to the joint
fit, while every other belief is untouched. So a rating changes only when its bot plays, a retired
version's rating is frozen, and the ratings are a deterministic function of the results in the order they
were applied. docs/STATISTICS.md ("Ladder") says why this and not a joint refit or a one-pair update.

Ranks count among the active versions; the rank interval is the ranks a version could hold: every other
active version whose rating is above (below) it by more than the 95% margin of their difference is surely
above (below) it, and the rest could be on either side.

:func:`next_pair` picks the duplicate pair that tells most: the expected reduction of the two beliefs'
variances, with a bonus for versions with few pairs and a discount for a pairing already played often. Pairs
chosen but not finished (in flight) count as if played, at their expected information; the pairing just
chosen is not chosen again next, and a version whose rank is settled gets no more than its fair share.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.stats.ratings import ELO_PER_NAT
from arena.stats.results import Z95

#: Two-sided 95% normal quantile, for the rating and rank intervals.
#: Prior standard deviation of a new version's rating, in Elo: bots written for one game range over
#: about a thousand Elo (a random player to a search bot), so a new one is anywhere within about ±800.
#: In bench/ladder_sim.py's prediction test (docs/STATISTICS.md, "Prior, intervals, provisional"), 400 is
#: within 0.01 of the best log loss on fields of 0..800 and 0..1200 Elo; a field of 0..2400 wants 800.
PRIOR_SD = 400.0
#: A rating is provisional until its 95% interval's half width is under this (in Elo). 100 Elo is the
#: difference at which the better bot scores 64%: below it the rating places a bot within its class. A new
#: version reaches it in about 25 pairs against close opponents, inside the issue's 40-pair placement goal.
PROVISIONAL_HALF_WIDTH = 100.0
#: The bonus factor of a version with no pairs yet; it halves by its fourth pair (1 + B * 4 / (4 + pairs)).
NEW_BONUS = 1.0
#: A pairing played n times before has its gain divided by 1 + REPEAT_DISCOUNT * n, so a bot meets several
#: neighbours over time rather than one (robust to bots that are not transitive). It is kept mild: in
#: bench/ladder_sim.py (with the first design's one-pair update) a discount of 0.25 sent a new bot to
#: distant opponents and tripled its placement time.
REPEAT_DISCOUNT = 0.05
#: A *settled* version (its rank interval one rank wide, by the results the chooser sees) is in at most
#: this many of any N consecutive pairs that end with one chosen while it is settled, N the number of active
#: versions: its fair share, 2/N of the pairs (each pair seats two of the N). Issue 34: a weak upload, placed
#: last after six pairs, went on to play half the ladder's pairs, because its rating stays uncertain.
FAIR_PAIRS = 2


@dataclass(frozen=True)
class Entrant:
    """One bot version on the ladder."""

    key: str  #: unique version id (e.g. "name@fingerprint12")
    program: str  #: the bot's name; all versions of a name share it
    active: bool  #: retired versions keep their rating but are never scheduled


@dataclass(frozen=True)
class PairResult:
    """One duplicate pair, in the order it was applied."""

    first: str
    second: str  #: entrant keys
    score: float  #: first's match points over the pair's two matches: 0, 0.5, 1, 1.5 or 2


@dataclass(frozen=True)
class LadderRating:
    """One version's line: Elo estimate with 95% interval, rank with the ranks it could hold."""

    key: str
    rating: float
    low: float
    high: float
    rank: int  #: 1-based, among the active versions (a retired one: where it would stand among them)
    rank_low: int  #: the best rank it could hold
    rank_high: int  #: the worst rank it could hold
    provisional: bool
    pairs: int


@dataclass(frozen=True)
class Belief:
    """A version's rating belief in natural (logistic) units: x = Elo / ELO_PER_NAT."""

    mean: float
    variance: float
    pairs: int = 0

    @property
    def elo(self) -> float:
        return self.mean * ELO_PER_NAT

    @property
    def half_width(self) -> float:
        """The 95% interval's half width, in Elo."""
        return Z95 * math.sqrt(self.variance) * ELO_PER_NAT


def prior(prior_mean: float = 0.0, prior_sd: float = PRIOR_SD) -> Belief:
    """A new version's belief; ``prior_mean`` and ``prior_sd`` in Elo."""
    return Belief(prior_mean / ELO_PER_NAT, (prior_sd / ELO_PER_NAT) ** 2)


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _spread(variance: float) -> float:
    """How much an opponent's uncertainty flattens a result: 1 / sqrt(1 + pi v / 8) (MacKay's probit
    approximation of the logistic averaged over the opponent's belief)."""
    return 1.0 / math.sqrt(1.0 + math.pi * variance / 8.0)


class LadderState:
    """The beliefs as results are applied in order, with each version's totals against each opponent.

    ``beliefs`` maps a key to its :class:`Belief`; ``played`` counts the pairs of each pairing (by key set).
    A version is added at its prior on first sight.
    """

    def __init__(self, keys: Iterable[str] = (), *, prior_mean: float = 0.0, prior_sd: float = PRIOR_SD) -> None:
        self.prior = prior(prior_mean, prior_sd)
        self.beliefs: dict[str, Belief] = {}
        self.played: Counter[frozenset[str]] = Counter()
        self._totals: dict[str, dict[str, tuple[int, float]]] = {}  # key -> opponent -> (pairs, score)
        for key in keys:
            self.add(key)

    def add(self, key: str) -> None:
        if key not in self.beliefs:
            self.beliefs[key] = self.prior
            self._totals[key] = {}

    def apply(self, result: PairResult) -> None:
        """Refit ``result``'s two participants (first, then second against first's new belief).

        ValueError, changing nothing, for a version against itself or a score not in 0, 0.5, ..., 2.
        """
        problem = _problem(result)
        if problem:
            raise ValueError(f"pair result {result!r}: {problem}")
        for key, opponent, score in ((result.first, result.second, result.score),
                                     (result.second, result.first, 2.0 - result.score)):
            self.add(key)
            pairs, total = self._totals[key].get(opponent, (0, 0.0))
            self._totals[key][opponent] = (pairs + 1, total + score)
        self.played[frozenset((result.first, result.second))] += 1
        self._refit(result.first)
        self._refit(result.second)

    def _refit(self, key: str) -> None:
        """Newton's method on the strictly concave log-posterior of ``key``'s rating, opponents held fixed.

        Against an opponent j (mean m_j, variance v_j, spread k_j = _spread(v_j)) with n pairs and s points,
        the log-likelihood is s log p + (2n - s) log(1 - p), p = sigmoid(k_j (x - m_j)).
        """
        old = self.beliefs[key]
        terms = [(_spread(self.beliefs[o].variance), self.beliefs[o].mean, 2.0 * n, s)
                 for o, (n, s) in self._totals[key].items()]
        x, precision = old.mean, 1.0 / self.prior.variance
        for _ in range(100):
            gradient, curvature = (self.prior.mean - x) * precision, precision
            for k, m, matches, s in terms:
                p = _sigmoid(k * (x - m))
                gradient += k * (s - matches * p)
                curvature += matches * k * k * p * (1.0 - p)
            step = max(-2.0, min(2.0, gradient / curvature))  # at most 2 nats (350 Elo) a step
            x += step
            if abs(step) < 1e-9:  # 2e-7 Elo; the curvature below is at the final x
                break
        curvature = precision
        for k, m, matches, _ in terms:
            p = _sigmoid(k * (x - m))
            curvature += matches * k * k * p * (1.0 - p)
        self.beliefs[key] = Belief(x, 1.0 / curvature, old.pairs + 1)

    def copy(self) -> LadderState:
        other = LadderState()
        other.prior, other.beliefs, other.played = self.prior, dict(self.beliefs), Counter(self.played)
        other._totals = {key: dict(totals) for key, totals in self._totals.items()}
        return other


def _check(entrants: Sequence[Entrant], results: Sequence[PairResult]) -> None:
    keys: set[str] = set()
    for e in entrants:
        if e.key in keys:
            raise ValueError(f"entrant {e.key!r} is listed twice")
        keys.add(e.key)
    for n, r in enumerate(results):
        for key in (r.first, r.second):
            if key not in keys:
                raise ValueError(f"pair result #{n} names {key!r}, which is not an entrant")
        problem = _problem(r)
        if problem:
            raise ValueError(f"pair result #{n}: {problem}")


def _problem(r: PairResult) -> str | None:
    """What is wrong with one pair result by itself, or None."""
    if r.first == r.second:
        return f"{r.first!r} cannot play itself"
    if not (isinstance(r.score, int | float) and 0.0 <= r.score <= 2.0 and float(r.score * 2).is_integer()):
        return f"score {r.score!r} is not one of 0, 0.5, 1, 1.5, 2"
    return None


def replay(entrants: Sequence[Entrant], results: Sequence[PairResult], *, prior_mean: float = 0.0,
           prior_sd: float = PRIOR_SD) -> LadderState:
    """The ladder's state after applying ``results`` in order (ValueError on an unknown key or score)."""
    _check(entrants, results)
    state = LadderState((e.key for e in entrants), prior_mean=prior_mean, prior_sd=prior_sd)
    for r in results:
        state.apply(r)
    return state


def ratings_from(entrants: Sequence[Entrant], state: Mapping[str, Belief], *,
                 provisional_half_width: float = PROVISIONAL_HALF_WIDTH) -> list[LadderRating]:
    """The ladder's lines from the beliefs, best first (ties by key)."""
    active = [e.key for e in entrants if e.active]
    out = []
    for e in entrants:
        b = state[e.key]
        rank, rank_low, rank_high = rank_interval(e.key, state, active)
        out.append(LadderRating(
            key=e.key, rating=b.elo, low=b.elo - b.half_width, high=b.elo + b.half_width,
            rank=rank, rank_low=rank_low, rank_high=rank_high,
            provisional=b.half_width >= provisional_half_width, pairs=b.pairs,
        ))
    out.sort(key=lambda r: (-r.rating, r.key))
    return out


def rank_interval(key: str, state: Mapping[str, Belief], active: Sequence[str]) -> tuple[int, int, int]:
    """``key``'s rank among the ``active`` keys, and the best and worst ranks it could hold.

    Another version is surely above (below) it when its rating exceeds (falls short of) it by more than the
    95% margin of their difference, Z95 * sqrt(v_key + v_other); ties rank the smaller key higher.
    """
    b = state[key]
    above = sure_above = sure_below = others = 0
    for other in active:
        if other == key:
            continue
        others += 1
        o = state[other]
        if (o.mean, key) > (b.mean, other):
            above += 1
        margin = Z95 * math.sqrt(b.variance + o.variance)
        if o.mean - b.mean > margin:
            sure_above += 1
        elif b.mean - o.mean > margin:
            sure_below += 1
    return above + 1, sure_above + 1, others - sure_below + 1


def ladder_ratings(entrants: Sequence[Entrant], results: Sequence[PairResult], *, prior_mean: float = 0.0,
                   prior_sd: float = PRIOR_SD,
                   provisional_half_width: float = PROVISIONAL_HALF_WIDTH) -> list[LadderRating]:
    """Every entrant's rating after ``results`` (in the order applied), best first.

    ``prior_mean`` and ``prior_sd`` (Elo) are a new version's belief; ``provisional_half_width`` (Elo) is
    the 95% half width under which a rating stops being provisional.
    """
    state = replay(entrants, results, prior_mean=prior_mean, prior_sd=prior_sd)
    return ratings_from(entrants, state.beliefs, provisional_half_width=provisional_half_width)


def pair_gain(a: Belief, b: Belief) -> float:
    """The expected reduction of a's and b's rating variances (nat²) from one duplicate pair between them.

    At the current means, the pair adds 2 k_b² p(1 - p) to a's precision (p the predicted match score,
    k_b = _spread(v_b), as in the refit), so v_a falls by v_a² h / (1 + v_a h) with h that term; b alike.
    It is largest for uncertain beliefs and close ratings (p near 1/2).
    """
    gain = 0.0
    for mine, theirs in ((a, b), (b, a)):
        k = _spread(theirs.variance)
        p = _sigmoid(k * (mine.mean - theirs.mean))
        h = 2.0 * k * k * p * (1.0 - p)
        gain += mine.variance ** 2 * h / (1.0 + mine.variance * h)
    return gain


def next_pair(entrants: Sequence[Entrant], results: Sequence[PairResult], rng: random.Random, *,
              same_program: bool = False, prior_mean: float = 0.0, prior_sd: float = PRIOR_SD,
              in_flight: Sequence[tuple[str, str]] = ()) -> tuple[str, str] | None:
    """The duplicate pair to play next, or None when fewer than two active entrants may meet.

    ``results`` are the finished pairs in the order they were chosen; ``in_flight`` the pairings chosen
    after them that have no result yet, oldest first. Among active entrants (never a version against itself,
    nor against another version of its program unless ``same_program``), the pairing with the largest
    :func:`pair_gain`, times a bonus for versions with few pairs, divided by a discount for pairings already
    played or in flight; the pairs in flight narrow their two beliefs by what they are expected to tell. The
    last pairing chosen is not chosen again, nor a settled version above its fair share (FAIR_PAIRS), while
    another pairing may be. Near-ties (within 1%) are broken by ``rng``, which also orders the two keys.
    """
    state = replay(entrants, results, prior_mean=prior_mean, prior_sd=prior_sd)
    recent = [(r.first, r.second) for r in results] + list(in_flight)
    return choose_pair(entrants, state.beliefs, state.played, rng, same_program=same_program, recent=recent,
                       in_flight=len(in_flight))


def settled(state: Mapping[str, Belief], active: Sequence[str]) -> set[str]:
    """The ``active`` keys whose rank interval is one rank wide: every other is surely above or below."""
    return {key for key in active if len({*rank_interval(key, state, active)[1:]}) == 1}


def expect(state: Mapping[str, Belief], pairings: Iterable[tuple[str, str]]) -> dict[str, Belief]:
    """The beliefs after pairs still in flight, at what they are expected to tell: each narrows its two
    versions' variances as :func:`pair_gain` expects (their means stay), and counts as one of their pairs."""
    beliefs = dict(state)
    for a, b in pairings:
        if a not in beliefs or b not in beliefs or a == b:
            continue
        ba, bb = beliefs[a], beliefs[b]
        for key, mine, theirs in ((a, ba, bb), (b, bb, ba)):
            k = _spread(theirs.variance)
            p = _sigmoid(k * (mine.mean - theirs.mean))
            h = 2.0 * k * k * p * (1.0 - p)
            beliefs[key] = Belief(mine.mean, mine.variance / (1.0 + mine.variance * h), mine.pairs + 1)
    return beliefs


def choose_pair(entrants: Sequence[Entrant], state: Mapping[str, Belief], played: Mapping[frozenset[str], int],
                rng: random.Random, *, same_program: bool = False, recent: Sequence[tuple[str, str]] = (),
                in_flight: int = 0) -> tuple[str, str] | None:
    """:func:`next_pair` from the beliefs and the number of pairs each pairing has played (by key set).

    ``recent``: the pairings of the pairs chosen before this one, oldest first (only the last N - 1 and the
    ones in flight matter, N the number of active entrants); its last ``in_flight`` are chosen but have no
    result in ``state`` and ``played`` yet. Without ``recent``, every pairing is open (the rule before
    issue 34, which bench/ladder_sim.py measures beside this one).
    """
    active = sorted((e for e in entrants if e.active), key=lambda e: e.key)
    keys = [e.key for e in active]
    pending = list(recent[max(0, len(recent) - in_flight):]) if in_flight > 0 else []
    beliefs = expect(state, pending) if pending else state
    counts = Counter(played)
    counts.update(frozenset(p) for p in pending)
    # the fair share: a settled version already in FAIR_PAIRS of the last N - 1 pairs waits
    window = recent[max(0, len(recent) - (len(keys) - 1)):] if recent else []
    load = Counter(key for pairing in window for key in set(pairing))
    full = {key for key in settled(state, keys) if load[key] >= FAIR_PAIRS} if window else set()
    last = frozenset(recent[-1]) if recent else None
    scored: list[tuple[tuple[bool, int], float, str, str]] = []
    for i, a in enumerate(active):
        for b in active[i + 1:]:
            if a.program == b.program and not same_program:
                continue
            ba, bb = beliefs[a.key], beliefs[b.key]
            value = pair_gain(ba, bb) * max(_new_bonus(ba), _new_bonus(bb))
            value /= 1.0 + REPEAT_DISCOUNT * counts.get(frozenset((a.key, b.key)), 0)
            # first no back-to-back repeat, then within the fair shares, then the value
            rank = (frozenset((a.key, b.key)) == last, (a.key in full) + (b.key in full))
            scored.append((rank, value, a.key, b.key))
    if not scored:
        return None
    allowed = min(rank for rank, _, _, _ in scored)
    pool = [s for s in scored if s[0] == allowed]
    best = max(value for _, value, _, _ in pool)
    _, _, first, second = rng.choice([s for s in pool if s[1] >= best * 0.99])
    return (first, second) if rng.random() < 0.5 else (second, first)


def _new_bonus(b: Belief) -> float:
    """1 + NEW_BONUS for a version with no pairs, falling to half of that by its fourth."""
    return 1.0 + NEW_BONUS * 4.0 / (4.0 + b.pairs)
