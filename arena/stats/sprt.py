"""Sequential probability ratio test (Wald) for a match between two bots.

H0: the candidate is ``elo0`` Elo stronger than its opponent; H1: it is ``elo1`` stronger. A match has no
draws, so each match is a Bernoulli trial with success probability p0 = E(elo0) under H0 and p1 = E(elo1)
under H1, E(d) = 1 / (1 + 10^(-d/400)). After the candidate scores s (1 win, 0 loss; 0.5 is treated as
half of each) the log-likelihood ratio grows by s*log(p1/p0) + (1-s)*log((1-p1)/(1-p0)). The test stops
the first time the LLR leaves (lower, upper) = (log(beta/(1-alpha)), log((1-beta)/alpha)): at or below
the lower bound it accepts H0, at or above the upper bound H1. Wald's bounds keep the error rates at about
alpha (accepting H1 when H0 holds) and beta (accepting H0 when H1 holds), usually a little below.

What a verdict says, and no more (`verdict_text` words it for the command line): the results favour one of
the two Elo values over the other, at those error rates. It is not an estimate of the difference: a bot
far stronger than elo1 also ends in "H1 accepted", and one far weaker than elo0 in "H0 accepted".
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from arena.stats.ratings import expected_score


class _Wald:
    """What every SPRT here shares: the hypotheses, Wald's bounds, the LLR and the first crossing."""

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> None:
        for name, v in (("elo0", elo0), ("elo1", elo1), ("alpha", alpha), ("beta", beta)):
            if not isinstance(v, int | float) or not math.isfinite(v):
                raise ValueError(f"SPRT {name} must be a finite number, got {v!r}")
        if elo0 == elo1:
            raise ValueError(f"SPRT elo0 and elo1 must differ, both are {elo0!r}")
        for name, v in (("alpha", alpha), ("beta", beta)):
            if not 0.0 < v < 0.5:
                raise ValueError(f"SPRT {name} must be between 0 and 0.5 (exclusive), got {v!r}")
        self.elo0, self.elo1 = float(elo0), float(elo1)
        self.alpha, self.beta = float(alpha), float(beta)
        self.p0, self.p1 = expected_score(self.elo0), expected_score(self.elo1)
        self.lower = math.log(self.beta / (1.0 - self.alpha))
        self.upper = math.log((1.0 - self.beta) / self.alpha)
        self.llr = 0.0
        self.points = 0.0
        self._verdict: str | None = None

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): accept H0 at or below lower, H1 at or above upper."""
        return self.lower, self.upper

    @property
    def verdict(self) -> str | None:
        """'H1' (accept elo1), 'H0' (accept elo0), or None while the test should go on.

        The first crossing decides; matches fed in after it still move ``llr`` but not the verdict."""
        return self._verdict

    def _crossed(self) -> str | None:
        if self._verdict is None:
            if self.llr >= self.upper:
                self._verdict = "H1"
            elif self.llr <= self.lower:
                self._verdict = "H0"
        return self._verdict


class Sprt(_Wald):
    """A running SPRT; feed it the candidate's score in every match with :meth:`update`."""

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> None:
        super().__init__(elo0, elo1, alpha, beta)
        self._win = math.log(self.p1 / self.p0)
        self._loss = math.log((1.0 - self.p1) / (1.0 - self.p0))
        self.games = 0

    @property
    def matches(self) -> int:
        """Matches fed in so far (``games`` is the older name of the same count)."""
        return self.games

    def update(self, score: float) -> str | None:
        """Add one match in which the candidate scored ``score``; returns :attr:`verdict`."""
        if not (isinstance(score, int | float) and 0.0 <= score <= 1.0):
            raise ValueError(f"score must be between 0 and 1, got {score!r}")
        self.llr += score * self._win + (1.0 - score) * self._loss
        self.games += 1
        self.points += score
        return self._crossed()

    def __repr__(self) -> str:
        return f"Sprt(elo0={self.elo0:g}, elo1={self.elo1:g}, alpha={self.alpha:g}, beta={self.beta:g})"

    def __str__(self) -> str:
        state = {"H1": f"H1 accepted (elo1={self.elo1:g})", "H0": f"H0 accepted (elo0={self.elo0:g})"}
        return (
            f"SPRT elo0={self.elo0:g} elo1={self.elo1:g}: LLR {self.llr:.2f} in [{self.lower:.2f}, "
            f"{self.upper:.2f}] after {self.games} matches ({self.points:g} points): "
            f"{state.get(self._verdict or '', 'continue')}"
        )


class PairSprt(_Wald):
    """A generalized SPRT with the duplicate pair as its unit (fishtest's pentanomial habit, for a game
    without draws: three outcomes).

    The two matches of a duplicate pair are played on the same deals with the seats swapped, so the luck of
    the cards largely cancels within the pair, and its two results are not independent: counting them as
    two Bernoulli trials (`Sprt`) overstates what they tell when they split, and wastes what they tell
    when they agree. Here each pair is one observation, the candidate's score in it: 0 (lost both), 0.5
    (won one) or 1 (won both). Its distribution over the three outcomes is left free (no model of how the
    two games depend on each other); H0 and H1 only fix its mean, at E(elo0) and E(elo1). After N pairs the
    log-likelihood ratio is that of the two most likely distributions with those means, each fitted to the
    counts (the generalized likelihood ratio; Lehmann's method, as fishtest computes it), and the test stops
    at the first crossing of Wald's bounds, as `Sprt` does.

    Assumptions: pairs are independent of each other and alike (one candidate, one opponent, one time
    control); the mean of a pair's score is the expected score E(d) of an Elo difference d. ``matches``
    counts two per pair. Unpaired matches (``duplicate: false``) keep `Sprt`.
    """

    SCORES = (0.0, 0.5, 1.0)
    PRIOR = 1e-3  # a pseudo-count per outcome: the fit exists before every outcome has been seen

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> None:
        super().__init__(elo0, elo1, alpha, beta)
        self.counts = [0, 0, 0]

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def matches(self) -> int:
        """Matches fed in so far: two per pair."""
        return 2 * self.pairs

    @property
    def games(self) -> int:
        return self.matches

    def update(self, score: float) -> str | None:
        """Add one pair in which the candidate scored ``score`` (0, 0.5 or 1: its wins out of 2, halved)."""
        if score not in self.SCORES:
            raise ValueError(f"a pair's score must be 0, 0.5 or 1, got {score!r}")
        self.counts[self.SCORES.index(score)] += 1
        self.points += 2 * score
        self.llr = pair_llr(self.counts, self.p0, self.p1, self.PRIOR)
        return self._crossed()

    def __repr__(self) -> str:
        return f"PairSprt(elo0={self.elo0:g}, elo1={self.elo1:g}, alpha={self.alpha:g}, beta={self.beta:g})"


class MeanSprt(_Wald):
    """A generalized SPRT on the mean of a continuous score per unit (a match, or a pair's mean), such as
    the luck-adjusted score: H0 says the mean is E(elo0), H1 E(elo1).

    No shape is assumed for the units' distribution: like `PairSprt`'s, the statistic is the empirical
    likelihood ratio (fishtest's GSPRT for a continuous score). Under each hypothesis the units' distribution
    is the one most likely for the observed units among those with the hypothesis's mean, on the observed
    values (p_i = w_i / (W (1 + lam (x_i - s_j))), `_el_lambda`), and the LLR is the log-likelihood ratio of
    the two fits at the units seen. The skew of a strong bot's scores (mostly wins, a long tail of losses) is
    in the fit, where the normal model this class had before issue 36 ignored it: on real matches' wins and
    losses, one match a unit, it accepted H1 wrongly in 17% of runs at elo0/elo1 = 400/500 (alpha 5%), this
    test in 6.5% (tests/test_sprt_errors.py; docs/STATISTICS.md has the table from -500 to +500 Elo).

    The units are kept as a histogram of BIN-wide bins, each at the mean of its units (so the units' mean is
    exact, and an update costs the bins, not the units seen). Two virtual units of PRIOR weight each, at
    0 and 1 (a raw unit's extremes), keep both fits defined from the first unit (E(elo0) and E(elo1) lie
    between them) and stop the first few alike units from ending the test; they add nothing to the LLR.
    ``matches`` counts ``per_unit`` matches a unit."""

    BIN = 0.05  # the histogram's bin width, in score: well below a unit's spread (0.15 to 0.5)
    PRIOR = 0.5  # the weight of each virtual unit (at 0 and at 1)

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
                 per_unit: int = 1) -> None:
        super().__init__(elo0, elo1, alpha, beta)
        self.per_unit = per_unit
        self.units = 0
        self._sum = 0.0
        self._bins: dict[int, list[float]] = {}  # bin index -> [units, sum of their scores]
        self._lam = [0.0, 0.0]  # the last fit's lam for H0 and H1: where the next fit starts

    @property
    def matches(self) -> int:
        return self.per_unit * self.units

    @property
    def games(self) -> int:
        return self.matches

    @property
    def mean(self) -> float | None:
        """The units' mean score (None before the first)."""
        return self._sum / self.units if self.units else None

    def update(self, score: float) -> str | None:
        """Add one unit's score (any finite number: an adjusted score may leave 0..1)."""
        if not (isinstance(score, int | float) and math.isfinite(score)):
            raise ValueError(f"score must be a finite number, got {score!r}")
        self.units += 1
        self._sum += score
        self.points += score * self.per_unit
        cell = self._bins.setdefault(math.floor(score / self.BIN), [0, 0.0])
        cell[0] += 1
        cell[1] += score
        counts = [c for c, _ in self._bins.values()]
        xs = [t / c for c, t in self._bins.values()]
        weights = counts + [self.PRIOR, self.PRIOR]
        xs += [0.0, 1.0]
        llr = 0.0
        for j, (mean, sign) in enumerate(((self.p0, 1.0), (self.p1, -1.0))):
            ds = [x - mean for x in xs]
            lam = self._lam[j] = _el_lambda(weights, ds, self._lam[j])
            llr += sign * _el_loglik(counts, weights, ds, lam)
        self.llr = llr
        return self._crossed()

    def __repr__(self) -> str:
        return (f"MeanSprt(elo0={self.elo0:g}, elo1={self.elo1:g}, alpha={self.alpha:g}, beta={self.beta:g}, "
                f"per_unit={self.per_unit})")


def _el_loglik(counts: Sequence[float], weights: Sequence[float], ds: Sequence[float], lam: float) -> float:
    """Minus the log-likelihood of ``counts`` (on the first points) under the fit p_i = w_i / (W (1 + lam
    d_i)) / Z, less the part log(w_i / W) that is the same under every hypothesis; Z (1 at the exact root)
    makes the p_i add up to 1 whatever is left of lam's error."""
    total = sum(weights)
    z = sum(w / (1.0 + lam * d) for w, d in zip(weights, ds, strict=True)) / total
    n = sum(counts)
    return sum(c * math.log1p(lam * d) for c, d in zip(counts, ds, strict=False) if c) + n * math.log(z)


def _el_lambda(weights: Sequence[float], ds: Sequence[float], start: float = 0.0) -> float:
    """The root lam of g(lam) = sum w_i d_i / (1 + lam d_i) (the empirical likelihood's dual: the most
    likely distribution on the points with offsets ``ds`` from the hypothesis's mean is p_i proportional
    to w_i / (1 + lam d_i)). Newton's method from ``start`` (the last update's root: a unit moves it
    little), kept inside the bracket where every 1 + lam d_i > 0, with bisection where a step leaves it.
    Needs a positive and a negative d."""
    pole_lo, pole_hi = -1.0 / max(ds), -1.0 / min(ds)
    lo, hi = pole_lo, pole_hi
    lam = start if lo < start < hi else 0.0
    for _ in range(200):
        g = gp = 0.0
        for w, d in zip(weights, ds, strict=True):
            r = d / (1.0 + lam * d)
            wr = w * r
            g += wr
            gp += wr * r  # -g'(lam)
        if g > 0:  # g falls as lam grows: the root lies above
            lo = lam
        else:
            hi = lam
        nxt = lam + g / gp
        if not lo < nxt < hi:
            nxt = (lo + hi) / 2
        # a step of e moves each p_i by at most e / (lam's distance to the nearest pole), relatively; Newton's
        # next error is of the order of the step's square, and the LLR is stationary in lam at the root
        if abs(nxt - lam) <= 1e-5 * min(nxt - pole_lo, pole_hi - nxt):
            return nxt
        lam = nxt
    return lam


def pair_llr(counts: Sequence[int], s0: float, s1: float, prior: float = PairSprt.PRIOR) -> float:
    """The generalized log-likelihood ratio of H1 (mean score ``s1``) against H0 (``s0``) for ``counts`` of
    the pair scores 0, 0.5 and 1."""
    n = sum(counts)
    if n == 0:
        return 0.0
    weights = [c + prior for c in counts]
    ds0 = [x - s0 for x in PairSprt.SCORES]
    ds1 = [x - s1 for x in PairSprt.SCORES]
    return (_el_loglik(counts, weights, ds0, _el_lambda(weights, ds0))
            - _el_loglik(counts, weights, ds1, _el_lambda(weights, ds1)))


def _fit(shares: Sequence[float], xs: Sequence[float], mean: float) -> list[float]:
    """The distribution over ``xs`` with the given ``mean`` that is most likely for the observed ``shares``:
    p_i = share_i / (1 + lam (x_i - mean)), with lam found by bisection so that the p_i add up to 1."""
    ds = [x - mean for x in xs]
    # 1 + lam d > 0 for every d: lam lies strictly between -1/max(d) and -1/min(d)
    lo, hi = -1.0 / max(ds), -1.0 / min(ds)
    for _ in range(200):
        lam = (lo + hi) / 2
        if lam in (lo, hi):  # the floats between lo and hi are used up: more halving changes nothing
            break
        # g(lam) = sum share_i d_i / (1 + lam d_i) falls as lam grows; its root is the constrained fit
        g = sum(sh * d / (1 + lam * d) for sh, d in zip(shares, ds, strict=True))
        if g > 0:
            lo = lam
        else:
            hi = lam
    lam = (lo + hi) / 2
    p = [sh / (1 + lam * d) for sh, d in zip(shares, ds, strict=True)]
    total = sum(p)
    return [x / total for x in p]


def verdict_text(first: str, second: str, elo0: float, elo1: float, alpha: float, beta: float,
                 verdict: str | None, llr: float, bounds: tuple[float, float], matches: int,
                 pairs: bool = False) -> list[str]:
    """The SPRT's state in words: the verdict with the LLR and its bounds, then what H0 and H1 are and what
    the verdict does (and does not) say. ``first`` is the candidate, whose Elo relative to ``second`` the
    hypotheses are about. The first line starts with "H1 accepted", "H0 accepted" or "no verdict"."""
    lower, upper = bounds
    played = f"{matches} match{'es' if matches != 1 else ''}"
    if pairs:  # (a PairSprt: its unit)
        played += f" ({matches // 2} duplicate pair{'s' if matches // 2 != 1 else ''})"
    hypotheses = f"H0: {first} is {elo0:+g} Elo against {second}; H1: {first} is {elo1:+g} Elo against {second}."
    if verdict == "H1":
        head = f"H1 accepted after {played}: LLR {llr:+.3f} reached the H1 bound {upper:+.3f} (H0 bound {lower:+.3f})"
        meaning = (f"The results favour H1 over H0; were H0 true, a test like this would accept H1 in about "
                   f"{100 * alpha:g}% of runs or fewer (alpha).")
    elif verdict == "H0":
        head = f"H0 accepted after {played}: LLR {llr:+.3f} reached the H0 bound {lower:+.3f} (H1 bound {upper:+.3f})"
        meaning = (f"The results favour H0 over H1; were H1 true, a test like this would accept H0 in about "
                   f"{100 * beta:g}% of runs or fewer (beta).")
    else:
        head = (f"no verdict after {played}: LLR {llr:+.3f} is between the H0 bound {lower:+.3f} and the H1 bound "
                f"{upper:+.3f}")
        meaning = "The matches ended before the LLR reached a bound: neither hypothesis is accepted."
    caveat = ("The test chooses between the two values; it does not measure the difference." if verdict else "")
    return [head, hypotheses, meaning] + ([caveat] if caveat else [])


_KEYS = ("elo0", "elo1", "alpha", "beta")
ELO_LIMIT = 1000  # |elo0|, |elo1| a command line may ask for: an expected score of 99.7% at the extreme


def parse_sprt_args(args: str | Sequence[str]) -> Sprt:
    """Build a :class:`Sprt` from ``"elo0=0 elo1=20 alpha=0.05 beta=0.05"`` (one string, or the CLI's
    list of tokens; commas also separate). elo0 and elo1 are required, alpha and beta default to 0.05.
    Raises ValueError naming the offending key."""
    text = args if isinstance(args, str) else " ".join(args)
    text = re.sub(r"\s*=\s*", "=", text.strip())
    values: dict[str, float] = {}
    for token in re.split(r"[\s,]+", text):
        if not token:
            continue
        key, eq, raw = token.partition("=")
        key = key.lower()
        if not eq or not key:
            raise ValueError(f"SPRT argument {token!r} is not key=value (keys: {', '.join(_KEYS)})")
        if key not in _KEYS:
            raise ValueError(f"unknown SPRT parameter {key!r} (expected {', '.join(_KEYS)})")
        if key in values:
            raise ValueError(f"SPRT parameter {key!r} given twice")
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"SPRT parameter {key!r} must be a number, got {raw!r}") from None
        if not math.isfinite(value):
            raise ValueError(f"SPRT parameter {key!r} must be finite, got {raw!r}")
        values[key] = value
    for key in ("elo0", "elo1"):
        if key not in values:
            raise ValueError(f"SPRT parameter {key!r} is missing (e.g. elo0=0 elo1=20 alpha=0.05 beta=0.05)")
    for key in ("alpha", "beta"):
        v = values.get(key, 0.05)
        if not 0.0 < v < 0.5:
            raise ValueError(f"SPRT parameter {key!r} must be between 0 and 0.5 (exclusive), got {v:g}")
    for key in ("elo0", "elo1"):
        # beyond this the expected scores round to 0 or 1 and the log-likelihood ratio stops being finite
        if not -ELO_LIMIT <= values[key] <= ELO_LIMIT:
            raise ValueError(f"SPRT parameter {key!r} must be between {-ELO_LIMIT} and {ELO_LIMIT}, "
                             f"got {values[key]:g}")
    if values["elo0"] == values["elo1"]:
        raise ValueError(f"SPRT parameters 'elo0' and 'elo1' must differ, both are {values['elo0']:g}")
    if values["elo0"] > values["elo1"]:  # H1 is the stronger claim; swapped, every verdict would read wrong
        raise ValueError(f"SPRT parameter 'elo1' must be greater than 'elo0' (H1: the candidate is elo1 "
                         f"stronger), got elo0={values['elo0']:g} elo1={values['elo1']:g}")
    return Sprt(values["elo0"], values["elo1"], values.get("alpha", 0.05), values.get("beta", 0.05))
