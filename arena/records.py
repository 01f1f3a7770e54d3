"""Game records: one finished match as a portable value, its two text forms, and its check against the rules.

A `GameRecord` holds what replays a match without arena's database: the bots by seat, the full resolved rule
set, the seeds, every deal's deck and actions, and the result with its terminations. It is what PGN is to
chess. Two text forms (docs/RECORDS.md): ``jsonl`` (one JSON object per line) and ``pgn-like`` (``[Tag
"value"]`` headers and the actions, deal by deal). `check_record` replays a record with the rules engine and
names the first thing that differs, at which deal and step.

Pure, like arena.game: strings in, values out. Reading and writing files is the CLI's (arena/cli/export.py,
arena/cli/replay.py); reading the database is the store's.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, get_args, get_origin, get_type_hints

from arena.game.actions import Action
from arena.game.cards import Card, CardError
from arena.game.hand import Deal, DealEndReason, DealResult, IllegalActionError
from arena.game.match import Match, dealt_deck, shuffled_deck
from arena.game.variants import RulesError, RuleSet
from arena.referee.policy import FORFEIT_GAME_POINTS
from arena.referee.record import FORFEIT as FORFEIT
from arena.referee.record import TARGET, Termination
from arena.referee.record import BotTermination as BotTermination
from arena.referee.record import DealRecord as DealRecord  # (the record's deal is the game record's)
from arena.referee.record import MatchResult as MatchResult
from arena.referee.record import parse_deck as parse_deck
from arena.referee.record import parse_seat_actions as parse_actions
from arena.units import short_repr

FORMATS = ("jsonl", "pgn-like")
FORMAT_ID = "arena-record 1"  # the "format" key / [Format] tag: what a later arena may change


class RecordFormatError(ValueError):
    """Text that is not a record (bad syntax, a missing field, a card or action that does not parse).

    ``line`` is the 1-based line of the text where it was found. A record that parses but does not agree
    with the rules is not this: `check_record` reports that."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


# ----------------------------------------------------------------------------------------------- values
@dataclass(frozen=True)
class GameRecord:
    event: str  # the tournament's name
    match: str  # the match id
    date: str  # when the match started, ISO 8601 UTC ("" when unknown)
    bots: tuple[str, str]  # by seat
    rules: RuleSet
    deal_seed: int  # deal n's deck is dealt_deck(rules, deal_seed, n - 1, its dealer); the first dealer too
    match_seed: int  # any other random choice of the referee (a substituted move)
    deals: tuple[DealRecord, ...]
    result: MatchResult  # its terminations' deals are indexes from 0, as everywhere in arena; the text forms
    # number deals from 1


# ------------------------------------------------------------------------------------------ the check
@dataclass(frozen=True)
class Problem:
    """The first place where a record and the rules disagree: deal and step numbered from 1 (step n is the
    deal's n-th action); None for the match as a whole."""

    deal: int | None
    step: int | None
    message: str

    def __str__(self) -> str:
        where = "match" if self.deal is None else f"deal {self.deal}" + (
            "" if self.step is None else f" step {self.step}")
        return f"{where}: {self.message}"


class _Differs(Exception):
    def __init__(self, deal: int | None, step: int | None, message: str) -> None:
        self.problem = Problem(deal, step, message)


def check_record(record: GameRecord) -> Problem | None:
    """Replay the record with the rules engine; None when it checks out, else the first difference.

    Each deal's dealer and deck must be the ones the deal seed gives, every action legal, each deal's result
    the one the rules compute, and the match's winner, score and reason those of the deals and terminations.
    A forfeit checks out when the actions are legal up to it and a termination of the forfeiting seat (the
    seat to move) is recorded in that deal.
    """
    try:
        _check(record)
    except _Differs as d:
        return d.problem
    return None


def _check(record: GameRecord) -> None:
    rules = record.rules
    match = Match(rules, record.deal_seed)
    conceded_by: int | None = None
    for number, d in enumerate(record.deals, 1):
        if conceded_by is not None:
            raise _Differs(number, None, f"comes after deal {number - 1}, in which the match was forfeited")
        if match.over:
            raise _Differs(number, None, f"comes after the match was over: seat {match.winner} reached "
                                         f"{rules.match_target} game points in deal {number - 1}")
        _check_deck(number, d, rules, record.deal_seed, match.next_dealer)
        deal = Deal(rules, d.deck, d.dealer)
        if d.trump != deal.turned_card:
            raise _Differs(number, None, f"the trump card is recorded as {d.trump}, but the deck turns "
                                         f"{deal.turned_card}")
        _replay_actions(number, d, deal)
        if d.forfeit:
            offender = _check_forfeit(number, d, deal, record)
            if d.winner is None:
                conceded_by = offender
                continue
            assert d.game_points is not None and d.points is not None and d.tricks is not None
            match.deals.append(deal)
            match.finish_deal(DealResult(d.winner, d.game_points, DealEndReason.FORFEIT, d.points, d.tricks))
            continue
        result = deal.result
        if result is None:
            raise _Differs(number, len(d.actions) + 1,
                           f"the actions end before the deal does (seat {deal.to_move} is to move) and no "
                           "forfeit is recorded")
        _compare_result(number, d, result)
        match.deals.append(deal)
        match.finish_deal()
    _check_match(record, match, conceded_by)


def _check_deck(number: int, d: DealRecord, rules: RuleSet, seed: int, dealer: int) -> None:
    expected = dealt_deck(rules, seed, number - 1, dealer)
    # Records written before the twin rule (arena.game.match) dealt every deal from the deck as shuffled.
    if d.deck == tuple(expected) or d.deck == tuple(shuffled_deck(rules, seed, number - 1)):
        if d.dealer != dealer:
            raise _Differs(number, None, f"seat {d.dealer} is recorded as the dealer, but the rules make seat "
                                         f"{dealer} deal")
        return
    have, want = Counter(d.deck), Counter(expected)
    if have != want:
        extra = " ".join(f"{c} twice" if have[c] > 1 else str(c) for c in sorted(have) if have[c] > want[c])
        missing = " ".join(str(c) for c in sorted(want) if have[c] < want[c])
        parts = [f"{missing} missing" if missing else "", f"not in it: {extra}" if extra else ""]
        raise _Differs(number, None, f"the deck is not the rule set's {rules.deck}-card deck ("
                                     f"{'; '.join(p for p in parts if p)})")
    at = next(i for i, (a, b) in enumerate(zip(d.deck, expected, strict=True)) if a != b)
    raise _Differs(number, None, f"the deck differs from the one deal seed {seed} deals: card {at + 1} is "
                                 f"{d.deck[at]}, expected {expected[at]}")


def _replay_actions(number: int, d: DealRecord, deal: Deal) -> None:
    ended_at = 0
    for step, (seat, action) in enumerate(d.actions, 1):
        token = f"{seat}:{action.token()}"
        if deal.result is not None:
            raise _Differs(number, step, f"{token} comes after the deal ended at step {ended_at} "
                                         f"({deal.result.reason}, seat {deal.result.winner} wins)")
        try:
            deal.apply(action, seat)
        except IllegalActionError as e:
            raise _Differs(number, step, f"{token} is illegal: {e}") from None
        ended_at = step


def _check_forfeit(number: int, d: DealRecord, deal: Deal, record: GameRecord) -> int:
    """The forfeiting seat of a forfeited deal, after checking the forfeit against the replayed deal."""
    step = len(d.actions) + 1
    if deal.result is not None:
        raise _Differs(number, None, f"recorded as forfeited, but its actions finish it: "
                                     f"{_deal_result_text(DealRecord.of_deal(deal))}")
    offender = deal.to_move
    if not any(t.deal == number - 1 and t.seat == offender for t in record.result.terminations):
        raise _Differs(number, step, f"the deal is forfeited by seat {offender} (the seat to move), but no "
                                     f"termination of seat {offender} is recorded in deal {number}")
    if d.winner is None:
        return offender
    if d.winner != offender ^ 1:
        raise _Differs(number, step, f"the forfeit is given to seat {d.winner}, but the forfeiting seat is "
                                     f"{offender}")
    if d.game_points != FORFEIT_GAME_POINTS:
        raise _Differs(number, step, f"a forfeited deal is worth {FORFEIT_GAME_POINTS} game points, not "
                                     f"{d.game_points}")
    at = ((deal.total(0), deal.total(1)), (deal.tricks[0], deal.tricks[1]))
    if (d.points, d.tricks) != at:
        raise _Differs(number, step, f"recorded card points {_pair(d.points)}, tricks {_pair(d.tricks)}; at the "
                                     f"forfeit the replay has {_pair(at[0])}, tricks {_pair(at[1])}")
    return offender


def _compare_result(number: int, d: DealRecord, result: DealResult) -> None:
    compared = (
        ("winner seat", d.winner, result.winner, str(d.winner), str(result.winner)),
        ("game points", d.game_points, result.game_points, str(d.game_points), str(result.game_points)),
        ("reason", d.reason, result.reason.value, repr(d.reason), repr(result.reason.value)),
        ("card points", d.points, result.points, _pair(d.points), _pair(result.points)),
        ("tricks", d.tricks, result.tricks, _pair(d.tricks), _pair(result.tricks)),
    )
    differs = [f"{what} {mine_text}, the replay gives {theirs_text}"
               for what, mine, theirs, mine_text, theirs_text in compared if mine != theirs]
    if differs:
        raise _Differs(number, None, "recorded " + "; ".join(differs))


def _check_match(record: GameRecord, match: Match, conceded_by: int | None) -> None:
    if conceded_by is None and not record.deals:  # forfeited before the first deal (the handshake, a crash)
        early = [t for t in record.result.terminations if t.deal is None]
        if not early:
            raise _Differs(None, None, "there are no deals and no termination before the first deal")
        conceded_by = early[-1].seat
    if conceded_by is not None:
        deciding = [t for t in record.result.terminations if t.seat == conceded_by]
        reason = deciding[-1].kind if deciding else "?"
        winner: int | None = conceded_by ^ 1
    elif match.over:
        reason, winner = TARGET, match.winner
    else:
        raise _Differs(None, None, f"the deals end at {_pair(match.score)}, short of the match target "
                                   f"{record.rules.match_target}, and no forfeit is recorded")
    differs = []
    result = record.result
    if result.winner != winner:
        differs.append(f"winner seat {result.winner}, the replay gives seat {winner}")
    if tuple(result.score) != tuple(match.score):
        differs.append(f"score {_pair(result.score)}, the replay gives {_pair(match.score)}")
    if result.reason != reason:
        differs.append(f"reason {result.reason!r}, the replay gives {reason!r}")
    if differs:
        raise _Differs(None, None, "recorded " + "; ".join(differs))
    for t in result.terminations:
        if t.deal is not None and not 0 <= t.deal < len(record.deals):
            raise _Differs(None, None, f"a termination is recorded in deal {t.deal + 1}, but the match has "
                                       f"{len(record.deals)} deals")


def _pair(value: Sequence[int | None] | None) -> str:
    return "none" if value is None else "-".join(str(v) for v in value)


# ---------------------------------------------------------------------------------- parsing the parts
def _termination_kind(text: str) -> Termination | None:
    """The termination a record names, None for a name arena does not use."""
    try:
        return Termination(text)
    except ValueError:
        return None


# Rule parameters added after records were first written, with the value every earlier game was played by.
_ADDED_LATER: dict[str, Any] = {"marriage_credit": "immediate"}


def rules_from_mapping(data: Mapping[str, Any]) -> RuleSet:
    """The rule set of a record: every parameter must be there (a record does not fill gaps from a preset).
    RulesError naming what is missing, unknown or not allowed."""
    names = [f.name for f in fields(RuleSet)]
    unknown = [k for k in data if k not in names]
    if unknown:
        raise RulesError(f"unknown rule parameter {short_repr(unknown[0])}")
    data = {**_ADDED_LATER, **data}  # records written before a parameter existed played by its old rule
    missing = [n for n in names if n not in data]
    if missing:
        raise RulesError(f"missing rule parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    values = dict(data)
    if isinstance(values["deal_batches"], list):
        values["deal_batches"] = tuple(values["deal_batches"])
    return RuleSet(**values)  # __post_init__ checks each value and their combination


# --------------------------------------------------------------------------------------------- jsonl
def to_json(record: GameRecord) -> dict[str, Any]:
    """The record as the JSON object of one jsonl line (docs/RECORDS.md)."""
    return {
        "format": FORMAT_ID,
        "event": record.event,
        "match": record.match,
        "date": record.date,
        "bots": list(record.bots),
        "result": {
            "winner": record.result.winner,
            "score": list(record.result.score),
            "reason": record.result.reason,
            "terminations": [
                {"kind": str(t.kind), "seat": t.seat, "deal": None if t.deal is None else t.deal + 1,
                 "detail": t.detail, "line": t.line}
                for t in record.result.terminations
            ],
        },
        "rules": record.rules.to_dict(),
        "deal_seed": record.deal_seed,
        "match_seed": record.match_seed,
        "deals": [d.to_json() for d in record.deals],
    }


def format_jsonl(record: GameRecord) -> str:
    """One line of jsonl (with its newline). ASCII only: no character in it can split a line."""
    return json.dumps(to_json(record)) + "\n"


class _Fields:
    """A JSON object being read into a record: each read names its path in the error."""

    def __init__(self, value: Any, path: str, line: int) -> None:
        if not isinstance(value, dict):
            raise RecordFormatError(line, f"{path or 'the record'}: expected an object, not {_json_type(value)}")
        self.data: dict[str, Any] = value
        self.path = path
        self.line = line

    def where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, expected: str) -> RecordFormatError:
        return RecordFormatError(self.line, f"{self.where(key)}: expected {expected}")

    def only(self, *keys: str) -> None:
        for key in self.data:
            if key not in keys:
                raise RecordFormatError(self.line, f"{self.where(key)}: unknown field; expected "
                                                   f"{', '.join(keys)}")

    def get(self, key: str, expected: str, optional: bool = False) -> Any:
        if key not in self.data:
            if optional:
                return None
            raise RecordFormatError(self.line, f"{self.where(key)}: missing; expected {expected}")
        return self.data[key]

    def integer(self, key: str, optional: bool = False, seat: bool = False) -> Any:
        expected = "0 or 1" if seat else "an integer"
        v = self.get(key, expected, optional)
        if v is None and optional:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or (seat and v not in (0, 1)):
            raise self.fail(key, f"{expected}, not {_json_value(v)}")
        return v

    def text(self, key: str, optional: bool = False) -> Any:
        v = self.get(key, "text", optional)
        if v is None and optional:
            return None
        if not isinstance(v, str):
            raise self.fail(key, f"text, not {_json_value(v)}")
        return v

    def items(self, key: str, expected: str) -> list[Any]:
        v = self.get(key, expected)
        if not isinstance(v, list):
            raise self.fail(key, f"{expected}, not {_json_value(v)}")
        return v

    def pair(self, key: str, optional: bool = False) -> tuple[int, int] | None:
        v = self.get(key, "a list of two integers", optional)
        if v is None and optional:
            return None
        if not (isinstance(v, list) and len(v) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
            raise self.fail(key, f"a list of two integers, not {_json_value(v)}")
        return v[0], v[1]


def from_json(value: Any, line: int = 1) -> GameRecord:
    """A record from its JSON object; RecordFormatError (with ``line``) naming the field that is wrong."""
    top = _Fields(value, "", line)
    top.only("format", "event", "match", "date", "bots", "result", "rules", "deal_seed", "match_seed", "deals")
    fmt = top.text("format", optional=True)
    if fmt is not None and fmt != FORMAT_ID:
        raise RecordFormatError(line, f"format: {short_repr(fmt)} is not a format this arena reads; expected "
                                      f"{FORMAT_ID!r}")
    bots = top.items("bots", "a list of the two bots' names by seat")
    if len(bots) != 2 or not all(isinstance(b, str) for b in bots):
        raise top.fail("bots", f"a list of the two bots' names by seat, not {_json_value(bots)}")
    rules_value = top.get("rules", "the rule set as an object")
    if not isinstance(rules_value, dict):
        raise top.fail("rules", f"the rule set as an object, not {_json_type(rules_value)}")
    try:
        rules = rules_from_mapping(rules_value)
    except (RulesError, TypeError) as e:
        raise RecordFormatError(line, f"rules: {e}") from None
    result = _Fields(top.get("result", "an object"), "result", line)
    result.only("winner", "score", "reason", "terminations")
    terminations = []
    for i, t_value in enumerate(result.items("terminations", "a list")):
        t = _Fields(t_value, f"result.terminations[{i}]", line)
        t.only("kind", "seat", "deal", "detail", "line")
        deal = t.integer("deal", optional=True)
        if deal is not None and deal < 1:
            raise t.fail("deal", f"a deal number from 1, or null, not {deal}")
        seat = t.integer("seat", seat=True)
        kind = _termination_kind(t.text("kind"))
        if kind is None:
            raise t.fail("kind", f"a termination arena names ({', '.join(Termination)})")
        terminations.append(BotTermination(kind, seat, bots[seat], t.text("detail"),
                                           t.text("line", optional=True), None if deal is None else deal - 1))
    deals = []
    for i, d_value in enumerate(top.items("deals", "a list of deals")):
        deals.append(_deal_from_json(_Fields(d_value, f"deals[{i}]", line)))
    score = result.pair("score")
    assert score is not None
    return GameRecord(
        event=top.text("event"), match=top.text("match"), date=top.text("date", optional=True) or "",
        bots=(bots[0], bots[1]), rules=rules, deal_seed=top.integer("deal_seed"), match_seed=top.integer("match_seed"),
        deals=tuple(deals), result=MatchResult(result.integer("winner", optional=True, seat=True), score,
                                               result.text("reason"), tuple(terminations)),
    )


def _deal_from_json(d: _Fields) -> DealRecord:
    d.only("dealer", "trump", "deck", "actions", "result")
    deck_value = d.items("deck", "a list of cards like \"Th\"")
    if not all(isinstance(c, str) for c in deck_value):
        raise d.fail("deck", "a list of cards like \"Th\"")
    try:
        trump = Card.parse(d.text("trump"))
        deck = tuple(Card.parse(c) for c in deck_value)
    except CardError as e:
        raise RecordFormatError(d.line, f"{d.path}: {e}") from None
    actions_value = d.items("actions", "a list of action tokens like \"0:play:Th\"")
    if not all(isinstance(a, str) for a in actions_value):
        raise d.fail("actions", "a list of action tokens like \"0:play:Th\"")
    try:
        actions = parse_actions(actions_value)
    except ValueError as e:
        raise RecordFormatError(d.line, f"{d.where('actions')}: {e}") from None
    r = _Fields(d.get("result", "an object"), d.where("result"), d.line)
    r.only("winner", "game_points", "reason", "points", "tricks")
    winner = r.integer("winner", optional=True, seat=True)
    optional = winner is None
    game_points, points, tricks = r.integer("game_points", optional=optional), r.pair("points", optional=optional), \
        r.pair("tricks", optional=optional)
    if winner is None and (game_points, points, tricks) != (None, None, None):
        raise RecordFormatError(d.line, f"{r.path}: a deal without a winner has no game points, card points or "
                                        "tricks; expected null for each")
    return DealRecord(dealer=d.integer("dealer", seat=True), trump=trump, deck=deck, actions=actions, winner=winner,
                      game_points=game_points, reason=r.text("reason"), points=points, tricks=tricks)


def _json_type(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), "a number")


def _json_value(value: Any) -> str:
    return short_repr(json.dumps(value)) if value is None or isinstance(value, int | float | bool | str) \
        else _json_type(value)


def parse_jsonl(lines: Sequence[str]) -> Iterator[tuple[int, GameRecord]]:
    """Each non-blank line as (its line number, the record); RecordFormatError at the first bad one."""
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as e:  # JSONDecodeError, or an integer of too many digits
            why = f"{e.msg} at column {e.colno}" if isinstance(e, json.JSONDecodeError) else str(e)
            raise RecordFormatError(number, f"not a JSON record ({why})") from None
        yield number, from_json(value, number)


# ------------------------------------------------------------------------------------------ pgn-like
def _quote(value: str) -> str:
    """A tag value as a JSON string (PGN's own escapes, \\" and \\\\, are JSON's too). Characters that some
    readers take for a line break, and lone surrogates, are escaped."""
    text = json.dumps(value, ensure_ascii=False)
    if any(c in "\u2028\u2029\x85" or "\ud800" <= c <= "\udfff" for c in text):
        text = json.dumps(value)
    return text


def _tag(name: str, value: str) -> str:
    return f"[{name} {_quote(value)}]\n"


_RESULT_TAG = {0: "1-0", 1: "0-1", None: "*"}


def _rules_text(rules: RuleSet) -> str:
    out = []
    for key, value in rules.to_dict().items():
        if key == "name":
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, list):
            text = ",".join(map(str, value))
        else:
            text = str(value)
        out.append(f"{key}={text}")
    return " ".join(out)


def _deal_result_text(d: DealRecord) -> str:
    if d.winner is None:
        return f"none ({d.reason})"
    unit = "game point" if d.game_points == 1 else "game points"
    return f"seat {d.winner} wins {d.game_points} {unit} ({d.reason}); card points {_pair(d.points)}; tricks " \
           f"{_pair(d.tricks)}"


def _termination_text(t: BotTermination) -> str:
    where = "" if t.deal is None else f" in deal {t.deal + 1}"
    return f"{t.kind} by seat {t.seat}{where}: {t.detail}"


def format_pgn(record: GameRecord) -> str:
    """The record in the pgn-like form: header tags, then each deal's tags and actions, then a blank line."""
    result = record.result
    out = [
        _tag("Event", record.event), _tag("Match", record.match), _tag("Date", record.date),
        _tag("Seat0", record.bots[0]), _tag("Seat1", record.bots[1]), _tag("Result", _RESULT_TAG[result.winner]),
        _tag("Score", _pair(result.score)), _tag("Reason", result.reason), _tag("Variant", record.rules.name),
        _tag("Rules", _rules_text(record.rules)), _tag("DealSeed", str(record.deal_seed)),
        _tag("MatchSeed", str(record.match_seed)), _tag("Format", FORMAT_ID),
    ]
    for t in result.terminations:
        out.append(_tag("Termination", _termination_text(t)))
        if t.line is not None:
            out.append(_tag("TerminationLine", t.line))
    for number, d in enumerate(record.deals, 1):
        out += ["\n", _tag("Deal", str(number)), _tag("Dealer", str(d.dealer)), _tag("Trump", str(d.trump)),
                _tag("Deck", " ".join(map(str, d.deck)))]
        out += [f"{trick}. {' '.join(tokens)}\n" for trick, tokens in enumerate(_tricks(d.actions), 1)]
        out.append(_tag("DealResult", _deal_result_text(d)))
    out.append("\n")
    return "".join(out)


def _tricks(actions: Sequence[tuple[int, Action]]) -> list[list[str]]:
    """The action tokens one line per trick: a line ends after its second card (a play or a marriage)."""
    lines: list[list[str]] = []
    line: list[str] = []
    cards = 0
    for seat, action in actions:
        line.append(f"{seat}:{action.token()}")
        if action.kind in ("play", "marriage"):
            cards += 1
            if cards == 2:
                lines.append(line)
                line, cards = [], 0
    if line:
        lines.append(line)
    return lines


_TAG_LINE = re.compile(r"\[([A-Za-z][A-Za-z0-9_]*)\s+(\".*\")\s*\]")
_HEADER_TAGS = ("Event", "Match", "Date", "Seat0", "Seat1", "Result", "Score", "Reason", "Variant", "Rules",
                "DealSeed", "MatchSeed", "Format", "Termination", "TerminationLine")
_REQUIRED = ("Event", "Match", "Seat0", "Seat1", "Result", "Score", "Reason", "Variant", "Rules", "DealSeed",
             "MatchSeed")
_DEAL_TAGS = ("Deal", "Dealer", "Trump", "Deck", "DealResult")
_MOVE_NUMBER = re.compile(r"[0-9]+\.")
_PAIR = re.compile(r"([0-9]+)-([0-9]+)")
_INT = re.compile(r"-?[0-9]{1,30}")
_DEAL_RESULT = re.compile(r"seat ([01]) wins ([0-9]{1,9}) game points? \((.*)\); card points ([0-9]{1,9})-([0-9]{1,9})"
                          r"; tricks ([0-9]{1,9})-([0-9]{1,9})")
_TERMINATION = re.compile(r"(\S+) by seat ([01])(?: in deal ([0-9]{1,9}))?: (.*)", re.DOTALL)


def _tag_line(number: int, text: str) -> tuple[str, str] | None:
    """A ``[Name "value"]`` line as (name, value); None when the line is not a tag."""
    if not text.startswith("["):
        return None
    m = _TAG_LINE.fullmatch(text.strip())
    if m is None:
        raise RecordFormatError(number, f"not a tag: expected [Name \"value\"], not {short_repr(text.strip())}")
    try:
        value = json.loads(m[2])
    except ValueError:
        value = None
    if not isinstance(value, str):
        raise RecordFormatError(number, f"{m[1]}: the value is not one quoted string (write \\\" for a quote "
                                        "and \\\\ for a backslash)")
    return m[1], value


class _PgnRecord:
    """A record being read from its lines."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.tags: dict[str, tuple[int, str]] = {}
        self.terminations: list[tuple[Termination, int, int | None, str, str | None]] = []  # kind, seat, deal, ...
        self.termination_line = 0  # the line of the last Termination tag, for its TerminationLine
        self.deals: list[DealRecord] = []
        self.deal: dict[str, tuple[int, str]] | None = None  # the deal being read: its tags
        self.actions: list[tuple[int, Action]] = []

    def header(self, number: int, name: str, value: str) -> None:
        if self.deals or self.deal is not None:
            raise RecordFormatError(number, f"[{name}] comes after the first deal; header tags come first")
        if name == "Termination":
            m = _TERMINATION.fullmatch(value)
            if m is None:
                raise RecordFormatError(number, "Termination: expected \"KIND by seat S[ in deal N]: DETAIL\", "
                                                f"not {short_repr(value)}")
            deal = None if m[3] is None else int(m[3])
            if deal is not None and deal < 1:
                raise RecordFormatError(number, "Termination: deals are numbered from 1")
            kind = _termination_kind(m[1])
            if kind is None:
                raise RecordFormatError(number, f"Termination: {short_repr(m[1])} is not a termination arena "
                                                f"names ({', '.join(Termination)})")
            self.terminations.append((kind, int(m[2]), None if deal is None else deal - 1, m[4], None))
            self.termination_line = number
        elif name == "TerminationLine":
            if self.termination_line != number - 1:
                raise RecordFormatError(number, "[TerminationLine] must follow its [Termination] tag")
            self.terminations[-1] = (*self.terminations[-1][:4], value)
        elif name in self.tags:
            raise RecordFormatError(number, f"[{name}] appears twice (first at line {self.tags[name][0]})")
        else:
            self.tags[name] = (number, value)

    def deal_tag(self, number: int, name: str, value: str) -> None:
        if name == "Deal":
            if self.deal is not None:
                raise RecordFormatError(number, f"[Deal] before the [DealResult] of deal {len(self.deals) + 1}")
            if value != str(len(self.deals) + 1):
                raise RecordFormatError(number, f"Deal: expected deal number {len(self.deals) + 1}, not "
                                                f"{short_repr(value)}")
            self.deal, self.actions = {}, []
            return
        if self.deal is None:
            raise RecordFormatError(number, f"[{name}] outside a deal; expected [Deal \"N\"] first")
        if name in self.deal:
            raise RecordFormatError(number, f"[{name}] appears twice in deal {len(self.deals) + 1}")
        self.deal[name] = (number, value)
        if name == "DealResult":
            self.deals.append(self._finish_deal(number))
            self.deal = None

    def moves(self, number: int, text: str) -> None:
        if self.deal is None:
            raise RecordFormatError(number, f"actions outside a deal: {short_repr(text.strip())}")
        if "Deck" not in self.deal:
            raise RecordFormatError(number, "actions before the deal's [Deck] tag")
        tokens = [t for t in text.split() if not _MOVE_NUMBER.fullmatch(t)]
        try:
            self.actions.extend(parse_actions(tokens))
        except ValueError as e:
            raise RecordFormatError(number, str(e)) from None

    def _finish_deal(self, number: int) -> DealRecord:
        assert self.deal is not None
        tags = self.deal
        for name in ("Dealer", "Trump", "Deck"):
            if name not in tags:
                raise RecordFormatError(number, f"deal {len(self.deals) + 1} has no [{name}] tag")
        dealer_line, dealer = tags["Dealer"]
        if dealer not in ("0", "1"):
            raise RecordFormatError(dealer_line, f"Dealer: expected 0 or 1, not {short_repr(dealer)}")
        try:
            trump = Card.parse(tags["Trump"][1])
        except CardError as e:
            raise RecordFormatError(tags["Trump"][0], f"Trump: {e}") from None
        try:
            deck = parse_deck(tags["Deck"][1])
        except CardError as e:
            raise RecordFormatError(tags["Deck"][0], f"Deck: {e}") from None
        line, text = tags["DealResult"]
        if text.startswith("none (") and text.endswith(")"):
            winner, game_points, reason, points, tricks = None, None, text[6:-1], None, None
        else:
            m = _DEAL_RESULT.fullmatch(text)
            if m is None:
                raise RecordFormatError(line, "DealResult: expected \"seat S wins G game points (REASON); card "
                                              "points P-P; tricks T-T\" or \"none (REASON)\", not "
                                              f"{short_repr(text)}")
            winner, game_points, reason = int(m[1]), int(m[2]), m[3]
            points, tricks = (int(m[4]), int(m[5])), (int(m[6]), int(m[7]))
        return DealRecord(dealer=int(dealer), trump=trump, deck=deck, actions=tuple(self.actions), winner=winner,
                          game_points=game_points, reason=reason, points=points, tricks=tricks)

    def finish(self, end: int) -> GameRecord:
        if self.deal is not None:
            raise RecordFormatError(end, f"deal {len(self.deals) + 1} has no [DealResult] tag")
        for name in _REQUIRED:
            if name not in self.tags:
                raise RecordFormatError(self.start, f"the record has no [{name}] tag")
        tags = self.tags

        def value(name: str) -> str:
            return tags[name][1]

        def number(name: str) -> int:
            line, text = tags[name]
            if not _INT.fullmatch(text):
                raise RecordFormatError(line, f"{name}: expected an integer, not {short_repr(text)}")
            return int(text)

        fmt = tags.get("Format")
        if fmt is not None and fmt[1] != FORMAT_ID:
            raise RecordFormatError(fmt[0], f"Format: {short_repr(fmt[1])} is not a format this arena reads; "
                                            f"expected {FORMAT_ID!r}")
        results = {text: seat for seat, text in _RESULT_TAG.items()}
        if value("Result") not in results:
            raise RecordFormatError(tags["Result"][0], f"Result: expected 1-0, 0-1 or *, not "
                                                       f"{short_repr(value('Result'))}")
        score = _PAIR.fullmatch(value("Score"))
        if score is None:
            raise RecordFormatError(tags["Score"][0], f"Score: expected two game point totals like 11-4, not "
                                                      f"{short_repr(value('Score'))}")
        return GameRecord(
            event=value("Event"), match=value("Match"), date=tags.get("Date", (0, ""))[1],
            bots=(value("Seat0"), value("Seat1")), rules=self._rules(value("Variant")),
            deal_seed=number("DealSeed"), match_seed=number("MatchSeed"), deals=tuple(self.deals),
            result=MatchResult(results[value("Result")], (int(score[1]), int(score[2])), value("Reason"),
                               tuple(BotTermination(kind, seat, value(f"Seat{seat}"), detail, line, deal)
                                     for kind, seat, deal, detail, line in self.terminations)),
        )

    def _rules(self, variant: str) -> RuleSet:
        line, text = self.tags["Rules"]
        hints = get_type_hints(RuleSet)
        values: dict[str, Any] = {"name": variant}
        for item in text.split():
            key, eq, raw = item.partition("=")
            if not eq:
                raise RecordFormatError(line, f"Rules: {short_repr(item)} is not NAME=VALUE")
            if key == "name" or key in values:
                raise RecordFormatError(line, f"Rules: {short_repr(key)} given twice (the name is the Variant tag)")
            values[key] = _rule_value(hints.get(key), raw)
            if values[key] is None:
                raise RecordFormatError(line, f"Rules: {key}={short_repr(raw)} is not a value of its type")
        try:
            return rules_from_mapping(values)
        except RulesError as e:
            raise RecordFormatError(line, f"Rules: {e}") from None


def _rule_value(hint: Any, raw: str) -> Any:
    """A rule's value from its text, by the type of its RuleSet field; None when it is not of that type."""
    if hint is bool:
        return {"true": True, "false": False}.get(raw)
    if hint is int:
        return int(raw) if _INT.fullmatch(raw) else None
    if get_origin(hint) is tuple:
        parts = raw.split(",")
        return tuple(int(p) for p in parts) if all(_INT.fullmatch(p) for p in parts) else None
    if int in get_args(hint):  # an integer or a word (close_min_talon: 3 or none)
        return int(raw) if _INT.fullmatch(raw) else raw
    return raw  # text, or one of a Literal's texts: RuleSet checks which


def parse_pgn(lines: Sequence[str]) -> Iterator[tuple[int, GameRecord]]:
    """Each record as (the line of its [Event] tag, the record); RecordFormatError at the first bad line.

    A record begins with its [Event] tag; blank lines anywhere are ignored."""
    current: _PgnRecord | None = None
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        tag = _tag_line(number, text.lstrip())
        if tag is not None and tag[0] == "Event":
            if current is not None:
                yield current.start, current.finish(number - 1)
            current = _PgnRecord(number)
        if current is None:
            raise RecordFormatError(number, "expected a record's first tag, [Event \"...\"]")
        if tag is None:
            current.moves(number, text)
        elif tag[0] in _DEAL_TAGS:
            current.deal_tag(number, *tag)
        elif tag[0] in _HEADER_TAGS:
            current.header(number, *tag)
        else:
            raise RecordFormatError(number, f"unknown tag [{tag[0]}]; expected one of "
                                            f"{', '.join(_HEADER_TAGS + _DEAL_TAGS)}")
    if current is not None:
        yield current.start, current.finish(len(lines))


# ------------------------------------------------------------------------------------------- either
def format_record(record: GameRecord, fmt: str) -> str:
    return format_jsonl(record) if fmt == "jsonl" else format_pgn(record)


def detect_format(lines: Sequence[str]) -> str | None:
    """``jsonl`` when the first non-blank line starts with ``{``, ``pgn-like`` with ``[``, else None."""
    for text in lines:
        s = text.lstrip()
        if s:
            return {"{": "jsonl", "[": "pgn-like"}.get(s[0])
    return None


def parse_records(lines: Sequence[str], fmt: str) -> list[tuple[int, GameRecord]]:
    """Every record of a text (its lines, without their line breaks) as (its first line, the record)."""
    return list(parse_jsonl(lines) if fmt == "jsonl" else parse_pgn(lines))
