"""How sure are the standings: ratings, intervals, duplicate pairs, LOS and SPRT (see docs/STATISTICS.md).

Pure code: the input is a list of :class:`Result` (and, for the per-bot totals, :class:`MatchFacts`); no
I/O, no clock, no trio, no sqlite.

- :func:`ratings`: Bradley-Terry Elo by penalised maximum likelihood, optional seat advantage, anchored,
  with 95% bootstrap intervals that resample duplicate pairs together, and the results graph's components.
- :func:`los`: likelihood of superiority for every two bots, from the ratings' bootstrap.
- :func:`pairings`: per pairing score with its interval, duplicate-pair outcomes (2-0, 1-1, 0-2) and the
  variance the pairs saved compared with independent matches; head-to-head LOS.
- :func:`standings`: every per-bot total (matches, wins, game points, deals, closes, marriages,
  terminations, think time) from :class:`MatchFacts`; the one place they are computed.
- ``swiss`` (:func:`arena.stats.swiss.swiss_table`): a Swiss's rounds, byes and Swiss points, what the
  next round is paired by.
- :class:`Sprt` and :func:`parse_sprt_args`: a sequential test for a two-bot match; :class:`PairSprt`, the
  same with the duplicate pair as its unit; :class:`MeanSprt`, on the mean of a continuous score.
- luck: the luck-adjusted score: a match's luck from its deals' (``match_luck``, with the leverage of the
  score before each deal), the adjusted score and its interval per bot (``luck_table``).
"""

from arena.stats.ladder import Entrant, LadderRating, PairResult, ladder_ratings, next_pair
from arena.stats.luck import LuckAdjusted, luck_table, match_luck
from arena.stats.pairings import Pairing, los, pairings
from arena.stats.ratings import ELO_PER_NAT, Rating, Ratings, elo_diff, expected_score, ratings
from arena.stats.results import Result
from arena.stats.sprt import MeanSprt, PairSprt, Sprt, parse_sprt_args
from arena.stats.standings import (
    BotStanding,
    DealFacts,
    MatchFacts,
    Standings,
    TerminationFacts,
    ThinkTime,
    standings,
)

__all__ = [
    "ELO_PER_NAT", "BotStanding", "DealFacts", "Entrant", "LadderRating", "LuckAdjusted", "MatchFacts", "MeanSprt",
    "PairResult", "PairSprt", "Pairing", "Rating", "Ratings", "Result", "Sprt", "Standings", "TerminationFacts",
    "ThinkTime", "elo_diff", "expected_score", "ladder_ratings", "los", "luck_table", "match_luck", "next_pair",
    "pairings", "parse_sprt_args", "ratings", "standings",
]
