"""What the report's pages show: typed page contexts, built from the store's typed reads.

:func:`load` reads what the index needs (the tournament, its bots and matches, the standings' facts) and
fits the ratings once; :func:`index_context`, :func:`rules_context`, :func:`matches_context`,
:func:`bot_context` and :func:`match_context` turn that into one frozen value per page, whose fields are
the template's variables (docs/REPORTS.md lists them). Per-bot totals come from
:func:`arena.stats.standings`; the report computes none of its own and runs no SQL. :func:`replay` re-runs
a match's deals through ``arena.game`` and snapshots the table after every action for the replay viewer.

Nothing here formats HTML: the templates do, with autoescaping; the only markup built in Python is the
SVG charts (arena.report.charts, every text escaped) and the replay JSON (escaped for a <script> tag).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from arena.game.actions import Action
from arena.game.cards import ALL_CARDS, SUITS, Card, CardError
from arena.game.hand import Deal, DealEndReason, parse_seat_action
from arena.game.variants import RuleSet, allowed_values
from arena.protocol.codec import BotProtocolError, decode_bot_line
from arena.protocol.messages import Reply
from arena.stats import BotStanding, Pairing, Ratings, Result, Standings, ThinkTime, pairings, ratings, standings
from arena.tournament.store import (
    StoredBot,
    StoredDeal,
    StoredMatch,
    StoredSeat,
    StoredTermination,
    StoredTournament,
)

if TYPE_CHECKING:
    from arena.tournament.store import Store

#: Bootstrap samples behind the intervals and the LOS matrix: the final report, and the live index that
#: the runner re-renders every few seconds (cheaper; the final render replaces it).
BOOTSTRAP_FINAL = 1000
BOOTSTRAP_LIVE = 200
#: Points on a ratings trajectory (one refit per step of ceil(matches / TRAJECTORY_POINTS) matches).
TRAJECTORY_POINTS = 40
RECENT_MATCHES = 12

SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
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


def json_for_script(data: Any) -> Markup:
    """JSON that is safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` appears
    literally (so neither ``</script>`` nor ``<!--`` can end or confuse the element)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return Markup(text)


def match_data_script(match_id: str, replay: dict[str, Any] | None, seats: Sequence[StoredSeat]) -> str:
    """``data/<file_name(match_id)>.js``: a match's replay and transcripts, which its page and its pair page
    load with ``<script src>`` (a local file may be loaded so from file://, where ``fetch`` is blocked).

    The JSON ``{"replay": ..., "seats": [{"seat", "stderr", "t", "lines"}, ...]}`` (see
    :func:`transcript_columns`) is zlib-compressed and base64-encoded into one call
    ``arenaData("<match id>", "<base64>")``; report.js inflates it with the browser's ``DecompressionStream``
    and prints each transcript line as :func:`transcript_text` does. :func:`read_match_data` reads it back."""
    payload = {"replay": replay, "seats": [{"seat": s.seat, "stderr": s.stderr, **transcript_columns(s.transcript)}
                                           for s in seats if s.seat in (0, 1)]}
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    blob = base64.b64encode(zlib.compress(raw, 6)).decode("ascii")  # 9: 5% smaller, 2.5 times slower
    return f'arenaData({json.dumps(match_id)}, "{blob}");\n'


_DATA_CALL = re.compile(r'^arenaData\(("(?:[^"\\]|\\.)*"), "([A-Za-z0-9+/=]*)"\);\n?$')


def read_match_data(text: str) -> tuple[str, dict[str, Any]]:
    """The match id and the payload of a data file written by :func:`match_data_script`."""
    m = _DATA_CALL.match(text)
    if m is None:
        raise ValueError("not an arena match data file")
    raw = zlib.decompress(base64.b64decode(m.group(2))).decode("utf-8", "surrogatepass")
    return json.loads(m.group(1)), json.loads(raw)


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
    """Per finished match: its id, its duplicate partner's id, the previous and next finished match in
    schedule order (what a match page links to), and, on the second game of a pair that can be compared
    (:func:`comparable_pairs`), the first game's id: the pair page is rendered with that match."""
    done = [m for m in matches if m.done]
    by_key = {(m.spec.pairing, m.spec.pair_index, m.spec.game): m for m in matches}
    second = {g1: g0 for g0, g1 in comparable_pairs(matches)}
    plan: list[list[str | None]] = []
    for n, m in enumerate(done):
        partner = by_key.get((m.spec.pairing, m.spec.pair_index, 1 - (m.spec.game or 0)))
        plan.append([m.match_id, partner.match_id if partner and partner is not m else None,
                     done[n - 1].match_id if n else None, done[n + 1].match_id if n + 1 < len(done) else None,
                     second.get(m.match_id)])
    return plan


def pair_id(m: StoredMatch) -> str:
    """A duplicate pair's id, the match ids without their game: ``A-vs-B-pN``."""
    a, b = m.spec.pairing
    return f"{a}-vs-{b}-p{m.spec.pair_index}"


def comparable_pairs(matches: Iterable[StoredMatch]) -> list[tuple[str, str]]:
    """The duplicate pairs a pair page compares, as (game 0's id, game 1's id) in schedule order: both
    games finished, with the same deals (not ``duplicate: false``) and the bots in swapped seats."""
    by_key: dict[tuple[Any, ...], dict[int, StoredMatch]] = {}
    for m in matches:
        if m.done and m.spec.game in (0, 1):
            by_key.setdefault((m.spec.pairing, m.spec.pair_index), {})[m.spec.game] = m
    out = []
    for games in by_key.values():
        g0, g1 = games.get(0), games.get(1)
        if g0 and g1 and _comparable(g0, g1):
            out.append((g0.match_id, g1.match_id))
    return out


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
    results = [
        Result(m.seat0, m.seat1, 1.0 if m.winner_seat == 0 else 0.0, pair_of[m.match_id])
        for m in done if m.winner_seat in (0, 1) and m.seat0 != m.seat1
    ]
    fit = ratings(results, bootstrap=bootstrap, seed=0) if results else None
    pairs = pairings(results) if results else {}
    config_order = _config_order(bots, matches)
    totals = standings(store.match_facts(t.name, think_times=think_times), bots=config_order)
    rated = [r.bot for r in fit] if fit else []
    names = rated + [b for b in config_order if b not in set(rated)]
    return Data(t, bots, names, matches, done, results, fit, pairs, totals)


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


def card_text(card: str) -> str:
    """``Th`` -> ``10♥`` (plain text, e.g. for titles); text that is not a card stays as it is."""
    try:
        return Card.parse(card).display()
    except CardError:
        return card


def result_text(m: StoredMatch) -> str:
    """``7–3`` (game points by seat), ``forfeit (0–0)`` for a match a termination decided (the points are
    those when it ended: the winner did not reach the target), ``abandoned``, or the status of a match not
    played yet."""
    if not m.done:
        return m.status
    if m.winner_seat not in (0, 1):
        return "abandoned"
    score = f"{m.score[0]}\u2013{m.score[1]}"
    return f"forfeit ({score})" if m.termination and m.reason not in (None, "target") else score


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
class PartnerLine(MatchLine):
    """The duplicate partner of a match."""

    same_deals: bool  # False when the two games were given different deals (``duplicate: false``)


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


def standing_rows(data: Data) -> list[StandingRow]:
    """Every bot in standings order: rated bots by rating, then the rest in config order."""
    out = []
    fit = data.fit
    rated = {x.bot for x in fit} if fit else set()
    for n, b in enumerate(data.names, 1):
        r = fit[b] if fit and b in rated else None
        out.append(StandingRow(rank=n if r else None, bot=b, file=file_name(b), elo=r.elo if r else None,
                               lo=r.lo if r else None, hi=r.hi if r else None, totals=data.standings[b]))
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
    ``arenaMatches([...])``; each row ``[order, id, page file or "", seat0, seat1, result, winner, deals,
    ended by, the bot that forfeited or "", done]`` (the text of each cell, as the table shows it)."""
    rows = []
    for m in page.matches:
        ended = (m.reason or "") + (f" ({m.terminated_bot})" if m.terminated_bot else "")
        forfeit = (m.terminated_bot or "") if m.result.startswith("forfeit") else ""
        rows.append([m.order + 1, m.match_id, m.file if f"matches/{m.file}.html" in linked else "", m.seat0,
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
class SeatLine:
    """One seat of a match: its bot, score, think time and transcript."""

    seat: int
    bot: str
    file: str
    score: int | None
    substitutions: int  # random legal actions the referee played for it
    decisions: int | None
    think_median: float | None
    think_max: float | None
    transcript_lines: int
    stderr: str


@dataclass(frozen=True)
class DealLine:
    """One row of a match page's table of deals."""

    idx: int
    dealer: str  # the dealer's name, "?" when the database does not say
    trump: str | None
    winner: str | None  # None for a deal nobody won
    game_points: int | None
    reason: str | None
    points: tuple[int | None, int | None]  # card points by seat
    tricks: tuple[int | None, int | None]
    forfeit: bool
    steps: int  # the replay's steps in this deal (0 without a replay): its last step is #d<idx+1>s<steps>


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
    at: str | None  # the replay step where it happened, as a link ("#d2s9"); None without one


@dataclass(frozen=True)
class MatchPage:
    """matches/<id>.html."""

    title: str  # "A vs B" in the order of the match id (the pairing), whatever the seats
    m: StoredMatch
    bots: tuple[str, str]  # by seat
    seats: list[SeatLine]  # seat 0, seat 1
    sides: list[SeatLine]  # the same in the order of the match id: seat 1 first in a pair's second game
    result: str
    forfeit: ForfeitLine | None  # the match was decided by a termination: who, why
    terminations: list[StoredTermination]
    partner: PartnerLine | None  # the duplicate partner
    pair: str | None  # the pair page comparing this match with its partner (file name without .html)
    prev: MatchLine | None  # the previous and next finished match in schedule order
    next: MatchLine | None
    deals: list[DealLine]
    replay: dict[str, Any] | None  # the replay viewer's data (None when the rule set cannot be read)
    data_file: str  # data/<data_file>.js holds the replay and the transcripts (see match_data_script)
    steps: int  # steps of the replay


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
                       line=t.line if t else None, deal=t.deal if t else None, winner=m.winner, at=None)


def match_context(
    m: StoredMatch,
    deals: list[StoredDeal],
    terms: list[StoredTermination],
    seats: list[StoredSeat],
    partner: StoredMatch | None,
    neighbours: tuple[StoredMatch | None, StoredMatch | None],
    rules: RuleSet | None,
    replay_data: dict[str, Any] | None = None,
) -> MatchPage:
    """``replay_data``: the match's :func:`match_replay`, when the caller has it already."""
    bots = m.seats
    by_seat = {s.seat: s for s in seats}
    seat_info = []
    for s in (0, 1):
        st = by_seat.get(s)
        lines = st.transcript if st else []
        seat_info.append(SeatLine(
            seat=s, bot=bots[s], file=file_name(bots[s]), score=m.score[s], substitutions=m.substitutions[s],
            decisions=st.decisions if st else None, think_median=st.think_median_ms if st else None,
            think_max=st.think_max_ms if st else None, transcript_lines=len(lines) if isinstance(lines, list) else 0,
            stderr=st.stderr if st else "",
        ))
    if replay_data is None and rules is not None:
        replay_data = match_replay(rules, m, deals, seats)
    steps_of = {d["idx"]: d["steps"] for d in replay_data["deals"]} if replay_data else {}
    forfeit = forfeit_of(m, terms)
    if forfeit and replay_data and replay_data["deals"]:
        d = forfeit.deal if forfeit.deal is not None and forfeit.deal in steps_of else replay_data["deals"][-1]["idx"]
        forfeit = replace(forfeit, at=f"#d{d + 1}s{steps_of[d]}")
    deal_rows = [
        DealLine(idx=d.idx, dealer=bots[d.dealer] if d.dealer in (0, 1) else "?", trump=d.trump,
                 winner=bots[d.winner] if d.winner in (0, 1) else None, game_points=d.game_points,
                 reason=d.reason, points=d.points, tricks=d.tricks, forfeit=d.forfeit, steps=steps_of.get(d.idx, 0))
        for d in deals
    ]
    prev, nxt = neighbours
    order = id_order(m)
    comparable = partner is not None and _comparable(m, partner)
    return MatchPage(
        title=f"{bots[order[0]]} vs {bots[order[1]]}",
        m=m,
        bots=bots,
        seats=seat_info,
        sides=[seat_info[order[0]], seat_info[order[1]]],
        result=result_text(m),
        forfeit=forfeit,
        terminations=terms,
        partner=(PartnerLine(**_line_fields(partner), same_deals=partner.spec.deal_seed == m.spec.deal_seed)
                 if partner else None),
        pair=file_name(pair_id(m)) if comparable else None,
        prev=match_summary(prev) if prev else None,
        next=match_summary(nxt) if nxt else None,
        deals=deal_rows,
        replay=replay_data,
        data_file=file_name(m.match_id),
        steps=len(replay_data["steps"]) if replay_data else 0,
    )


def match_replay(rules: RuleSet, m: StoredMatch, deals: Sequence[StoredDeal],
                 seats: Sequence[StoredSeat]) -> dict[str, Any]:
    """The replay viewer's data of a finished match: :func:`replay`, with what each bot said (its ``info``
    lines) and how long it thought at each of its decisions (:func:`annotate`)."""
    note = f"{m.terminated_bot}: {m.termination}" if m.termination else None
    data = replay(rules, deals, m.seats, note)
    for st in seats:
        if st.seat in (0, 1):
            annotate(data, deals, st.seat, st.transcript, st.think_ms)
    return data


# ----------------------------------------------------------------------------------------------- replay
# Every card as (bit, text) in display order: suits black, red, black, red; high ranks first.
_DISPLAY = tuple((c.bit, str(c)) for c in sorted(ALL_CARDS, key=lambda c: (_DISPLAY_SUIT[SUITS[c.suit]], -c.rank)))
_HANDS: dict[int, str] = {}


def _hand(mask: int) -> str:
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


def replay(
    rules: RuleSet,
    deal_rows: Sequence[StoredDeal],
    bots: tuple[str, str],
    match_note: str | None = None,
) -> dict[str, Any]:
    """The replay viewer's data: per deal its dealt hands, and one step per action (plus one per deal for
    the hands as dealt), each with the whole visible table. Labels are lists of text pieces and ``[card]``.
    ``deal_rows`` are the match's deals, as the store reads them.
    """
    deals_out: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    score = [0, 0]
    for row in deal_rows:
        d_index = len(deals_out)
        info: dict[str, Any] = {
            "idx": row.idx, "dealer": row.dealer, "trump": row.trump, "dealt": ["", ""],
            "result": None, "first": len(steps),
        }
        deals_out.append(info)
        try:
            # a corrupt row without a dealer raises TypeError here, and the page says so
            deal = Deal(rules, _deck(row.deck), int(row.dealer))  # type: ignore[arg-type]
        except (ValueError, TypeError) as e:
            steps.append(_broken_step(d_index, score, f"cannot replay this deal: {e}"))
            info["steps"] = 1
            continue
        info["trump"] = SUITS[deal.trump]
        info["dealt"] = [_hand(deal.hands[0]), _hand(deal.hands[1])]
        dealer = bots[deal.dealer]
        steps.append(_snapshot(deal, d_index, [f"Deal {row.idx + 1}: {dealer} deals; trump ",
                                                [str(deal.trump_card)], " turned."], [], None, score))
        table: list[list[Any]] = []
        seen = len(deal.events)
        tokens = row.actions
        broken = False
        for token in tokens:
            try:
                seat, action = _TOKENS.get(token) or _token(token)
                deal.apply(action, seat)
            except ValueError as e:  # a corrupt row: show where, keep the table as it was
                steps.append(_snapshot(deal, d_index, [f"replay stopped at {token!r}: {e}"], [], None, score))
                broken = True
                break
            if len(table) == 2:
                table = []
            label, won = _describe(deal, deal.events[seen:], bots, table)
            seen = len(deal.events)
            steps.append(_snapshot(deal, d_index, label, table, won, score))
        last = steps[-1]
        winner, gp = row.winner, row.game_points
        if broken:
            pass
        elif row.forfeit or row.reason == DealEndReason.FORFEIT or deal.result is None:
            ending = ["Deal over: forfeited"]
            if winner in (0, 1):
                ending[0] += f"; {bots[winner]} gets {gp} game point{'s' if gp != 1 else ''}"
            if match_note:
                ending[0] += f" ({match_note})"
            last["label"] = [*last["label"], " ", *ending, "."]
        elif winner in (0, 1) and (deal.result.winner, deal.result.game_points) != (winner, gp):
            last["label"] = [*last["label"], f" (the database says {bots[winner]} won {gp}: it differs)"]
        if winner in (0, 1) and isinstance(gp, int):
            score[winner] += gp
            last["score"] = list(score)
            info["result"] = f"{bots[winner]} +{gp} ({row.reason})"
        last["end"] = True
        info["steps"] = len(steps) - info["first"]
    return {"bots": list(bots), "deals": deals_out, "steps": steps}


_TOKENS: dict[str, tuple[int, Action]] = {}


def _token(token: str) -> tuple[int, Action]:
    """``0:play:Th`` -> (0, play Th), remembered; ValueError for anything else."""
    parsed = _TOKENS[token] = parse_seat_action(token)
    return parsed


def _deck(text: str) -> list[Card]:
    return [_CARD_OF.get(t) or Card.parse(t) for t in text.split()]


_CARD_OF = {str(c): c for c in ALL_CARDS}


def _broken_step(d_index: int, score: list[int], message: str) -> dict[str, Any]:
    return {"deal": d_index, "label": [message], "hands": ["", ""], "talon": 0, "points": [0, 0],
            "tricks": [0, 0], "score": list(score)}


def _snapshot(
    deal: Deal, d_index: int, label: list[Any], table: list[list[Any]], won: int | None, score: list[int]
) -> dict[str, Any]:
    """The table after one step. Keys that are usually empty are left out (the viewer defaults them):
    ``turned`` (the trump card under the talon), ``table`` (the trick, [seat, card] each), ``won`` (the
    seat that took the trick on the table), ``pending`` (marriage points waiting for a trick),
    ``marriages`` ([seat, suit] each), ``closed`` (the seat that closed), ``move`` (the seat to move)."""
    talon = deal.talon
    won_points, marriage_points, tricks = deal.won_points, deal.marriage_points, deal.tricks
    step: dict[str, Any] = {
        "deal": d_index,
        "label": label,
        "hands": [_hand(deal.hands[0]), _hand(deal.hands[1])],
        "talon": len(talon),
        "points": [won_points[0] + marriage_points[0], won_points[1] + marriage_points[1]],
        "tricks": [tricks[0], tricks[1]],
        "score": score[:],
    }
    if talon and talon[-1] == deal.trump_card:
        step["turned"] = _CARD_TEXT[deal.trump_card]
    if table:
        step["table"] = table[:]
    if won is not None:
        step["won"] = won
    pending = deal.pending_marriage
    if pending[0] or pending[1]:
        step["pending"] = pending[:]
    if deal.marriages:
        step["marriages"] = [[seat, SUITS[suit]] for seat, suit in deal.marriages]
    if deal.closed_by is not None:
        step["closed"] = deal.closed_by
    if deal.result is None:
        step["move"] = deal.to_move
    return step


_CARD_TEXT = {c: str(c) for c in ALL_CARDS}


def _describe(deal: Deal, events: Sequence[Any], bots: tuple[str, str], table: list[list[Any]]) -> tuple[
        list[Any], int | None]:
    """The label for one action's events; updates ``table`` (the trick on the table) in place."""
    out: list[Any] = []
    won = None
    draws: list[Any] = []
    for ev in events:
        who = bots[ev.seat]
        kind = ev.kind
        if kind == "play":
            card = str(ev.card)
            out += [f"{who} {'leads' if not table else 'plays'} ", [card], ". "]
            table.append([ev.seat, card])
        elif kind == "marriage":
            suit = SUITS[ev.card.suit]
            note = (f"{ev.points}" if deal.tricks[ev.seat] or not ev.points
                    else f"{ev.points}, counted with {who}'s first trick")
            if not ev.points:
                note = "no points before a trick"
            out += [f"{who} declares the marriage ", ["K" + suit], ["Q" + suit], f" ({note}). "]
        elif kind == "trick":
            won = ev.seat
            out += [f"{who} wins the trick (+{ev.points}). "]
        elif kind == "draw":
            draws += [f"{who} draws ", [str(ev.card)]]
            draws.append(", " if len(draws) < 4 else ". ")
        elif kind == "exchange":
            out += [f"{who} exchanges ", [str(deal.trump_card)], " for the turned ", [str(ev.card)], ". "]
        elif kind == "close":
            out += [f"{who} closes the talon. "]
        elif kind == "declare":
            out += [f"{who} declares 66 with {ev.points} points. "]
        elif kind == "deal-end":
            r = deal.result
            gp = ev.points
            out += draws
            draws = []
            out += [f"Deal over: {who} wins {gp} game point{'s' if gp != 1 else ''} ({r.reason if r else '?'}). "]
    out += draws
    if out and isinstance(out[-1], str):
        out[-1] = out[-1].rstrip()
    return out, won


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


def decisions(lines: list[Any] | str) -> tuple[_Decision, list[_Decision]]:
    """A seat's transcript cut at every ``turn`` line: what came before its first turn (the handshake's
    time: ``info`` lines and notes), and one :class:`_Decision` per turn, in order. A restarted process's
    handshake belongs to the decision it interrupted (its answer is not a reply)."""
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
            head = text[:5]
        except (TypeError, ValueError):
            continue
        if direction == "<":
            if head == "info " or text == "info":
                cur.info.append(str(text[5:]))
            elif answering:
                cur.reply, cur.reply_ms = str(text), ms
                answering = False
        elif direction == ">":
            if head == "turn ":
                cur = _Decision(deal, ms)
                out.append(cur)
                answering = True
            elif head == "deal ":
                index = text[5:].partition(" ")[0]
                if index.isdigit():
                    deal = int(index)
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


# ----------------------------------------------------------------------------------------------- pairs
#: How a deal of a duplicate pair was dealt in its two games (the deck is the same, the dealer may not be).
SWAPPED = "swapped"  # the same hands in the same seats: each bot plays the cards the other had in the other game
MIRRORED = "mirrored"  # the other seat dealt (the dealer follows the previous deal): each bot has the same cards
DIFFERENT = "different"  # other cards (another deck)
MISSING = "missing"  # only one game has this deal


@dataclass(frozen=True)
class PairDeal:
    """One deal of a duplicate pair, in both games."""

    idx: int  # 0-based
    seating: str  # SWAPPED, MIRRORED, DIFFERENT or MISSING
    diverge: int | None  # the first step (1-based, within the deal) at which the actions differ; None if never
    actions: tuple[str | None, str | None]  # at that step, what was played in each game ("greedy: play 10♥")
    results: tuple[str | None, str | None]  # per game: "greedy +2 (66)"; None where the game has no such deal
    link: str  # the step to look at, as a link ("#d1s5"): where the play diverged, else the deal's first step

    @property
    def same(self) -> bool:
        """The deal was dealt alike in both games (swapped or mirrored), so its play can be compared."""
        return self.seating in (SWAPPED, MIRRORED)


@dataclass(frozen=True)
class PairPage:
    """pairs/<A-vs-B-pN>.html: the two games of a duplicate pair side by side."""

    title: str
    pair: str  # the pair's id: the match ids without their game
    index: int  # the pair's index in the schedule (the N of pN)
    bots: tuple[str, str]  # the pairing (A, B): A has seat 0 in game 0, seat 1 in game 1
    games: tuple[MatchLine, MatchLine]  # game 0 and game 1
    deals: list[PairDeal]  # every deal either game played
    diverged: PairDeal | None  # the first deal, dealt alike, whose play diverged
    data_files: tuple[str, str]  # the games' data files (data/<name>.js, see match_data_script)
    pair_json: Markup  # per deal, for the viewer: {"seating", "diverge"}


def _action_text(token: str, bots: tuple[str, str]) -> str:
    try:
        seat, action = _TOKENS.get(token) or _token(token)
    except ValueError:
        return token
    what = action.kind if action.card is None else f"{action.kind} {card_text(str(action.card))}"
    return f"{bots[seat]}: {what}"


def _other_seat(token: str) -> str:
    """``0:play:Th`` -> ``1:play:Th``."""
    return {"0": "1", "1": "0"}.get(token[:1], token[:1]) + token[1:]


def _deal_result(row: StoredDeal, bots: tuple[str, str]) -> str:
    if row.winner in (0, 1):
        return f"{bots[row.winner]} +{row.game_points} ({row.reason})"
    return str(row.reason or "not decided")


def pair_context(
    games: tuple[StoredMatch, StoredMatch],
    deals: tuple[Sequence[StoredDeal], Sequence[StoredDeal]],
) -> PairPage:
    """The pair page of ``games`` (game 0, game 1) and their deals; it loads both games' data files."""
    g0, g1 = games
    out = []
    for n in range(max(len(deals[0]), len(deals[1]))):
        a = deals[0][n] if n < len(deals[0]) else None
        b = deals[1][n] if n < len(deals[1]) else None
        diverge: int | None = None
        actions: tuple[str | None, str | None] = (None, None)
        if a is None or b is None:
            seating = MISSING
        elif a.deck != b.deck or a.dealer not in (0, 1) or b.dealer not in (0, 1):
            seating = DIFFERENT
        else:
            seating = SWAPPED if a.dealer == b.dealer else MIRRORED
            # the same action in a mirrored deal is the same bot's, so from the other seat
            theirs = b.actions if seating == SWAPPED else tuple(_other_seat(t) for t in b.actions)
            at = next((i for i, (x, y) in enumerate(zip(a.actions, theirs, strict=False)) if x != y),
                      min(len(a.actions), len(theirs)))
            if at < max(len(a.actions), len(theirs)):
                diverge = at + 2  # step 1 shows the hands as dealt, step i + 2 the action i
                actions = (_action_text(a.actions[at], g0.seats) if at < len(a.actions) else None,
                           _action_text(b.actions[at], g1.seats) if at < len(b.actions) else None)
        out.append(PairDeal(
            idx=n, seating=seating, diverge=diverge, actions=actions,
            results=(_deal_result(a, g0.seats) if a else None, _deal_result(b, g1.seats) if b else None),
            link=f"#d{n + 1}s{diverge or 1}",
        ))
    pair = pair_id(g0)
    a_name, b_name = g0.spec.pairing
    return PairPage(
        title=f"{a_name} vs {b_name}, pair {g0.spec.pair_index}: both seatings",
        pair=pair,
        index=g0.spec.pair_index,
        bots=(a_name, b_name),
        games=(match_summary(g0), match_summary(g1)),
        deals=out,
        diverged=next((d for d in out if d.same and d.diverge is not None), None),
        data_files=(file_name(g0.match_id), file_name(g1.match_id)),
        pair_json=json_for_script({"deals": [{"seating": d.seating, "diverge": d.diverge} for d in out]}),
    )
