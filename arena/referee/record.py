"""MatchSpec, what the referee is asked to play, and MatchRecord, everything a finished match leaves behind:
the one typed value of a finished match that the referee produces, the store saves and loads, the game records
(arena.records) write and read, and the standings count. Termination names every way a bot's part can be
ended; a BotTermination is one that happened.

The game part is typed: the rules a `RuleSet`, each deal a `DealRecord` (cards and actions, not their
texts), the result a `MatchResult` with its one text form. Dicts appear only at the edges: `to_dict` /
`from_dict` for the worker processes' JSON, `DealRecord.to_json` for the game records' JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from arena.game.actions import TOKEN_OF_INTERNED, Action, ActionSyntaxError
from arena.game.cards import CARD_TEXT, Card, parse_cards
from arena.game.hand import Deal, DealEndReason, parse_seat_action
from arena.game.variants import RuleSet
from arena.protocol.session import Termination as Termination  # (the protocol's names, for the record's users)
from arena.stats.standings import DealFacts, MatchFacts, TerminationFacts
from arena.units import short_repr

TARGET = "target"  # a match's reason when a seat reached the match target
FORFEIT = DealEndReason.FORFEIT.value  # a deal's reason when the referee ended it for a violation


@dataclass
class BotTermination:
    """One termination that happened: which kind, to which seat's bot, why, and when."""

    kind: Termination
    seat: int
    bot: str
    detail: str
    line: str | None = None  # the offending line (capped), if a line caused it
    deal: int | None = None  # deal index, None before the first deal
    at_ms: float = 0.0  # time since the match started


@dataclass(frozen=True)
class DealRecord:
    """One deal: ``(rules, deck, dealer, actions)`` replays it. A deal the referee cut short because the
    match was forfeited has reason ``forfeit`` and no winner, game points, card points or tricks."""

    dealer: int
    trump: Card  # the turned trump card, as dealt
    deck: tuple[Card, ...]  # in dealing order (docs/DATABASE.md, `deals.deck`)
    actions: tuple[tuple[int, Action], ...]  # (seat, action), in order
    winner: int | None
    game_points: int | None
    reason: str  # a DealEndReason's text ("reached 66", ..., "forfeit")
    points: tuple[int, int] | None  # card points by seat, with counted marriages and the last-trick bonus
    tricks: tuple[int, int] | None

    @property
    def forfeit(self) -> bool:
        return self.reason == FORFEIT

    @classmethod
    def of_deal(cls, deal: Deal, forfeit: bool = False) -> DealRecord:
        """A played deal as the engine holds it; ``forfeit``: the referee ended it for a violation (a deal
        without a result then has reason ``forfeit``)."""
        r = deal.result
        if r is None:
            return cls(deal.dealer, deal.turned_card, deal.deck, tuple(deal.actions), None, None,
                       FORFEIT if forfeit else "", None, None)
        return cls(deal.dealer, deal.turned_card, deal.deck, tuple(deal.actions), r.winner, r.game_points,
                   r.reason.value, r.points, r.tricks)

    def deck_text(self) -> str:
        """The deck as space-separated cards (``Th 9c ...``)."""
        return " ".join([CARD_TEXT[c] for c in self.deck])

    def action_texts(self) -> list[str]:
        """Each action as ``<seat>:<action token>`` (``0:play:Th``; `parse_seat_action` reads one back)."""
        return [f"{s}:{TOKEN_OF_INTERNED.get(id(a)) or a.token()}" for s, a in self.actions]

    def facts(self) -> DealFacts:
        """What the standings count of this deal."""
        return deal_facts(self.winner, self.game_points, " ".join(self.action_texts()))

    def to_json(self) -> dict[str, Any]:
        """The deal as a JSON object (docs/RECORDS.md: a record's ``deals`` item)."""
        return {
            "dealer": self.dealer,
            "trump": str(self.trump),
            "deck": [CARD_TEXT[c] for c in self.deck],
            "actions": self.action_texts(),
            "result": {
                "winner": self.winner, "game_points": self.game_points, "reason": self.reason,
                "points": None if self.points is None else list(self.points),
                "tricks": None if self.tricks is None else list(self.tricks),
            },
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> DealRecord:
        """The deal back from `to_json`, trusted (a worker process's own output; arena.records reads a
        record from outside with a check of every field)."""
        r = d["result"]
        return cls(
            dealer=d["dealer"], trump=Card.parse(d["trump"]), deck=tuple(parse_cards(" ".join(d["deck"]))),
            actions=parse_seat_actions(d["actions"]), winner=r["winner"],
            game_points=r["game_points"], reason=r["reason"], points=_pair_or_none(r["points"]),
            tricks=_pair_or_none(r["tricks"]),
        )


def parse_deck(text: str) -> tuple[Card, ...]:
    """A deck written as space-separated cards; CardError naming the card that is not one."""
    return tuple(parse_cards(text))


def parse_seat_actions(tokens: Sequence[str]) -> tuple[tuple[int, Action], ...]:
    """Action tokens ``0:play:Th`` as (seat, action) pairs; ValueError naming the token that is not one."""
    out = []
    known = _SEAT_ACTIONS
    for token in tokens:
        pair = known.get(token)
        if pair is None:
            try:
                pair = parse_seat_action(token)
            except ValueError as e:
                detail = str(e) if isinstance(e, ActionSyntaxError) else "expected SEAT:ACTION with seat 0 or 1"
                raise ValueError(f"{short_repr(token)} is not an action token ({detail})") from None
            if len(known) > 10_000:  # only damaged records have that many different tokens
                known.clear()
            known[token] = pair
        out.append(pair)
    return tuple(out)


# token -> (seat, action): a tournament repeats the same few hundred, and a worker's record or an export reads
# thousands a match
_SEAT_ACTIONS: dict[str, tuple[int, Action]] = {}


def _pair_or_none(value: Sequence[int] | None) -> tuple[int, int] | None:
    return None if value is None else (value[0], value[1])


@dataclass(frozen=True)
class MatchResult:
    """How a match ended: the winning seat (None only if abandoned), the game points by seat, the reason
    (``target``, or the termination kind that decided it) and every termination of the match."""

    winner: int | None
    score: tuple[int, int]
    reason: str
    terminations: tuple[BotTermination, ...] = ()

    @property
    def deciding(self) -> BotTermination | None:
        """The termination that decided the match (the first of the reason's kind); None at the target."""
        return next((t for t in self.terminations if t.kind == self.reason), None)

    def line(self, bots: Sequence[str]) -> str:
        """``a 7-3 b``: the bots by seat around their game points, as progress lines show a match."""
        return f"{bots[0]} {self.score[0]}-{self.score[1]} {bots[1]}"

    @property
    def forfeited(self) -> bool:
        """A termination decided the match (its points are where they stood)."""
        return self.reason not in ("", TARGET)

    def text(self) -> str:
        """``7–3`` (game points by seat), ``forfeit (0–0)`` for a match a termination decided (the points are
        those when it ended: the winner did not reach the target), ``abandoned`` for a match without a
        winner."""
        if self.winner not in (0, 1):
            return "abandoned"
        score = f"{self.score[0]}\u2013{self.score[1]}"
        return f"forfeit ({score})" if self.forfeited else score


@dataclass(frozen=True)
class MatchSpec:
    """One match to play: what goes into the referee (a local slot, a worker process) and into the store.

    ``pairing`` is the two bots in the schedule's order; ``game`` 0 seats ``pairing[0]`` in seat 0, game 1
    swaps. ``deal_seed`` seeds the deals; ``match_seed`` any other random choice the referee makes for this
    match (e.g. a substituted random move). ``order`` is the position in the schedule (0-based).
    """

    match_id: str
    pairing: tuple[str, str]
    pair_index: int
    game: int
    seat0: str
    seat1: str
    deal_seed: int
    match_seed: int
    order: int

    @property
    def seats(self) -> tuple[str, str]:
        return self.seat0, self.seat1

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchSpec:
        return cls(**{**d, "pairing": tuple(d["pairing"])})


@dataclass
class MatchRecord:
    match_id: str
    bots: tuple[str, str]  # by seat
    rules: RuleSet
    deal_seed: int
    match_seed: int
    winner: int | None = None  # seat; None only if abandoned
    score: tuple[int, int] = (0, 0)
    reason: Termination | Literal["target"] = "target"  # target, or the termination that decided the match
    deals: list[DealRecord] = field(default_factory=list)
    terminations: list[BotTermination] = field(default_factory=list)
    substitutions: tuple[int, int] = (0, 0)  # random legal actions the referee played for a seat
    think_ms: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    max_lag_ms: float = 0.0  # the referee's own worst measured scheduling lag (never charged to a bot)
    started_at: str = ""
    duration_s: float = 0.0
    transcripts: tuple[list[Any], list[Any]] = field(default_factory=lambda: ([], []))
    stderr: tuple[str, str] = ("", "")
    bot_info: tuple[dict[str, str], dict[str, str]] = field(default_factory=lambda: ({}, {}))

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.bots[self.winner]

    @property
    def result(self) -> MatchResult:
        return MatchResult(self.winner, self.score, str(self.reason), tuple(self.terminations))

    def facts(self) -> MatchFacts:
        """What the standings count of this match (`Store.match_facts` reads the same back from the rows)."""
        return match_facts(self.match_id, self.bots, self.winner, self.score, [d.facts() for d in self.deals],
                           [TerminationFacts(t.bot, str(t.kind)) for t in self.terminations], self.think_ms)

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON values (a worker process sends it so)."""
        # shallow: dataclasses.asdict deep-copies the transcripts (milliseconds per match for workers)
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["rules"] = _rules_json(self.rules)
        d["deals"] = [deal.to_json() for deal in self.deals]
        d["terminations"] = [asdict(t) for t in self.terminations]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchRecord:
        d = dict(d)
        d["rules"] = _rules_of_json(d["rules"])
        d["deals"] = [DealRecord.from_json(deal) for deal in d.get("deals", [])]
        d["terminations"] = [BotTermination(**{**t, "kind": Termination(t["kind"])})
                             for t in d.get("terminations", [])]
        if d.get("reason", "target") != "target":
            d["reason"] = Termination(d["reason"])
        for key in ("bots", "score", "substitutions", "think_ms", "transcripts", "stderr", "bot_info"):
            if key in d:
                d[key] = tuple(d[key])
        return cls(**d)


# A worker sends a record a match, all with the same rules: their JSON form both ways is made once (RuleSet's
# to_dict and its checked from_dict cost more than the rest of a record's conversion).
_RULES_JSON: dict[RuleSet, dict[str, Any]] = {}
_RULES_OF_JSON: dict[str, RuleSet] = {}


def _rules_json(rules: RuleSet) -> dict[str, Any]:
    known = _RULES_JSON.get(rules)
    if known is None:
        if len(_RULES_JSON) > 100:
            _RULES_JSON.clear()
        known = _RULES_JSON[rules] = rules.to_dict()
    d = dict(known)  # the caller's own, with its own copy of its one list
    d["deal_batches"] = list(d["deal_batches"])
    return d


def _rules_of_json(value: dict[str, Any]) -> RuleSet:
    key = json.dumps(value, sort_keys=True)
    rules = _RULES_OF_JSON.get(key)
    if rules is None:
        if len(_RULES_OF_JSON) > 100:
            _RULES_OF_JSON.clear()
        rules = _RULES_OF_JSON[key] = RuleSet.from_dict(value)
    return rules


# The standings' facts of a match, from a MatchRecord (`MatchRecord.facts`) or from its rows
# (`Store.match_facts`): both go through `match_facts` and `deal_facts`, so `arena match` and the report count
# alike.
def match_facts(
    match_id: str,
    bots: Sequence[str],
    winner: int | None,
    score: Sequence[int | None],
    deals: Iterable[DealFacts],
    terminations: Iterable[TerminationFacts],
    think_ms: Sequence[Iterable[float]],
) -> MatchFacts:
    return MatchFacts(
        match_id, (bots[0], bots[1]), winner if winner in (0, 1) else None, (score[0] or 0, score[1] or 0),
        tuple(deals), tuple(terminations), (tuple(think_ms[0]), tuple(think_ms[1])),
    )


def deal_facts(winner: int | None, game_points: int | None, actions: str) -> DealFacts:
    """A deal's facts from its winner, game points and actions (space-separated, as the database holds them)."""
    counts = [0, 0, 0, 0]  # closes by seat, marriages by seat
    if "close" in actions or "marriage" in actions:  # else there is nothing to count: skip the parsing
        for text in actions.split():
            i = _COUNTED.get(text)
            if i is None:
                if len(_COUNTED) > 10_000:  # only a corrupt database has that many different actions
                    _COUNTED.clear()
                i = _COUNTED[text] = _counted(text)
            if i >= 0:
                counts[i] += 1
    decided = winner in (0, 1)
    return DealFacts(winner if decided else None, (game_points or 0) if decided else 0,
                     (counts[0], counts[1]), (counts[2], counts[3]))


def _counted(text: str) -> int:
    """Where `deal_facts` counts an action: 0/1 a close by seat 0/1, 2/3 a marriage, -1 nowhere (also for
    an action that cannot be read: a corrupt row counts for nothing, and its replay shows where it is)."""
    try:
        seat, action = parse_seat_action(text)
    except ValueError:
        return -1
    if action.kind == "close":
        return seat
    if action.kind == "marriage":
        return 2 + seat
    return -1


_COUNTED: dict[str, int] = {}  # action text -> where it counts: a tournament repeats the same few hundred
