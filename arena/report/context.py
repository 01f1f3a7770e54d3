"""What the report's pages show: typed page contexts, built from the store's typed reads.

:func:`load` reads what the index needs (the tournament, its bots and matches, the standings' facts) and
fits the ratings once; :func:`index_context`, :func:`rules_context`, :func:`matches_context` and
:func:`bot_context` turn that into one frozen value per page, whose fields are the template's variables
(docs/REPORTS.md lists them). Per-bot totals come from :func:`arena.stats.standings`; the report computes
none of its own and runs no SQL. :func:`match_data` is what the viewer (``match.html#<id>``,
``pair.html#<id>``) shows of one match, written to its data file by :func:`match_data_script`: the facts,
a compact replay (:func:`compact_deal`: each deal's dealt hands and public events, from ``arena.game``),
what each bot said and how long it thought, and the transcripts where they are kept. :func:`replay` builds
every step's table with the rules engine: the reference report.js's rebuilding is tested against.

Nothing here formats HTML: the templates do, with autoescaping; the only markup built in Python is the
SVG charts (arena.report.charts, every text escaped).
"""
from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from arena.game.cards import ALL_CARDS, CARD_TEXT, SUITS, parse_cards
from arena.game.hand import Deal, DealEndReason, parse_seat_action
from arena.game.variants import RuleSet, allowed_values
from arena.protocol.codec import BotProtocolError, decode_bot_line
from arena.protocol.messages import Reply
from arena.stats import (
    BotStanding,
    LuckAdjusted,
    Pairing,
    Ratings,
    Result,
    Standings,
    ThinkTime,
    luck_table,
    pairings,
    ratings,
    standings,
)
from arena.stats.swiss import BYE_POINTS, SwissTable, swiss_table
from arena.store import (
    StoredBot,
    StoredDeal,
    StoredMatch,
    StoredSeat,
    StoredTermination,
    StoredTournament,
)

if TYPE_CHECKING:
    from arena.store import Store

#: Bootstrap samples behind the intervals and the LOS matrix: the final report, and the live index that
#: the runner re-renders every few seconds (cheaper; the final render replaces it).
BOOTSTRAP_FINAL = 1000
BOOTSTRAP_LIVE = 200
#: Points on a ratings trajectory (one refit per step of ceil(matches / TRAJECTORY_POINTS) matches).
TRAJECTORY_POINTS = 40
RECENT_MATCHES = 12

_DISPLAY_SUIT = {s: n for n, s in enumerate("shcd")}  # black, red, black, red: hands read well

_SAFE_FILE = re.compile(r"[a-z0-9][a-z0-9._-]{0,80}")
_UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def file_name(name: str) -> str:
    """A file name (without extension) for a bot name or match id: the name itself when it is plain
    lower-case ASCII, else a cleaned-up version plus a short hash of the original, so two names never
    share a file (not even on a case-insensitive file system) and no name can escape the directory."""
    if _SAFE_FILE.fullmatch(name) and not name.endswith("."):
        return name
    cleaned = _UNSAFE_CHARS.sub("_", name).strip("._-").lower()[:60] or "x"
    digest = hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned}-{digest}"


def template_vars(page: Any) -> dict[str, Any]:
    """A page context's fields as its template's variables (shallow: the values stay typed)."""
    return {f.name: getattr(page, f.name) for f in fields(page)}


# ----------------------------------------------------------------------------------------------- loading
@dataclass(frozen=True)
class Data:
    """Everything the index needs, read once per render."""

    tournament: StoredTournament
    bots: dict[str, StoredBot]  # the bots table, in config order
    names: list[str]  # every bot: standings order (rated first), then the rest in config order
    matches: list[StoredMatch]  # every scheduled match, in schedule order
    done: list[StoredMatch]  # the finished ones, in schedule order
    results: list[Result]
    fit: Ratings | None
    pairs: dict[tuple[str, str], Pairing]
    standings: Standings  # every bot's totals over the finished matches
    swiss: SwissTable | None = None  # a Swiss's rounds so far; None for the other formats
    luck: dict[str, LuckAdjusted] = field(default_factory=dict)  # every bot's raw and luck-adjusted score

    @property
    def status(self) -> str:
        return self.tournament.status

    @property
    def rules(self) -> dict[str, Any]:
        return self.tournament.rules


def pair_keys(matches: Iterable[StoredMatch]) -> dict[str, str | None]:
    """Match id -> duplicate pair id: the two games of a pair that share their deals form one resampling
    unit for the statistics; games that do not (``duplicate: false``) count as independent matches."""
    groups: dict[tuple[Any, Any, Any], list[StoredMatch]] = {}
    for m in matches:
        groups.setdefault((m.spec.pairing[0], m.spec.pairing[1], m.spec.pair_index), []).append(m)
    out: dict[str, str | None] = {}
    for key, ms in groups.items():
        shared = len(ms) == 2 and ms[0].spec.deal_seed == ms[1].spec.deal_seed
        for m in ms:
            out[m.match_id] = json.dumps(list(key)) if shared else None
    return out


def load_matches(store: Store) -> tuple[StoredTournament, list[StoredMatch]]:
    """The tournament and every scheduled match, in schedule order."""
    t = store.tournament_info()
    return t, store.matches(t.name)


def _config_order(bots: Iterable[str], matches: Iterable[StoredMatch]) -> list[str]:
    names = list(bots)
    seen = set(names)
    for m in matches:
        for b in m.seats:
            if b not in seen:
                seen.add(b)
                names.append(b)
    return names


def bot_names(store: Store, tournament: str, matches: Iterable[StoredMatch]) -> list[str]:
    """Every bot: the bots table in config order, then anyone else who sits in a match."""
    return _config_order((b.name for b in store.bots(tournament)), matches)


def match_plan(matches: Sequence[StoredMatch]) -> list[list[str | None]]:
    """Per finished match: its id, its duplicate partner's id, and the previous and next finished match in
    schedule order (what the viewer links to)."""
    done = [m for m in matches if m.done]
    by_key = {(m.spec.pairing, m.spec.pair_index, m.spec.game): m for m in matches}
    plan: list[list[str | None]] = []
    for n, m in enumerate(done):
        partner = by_key.get((m.spec.pairing, m.spec.pair_index, 1 - (m.spec.game or 0)))
        plan.append([m.match_id, partner.match_id if partner and partner is not m else None,
                     done[n - 1].match_id if n else None, done[n + 1].match_id if n + 1 < len(done) else None])
    return plan


def pair_id(m: StoredMatch) -> str:
    """A duplicate pair's id, the match ids without their game: ``A-vs-B-pN``."""
    a, b = m.spec.pairing
    return f"{a}-vs-{b}-p{m.spec.pair_index}"


def _comparable(m: StoredMatch, partner: StoredMatch) -> bool:
    """Both finished, on the same deals, the bots in swapped seats, and at least one deal to compare."""
    return (m.done and partner.done and m.spec.deal_seed == partner.spec.deal_seed
            and m.seats == (partner.seat1, partner.seat0) and {m.spec.game, partner.spec.game} == {0, 1}
            and bool(m.deals or partner.deals))


def load(store: Store, bootstrap: int = BOOTSTRAP_FINAL, think_times: bool = True) -> Data:
    """What the pages need; ``think_times=False`` (enough for the index) leaves the bots' think times empty."""
    t, matches = load_matches(store)
    bots = {b.name: b for b in store.bots(t.name)}
    done = [m for m in matches if m.done]
    pair_of = pair_keys(matches)
    counted = {m.match_id for m in done if counts(t, m)}
    decided = [m for m in done if m.winner_seat in (0, 1) and m.seat0 != m.seat1 and m.match_id in counted]
    results = [Result(m.seat0, m.seat1, 1.0 if m.winner_seat == 0 else 0.0, pair_of[m.match_id]) for m in decided]
    fit = ratings(results, bootstrap=bootstrap, seed=0) if results else None
    pairs = pairings(results) if results else {}
    config_order = _config_order(bots, matches)
    totals = standings([f for f in store.match_facts(t.name, think_times=think_times) if f.match_id in counted],
                       bots=config_order)
    rated = [r.bot for r in fit] if fit else []
    names = rated + [b for b in config_order if b not in set(rated)]
    swiss = swiss_table(config_order, store.swiss_games(t.name)) if t.format == "swiss" else None
    lucks = store.match_luck(t.name)
    lucky = [(r, lucks[m.match_id]) for r, m in zip(results, decided, strict=True) if m.match_id in lucks]
    luck = luck_table([r for r, _ in lucky], [x for _, x in lucky])
    return Data(t, bots, names, matches, done, results, fit, pairs, totals, swiss, luck)


def counts(t: StoredTournament, m: StoredMatch) -> bool:
    """Whether a finished match counts in the standings and ratings: all of a tournament's; of a ladder's,
    the rated pairs' (``L...``), not its challenges (``C...``), which are stored and replayed, never rated."""
    return t.format != "ladder" or m.match_id.startswith("L")


# ----------------------------------------------------------------------------------------------- formatting
def signed(x: float | None, digits: int = 0) -> str:
    if x is None:
        return "–"
    text = f"{x:+.{digits}f}"
    return "±0" if text in ("+0", "-0") else text.replace("-", "\u2212")


def pct(x: float | None, digits: int = 0) -> str:
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def scale_colour(x: float | None) -> str:
    """A background for a value in [0, 1]: orange below 0.5, white at 0.5, blue above (colour-blind safe)."""
    if x is None or not math.isfinite(x):
        return ""
    x = min(1.0, max(0.0, x))
    lo, mid, hi = (239, 138, 98), (247, 247, 247), (103, 169, 207)
    t = abs(x - 0.5) * 2
    end = hi if x >= 0.5 else lo
    rgb = tuple(round(m + (e - m) * t) for m, e in zip(mid, end, strict=True))
    return f"background-color: rgb({rgb[0]}, {rgb[1]}, {rgb[2]})"


def result_text(m: StoredMatch) -> str:
    """``7–3`` (game points by seat), ``forfeit (0–0)`` for a match a termination decided (the points are
    those when it ended: the winner did not reach the target), ``abandoned``, or the status of a match not
    played yet."""
    return m.result.text() if m.done else m.status


def _when(text: str | None) -> str:
    if not text:
        return "–"
    return text.replace("T", " ", 1).replace("+00:00", " UTC")


# ----------------------------------------------------------------------------------------------- shared
@dataclass(frozen=True)
class MatchLine:
    """One match in a list (index, matches page, bot page) or a link (a match page's neighbours)."""

    match_id: str
    file: str  # the match page's file name, without .html
    order: int  # position in the schedule, 0-based
    seat0: str
    seat1: str
    winner: str | None
    result: str  # "7–3", "abandoned", or the status of a match not played yet
    reason: str | None  # "target" or the termination that decided it
    status: str
    termination: str | None
    terminated_bot: str | None
    deals: int | None
    finished: str  # when it finished, for people; "" until it is done


@dataclass(frozen=True)
class BotMatchLine(MatchLine):
    """One match of a bot, on its page."""

    seat: int  # the bot's seat
    opponent: str


def _line_fields(m: StoredMatch) -> dict[str, Any]:
    return {
        "match_id": m.match_id, "file": file_name(m.match_id), "order": m.spec.order, "seat0": m.seat0,
        "seat1": m.seat1, "winner": m.winner, "result": result_text(m), "reason": m.reason, "status": m.status,
        "termination": m.termination, "terminated_bot": m.terminated_bot, "deals": m.deals,
        "finished": _when(m.finished_at) if m.done else "",
    }


def match_summary(m: StoredMatch) -> MatchLine:
    return MatchLine(**_line_fields(m))


# ----------------------------------------------------------------------------------------------- index
@dataclass(frozen=True)
class StandingRow:
    """One bot in the standings: its rank and rating (None while it is unrated) and its totals."""

    rank: int | None
    bot: str
    file: str  # the bot page's file name, without .html
    elo: float | None
    lo: float | None  # the 95% interval
    hi: float | None
    totals: BotStanding
    luck: LuckAdjusted | None = None  # its raw and luck-adjusted score, with intervals


@dataclass(frozen=True)
class CrossCell:
    """The row bot's score against the column bot ``bot``; ``score`` is None when they never met."""

    bot: str
    is_self: bool = False
    score: float | None = None
    lo: float | None = None
    hi: float | None = None
    matches: int = 0
    wins: int = 0
    losses: int = 0
    style: str = ""  # the cell's background colour
    title: str = ""  # the tooltip: the record, score and interval in words


@dataclass(frozen=True)
class LosCell:
    """P(row bot stronger than column bot ``bot``); ``value`` is None when they are not comparable."""

    bot: str
    is_self: bool
    value: float | None
    style: str
    title: str


@dataclass(frozen=True)
class MatrixRow:
    """One row of the cross table (cells: CrossCell) or of the LOS matrix (cells: LosCell)."""

    bot: str
    file: str
    cells: list[Any]


@dataclass(frozen=True)
class SwissCell:
    """What a bot did in one Swiss round: its opponent and its points in their pair, or its bye."""

    opponent: str | None  # None for a bye, and for a round not paired yet
    points: float | None  # its points so far in the round (None before it is paired)
    bye: bool = False
    complete: bool = False  # the pair finished (a bye always is)


@dataclass(frozen=True)
class SwissRow:
    """One bot in the Swiss table: its Swiss points and its rounds."""

    rank: int
    bot: str
    points: float
    cells: list[SwissCell]


@dataclass(frozen=True)
class SwissSection:
    """A Swiss's rounds on the index: every bot by Swiss points, a column per round."""

    rounds: int  # the tournament's rounds
    paired: int  # rounds paired so far
    bye_points: float
    rows: list[SwissRow]


def swiss_section(data: Data) -> SwissSection | None:
    table = data.swiss
    if table is None:
        return None
    n = len(table.points)
    per_round = 2 * (n // 2)
    total = data.tournament.total_matches or 0
    rounds = max(len(table.rounds), total // per_round if per_round else 0)
    cells: dict[str, list[SwissCell]] = {b: [] for b in table.points}
    for r in table.rounds:
        for p in r.pairings:
            cells[p.a].append(SwissCell(p.b, p.points[0], complete=p.complete))
            cells[p.b].append(SwissCell(p.a, p.points[1], complete=p.complete))
        for b in r.byes:
            cells[b].append(SwissCell(None, BYE_POINTS, bye=True, complete=True))
    rows = []
    for rank, b in enumerate(table.ranking(), 1):
        row = cells[b] + [SwissCell(None, None)] * (rounds - len(cells[b]))
        rows.append(SwissRow(rank, b, table.points[b], row))
    return SwissSection(rounds, len(table.rounds), BYE_POINTS, rows)


@dataclass(frozen=True)
class IndexPage:
    """index.html."""

    title: str
    t: StoredTournament
    variant: str
    created: str
    updated: str
    done_count: int  # matches finished
    total: int  # matches scheduled
    deals_played: int
    terminations: int
    standings: list[StandingRow]
    chart: Markup | None  # the ratings chart (SVG), None before any result
    cross: list[MatrixRow]
    los: list[MatrixRow]
    names: list[str]  # every bot, in standings order
    fit: Ratings | None
    notes: list[str]  # what the rating fit wants a reader to know
    recent: list[MatchLine]  # the latest finished matches, newest first
    swiss: SwissSection | None = None  # format: swiss: each round's pairings and the Swiss points


def standing_rows(data: Data) -> list[StandingRow]:
    """Every bot in standings order: rated bots by rating, then the rest in config order."""
    out = []
    fit = data.fit
    rated = {x.bot for x in fit} if fit else set()
    for n, b in enumerate(data.names, 1):
        r = fit[b] if fit and b in rated else None
        out.append(StandingRow(rank=n if r else None, bot=b, file=file_name(b), elo=r.elo if r else None,
                               lo=r.lo if r else None, hi=r.hi if r else None, totals=data.standings[b],
                               luck=data.luck.get(b)))
    return out


def cross_table(data: Data) -> list[MatrixRow]:
    """Rows of cells: row bot's score against the column bot, with its interval and a colour."""
    rows = []
    for a in data.names:
        cells = []
        for b in data.names:
            p = data.pairs.get((a, b))
            if a == b or p is None:
                cells.append(CrossCell(bot=b, is_self=a == b))
                continue
            wins = round(p.points)
            cells.append(CrossCell(
                bot=b, score=p.score, lo=p.lo, hi=p.hi, matches=p.matches, wins=wins, losses=p.matches - wins,
                style=scale_colour(p.score),
                title=f"{a} vs {b}: {wins}\u2013{p.matches - wins} in {p.matches} matches, score "
                      f"{pct(p.score)} (95% interval {pct(p.lo)}\u2013{pct(p.hi)})",
            ))
        rows.append(MatrixRow(a, file_name(a), cells))
    return rows


def los_table(data: Data) -> list[MatrixRow]:
    fit = data.fit
    if not fit or not fit.bootstrap:
        return []
    names = [r.bot for r in fit]
    rows = []
    for a in names:
        cells = []
        for b in names:
            v = fit.los(a, b)
            cells.append(LosCell(bot=b, is_self=a == b, value=v, style=scale_colour(v),
                                 title="" if v is None else f"P({a} stronger than {b}) = {pct(v, 1)}"))
        rows.append(MatrixRow(a, file_name(a), cells))
    return rows


def index_context(data: Data) -> IndexPage:
    from arena.report import charts

    t = data.tournament
    rows = standing_rows(data)
    chart = charts.ratings_chart(
        [(r.bot, r.elo, r.lo, r.hi) for r in rows if r.elo is not None],
        anchor=data.fit.anchor if data.fit else None,
    )
    recent = sorted(data.done, key=lambda m: (m.finished_at or "", m.spec.order))[-RECENT_MATCHES:][::-1]
    return IndexPage(
        title=t.name,
        t=t,
        variant=data.rules.get("name") or t.variant or "custom",
        created=_when(t.created_at),
        updated=_when(t.updated_at),
        done_count=len(data.done),
        total=t.total_matches or len(data.matches),
        deals_played=data.standings.deals,
        terminations=data.standings.terminations,
        standings=rows,
        chart=chart,
        cross=cross_table(data),
        los=los_table(data),
        names=data.names,
        fit=data.fit,
        notes=list(data.fit.notes) if data.fit else [],
        recent=[match_summary(m) for m in recent],
        swiss=swiss_section(data),
    )


# ----------------------------------------------------------------------------------------------- lists
@dataclass(frozen=True)
class MatchesPage:
    """matches.html."""

    title: str
    matches: list[MatchLine]  # every scheduled match, in schedule order (rows in data/matches.js)
    names: list[str]  # every bot, in standings order: the filter's choices
    page_rows: int = 200  # rows shown at once (MATCHES_PAGE_ROWS)


def matches_context(data: Data) -> MatchesPage:
    return MatchesPage(f"{data.tournament.name}: matches", [match_summary(m) for m in data.matches],
                       list(data.names), MATCHES_PAGE_ROWS)


MATCHES_PAGE_ROWS = 200  # rows of the matches list shown at once; report.js pages through the rest


def matches_data_script(page: MatchesPage, linked: set[str]) -> str:
    """``data/matches.js``: every row of the matches list, which report.js filters, sorts and shows a page
    at a time (20,000 rows as HTML would be megabytes for the browser to lay out). One call
    ``arenaMatches([...])``; each row ``[order, id, data file or "", seat0, seat1, result, winner, deals,
    ended by, the bot that forfeited or "", done]`` (the text of each cell, as the table shows it)."""
    rows = []
    for m in page.matches:
        ended = (m.reason or "") + (f" ({m.terminated_bot})" if m.terminated_bot else "")
        forfeit = (m.terminated_bot or "") if m.result.startswith("forfeit") else ""
        rows.append([m.order + 1, m.match_id, m.file if f"data/{m.file}.js" in linked else "", m.seat0,
                     m.seat1, m.result, m.winner or "", m.deals if m.deals is not None else "", ended, forfeit,
                     1 if m.status == "done" else 0])
    return f"arenaMatches({json.dumps(rows, separators=(',', ':'))});\n"


def read_matches_data(text: str) -> list[list[Any]]:
    """The rows of a data file written by :func:`matches_data_script`."""
    prefix = "arenaMatches("
    body = text.strip()
    if not body.startswith(prefix) or not body.endswith(");"):
        raise ValueError("not an arena matches data file")
    rows: list[list[Any]] = json.loads(body[len(prefix):-2])
    return rows


@dataclass(frozen=True)
class RuleLine:
    """One parameter of the stored rule set."""

    name: str
    value: str  # as text: lists space-separated, booleans lower-case
    doc: str  # what it means ("" for a parameter this arena does not know)
    allowed: str  # its allowed values, in words


@dataclass(frozen=True)
class RulesPage:
    """rules.html."""

    title: str
    variant: str
    rules: list[RuleLine]  # in the stored order


def rules_context(data: Data) -> RulesPage:
    known = {f.name: f for f in fields(RuleSet)}
    rows = []
    for key, value in data.rules.items():
        f = known.get(key)
        shown = (" ".join(map(str, value)) if isinstance(value, list | tuple)
                 else str(value).lower() if isinstance(value, bool) else str(value))
        rows.append(RuleLine(name=key, value=shown, doc=f.metadata.get("doc", "") if f else "",
                             allowed=allowed_values(f) if f else ""))
    return RulesPage(f"{data.tournament.name}: rules", data.rules.get("name") or "custom", rows)


# ----------------------------------------------------------------------------------------------- bots
def trajectory(data: Data, points: int = TRAJECTORY_POINTS) -> tuple[list[int], dict[str, list[float | None]]]:
    """Ratings refitted after every k-th finished match (no bootstrap): x values and each bot's Elo."""
    res = data.results
    if not res or data.fit is None:
        return [], {}
    anchor = data.fit.anchor
    step = max(1, math.ceil(len(res) / points))
    xs: list[int] = []
    ys: dict[str, list[float | None]] = {b: [] for b in data.names}
    seen: set[str] = set()
    cuts = list(range(step, len(res), step)) + [len(res)]
    start = 0
    for cut in cuts:
        for r in res[start:cut]:
            seen.add(r.first)
            seen.add(r.second)
        start = cut
        if anchor not in seen:
            continue
        fit = ratings(res[:cut], anchor=anchor, bootstrap=0)
        elo = {r.bot: r.elo for r in fit}
        xs.append(cut)
        for b in ys:
            ys[b].append(elo.get(b))
    return xs, ys


@dataclass(frozen=True)
class OpponentLine:
    """A bot's results against one opponent (from the ratings' pairings)."""

    bot: str  # the opponent
    file: str
    matches: int
    wins: int
    losses: int
    score: float
    lo: float  # the score's 95% interval
    hi: float
    style: str
    pairs: int  # duplicate pairs played
    outcomes: Mapping[str, int]  # duplicate pairs by outcome: "2-0", "1-1", "0-2"
    los: float | None  # P(the bot stronger than this opponent), head to head


@dataclass(frozen=True)
class BotPage:
    """bots/<name>.html."""

    title: str
    bot: str
    program: StoredBot  # command, command as started, hash, build output
    hello: dict[str, Any]  # what the bot said of itself in its last handshake
    s: StandingRow
    opponents: list[OpponentLine]
    trajectory: Markup | None  # the rating over the tournament (SVG)
    think_chart: Markup | None  # think time histogram (SVG)
    think: ThinkTime | None  # None without decisions
    terminations: list[StoredTermination]  # its violations, in schedule order
    matches: list[BotMatchLine]  # its last BOT_PAGE_MATCHES finished matches, in schedule order
    match_count: int  # all its finished matches (the list of matches shows every one)


BOT_PAGE_MATCHES = 200  # a bot page lists this many of its last matches (a large tournament has thousands)


def bot_context(
    data: Data,
    name: str,
    standing: StandingRow,
    traj: tuple[list[int], dict[str, list[float | None]]],
    terms: list[StoredTermination],
    hello: dict[str, Any] | None,
    matches: list[StoredMatch],
) -> BotPage:
    from arena.report import charts

    opponents = []
    for other in data.names:
        p = data.pairs.get((name, other))
        if other == name or p is None:
            continue
        wins = round(p.points)
        opponents.append(OpponentLine(
            bot=other, file=file_name(other), matches=p.matches, wins=wins, losses=p.matches - wins,
            score=p.score, lo=p.lo, hi=p.hi, style=scale_colour(p.score), pairs=p.pairs,
            outcomes=p.pair_outcomes, los=p.los,
        ))
    think = standing.totals.think
    xs, ys = traj
    return BotPage(
        title=name,
        bot=name,
        program=data.bots.get(name) or StoredBot(name, None, (), None, None),
        hello=hello or {},
        s=standing,
        opponents=opponents,
        trajectory=charts.line_chart(xs, ys, highlight=name) if xs else None,
        think_chart=charts.histogram(think.ms) if think.ms else None,
        think=think if think.ms else None,
        terminations=terms,
        matches=[BotMatchLine(**_line_fields(m), seat=0 if m.seat0 == name else 1,
                              opponent=m.seat1 if m.seat0 == name else m.seat0)
                 for m in matches[-BOT_PAGE_MATCHES:]],
        match_count=len(matches),
    )


# ----------------------------------------------------------------------------------------------- matches
def transcript_columns(lines: list[Any] | str) -> dict[str, Any]:
    """A transcript for a data file: ``t``, each line's time in tenths of a millisecond as the difference
    from the previous line's, and ``lines``, each ``direction text``; ``{"text": ...}`` (as
    :func:`transcript_text` prints it) for one that is not a list of ``[ms, direction, text]``."""
    if not isinstance(lines, str):
        try:
            tenths = [round(float(ms) * 10) for ms, _, _ in lines]
            return {"t": [b - a for a, b in zip([0, *tenths], tenths, strict=False)],
                    "lines": [f"{direction} {text}" for _, direction, text in lines]}
        except (TypeError, ValueError):
            pass
    return {"text": transcript_text(lines)[0]}


def transcript_text(lines: list[Any] | str) -> tuple[str, int]:
    """The protocol lines as one text block (``ms dir line``), and how many lines; text that is not a list
    of lines (a corrupt database) as it is."""
    if isinstance(lines, str):
        return lines, 0
    try:
        return "\n".join([f"{ms:10.1f} {direction} {text}" for ms, direction, text in lines]), len(lines)
    except (TypeError, ValueError):
        pass
    out = []
    for item in lines:
        try:
            ms, direction, text = item
            out.append(f"{float(ms):10.1f} {direction} {text}")
        except (TypeError, ValueError):
            out.append(str(item))
    return "\n".join(out), len(out)


@dataclass(frozen=True)
class ForfeitLine:
    """Who lost a match by a termination, and why (the termination that decided it)."""

    bot: str
    seat: int | None
    kind: str  # the termination's kind (docs/PROTOCOL.md lists them)
    detail: str | None
    line: str | None  # the offending line, if a line caused it
    deal: int | None  # 0-based; None before the first deal
    winner: str | None  # who was given the match


def id_order(m: StoredMatch) -> tuple[int, int]:
    """The seats in the order the match id names the bots (``A-vs-B-pN-gG`` names the pairing, A first):
    (0, 1), or (1, 0) when A sits in seat 1, as in the second game of a duplicate pair."""
    a, b = m.spec.pairing
    return (1, 0) if (a, b) == (m.seat1, m.seat0) and a != b else (0, 1)


def forfeit_of(m: StoredMatch, terms: Sequence[StoredTermination]) -> ForfeitLine | None:
    """The termination that decided ``m`` (None for a match that reached its target, or is not done)."""
    if not m.done or not m.termination or m.reason in (None, "target"):
        return None
    decided = [t for t in terms if t.kind == m.termination and t.bot == m.terminated_bot] or list(terms)
    t = decided[-1] if decided else None
    bot = m.terminated_bot or (t.bot if t else "?")
    seat = t.seat if t and t.seat in (0, 1) else (0 if bot == m.seat0 else 1 if bot == m.seat1 else None)
    return ForfeitLine(bot=bot, seat=seat, kind=m.termination, detail=t.detail if t else None,
                       line=t.line if t else None, deal=t.deal if t else None, winner=m.winner)


#: ``arena report --transcripts``: which matches' data files carry the full protocol transcripts.
TRANSCRIPTS = ("all", "faults", "none")


def has_fault(m: StoredMatch, terms: Sequence[StoredTermination]) -> bool:
    """A match a bot author debugs: one with a termination or a move the referee played for a bot."""
    return bool(terms) or bool(m.termination) or any(m.substitutions)


def wants_transcripts(policy: str, m: StoredMatch, terms: Sequence[StoredTermination]) -> bool:
    return policy == "all" or (policy == "faults" and has_fault(m, terms))


def _ms3(v: float | None) -> float | None:
    """A think time to four significant digits (the viewer shows three)."""
    return None if v is None else float(f"{v:.4g}")


def _link(m: StoredMatch | None) -> dict[str, Any] | None:
    return None if m is None else {"id": m.match_id, "file": file_name(m.match_id), "result": result_text(m)}


def match_data(
    m: StoredMatch,
    deals: Sequence[StoredDeal],
    terms: Sequence[StoredTermination],
    seats: Sequence[StoredSeat],
    partner: StoredMatch | None,
    neighbours: tuple[StoredMatch | None, StoredMatch | None],
    rules: RuleSet | None,
    transcripts: bool,
) -> dict[str, Any]:
    """Everything the viewer (``match.html#<file>``, ``pair.html#<file>``) shows of one finished match, as
    the JSON of its data file (:func:`match_data_script`; docs/REPORTS.md, "Data files"):

    - ``m``: the facts of the page's head (bots, result, forfeit, terminations, seeds, think times, the
      duplicate partner, the previous and next match);
    - ``deals``: per deal the database's row and, when this arena can replay the rule set, the compact
      replay of :func:`compact_deal` (the dealt hands and each action's public events);
    - ``say``: what each bot said (``info`` lines, notes) and how long it thought, by replay step;
    - ``seats``: per seat its stderr, its number of protocol lines and, when ``transcripts``, the lines.
    """
    bots = m.seats
    by_seat = {s.seat: s for s in seats}
    ended_by = (m.terminated_bot, m.termination) if m.termination else None
    out_deals: list[dict[str, Any]] = []
    skeleton: list[dict[str, Any]] = []  # per replayed deal: idx, first step, steps (what annotate reads)
    n_steps = 0
    score = [0, 0]
    for row in deals:
        d: dict[str, Any] = {"idx": row.idx, "dealer": row.dealer, "trump": row.trump, "winner": row.winner,
                             "gp": row.game_points, "reason": row.reason, "points": list(row.points),
                             "tricks": list(row.tricks)}
        if row.forfeit:
            d["forfeit"] = 1
        if rules is not None:
            steps = compact_deal(rules, row, bots, ended_by, score, d)
            skeleton.append({"idx": row.idx, "first": n_steps, "steps": steps})
            n_steps += steps
            if row.winner in (0, 1) and isinstance(row.game_points, int):
                score[row.winner] += row.game_points
        out_deals.append(d)
    say: list[list[Any]] = []
    if rules is not None and n_steps:
        frame_steps: list[dict[str, Any]] = [{} for _ in range(n_steps)]
        frame = {"steps": frame_steps, "deals": skeleton}
        for seat in seats:
            if seat.seat in (0, 1):
                annotate(frame, deals, seat.seat, seat.transcript, seat.think_ms)
        for i, step in enumerate(frame_steps):
            for e in step.get("say", ()):
                if len(e) == 2 and "ms" in e:  # the usual entry: a think time
                    say.append([i, e["seat"], e["ms"]])
                else:
                    say.append([i, e["seat"], e.get("ms"), {k: v for k, v in e.items() if k not in ("seat", "ms")}])
    steps_of = {s["idx"]: (s["first"], s["steps"]) for s in skeleton}
    forfeit = forfeit_of(m, terms)
    facts: dict[str, Any] = {
        "bots": list(bots), "files": [file_name(b) for b in bots], "sides": list(id_order(m)),
        "order": m.spec.order, "pair_index": m.spec.pair_index, "game": m.spec.game,
        "score": list(m.score), "winner": m.winner, "winner_seat": m.winner_seat, "result": result_text(m),
        "reason": m.reason, "termination": m.termination, "terminated_bot": m.terminated_bot,
        # the seeds as text: 63-bit numbers, which JSON.parse would round (8416064092381216801 to ...7000)
        "deals": m.deals, "duration_s": m.duration_s, "seeds": [str(m.spec.deal_seed), str(m.spec.match_seed)],
        "substitutions": list(m.substitutions),
        "think": [[x.decisions, _ms3(x.think_median_ms), _ms3(x.think_max_ms)] if x else [None, None, None]
                  for x in (by_seat.get(0), by_seat.get(1))],
        "terms": [[t.bot, t.seat, t.kind, t.deal, _ms3(t.at_ms), t.detail, t.line] for t in terms],
        "replay": rules is not None,
    }
    if forfeit is not None:
        at = None
        if steps_of:
            d_idx = forfeit.deal if forfeit.deal in steps_of else skeleton[-1]["idx"]
            at = [d_idx, steps_of[d_idx][1]]  # 0-based deal, its last step (1-based)
        facts["forfeit"] = {"bot": forfeit.bot, "seat": forfeit.seat, "kind": forfeit.kind, "detail": forfeit.detail,
                            "line": forfeit.line, "deal": forfeit.deal, "winner": forfeit.winner, "at": at}
    if partner is not None:
        facts["partner"] = {**(_link(partner) or {}), "same": partner.spec.deal_seed == m.spec.deal_seed,
                            "pair": _comparable(m, partner), "pair_id": pair_id(m)}
    prev, nxt = neighbours
    if prev is not None:
        facts["prev"] = _link(prev)
    if nxt is not None:
        facts["next"] = _link(nxt)
    out_seats = []
    for s in (0, 1):
        st = by_seat.get(s)
        lines = st.transcript if st else []
        entry: dict[str, Any] = {"seat": s, "stderr": st.stderr if st else "",
                                 "count": st.lines if st else 0}
        if transcripts:
            entry.update(transcript_columns(lines))
        out_seats.append(entry)
    return {"id": m.match_id, "m": facts, "deals": out_deals, "say": say, "seats": out_seats,
            "transcripts": transcripts}


def match_data_script(file: str, payload: dict[str, Any]) -> str:
    """``data/<file>.js``: one match's :func:`match_data`, which the viewer pages load with ``<script
    src>`` (a local file may be loaded so from file://, where ``fetch`` is blocked). The JSON is
    zlib-compressed and base64-encoded into one call ``arenaData("<file>", "<base64>")``; report.js
    inflates it with the browser's ``DecompressionStream``. :func:`read_match_data` reads it back."""
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    blob = base64.b64encode(zlib.compress(raw, 6)).decode("ascii")  # 9: a few % smaller, much slower
    return f'arenaData("{file}", "{blob}");\n'


_DATA_CALL = re.compile(r'^arenaData\("([a-z0-9._-]*)", "([A-Za-z0-9+/=]*)"\);\n?$')


def read_match_data(text: str) -> tuple[str, dict[str, Any]]:
    """The file name and the payload of a data file written by :func:`match_data_script`."""
    m = _DATA_CALL.match(text)
    if m is None:
        raise ValueError("not an arena match data file")
    raw = zlib.decompress(base64.b64decode(m.group(2))).decode("utf-8", "surrogatepass")
    return m.group(1), json.loads(raw)


# ----------------------------------------------------------------------------------------------- compact replay
_EVENT_TEXT: dict[Any, str] = {}  # event -> its text in a data file, for the events that depend on nothing else


def _event_text(ev: Any) -> str:
    kind, s = ev.kind, ev.seat
    if kind == "play" or kind == "draw":
        return f"{kind[0]}{s}{CARD_TEXT[ev.card]}"
    if kind == "trick":
        return f"t{s}{ev.points}"
    if kind == "close":
        return f"c{s}"
    if kind == "declare":
        return f"s{s}{ev.points}"
    if kind == "deal-end":
        return f"e{s}{ev.points}"
    raise ValueError(f"an event the report does not know: {kind}")


def compact_deal(rules: RuleSet, row: StoredDeal, bots: tuple[str, str], ended_by: tuple[str | None, str] | None,
                 score: Sequence[int], out: dict[str, Any]) -> int:
    """Add a deal's compact replay to ``out`` (its data-file entry) and return its number of replay steps.

    What needs the rules comes from ``arena.game``; report.js rebuilds every step's table from it by
    bookkeeping alone (the same steps as :func:`replay`, which the tests compare it with):

    - ``dealt`` (both hands as dealt, in display order), ``turned`` (the trump card turned up), ``suit``
      (trump) and ``talon`` (cards left in it);
    - ``acts``: per action one string of its public events, space-separated, each a letter, the seat and
      what it needs: ``p0Th`` plays, ``M0Kh20`` a marriage counted now, ``m0Kh20`` one pending (or void,
      ``m0Kh0``), ``t114`` a trick won by seat 1 worth 14 points, ``d1Ks`` a draw, ``x09hJh``
      an exchange (the card given, the card taken), ``c0`` a close, ``s066`` a declaration of 66 with its
      points, ``e12`` the deal's end (winner, game points);
    - ``why`` (the rules' reason the deal ended), ``final`` (card points at its end, a last-trick bonus
      included), ``move`` (the seat to move when the replay stops before the deal's end), ``forfeited``
      (a deal a forfeit ended: ``[who gets its game points, how many, the bot whose termination ended the
      match, the termination]``, each null when there is none; ``ended_by`` gives the last two), ``note``
      (words for the deal's last step: a result that differs from the database), ``error`` (why the
      replay stopped: a corrupt row).
    """
    try:
        # a corrupt row without a dealer raises TypeError here, and the page says so
        deal = Deal(rules, parse_cards(row.deck), int(row.dealer))  # type: ignore[arg-type]
    except (ValueError, TypeError) as e:
        out["error"] = f"cannot replay this deal: {e}"
        out["broken"] = 1
        return 1
    out["suit"] = SUITS[deal.trump]
    out["turned"] = CARD_TEXT[deal.trump_card]
    out["dealt"] = [hand_text(deal.hands[0]), hand_text(deal.hands[1])]
    out["talon"] = len(deal.talon)
    acts: list[str] = []
    seen = len(deal.events)
    events = deal.events
    marriage_points = deal.marriage_points
    for token in row.actions:
        try:
            seat, action = parse_seat_action(token)
            before = marriage_points[seat]
            deal.apply(action, seat)
        except ValueError as e:  # a corrupt row: show where, keep the table as it was
            out["error"] = f"replay stopped at {token!r}: {e}"
            break
        parts = []
        for ev in events[seen:]:
            text = _EVENT_TEXT.get(ev)
            if text is None:
                kind, s = ev.kind, ev.seat
                if kind == "marriage":  # counted now, or pending (or void): the rules and the state say
                    counted = marriage_points[s] != before
                    text = f"{'M' if counted else 'm'}{s}{CARD_TEXT[ev.card]}{ev.points}"  # type: ignore[index]
                elif kind == "exchange":  # the card given (the new turned card), the card taken
                    text = f"x{s}{CARD_TEXT[deal.trump_card]}{CARD_TEXT[ev.card]}"  # type: ignore[index]
                else:
                    text = _event_text(ev)
                    if len(_EVENT_TEXT) < 5000:
                        _EVENT_TEXT[ev] = text
            parts.append(text)
        seen = len(events)
        acts.append(" ".join(parts))
    out["acts"] = acts
    r = deal.result
    if r is not None:
        out["why"] = str(r.reason)
        out["final"] = list(r.points)
    else:
        out["move"] = deal.to_move
    winner, gp = row.winner, row.game_points
    if "error" in out:
        pass
    elif row.forfeit or row.reason == DealEndReason.FORFEIT or r is None:
        # (words, not a sentence: the viewer says it in the page's language)
        gets = (bots[winner], gp) if winner == 0 or winner == 1 else (None, None)
        out["forfeited"] = [*gets, *(ended_by if ended_by is not None else (None, None))]
    elif winner in (0, 1) and (r.winner, r.game_points) != (winner, gp):
        out["note"] = f" (the database says {bots[winner]} won {gp}: it differs)"
    return 1 + len(acts) + (1 if "error" in out else 0)




# ----------------------------------------------------------------------------------------------- replay
# Every card as (bit, text) in display order: suits black, red, black, red; high ranks first.
_DISPLAY = tuple((c.bit, str(c)) for c in sorted(ALL_CARDS, key=lambda c: (_DISPLAY_SUIT[SUITS[c.suit]], -c.rank)))
_HANDS: dict[int, str] = {}


def hand_text(mask: int) -> str:
    """A hand's cards as text in display order (memoised: hands repeat from step to step)."""
    text = _HANDS.get(mask)
    if text is None:
        if len(_HANDS) > 200_000:
            _HANDS.clear()
        text = _HANDS[mask] = " ".join([t for bit, t in _DISPLAY if mask & bit])
    return text


def rules_of(rules: Mapping[str, Any]) -> RuleSet | None:
    """The stored rule set, or None when this arena cannot read it (then there is no replay)."""
    try:
        return RuleSet.from_dict(dict(rules)) if rules else None
    except (ValueError, TypeError):
        return None


# ----------------------------------------------------------------------------------------------- what the bots said
#: What the replay data keeps of one decision's ``info`` lines (the transcript below the replay has them all).
INFO_LINES = 12
INFO_CHARS = 300
UNMATCHED = 3  # turns of a deal without an action (the last is the one that ended it) shown on its last step


class _Decision:
    """One turn line sent to a seat and what followed it until the next: the bot's ``info`` lines, its
    reply, the referee's notes (a termination), and the think time the referee measured."""

    __slots__ = ("deal", "info", "notes", "reply", "turn_ms", "reply_ms", "ms")

    def __init__(self, deal: int | None, turn_ms: Any) -> None:
        self.deal = deal  # the deal index of the last ``deal`` line before it
        self.info: list[str] = []
        self.notes: list[str] = []
        self.reply: str | None = None
        self.turn_ms = turn_ms
        self.reply_ms: Any = None
        self.ms: float | None = None


_MARKERS = ("turn", "deal", "arena")  # the referee's lines that decisions() reads (by their first word)


def decisions(lines: list[Any] | str) -> tuple[_Decision, list[_Decision]]:
    """A seat's transcript cut at every ``turn`` line: what came before its first turn (the handshake's
    time: ``info`` lines and notes), and one :class:`_Decision` per turn, in order. A restarted process's
    handshake belongs to the decision it interrupted (its answer is not a reply). The referee's lines may
    be their first word only (``Store.seats(..., referee_lines=False)``): a ``deal`` line without its index
    is the deal after the previous one."""
    before = _Decision(None, None)
    out: list[_Decision] = []
    if not isinstance(lines, list):
        return before, out
    cur = before
    deal: int | None = None
    answering = False  # a turn is waiting for its reply
    for item in lines:
        try:
            ms, direction, text = item
            if direction == ">" and not text.startswith(_MARKERS):  # an event line (or left out): nothing here
                continue
            head = text[:5]
        except (TypeError, ValueError, AttributeError):
            continue
        if direction == "<":
            if head == "info " or text == "info":
                cur.info.append(str(text[5:]))
            elif answering:
                cur.reply, cur.reply_ms = str(text), ms
                answering = False
        elif direction == ">":
            if head == "turn " or text == "turn":
                cur = _Decision(deal, ms)
                out.append(cur)
                answering = True
            elif head == "deal " or text == "deal":  # "deal" alone: the store left out the rest (counted)
                index = text[5:].partition(" ")[0]
                deal = int(index) if index.isdigit() else 0 if deal is None else deal + 1
            elif head == "arena":  # a (re)started process's handshake
                answering = False
        elif direction == "!":
            cur.notes.append(str(text))
    return before, out


def _is_reply(text: str) -> bool:
    try:
        return isinstance(decode_bot_line(text), Reply)
    except BotProtocolError:
        return False


def _think_times(decs: list[_Decision], think_ms: Sequence[float]) -> None:
    """Give each answered decision its think time: the referee's (``seats.think_ms``, one per reply it
    could read, legal or not), or, where those do not fit the transcript, the transcript's own times."""
    answered = [d for d in decs if d.reply is not None]
    if len(answered) != len(think_ms):  # a reply that was not an action: it has no think time
        answered = [d for d in answered if d.reply is not None and _is_reply(d.reply)]
    if len(answered) == len(think_ms):
        for d, ms in zip(answered, think_ms, strict=True):
            d.ms = ms
        return
    for d in answered:
        if isinstance(d.reply_ms, int | float) and isinstance(d.turn_ms, int | float):
            d.ms = round(d.reply_ms - d.turn_ms, 3)


def _clip(text: str) -> str:
    return text if len(text) <= INFO_CHARS else text[:INFO_CHARS] + "\u2026"


def _say(step: dict[str, Any], seat: int, d: _Decision) -> None:
    """Add a decision to a step's ``say``: [{seat, ms, info, more, notes, reply}], keys left out when empty."""
    if d.info or d.notes:
        entry: dict[str, Any] = {"seat": seat}
        if d.ms is not None:
            entry["ms"] = d.ms
        if d.info:
            entry["info"] = [_clip(t) for t in d.info[:INFO_LINES]]
            if len(d.info) > INFO_LINES:
                entry["more"] = len(d.info) - INFO_LINES
        if d.notes:
            entry["notes"] = [_clip(t) for t in d.notes[:INFO_LINES]]
            if d.reply is not None:  # what the bot answered when something went wrong
                entry["reply"] = _clip(d.reply)
    elif d.ms is not None:
        entry = {"seat": seat, "ms": d.ms}
    else:
        return
    said = step.get("say")
    if said is None:
        step["say"] = [entry]
    else:
        said.append(entry)


def annotate(
    data: dict[str, Any],
    deal_rows: Sequence[StoredDeal],
    seat: int,
    transcript: list[Any] | str,
    think_ms: Sequence[float],
) -> None:
    """Put what ``seat`` said and how long it thought on the replay's steps (key ``say``).

    A decision is one action by that seat: the k-th turn line the seat got in deal n (its transcript's
    ``deal n`` line says which deal) is its k-th action of deal n, on the step that shows that action. A
    turn that got no action (the bot broke the rules and the deal or match ended there) goes on the deal's
    last step; what the bot said before its first turn goes on the match's first step. A transcript without
    ``deal`` lines is matched in match order.
    """
    steps, deals = data["steps"], data["deals"]
    if not steps:
        return
    before, decs = decisions(transcript)
    _say(steps[0], seat, before)
    if not decs:
        return
    _think_times(decs, think_ms)
    prefix = f"{seat}:"
    slots: list[list[int]] = []  # per deal of the replay: the steps of this seat's actions
    for info, row in zip(deals, deal_rows, strict=False):
        first, count = info["first"], info["steps"]
        slots.append([first + 1 + i for i, token in enumerate(row.actions)
                      if token.startswith(prefix) and i + 1 < count])
    last_step = [info["first"] + info["steps"] - 1 for info in deals]
    if all(d.deal is None for d in decs):  # no deal lines: this seat's actions in match order
        groups = [(len(deals) - 1, decs, [s for deal_slots in slots for s in deal_slots])]
    else:
        position = {info["idx"]: n for n, info in enumerate(deals)}
        by_deal: dict[int, list[_Decision]] = {}
        for d in decs:
            by_deal.setdefault(position.get(d.deal, len(deals) - 1) if d.deal is not None else 0, []).append(d)
        groups = [(n, ds, slots[n] if n < len(slots) else []) for n, ds in by_deal.items()]
    for n, ds, where in groups:
        for step, d in zip(where, ds, strict=False):
            _say(steps[step], seat, d)
        for d in ds[len(where):][-UNMATCHED:]:  # more turns than actions only where something went wrong
            _say(steps[last_step[n]], seat, d)
