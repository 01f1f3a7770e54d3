"""What the report's pages show, computed from the tournament database (read only: plain SELECTs).

:func:`load` reads everything the index needs in a handful of queries and fits the ratings once;
:func:`index_context`, :func:`bot_context`, :func:`matches_context` and :func:`match_context` turn that
into the values the templates print. :func:`replay` re-runs a match's deals through ``arena.game`` and
snapshots the table after every action for the replay viewer.

Nothing here formats HTML: the templates do, with autoescaping; the only markup built in Python is the
SVG charts (arena.report.charts, every text escaped) and the replay JSON (escaped for a <script> tag).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from markupsafe import Markup

from arena.game.actions import Action
from arena.game.cards import ALL_CARDS, SUITS, Card
from arena.game.hand import Deal
from arena.game.variants import RuleSet, allowed_values
from arena.stats import BotDealStats, Pairing, Ratings, Result, pairings, ratings, summarize_deals
from arena.stats.ratings import quantile

#: Bootstrap samples behind the intervals and the LOS matrix: the final report, and the live index that
#: the runner re-renders every few seconds (cheaper; the final render replaces it).
BOOTSTRAP_FINAL = 1000
BOOTSTRAP_LIVE = 200
#: Points on a ratings trajectory (one refit per step of ceil(matches / TRAJECTORY_POINTS) matches).
TRAJECTORY_POINTS = 40
RECENT_MATCHES = 12

SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
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


# ----------------------------------------------------------------------------------------------- loading
@dataclass
class BotAgg:
    """One bot's counters over the finished matches."""

    name: str
    played: int = 0
    won: int = 0
    lost: int = 0
    game_points: int = 0
    game_points_against: int = 0
    deals: int = 0
    deals_won: int = 0
    deal_game_points: int = 0
    closes: int = 0
    closes_won: int = 0
    marriages: int = 0
    terminations: Counter[str] = field(default_factory=Counter)


@dataclass
class Data:
    """Everything the index needs, read once per render."""

    tournament: dict[str, Any]
    rules: dict[str, Any]
    bot_rows: dict[str, dict[str, Any]]
    names: list[str]  # every bot: standings order (rated first), then the rest in config order
    matches: list[dict[str, Any]]  # every scheduled match, in schedule order
    done: list[dict[str, Any]]  # the finished ones, in schedule order
    results: list[Result]
    fit: Ratings | None
    pairs: dict[tuple[str, str], Pairing]
    agg: dict[str, BotAgg]
    deals_played: int
    terminations: int

    @property
    def status(self) -> str:
        return str(self.tournament.get("status") or "running")


def _rows(db: Any, sql: str, params: Sequence[Any] = ()) -> Iterator[dict[str, Any]]:
    return db.query(sql, params)  # type: ignore[no-any-return]


def pair_keys(matches: Iterable[dict[str, Any]]) -> dict[str, str | None]:
    """Match id -> duplicate pair id: the two games of a pair that share their deals form one resampling
    unit for the statistics; games that do not (``duplicate: false``) count as independent matches."""
    groups: dict[tuple[Any, Any, Any], list[dict[str, Any]]] = {}
    for m in matches:
        groups.setdefault((m["bot_a"], m["bot_b"], m["pair_index"]), []).append(m)
    out: dict[str, str | None] = {}
    for key, ms in groups.items():
        shared = len(ms) == 2 and ms[0]["deal_seed"] == ms[1]["deal_seed"]
        for m in ms:
            out[m["id"]] = json.dumps(list(key)) if shared else None
    return out


def load_matches(store: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The tournament's row and every scheduled match, in schedule order."""
    t = store.tournament()
    return t, list(_rows(store.db, "SELECT * FROM matches WHERE tournament = ? ORDER BY ord", [t["name"]]))


def bot_names(store: Any, tournament: str, matches: Iterable[dict[str, Any]]) -> list[str]:
    """Every bot: the bots table in config order, then anyone else who sits in a match."""
    names = [r["name"] for r in _rows(store.db, "SELECT name FROM bots WHERE tournament = ? ORDER BY rowid",
                                      [tournament])]
    seen = set(names)
    for m in matches:
        for b in (m["seat0"], m["seat1"]):
            if b not in seen:
                seen.add(b)
                names.append(b)
    return names


def match_plan(matches: Sequence[dict[str, Any]]) -> list[list[str | None]]:
    """Per finished match: its id, its duplicate partner's id (if that one is finished too), and the
    previous and next finished match in schedule order: what a match page links to."""
    done = [m for m in matches if m["status"] == "done"]
    by_key = {(m["bot_a"], m["bot_b"], m["pair_index"], m["game"]): m for m in matches}
    plan: list[list[str | None]] = []
    for n, m in enumerate(done):
        partner = by_key.get((m["bot_a"], m["bot_b"], m["pair_index"], 1 - (m["game"] or 0)))
        plan.append([m["id"], partner["id"] if partner and partner is not m else None,
                     done[n - 1]["id"] if n else None, done[n + 1]["id"] if n + 1 < len(done) else None])
    return plan


def load(store: Any, bootstrap: int = BOOTSTRAP_FINAL) -> Data:
    db = store.db
    t, matches = load_matches(store)
    name = t["name"]
    try:
        rules = json.loads(t["rules"] or "{}")
    except ValueError:
        rules = {}
    bot_rows = {r["name"]: r for r in _rows(db, "SELECT * FROM bots WHERE tournament = ? ORDER BY rowid", [name])}
    done = [m for m in matches if m["status"] == "done"]
    pair_of = pair_keys(matches)
    results = [
        Result(m["seat0"], m["seat1"], 1.0 if m["winner_seat"] == 0 else 0.0, pair_of[m["id"]])
        for m in done if m["winner_seat"] in (0, 1) and m["seat0"] != m["seat1"]
    ]
    fit = ratings(results, bootstrap=bootstrap, seed=0) if results else None
    pairs = pairings(results) if results else {}

    config_order = list(bot_rows)
    for m in matches:
        for b in (m["seat0"], m["seat1"]):
            if b not in bot_rows and b not in config_order:
                config_order.append(b)
    agg = {b: BotAgg(b) for b in config_order}
    for m in done:
        seats = (m["seat0"], m["seat1"])
        scores = (m["score0"] or 0, m["score1"] or 0)
        for s in (0, 1):
            a = agg[seats[s]]
            a.played += 1
            a.game_points += scores[s]
            a.game_points_against += scores[1 - s]
            if m["winner_seat"] == s:
                a.won += 1
            elif m["winner_seat"] == 1 - s:
                a.lost += 1
    deals_played = 0
    for d in _rows(db, "SELECT d.winner, d.game_points, d.actions, m.seat0, m.seat1 FROM deals d "
                       "JOIN matches m ON m.id = d.match_id WHERE m.tournament = ? AND m.status = 'done'", [name]):
        deals_played += 1
        seats = (d["seat0"], d["seat1"])
        actions = d["actions"] or ""
        for s in (0, 1):
            a = agg[seats[s]]
            if d["winner"] is None:
                continue  # a deal cut short by a forfeited match: nobody won it
            a.deals += 1
            if d["winner"] == s:
                a.deals_won += 1
                a.deal_game_points += d["game_points"] or 0
            closed = actions.count(f"{s}:close")
            a.closes += closed
            if closed and d["winner"] == s:
                a.closes_won += 1
            a.marriages += actions.count(f"{s}:marriage")
    terminations = 0
    for r in _rows(db, "SELECT t.bot, t.kind, count(*) AS n FROM terminations t JOIN matches m ON m.id = t.match_id "
                       "WHERE m.tournament = ? AND m.status = 'done' GROUP BY t.bot, t.kind", [name]):
        if r["bot"] in agg:
            agg[r["bot"]].terminations[r["kind"]] += r["n"]
        terminations += r["n"]
    rated = [r.bot for r in fit] if fit else []
    names = rated + [b for b in config_order if b not in set(rated)]
    return Data(t, rules, bot_rows, names, matches, done, results, fit, pairs, agg, deals_played, terminations)


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
    """``Th`` -> ``10♥`` (plain text, e.g. for titles)."""
    rank = "10" if card[0] == "T" else card[0]
    return rank + SUIT_SYMBOLS.get(card[1:2], "?")


def result_text(m: dict[str, Any]) -> str:
    if m["status"] != "done":
        return str(m["status"])
    if m["winner_seat"] not in (0, 1):
        return "abandoned"
    return f"{m['score0']}\u2013{m['score1']}"


def _when(text: str | None) -> str:
    if not text:
        return "–"
    return text.replace("T", " ", 1).replace("+00:00", " UTC")


# ----------------------------------------------------------------------------------------------- index
def standings(data: Data) -> list[dict[str, Any]]:
    out = []
    fit = data.fit
    for n, b in enumerate(data.names, 1):
        a = data.agg[b]
        r = fit[b] if fit and b in {x.bot for x in fit} else None
        summary = summarize_deals(BotDealStats(
            deals=a.deals, deals_won=a.deals_won, game_points=a.deal_game_points, closes=a.closes,
            closes_won=a.closes_won, marriages=a.marriages, terminations=dict(a.terminations)))
        out.append({
            "rank": n if r else None, "bot": b, "file": file_name(b),
            "elo": r.elo if r else None, "lo": r.lo if r else None, "hi": r.hi if r else None,
            "played": a.played, "won": a.won, "lost": a.lost,
            "score": a.won / a.played if a.played else None,
            "game_points": a.game_points, "game_points_against": a.game_points_against,
            "deals": a.deals, "deal_win": summary.deal_win_rate,
            "game_points_per_deal": summary.game_points_per_deal,
            "closes": a.closes, "closes_won": a.closes_won, "close_win": summary.close_win_rate,
            "marriages": a.marriages, "marriages_per_deal": summary.marriages_per_deal,
            "terminations": sorted(a.terminations.items(), key=lambda kv: (-kv[1], kv[0])),
            "terminations_total": sum(a.terminations.values()),
        })
    return out


def cross_table(data: Data) -> list[dict[str, Any]]:
    """Rows of cells: row bot's score against the column bot, with its interval and a colour."""
    rows = []
    for a in data.names:
        cells = []
        for b in data.names:
            p = data.pairs.get((a, b))
            if a == b or p is None:
                cells.append({"self": a == b, "bot": b, "score": None})
                continue
            wins = round(p.points)
            cells.append({
                "self": False, "bot": b, "score": p.score, "lo": p.lo, "hi": p.hi, "matches": p.matches,
                "wins": wins, "losses": p.matches - wins, "style": scale_colour(p.score),
                "title": f"{a} vs {b}: {wins}\u2013{p.matches - wins} in {p.matches} matches, score "
                         f"{pct(p.score)} (95% interval {pct(p.lo)}\u2013{pct(p.hi)})",
            })
        rows.append({"bot": a, "file": file_name(a), "cells": cells})
    return rows


def los_table(data: Data) -> list[dict[str, Any]]:
    fit = data.fit
    if not fit or not fit.bootstrap:
        return []
    names = [r.bot for r in fit]
    rows = []
    for a in names:
        cells = []
        for b in names:
            v = fit.los(a, b)
            cells.append({"bot": b, "self": a == b, "value": v, "style": scale_colour(v),
                          "title": "" if v is None else f"P({a} stronger than {b}) = {pct(v, 1)}"})
        rows.append({"bot": a, "file": file_name(a), "cells": cells})
    return rows


def index_context(data: Data, bootstrap_note: bool = True) -> dict[str, Any]:
    from arena.report import charts

    t = data.tournament
    rows = standings(data)
    chart = charts.ratings_chart(
        [(r["bot"], r["elo"], r["lo"], r["hi"]) for r in rows if r["elo"] is not None],
        anchor=data.fit.anchor if data.fit else None,
    )
    recent = sorted(data.done, key=lambda m: (m["finished_at"] or "", m["ord"]))[-RECENT_MATCHES:][::-1]
    return {
        "t": t,
        "title": t["name"],
        "variant": data.rules.get("name") or t.get("variant") or "custom",
        "created": _when(t.get("created_at")),
        "updated": _when(t.get("updated_at")),
        "done_count": len(data.done),
        "total": t.get("total_matches") or len(data.matches),
        "deals_played": data.deals_played,
        "terminations": data.terminations,
        "standings": rows,
        "chart": chart,
        "cross": cross_table(data),
        "los": los_table(data),
        "names": data.names,
        "fit": data.fit,
        "notes": data.fit.notes if data.fit else [],
        "recent": [match_summary(m) for m in recent],
    }


def match_summary(m: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": m["id"], "file": file_name(m["id"]), "ord": m["ord"], "seat0": m["seat0"], "seat1": m["seat1"],
        "winner": m["winner"], "result": result_text(m), "reason": m["reason"], "status": m["status"],
        "termination": m["termination"], "terminated_bot": m["terminated_bot"], "deals": m["deals"],
        "finished": _when(m["finished_at"]) if m["status"] == "done" else "",
    }


def matches_context(data: Data) -> dict[str, Any]:
    return {"title": f"{data.tournament['name']}: matches", "matches": [match_summary(m) for m in data.matches]}


def rules_context(data: Data) -> dict[str, Any]:
    known = {f.name: f for f in fields(RuleSet)}
    rows = []
    for key, value in data.rules.items():
        f = known.get(key)
        shown = (" ".join(map(str, value)) if isinstance(value, list | tuple)
                 else str(value).lower() if isinstance(value, bool) else str(value))
        rows.append({
            "name": key, "value": shown,
            "doc": f.metadata.get("doc", "") if f else "",
            "allowed": allowed_values(f) if f else "",
        })
    return {"title": f"{data.tournament['name']}: rules", "variant": data.rules.get("name") or "custom",
            "rules": rows}


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


def think_times(store: Any, tournament: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for r in _rows(store.db, "SELECT s.bot, s.think_ms FROM seats s JOIN matches m ON m.id = s.match_id "
                             "WHERE m.tournament = ? AND m.status = 'done'", [tournament]):
        try:
            values = json.loads(r["think_ms"] or "[]")
        except ValueError:
            continue
        out.setdefault(r["bot"], []).extend(v for v in values if isinstance(v, int | float))
    return out


def bot_terminations(store: Any, tournament: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in _rows(store.db, "SELECT t.*, m.ord FROM terminations t JOIN matches m ON m.id = t.match_id "
                             "WHERE m.tournament = ? AND m.status = 'done' ORDER BY m.ord, t.id", [tournament]):
        out.setdefault(r["bot"], []).append({**r, "file": file_name(r["match_id"])})
    return out


def bot_hellos(store: Any, tournament: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for r in _rows(store.db, "SELECT s.bot, s.hello FROM seats s JOIN matches m ON m.id = s.match_id "
                             "WHERE m.tournament = ? AND m.status = 'done' ORDER BY m.ord", [tournament]):
        try:
            hello = json.loads(r["hello"] or "{}")
        except ValueError:
            continue
        if isinstance(hello, dict) and hello:
            out[r["bot"]] = hello  # the last one wins
    return out


def percentile(sorted_values: Sequence[float], q: float) -> float:
    return quantile(sorted_values, q)


def bot_context(
    data: Data,
    name: str,
    standing: dict[str, Any],
    traj: tuple[list[int], dict[str, list[float | None]]],
    think: list[float],
    terms: list[dict[str, Any]],
    hello: dict[str, Any] | None,
    matches: list[dict[str, Any]],
) -> dict[str, Any]:
    from arena.report import charts

    row = data.bot_rows.get(name, {})
    try:
        argv = json.loads(row.get("argv") or "[]")
    except ValueError:
        argv = row.get("argv")
    opponents = []
    for other in data.names:
        p = data.pairs.get((name, other))
        if other == name or p is None:
            continue
        wins = round(p.points)
        opponents.append({
            "bot": other, "file": file_name(other), "matches": p.matches, "wins": wins,
            "losses": p.matches - wins, "score": p.score, "lo": p.lo, "hi": p.hi, "style": scale_colour(p.score),
            "pairs": p.pairs, "outcomes": p.pair_outcomes, "los": p.los,
        })
    think_sorted = sorted(think)
    figures = None
    if think_sorted:
        figures = {"n": len(think_sorted), "median": statistics.median(think_sorted),
                   "p90": percentile(think_sorted, 0.9), "max": think_sorted[-1]}
    xs, ys = traj
    return {
        "title": name,
        "bot": name,
        "row": row,
        "argv": argv,
        "hello": hello or {},
        "s": standing,
        "opponents": opponents,
        "trajectory": charts.line_chart(xs, ys, highlight=name) if xs else None,
        "think_chart": charts.histogram(think) if think else None,
        "think": figures,
        "terminations": terms,
        "matches": [dict(match_summary(m), seat=0 if m["seat0"] == name else 1,
                         opponent=m["seat1"] if m["seat0"] == name else m["seat0"]) for m in matches],
    }


# ----------------------------------------------------------------------------------------------- matches
def transcript_text(lines_json: str | None) -> tuple[str, int]:
    """The protocol lines as one text block (``ms dir line``), and how many lines."""
    try:
        lines = json.loads(lines_json or "[]")
    except ValueError:
        return lines_json or "", 0
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


def match_context(
    m: dict[str, Any],
    deals: list[dict[str, Any]],
    terms: list[dict[str, Any]],
    seats: list[dict[str, Any]],
    transcripts: list[dict[str, Any]],
    partner: dict[str, Any] | None,
    neighbours: tuple[dict[str, Any] | None, dict[str, Any] | None],
    rules: RuleSet | None,
) -> dict[str, Any]:
    bots = (m["seat0"], m["seat1"])
    by_seat = {s["seat"]: s for s in seats}
    tr_by_seat = {s["seat"]: s for s in transcripts}
    seat_info = []
    for s in (0, 1):
        st = by_seat.get(s, {})
        text, count = transcript_text(tr_by_seat.get(s, {}).get("lines"))
        seat_info.append({
            "seat": s, "bot": bots[s], "file": file_name(bots[s]),
            "score": m[f"score{s}"], "substitutions": m[f"substitutions{s}"] or 0,
            "decisions": st.get("decisions"), "think_median": st.get("think_median_ms"),
            "think_max": st.get("think_max_ms"),
            "transcript": text, "transcript_lines": count, "stderr": tr_by_seat.get(s, {}).get("stderr") or "",
        })
    note = None
    if m["termination"]:
        note = f"{m['terminated_bot']}: {m['termination']}"
    replay_data = replay(rules, deals, bots, note) if rules is not None else None
    deal_rows = []
    for d in deals:
        deal_rows.append({
            "idx": d["idx"], "dealer": bots[d["dealer"]] if d["dealer"] in (0, 1) else "?",
            "trump": d["trump"], "winner": bots[d["winner"]] if d["winner"] in (0, 1) else None,
            "game_points": d["game_points"], "reason": d["reason"], "points": (d["points0"], d["points1"]),
            "tricks": (d["tricks0"], d["tricks1"]), "forfeit": d["forfeit"],
        })
    prev, nxt = neighbours
    return {
        "title": f"{bots[0]} vs {bots[1]}",
        "m": m,
        "bots": bots,
        "seats": seat_info,
        "result": result_text(m),
        "terminations": terms,
        "partner": partner and {**match_summary(partner), "same_deals": partner["deal_seed"] == m["deal_seed"]},
        "prev": prev and match_summary(prev),
        "next": nxt and match_summary(nxt),
        "deals": deal_rows,
        "replay": replay_data,
        "replay_json": json_for_script(replay_data) if replay_data else None,
        "steps": len(replay_data["steps"]) if replay_data else 0,
    }


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


def rules_of_text(text: str | None) -> RuleSet | None:
    """The stored rule set (JSON), or None when this arena cannot read it (then there is no replay)."""
    try:
        rules = json.loads(text or "{}")
        return RuleSet.from_dict(rules) if isinstance(rules, dict) and rules else None
    except (ValueError, TypeError):
        return None


def replay(
    rules: RuleSet, deal_rows: Sequence[dict[str, Any]], bots: tuple[str, str], match_note: str | None = None
) -> dict[str, Any]:
    """The replay viewer's data: per deal its dealt hands, and one step per action (plus one per deal for
    the hands as dealt), each with the whole visible table. Labels are lists of text pieces and ``[card]``.
    """
    deals_out: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    score = [0, 0]
    for row in deal_rows:
        d_index = len(deals_out)
        info: dict[str, Any] = {
            "idx": row["idx"], "dealer": row["dealer"], "trump": row["trump"], "dealt": ["", ""],
            "result": None, "first": len(steps),
        }
        deals_out.append(info)
        try:
            deal = Deal(rules, _deck(row["deck"] or ""), int(row["dealer"]))
        except (ValueError, TypeError) as e:
            steps.append(_broken_step(d_index, score, f"cannot replay this deal: {e}"))
            info["steps"] = 1
            continue
        info["trump"] = SUITS[deal.trump]
        info["dealt"] = [_hand(deal.hands[0]), _hand(deal.hands[1])]
        dealer = bots[deal.dealer]
        steps.append(_snapshot(deal, d_index, [f"Deal {row['idx'] + 1}: {dealer} deals; trump ",
                                                [str(deal.trump_card)], " turned."], [], None, score))
        table: list[list[Any]] = []
        seen = len(deal.events)
        tokens = (row["actions"] or "").split()
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
        winner, gp = row["winner"], row["game_points"]
        if broken:
            pass
        elif row["forfeit"] or row["reason"] == "forfeit" or deal.result is None:
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
            info["result"] = f"{bots[winner]} +{gp} ({row['reason']})"
        last["end"] = True
        info["steps"] = len(steps) - info["first"]
    return {"bots": list(bots), "deals": deals_out, "steps": steps}


_TOKENS: dict[str, tuple[int, Action]] = {}


def _token(token: str) -> tuple[int, Action]:
    """``0:play:Th`` -> (0, play Th); ValueError for anything else."""
    seat_text, _, action_text = token.partition(":")
    if seat_text not in ("0", "1"):
        raise ValueError(f"no seat {seat_text!r}")
    parsed = _TOKENS[token] = (int(seat_text), Action.parse(action_text.replace(":", " ")))
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
