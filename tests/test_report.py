"""The HTML report: contexts, templates, escaping, links, the replay data, the `arena report` command.

Two kinds of database: ``real_db`` plays a tiny tournament with real bot processes (random, greedy and the
misbehaving tests/bots/garbage.py); :func:`synthetic_db` writes valid matches straight into a Store (the
deals are real games of the engine, the outcomes drawn from given strengths), for hostile names and for
size. The browser test (test_report_browser.py) and bench/report_bench.py use both.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from reference_replay import replay

from arena.cli.report import add_parser as add_report_parser
from arena.errors import ArenaError, StoreError
from arena.game import Match, preset
from arena.referee.record import BotTermination, DealRecord, MatchRecord, MatchSpec, Termination
from arena.report import context as ctx
from arena.report import render_report
from arena.report.charts import histogram, line_chart, ratings_chart
from arena.store import Store, StoredDeal
from arena.tournament.build import BotProvenance

EVIL = "<script>alert(1)</script>"
EVIL_STDERR = "warning: <b>bold</b></script><img src=x onerror=alert(2)> & done\n"
EVIL_INFO = "depth 3 </script><img src=x onerror=alert(3)> & <b>eval</b>"


# ------------------------------------------------------------------------------------------- databases
def play_real_tournament(path: Path) -> Store:
    """random, greedy and garbage, one duplicate pair per pairing (6 matches, about a second)."""
    import trio

    from arena.referee.clock import TimeControl
    from arena.referee.match import Player, play_match
    from arena.referee.process import BotSpec

    tc = TimeControl(move_ms=2000, handshake_ms=5000)
    scripts = {"random": "bots/random.py", "greedy": "bots/greedy.py", "garbage": "tests/bots/garbage.py"}
    players = {n: Player(BotSpec(n, (sys.executable, str(ROOT / s))), tc) for n, s in scripts.items()}
    names = list(scripts)
    sched = []
    for i in range(3):
        for j in range(i + 1, 3):
            for g in range(2):
                s0, s1 = (names[i], names[j]) if g == 0 else (names[j], names[i])
                sched.append(MatchSpec(f"{names[i]}-vs-{names[j]}-p0-g{g}", (names[i], names[j]), 0, g, s0, s1,
                                       deal_seed=i * 10 + j, match_seed=len(sched), order=len(sched)))
    store = Store(path)
    rules = preset("santase")
    store.begin("real", "tournaments/real.yaml", "name: real\nbots: [random, greedy, garbage]\n", "h",
                rules.to_dict(), 1, "round-robin", sched,
                [BotProvenance(n, f"python {s}", (sys.executable, s), f"sha256:{n}") for n, s in scripts.items()])

    async def main() -> None:
        for spec in store.pending("real"):
            rec = await play_match(spec.match_id, (players[spec.seat0], players[spec.seat1]), rules,
                                   spec.deal_seed, spec.match_seed)
            store.save(rec)

    trio.run(main)
    store.finish("real")
    return store


#: A bot that says what it is about to do: an ``info`` line before every reply (``decision N of L chose A``:
#: its N-th turn in this process, L legal actions, A the one it plays, always the last) and one after it
#: (``done N``, written together with the reply). With an argument K it answers every K-th turn with an
#: illegal action instead (``decision N breaks the rules``).
CHATTY = """\
import sys

bad_every = int(sys.argv[1]) if len(sys.argv) > 1 else 0
n = 0


def out(text):
    sys.stdout.write(text)
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "arena":
        out("info hello from chatty\\nbot 1 chatty\\n")
    elif words[0] == "turn":
        n += 1
        legal = dict(w.split("=", 1) for w in words[1:] if "=" in w)["legal"].split(",")
        if bad_every and n % bad_every == 0:
            wrong = next(a for a in ("exchange", "close", "play:As", "play:Ks", "play:Ah") if a not in legal)
            out(f"info decision {n} breaks the rules\\n{wrong.replace(':', ' ')}\\n")
            continue
        choice = legal[-1]
        out(f"info decision {n} of {len(legal)} chose {choice}\\n{choice.replace(':', ' ')}\\ninfo done {n}\\n")
    elif words[0] == "quit":
        break
"""


def play_why_tournament(path: Path, bot_dir: Path) -> Store:
    """chatty and greedy play one duplicate pair, and sloppy (chatty breaking every 7th turn) one match
    against greedy under the random-move policy: replays with info lines, think times, a substituted move
    and a pair whose play diverges. The bots run without a sandbox (this is not about the sandbox)."""
    import trio

    from arena.referee.clock import TimeControl
    from arena.referee.match import Player, ViolationPolicy, play_match
    from arena.referee.process import BotSpec

    bot_dir.mkdir(parents=True, exist_ok=True)
    chatty = bot_dir / "chatty.py"
    chatty.write_text(CHATTY)
    tc = TimeControl(move_ms=5000, handshake_ms=10000)
    argv = {"chatty": (sys.executable, str(chatty)), "sloppy": (sys.executable, str(chatty), "7"),
            "greedy": (sys.executable, str(ROOT / "bots" / "greedy.py"))}
    players = {n: Player(BotSpec(n, a, sandbox="none"), tc) for n, a in argv.items()}
    sched = [
        MatchSpec("chatty-vs-greedy-p0-g0", ("chatty", "greedy"), 0, 0, "chatty", "greedy", deal_seed=5,
                  match_seed=0, order=0),
        MatchSpec("chatty-vs-greedy-p0-g1", ("chatty", "greedy"), 0, 1, "greedy", "chatty", deal_seed=5,
                  match_seed=1, order=1),
        MatchSpec("sloppy-vs-greedy-p0-g0", ("sloppy", "greedy"), 0, 0, "sloppy", "greedy", deal_seed=7,
                  match_seed=2, order=2),
    ]
    store = Store(path)
    rules = preset("santase")
    store.begin("why", "tournaments/why.yaml", "name: why\n", "h", rules.to_dict(), 1, "round-robin", sched,
                [BotProvenance(n, " ".join(a), a, f"sha256:{n}") for n, a in argv.items()])

    async def main() -> None:
        for spec in store.pending("why"):
            policy = ViolationPolicy.RANDOM_MOVE if "sloppy" in spec.seats else ViolationPolicy.LOSE_MATCH
            store.save(await play_match(spec.match_id, (players[spec.seat0], players[spec.seat1]), rules,
                                        spec.deal_seed, spec.match_seed, policy))

    trio.run(main)
    store.finish("why")
    return store


def _simulate(rules: Any, seed: int) -> dict[str, Any]:
    """One match of random legal play: its deal records, score and winner."""
    rng = random.Random(seed)
    m = Match(rules, seed)
    deals = []
    while not m.over:
        d = m.new_deal()
        while not d.over:
            d.apply(rng.choice(d.legal_actions()))
        m.finish_deal()
        deals.append(DealRecord.of_deal(d))
    decisions = [sum(1 for d in deals for seat, _ in d.actions if seat == s) for s in (0, 1)]
    return {"deals": deals, "score": tuple(m.score), "winner": m.winner, "decisions": decisions}


def _stored_deals(sim: dict[str, Any]) -> list[StoredDeal]:
    """A simulated match's deals as the store gives them back."""
    return [StoredDeal.from_row({"idx": i, "dealer": d.dealer, "trump": str(d.trump), "deck": d.deck_text(),
                                 "actions": " ".join(d.action_texts()), "winner": d.winner,
                                 "game_points": d.game_points, "reason": d.reason, "forfeit": 0})
            for i, d in enumerate(sim["deals"])]


def _transcript(sim: dict[str, Any], seat: int, rng: random.Random, info: str) -> list[list[Any]]:
    """A transcript like the referee's: handshake, match line, and per deal its ``deal`` line and one turn
    per action of ``seat`` with an ``info`` line and the reply (the turn lines' content is made up)."""
    lines: list[list[Any]] = [[0.4, ">", "arena 1"], [30.0, "<", f"bot 1 synthetic{seat}"],
                              [31.0, ">", f"match m seat={seat} opponent=x variant=santase"]]
    t = 40.0
    for i, deal in enumerate(sim["deals"]):
        lines.append([t, ">", f"deal {i} dealer={deal.dealer}"])
        for n, action in enumerate(a for a in deal.action_texts() if a.startswith(f"{seat}:")):
            lines.append([t, ">", f"turn seat={seat} hand=9c,Jc,Qh,Kh,Ts,As trump=h turned=9h talon={12 - n % 12} "
                                  "closed=- led=- leader=0 dealer=1 points=0 opp_points=0 pending=0 tricks=0 "
                                  "opp_tricks=0 marriages=- played=- known=- score=0 opp_score=0 time=1000 bank=- "
                                  "legal=play:9c,play:Jc,play:Qh,play:Kh,play:Ts,play:As"])
            t += rng.uniform(0.1, 3.0)
            lines.append([t, "<", f"info {info} nodes {n * 37}"])
            lines.append([t + 0.1, "<", action.split(":", 1)[1].replace(":", " ")])
            lines.append([t + 0.2, ">", "play 1 Ah"])
    return lines


def synthetic_db(
    path: Path,
    n_bots: int = 4,
    n_matches: int = 24,
    names: list[str] | None = None,
    seed: int = 0,
    status: str = "done",
    pool_size: int = 40,
    stderr: str = "",
    flaky: str | None = None,
    flaky_rate: float = 0.05,
    info: str = "depth 4 eval +0.35",
) -> Store:
    """A tournament of ``n_matches`` (round robin, duplicate pairs) written straight into a Store.

    The deals are real games of random play from a pool of ``pool_size`` simulated matches (both games
    of a pair get the same one), the winner of each match is drawn from the bots' strengths (bot i is
    100*i Elo stronger than bot 0) and the bot ``flaky`` (if any) times out in ``flaky_rate`` of its matches. With
    ``status="running"`` only the first two thirds of the matches are played. Every decision in the
    transcripts comes with an ``info`` line saying ``info``.
    """
    rules = preset("santase")
    names = names or [f"bot{i:02d}" for i in range(n_bots)]
    strength = {n: 100.0 * i for i, n in enumerate(names)}
    rng = random.Random(seed)
    pool: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
    for k in range(pool_size):
        sim = _simulate(rules, seed * 1000 + k)
        pool[sim["winner"]].append(sim)
    for w in (0, 1):
        if not pool[w]:
            pool[w] = pool[1 - w]
    transcripts = {id(sim): [json.dumps(_transcript(sim, s, rng, info)) for s in (0, 1)]
                   for w in (0, 1) for sim in pool[w]}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    sched = []
    pair_index = 0
    while len(sched) < n_matches:
        for a, b in pairs:
            for g in (0, 1):
                if len(sched) < n_matches:
                    s0, s1 = (a, b) if g == 0 else (b, a)
                    sched.append(MatchSpec(f"{a}-vs-{b}-p{pair_index}-g{g}", (a, b), pair_index, g, s0, s1,
                                           deal_seed=pair_index * 7919 + len(sched) // 2, match_seed=len(sched),
                                           order=len(sched)))
        pair_index += 1
    store = Store(path)
    store.begin("synthetic", "tournaments/synthetic.yaml", f"name: synthetic\nbots: {len(names)}\n", "h",
                rules.to_dict(), seed, "round-robin", sched,
                [BotProvenance(n, f"./{n}", (f"/opt/{n}",), f"sha256:{i:064x}") for i, n in enumerate(names)])
    played = sched if status == "done" else sched[: len(sched) * 2 // 3]
    for spec in played:
        s0, s1 = spec.seat0, spec.seat1
        p0 = 1.0 / (1.0 + 10 ** (-(strength[s0] - strength[s1]) / 400.0))
        winner = 0 if rng.random() < p0 else 1
        choices = pool[winner]
        sim = choices[spec.deal_seed % len(choices)]
        deals = list(sim["deals"])
        score = sim["score"]
        terms: list[BotTermination] = []
        reason = "target"
        bad = [s for s in (0, 1) if (s0, s1)[s] == flaky]
        if bad and rng.random() < flaky_rate:
            seat = bad[0]
            deals = deals[:1]
            deals[0] = dataclasses.replace(deals[0], actions=deals[0].actions[:5], winner=None, game_points=None,
                                           reason="forfeit", points=None, tricks=None)
            winner = 1 - seat
            score = (rules.match_target, 0) if winner == 0 else (0, rules.match_target)
            reason = "timeout"
            terms = [BotTermination(Termination.TIMEOUT, seat, flaky, "no reply within 1000 ms", None, 0, 1234.5)]
        think = tuple([round(rng.lognormvariate(0.0, 1.2), 3) for _ in range(sim["decisions"][s])] for s in (0, 1))
        rec = MatchRecord(
            match_id=spec.match_id, bots=(s0, s1), rules=rules, deal_seed=spec.deal_seed,
            match_seed=spec.match_seed, winner=winner, score=score, reason=reason, deals=deals,
            terminations=terms, think_ms=think, started_at="2026-01-01T00:00:00+00:00", duration_s=0.5,
            transcripts=tuple(json.loads(t) for t in transcripts[id(sim)]),  # type: ignore[arg-type]
            stderr=(stderr, ""), bot_info=({"name": s0}, {"name": s1}),
        )
        store.save(rec)
    store.finish("synthetic")
    if status != "done":
        store.db["tournaments"].update("synthetic", {"status": "running"})
    return store


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, Path]:
    base = tmp_path_factory.mktemp("real")
    store = play_real_tournament(base / "arena.db")
    render_report(store, base / "report")
    return store, base / "report"


@pytest.fixture(scope="module")
def why(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, Path]:
    base = tmp_path_factory.mktemp("why")
    store = play_why_tournament(base / "arena.db", base / "bots")
    render_report(store, base / "report")
    return store, base / "report"


@pytest.fixture(scope="module")
def evil(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, Path]:
    base = tmp_path_factory.mktemp("evil")
    store = synthetic_db(base / "arena.db", names=["greedy", EVIL, "a/../../b", "Greedy"], n_matches=24,
                         stderr=EVIL_STDERR, flaky=EVIL, flaky_rate=0.5, pool_size=12, info=EVIL_INFO)
    render_report(store, base / "report")
    return store, base / "report"


# ------------------------------------------------------------------------------------------- HTML helpers
class _Collect(HTMLParser):
    """Links, script sources, table rows and the replay JSON of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[str] = []
        self.scripts: list[dict[str, str | None]] = []
        self.script_text: dict[str, str] = {}
        self._script: str | None = None
        self.rows: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for key in ("href", "src"):
            if a.get(key):
                self.refs.append(a[key] or "")
        if tag == "script":
            self.scripts.append(a)
            self._script = a.get("id") or ""
            self.script_text[self._script] = ""
        if tag == "table":
            self._table = a.get("id") or a.get("class") or ""
            self.rows.setdefault(self._table, [])
        if tag == "tr" and self._table is not None:
            self._row = []
        if tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = None
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        if tag == "tr" and self._row is not None and self._table is not None:
            self.rows[self._table].append(self._row)
            self._row = None
        if tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self.script_text[self._script] += data
            return
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parse(path: Path) -> _Collect:
    p = _Collect()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def standings_bots(report: Path) -> list[str]:
    rows = parse(report / "index.html").rows["standings"]
    return [r[1] for r in rows[1:]]


def match_data(report: Path, match_id: str) -> dict[str, Any]:
    """A match's data file, data/<id>.js: what the viewer shows of it (arena.report.context.match_data)."""
    path = report / "data" / f"{ctx.file_name(match_id)}.js"
    file, data = ctx.read_match_data(path.read_text())
    assert file == ctx.file_name(match_id) and data["id"] == match_id
    return data


def replay_data(report: Path, store: Store, match_id: str) -> dict[str, Any]:
    """The replay's steps as the viewer rebuilds them from the data file: the steps of the reference
    replay (tests/reference_replay.py, which the browser test compares the viewer's steps with) with the
    data file's ``say`` entries put on their steps as report.js puts them."""
    data = match_data(report, match_id)
    m = next(x for x in store.matches(store.tournament_info().name) if x.match_id == match_id)
    # text: a JSON number above 2**53 would reach the viewer rounded (8416064092381216801 as ...7000)
    assert data["m"]["seeds"] == [str(m.spec.deal_seed), str(m.spec.match_seed)]
    rules = ctx.rules_of(store.tournament_info().rules)
    assert rules is not None
    note = f"{m.terminated_bot}: {m.termination}" if m.termination else None
    steps = replay(rules, store.deals(match_id), m.seats, note)
    for n, seat, ms, *extra in data["say"]:
        entry = {"seat": seat, **({"ms": ms} if ms is not None else {}), **(extra[0] if extra else {})}
        steps["steps"][n].setdefault("say", []).append(entry)
    return steps


def transcript_lines(report: Path, match_id: str, seat: int) -> list[str]:
    """A seat's transcript as the viewer prints it: ``ms direction text`` lines."""
    (s,) = [s for s in match_data(report, match_id)["seats"] if s["seat"] == seat]
    t = 0
    out = []
    for dt, line in zip(s["t"], s["lines"], strict=True):
        t += dt
        out.append(f"{t / 10:10.1f} {line}")
    return out


def list_rows(report: Path) -> dict[str, list[Any]]:
    """The rows of the matches list (data/matches.js) by match id."""
    return {r[1]: r for r in ctx.read_matches_data((report / "data" / "matches.js").read_text())}


# ------------------------------------------------------------------------------------------- real tournament
def test_index_has_standings_for_every_bot(real: tuple[Store, Path]) -> None:
    store, report = real
    assert sorted(standings_bots(report)) == ["garbage", "greedy", "random"]
    html = (report / "index.html").read_text()
    assert "progress:" not in html  # the tournament is done
    rows = {r[1]: r for r in parse(report / "index.html").rows["standings"][1:]}
    assert rows["garbage"][3:5] == ["0", "4"]  # won, lost
    assert "malformed 4" in rows["garbage"][9]
    assert all("%" in r[6] and "[" in r[6] for r in rows.values()), "every bot's luck-adjusted score, interval"
    # the figures are arena.stats.luck_table's over the stored matches, duplicate pairs as units
    from arena.stats import Result, luck_table

    t, matches = ctx.load_matches(store)
    pair_of, lucks = ctx.pair_keys(matches), store.match_luck(t.name)
    decided = [m for m in matches if m.done and m.winner_seat in (0, 1)]
    table = luck_table([Result(m.seat0, m.seat1, 1.0 - m.winner_seat, pair_of[m.match_id]) for m in decided],
                       [lucks[m.match_id] for m in decided])
    for bot, fig in table.items():
        assert rows[bot][6].split() == [f"{100 * fig.score:.1f}%", f"[{100 * fig.lo:.0f}%,", f"{100 * fig.hi:.0f}%]"]
    assert "dealt and drawn" in html, "the standings say what the luck is made of"
    assert rows["greedy"][0] in ("1", "2")
    page = parse(report / "index.html")
    assert "real" in "".join(page.text)
    assert "name: real" in (report / "index.html").read_text()  # the config, in a <pre>
    assert 'href="rules.html"' in html
    assert '<svg class="chart ratings"' in html
    assert "cross" in page.rows and "los" in page.rows
    assert len(page.rows["cross"]) == 4 and len(page.rows["los"]) == 4


def test_all_links_resolve_and_nothing_is_remote(real: tuple[Store, Path]) -> None:
    _, report = real
    pages = list(report.rglob("*.html"))
    assert len(pages) == 1 + 1 + 1 + 3 + 2  # index, rules, matches, bots, the match and pair viewers
    viewed = set()
    for page in pages:
        p = parse(page)
        for ref in p.refs:
            assert not re.match(r"^[a-z]+:", ref) and not ref.startswith("//"), (page, ref)
            target, _, fragment = ref.partition("#")
            if target:
                assert (page.parent / target).resolve().is_file(), (page, ref)
            if target.endswith(("match.html", "pair.html")):  # the viewer, and the match it shows
                assert (report / "data" / f"{fragment}.js").is_file(), (page, ref)
                viewed.add(fragment)
        text = page.read_text()
        assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert "https://" not in text
        for s in p.scripts:  # only our own script and the list of matches (the viewer adds a data file)
            src = s.get("src") or ""
            assert src.endswith(("static/report.js", "static/cards.js")) or src == "data/matches.js", (page, s)
    assert viewed >= {"random-vs-greedy-p0-g0", "random-vs-garbage-p0-g0"}
    assert len(list((report / "data").glob("*.js"))) == 6 + 1  # one per match, and the list of matches
    css = (report / "static" / "report.css").read_text()
    assert "url(" not in css and "@import" not in css


def test_each_match_s_data_has_one_action_per_stored_action_and_the_deals_as_stored(real: tuple[Store, Path]) -> None:
    store, report = real
    for m in store.matches("real"):
        data = match_data(report, m.match_id)
        deals = store.deals(m.match_id)
        assert len(data["deals"]) == len(deals) == m.deals
        assert data["m"]["bots"] == [m.spec.seat0, m.spec.seat1] and data["m"]["score"] == list(m.score)
        for d, row in zip(data["deals"], deals, strict=True):
            assert len(d["acts"]) == len(row.actions)  # one string of public events per action
            assert [len(h.split()) for h in d["dealt"]] == [6, 6] and d["turned"] == row.trump
            assert (d["winner"], d["gp"], d["reason"]) == (row.winner, row.game_points, row.reason)
            if not row.forfeit:  # the points at the deal's end, as the rules count them
                assert d["final"] == list(row.points)
                assert d["acts"][-1].split()[-1] == f"e{row.winner}{row.game_points}"
        steps = replay_data(report, store, m.match_id)["steps"]
        assert len(steps) == sum(1 + len(row.actions) for row in deals)
        if m.reason == "target":
            assert steps[-1]["score"] == list(m.score)


def test_match_data_links_the_duplicate_partner_and_the_neighbours(real: tuple[Store, Path]) -> None:
    _, report = real
    g0 = match_data(report, "random-vs-greedy-p0-g0")["m"]
    assert g0["partner"] == {"id": "random-vs-greedy-p0-g1", "file": "random-vs-greedy-p0-g1", "same": True,
                             "pair": True, "pair_id": "random-vs-greedy-p0",
                             "result": match_data(report, "random-vs-greedy-p0-g1")["m"]["result"]}
    assert match_data(report, "random-vs-greedy-p0-g1")["m"]["partner"]["id"] == "random-vs-greedy-p0-g0"
    assert "prev" not in g0 and g0["next"]["id"] == "random-vs-greedy-p0-g1"
    assert g0["sides"] == [0, 1] and match_data(report, "random-vs-greedy-p0-g1")["m"]["sides"] == [1, 0]


def test_a_faulted_match_keeps_its_transcripts_the_others_only_what_the_replay_shows(real: tuple[Store, Path],
                                                                                    tmp_path: Path) -> None:
    store, report = real
    faulted = "random-vs-garbage-p0-g0"
    data = match_data(report, faulted)
    assert data["transcripts"] is True and data["m"]["forfeit"]["kind"] == "malformed"
    seats = {s.seat: s for s in store.seats(faulted)}
    for seat in (0, 1):  # every line as the database holds it
        lines = transcript_lines(report, faulted, seat)
        assert lines[0].endswith("> arena 1 1.1")  # the handshake line of the transcript
        assert lines == [f"{round(ms * 10) / 10:10.1f} {d} {t}" for ms, d, t in seats[seat].transcript]
    assert any("hello world ~~~" in line for seat in (0, 1) for line in transcript_lines(report, faulted, seat))
    clean = match_data(report, "random-vs-greedy-p0-g0")
    assert clean["transcripts"] is False
    for s in clean["seats"]:  # no protocol line, but how many there are, the stderr, and the think times
        assert set(s) == {"seat", "stderr", "count"} and s["count"] > 20
    assert [e[2] for e in clean["say"] if e[1] == 0] == list(store.seats("random-vs-greedy-p0-g0")[0].think_ms)
    everything = tmp_path / "all"
    render_report(store, everything, transcripts="all")
    assert all(match_data(everything, m.match_id)["transcripts"] for m in store.matches("real"))
    assert len(transcript_lines(everything, "random-vs-greedy-p0-g0", 1)) == clean["seats"][1]["count"]
    nothing = tmp_path / "none"
    render_report(store, nothing, transcripts="none")
    assert not any(match_data(nothing, m.match_id)["transcripts"] for m in store.matches("real"))
    assert match_data(nothing, faulted)["m"] == data["m"]  # the rest is the same
    size = {name: sum(p.stat().st_size for p in (root / "data").glob("*-p*.js"))
            for name, root in (("faults", report), ("all", everything), ("none", nothing))}
    assert size["none"] < size["faults"] < size["all"]
    with pytest.raises(ValueError, match="transcripts must be one of all, faults, none"):
        render_report(store, nothing, transcripts="some")


def test_placeholder_referee_lines_give_the_same_annotations() -> None:
    """The store may give the referee's lines as their first word only (``Store.seats(match, referee_lines=
    False)``): the info lines and think times land on the same steps as with the full lines."""
    rules = preset("santase")
    sim = _simulate(rules, 5)
    rows = _stored_deals(sim)
    full: list[list[Any]] = [[0.0, ">", "arena 1"], [0.5, "<", "bot 1 x"]]
    t = 1.0
    for n, row in enumerate(rows):
        full.append([t, ">", f"deal {n} dealer=0 trump=Ah hand=9h"])
        for token in row.actions:
            if token.startswith("0:"):
                full += [[t + 1, ">", "turn seat=0 hand=9h"], [t + 2, "<", f"info {token}"],
                         [t + 3, "<", token.split(":", 1)[1].replace(":", " ")]]
            full.append([t + 4, ">", "play 1 Ah"])
            t += 5
        if n == 0:  # a turn that got no action (the deal ended there): it belongs on deal 1's last step
            full += [[t, ">", "turn seat=0 hand=9h"], [t + 1, "<", "info too late"]]
    short = [[ms, d, text.split(" ")[0] if d == ">" and text.split(" ")[0] in ("deal", "turn") else
              ("" if d == ">" else text)] for ms, d, text in full]
    got = []
    for lines in (full, short):
        data = replay(rules, rows, ("a", "b"))
        ctx.annotate(data, rows, 0, lines, [])
        got.append(said(data, 0))
    assert got[0] == got[1] and len(got[0]) == sum(t.startswith("0:") for r in rows for t in r.actions) + 1
    late = next(step for step, e in got[1] if e.get("info") == ["too late"])
    assert late == len(rows[0].actions)  # deal 1's last step; the later deals' decisions on their own steps


def test_bot_pages(real: tuple[Store, Path]) -> None:
    store, report = real
    html = (report / "bots" / "garbage.html").read_text()
    assert "python tests/bots/garbage.py" in html and "sha256:garbage" in html
    # every termination links to its match
    links = re.findall(r'href="\.\./match\.html#([^"]+)"', html)
    for mid in ("random-vs-garbage-p0-g0", "random-vs-garbage-p0-g1", "greedy-vs-garbage-p0-g0"):
        assert mid in links
    greedy = (report / "bots" / "greedy.html").read_text()
    assert '<svg class="chart trajectory"' in greedy
    assert '<svg class="chart histogram"' in greedy
    rows = parse(report / "bots" / "greedy.html").rows
    opponents = next(v for k, v in rows.items() if "sortable" in k)
    assert sorted(r[0] for r in opponents[1:]) == ["garbage", "random"]


def test_rules_page_lists_every_stored_parameter(real: tuple[Store, Path]) -> None:
    store, report = real
    stored = store.tournament_info().rules
    rows = parse(report / "rules.html").rows["list rules"][1:]
    assert [r[0] for r in rows] == list(stored)
    by_name = {r[0]: r[1] for r in rows}
    assert by_name["match_target"] == str(stored["match_target"])
    assert by_name["deal_batches"] == " ".join(map(str, stored["deal_batches"]))


def test_index_only_renders_just_the_index_with_progress(tmp_path: Path) -> None:
    store = synthetic_db(tmp_path / "arena.db", n_bots=3, n_matches=12, status="running", pool_size=8)
    out = tmp_path / "report"
    index = render_report(store, out, index_only=True)
    assert index == out / "index.html"
    assert not (out / "data").exists() and not (out / "bots").exists()
    html = index.read_text()
    assert "progress: 8 of 12 matches played" in html
    assert "Reload to refresh" in html
    assert 'href="bots/' not in html and 'href="match.html' not in html  # nothing to link to yet
    render_report(store, out)  # the full render links them
    html = index.read_text()
    assert 'href="bots/bot00.html"' in html and 'href="match.html#' in html
    assert len(list((out / "data").glob("*-p*.js"))) == 8
    render_report(store, out, index_only=True)  # a live index links the matches whose data files exist
    assert 'href="match.html#' in index.read_text()


def test_empty_tournament_renders(tmp_path: Path) -> None:
    store = synthetic_db(tmp_path / "arena.db", n_bots=2, n_matches=2, status="running", pool_size=4)
    store.db.execute("DELETE FROM deals")
    store.db.execute("DELETE FROM seats")
    store.db.execute("DELETE FROM transcripts")
    store.db.execute("UPDATE matches SET status = 'pending'")
    store.db.conn.commit()
    render_report(store, tmp_path / "report")
    html = (tmp_path / "report" / "index.html").read_text()
    assert "progress: 0 of 2 matches played" in html
    assert sorted(standings_bots(tmp_path / "report")) == ["bot00", "bot01"]


# ------------------------------------------------------------------------------------------- why did I lose
def step_actions(store: Store, match_id: str, data: dict[str, Any]) -> dict[int, str]:
    """Replay step -> the action it shows ("0:play:Th"), from the database's deals (not from the replay)."""
    out = {}
    for row, info in zip(store.deals(match_id), data["deals"], strict=True):
        for i, token in enumerate(row.actions):
            out[info["first"] + 1 + i] = token
    return out


def said(data: dict[str, Any], seat: int) -> list[tuple[int, dict[str, Any]]]:
    return [(n, e) for n, s in enumerate(data["steps"]) for e in s.get("say", []) if e["seat"] == seat]


def test_each_decision_shows_its_info_lines_and_think_time_on_its_step(why: tuple[Store, Path]) -> None:
    """chatty says which action it chose before it replies: on every step, the info lines under a seat name
    the action that step shows, and the think times are the database's, in order."""
    store, report = why
    checked = 0
    for m in store.matches("why"):
        data = replay_data(report, store, m.match_id)
        actions = step_actions(store, m.match_id, data)
        seats = {s.seat: s for s in store.seats(m.match_id)}
        for seat in (0, 1):
            entries = said(data, seat)
            assert [e["ms"] for _, e in entries if "ms" in e] == list(seats[seat].think_ms)
            assert len(seats[seat].think_ms) > 20
            for step, e in entries:
                chose = [line.split(" chose ")[1] for line in e.get("info", []) if " chose " in line]
                if chose and "notes" not in e:
                    assert actions[step] == f"{seat}:{chose[0]}", (m.match_id, step, e)
                    n = e["info"][0].split()[1]
                    # the line written after the reply (after the match's last one the referee stops reading)
                    assert e["info"][1:] == [f"done {n}"] or step == entries[-1][0], (m.match_id, step, e)
                    checked += 1
                elif step and "notes" not in e:  # greedy says nothing; each of its steps is its own action
                    assert step in actions and actions[step].startswith(f"{seat}:"), (m.match_id, step, e)
        chatty_seat = m.seats.index("chatty") if "chatty" in m.seats else m.seats.index("sloppy")
        assert data["steps"][0]["say"] == [{"seat": chatty_seat, "info": ["hello from chatty"]}]
    assert checked > 60


def test_a_substituted_move_and_the_forfeit_show_the_termination_on_their_steps(why: tuple[Store, Path]) -> None:
    store, report = why
    m = next(m for m in store.matches("why") if m.match_id == "sloppy-vs-greedy-p0-g0")
    data = replay_data(report, store, m.match_id)
    actions = step_actions(store, m.match_id, data)
    terms = store.match_terminations(m.match_id)
    assert [t.kind for t in terms] == ["illegal"] * 5 and m.substitutions == (4, 0) and m.reason == "illegal"
    broke = [(step, e) for step, e in said(data, 0) if "notes" in e]
    assert len(broke) == len(terms)
    for (step, e), t in zip(broke, terms, strict=True):
        assert e["notes"] == [f"termination illegal: {t.detail}"]
        assert e["reply"] == t.line
        assert "breaks the rules" in e["info"][0]
        assert data["steps"][step]["deal"] == t.deal
    # the first four: the referee's random move for sloppy, on the step that shows it; the fifth lost the match
    assert all(actions[step].startswith("0:") for step, _ in broke[:4])
    last = data["deals"][-1]
    assert broke[-1][0] == last["first"] + last["steps"] - 1
    assert match_data(report, m.match_id)["m"]["forfeit"]["at"] == [last["idx"], last["steps"]]  # its link


def test_a_forfeited_match_says_who_forfeited_and_why(real: tuple[Store, Path]) -> None:
    """What the viewer says of a forfeit (the words are checked in the browser test)."""
    store, report = real
    facts = match_data(report, "random-vs-garbage-p0-g0")["m"]
    detail = store.match_terminations("random-vs-garbage-p0-g0")[0].detail
    assert {k: facts["forfeit"][k] for k in ("bot", "seat", "kind", "detail", "line", "deal", "winner")} == {
        "bot": "garbage", "seat": 1, "kind": "malformed", "detail": detail, "line": "hello world ~~~", "deal": 0,
        "winner": "random"}
    assert facts["result"] == "forfeit (0\u20130)"
    assert [t[:4] for t in facts["terms"]] == [["garbage", 1, "malformed", 0]]
    rows = list_rows(report)
    assert rows["random-vs-garbage-p0-g0"][5] == "forfeit (0\u20130)"
    assert rows["random-vs-greedy-p0-g0"][5] == "{}\u2013{}".format(*store.matches("real")[0].score)
    assert "forfeit" not in match_data(report, "random-vs-greedy-p0-g0")["m"]


def test_matches_list_has_a_filter_by_bot(real: tuple[Store, Path], evil: tuple[Store, Path]) -> None:
    store, report = real
    html = (report / "matches.html").read_text()
    options = re.findall(r'<option value="([^"]*)">', html)
    assert sorted(options) == ["", "", "forfeit", "garbage", "greedy", "lost", "random", "won"]
    rows = list_rows(report)
    for m in store.matches("real"):  # what the filter compares: the seats, the winner, who forfeited
        assert rows[m.match_id][3:5] == list(m.seats) and rows[m.match_id][6] == (m.winner or "")
        assert rows[m.match_id][2] == ctx.file_name(m.match_id)  # done: a link to the viewer
        assert rows[m.match_id][9] == (m.terminated_bot or "")
    assert 'href="../matches.html#bot=garbage"' in (report / "bots" / "garbage.html").read_text()
    _, evil_report = evil
    bot_page = (evil_report / "bots" / f"{ctx.file_name(EVIL)}.html").read_text()
    assert "matches.html#bot=%3Cscript%3Ealert%281%29%3C/script%3E" in bot_page
    assert '<option value="&lt;script&gt;alert(1)&lt;/script&gt;">' in (evil_report / "matches.html").read_text()


def test_annotate_without_deal_lines_and_with_odd_transcripts() -> None:
    """A transcript without ``deal`` lines is matched in match order; think times that do not fit the
    transcript are taken from it; a transcript that is not a list of lines adds nothing."""
    rules = preset("santase")
    sim = _simulate(rules, 3)
    rows = _stored_deals(sim)
    mine = [t for r in rows for t in r.actions if t.startswith("1:")]
    lines: list[list[Any]] = [[0.0, ">", "arena 1"], [1.0, "<", "info early"], [2.0, "<", "bot 1 x"]]
    for n, token in enumerate(mine):
        lines += [[10.0 * n, ">", "turn seat=1"], [10.0 * n + 1, "<", f"info {token}"],
                  [10.0 * n + 2.5, "<", token.split(":", 1)[1].replace(":", " ")]]
    data = replay(rules, rows, ("a", "b"))
    ctx.annotate(data, rows, 1, lines, [])  # no think times stored: the transcript's own
    actions = {info["first"] + 1 + i: t for r, info in zip(rows, data["deals"], strict=True)
               for i, t in enumerate(r.actions)}
    entries = said(data, 1)
    assert entries[0] == (0, {"seat": 1, "info": ["early"]})
    assert [(actions[s], e["info"][0]) for s, e in entries[1:]] == [(t, t) for t in mine]
    assert {e["ms"] for _, e in entries[1:]} == {2.5}
    ctx.annotate(data, rows, 0, "not a list", [1.0])
    assert not said(data, 0)


# ------------------------------------------------------------------------------------------- hostile input
def test_hostile_names_and_stderr_render_as_text(evil: tuple[Store, Path]) -> None:
    store, report = evil
    for page in report.rglob("*.html"):
        text = page.read_text()
        assert EVIL not in text, page
        assert "<img src=x" not in text, page
        assert "<b>bold</b>" not in text, page
        # nothing but our script and the list's data: a name cannot open a script element
        assert text.count("<script") == text.count('<script src="')
    index = (report / "index.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in index
    assert EVIL in standings_bots(report)
    evil_matches = [m for m in store.matches("synthetic") if m.status == "done" and EVIL in m.spec.seats]
    m = evil_matches[0]
    data = match_data(report, m.match_id)  # stderr and names travel as JSON inside the data file, which
    assert EVIL in data["m"]["bots"]  # report.js puts into the page through textContent only
    assert data["seats"][0]["stderr"] == EVIL_STDERR  # the synthetic matches give seat 0 this stderr


def test_hostile_names_get_safe_distinct_file_names(evil: tuple[Store, Path]) -> None:
    _, report = evil
    files = sorted(p.name for p in (report / "bots").iterdir())
    assert len(files) == 4  # "greedy" and "Greedy" do not share a file
    for f in files + [p.name for p in (report / "data").iterdir()]:
        assert re.fullmatch(r"[a-z0-9][a-z0-9._-]*\.(html|js)", f), f
    assert not (report.parent / "b.html").exists()
    assert all(p.resolve().parent == (report / "bots").resolve() for p in (report / "bots").iterdir())
    assert "greedy.html" in files


def test_flaky_bot_terminations_link_to_matches(evil: tuple[Store, Path]) -> None:
    store, report = evil
    terms = list(store.db.query("SELECT * FROM terminations"))
    assert terms, "the synthetic flaky bot should time out at least once"
    html = (report / "bots" / f"{ctx.file_name(EVIL)}.html").read_text()
    for t in terms:
        assert f'href="../match.html#{ctx.file_name(t["match_id"])}"' in html


def test_file_name() -> None:
    assert ctx.file_name("greedy") == "greedy"
    assert ctx.file_name("random-vs-greedy-p0-g1") == "random-vs-greedy-p0-g1"
    names = ["Greedy", "greedy", "../x", "..", ".hidden", "a b", "a_b", "", "é", EVIL, "x" * 300]
    out = [ctx.file_name(n) for n in names]
    assert len(set(out)) == len(out)
    for f in out:
        assert re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,80}", f), f


def test_charts_escape_names_and_handle_edges() -> None:
    svg = str(ratings_chart([(EVIL, 10.0, -5.0, 30.0), ("b", -10.0, None, None)], anchor="b"))
    assert EVIL not in svg and "&lt;script&gt;" in svg
    assert ratings_chart([]) is None
    assert line_chart([], {}) is None
    assert "path" in str(line_chart([1, 2, 3], {EVIL: [0.0, 5.0, None], "b": [0.0, -5.0, 1.0]}, highlight=EVIL))
    assert "rect" in str(histogram([0.1, 1.0, 10.0, 1000.0]))
    assert "rect" in str(histogram([5.0, 5.0]))
    assert histogram([]) is None


def test_replay_labels_describe_the_actions() -> None:
    rules = preset("santase")
    for seed in range(200):  # find a match with an exchange, a marriage and a close
        sim = _simulate(rules, seed)
        text = " ".join(a for d in sim["deals"] for a in d.action_texts())
        if "exchange" in text and "marriage" in text and "close" in text:
            break
    rows = _stored_deals(sim)
    data = replay(rules, rows, ("north", "south"))
    labels = [" ".join(p if isinstance(p, str) else p[0] for p in s["label"]) for s in data["steps"]]
    joined = "\n".join(labels)
    for words in ("exchanges", "declares the marriage", "closes the talon", "wins the trick", "draws",
                  "Deal over"):
        assert words in joined
    assert data["steps"][-1]["score"] == list(sim["score"])
    assert "differs" not in joined
    # a corrupt row stops the replay of its deal with a message instead of failing the page
    broken = [dataclasses.replace(rows[0], actions=("0:play:Xx",))]
    data = replay(rules, broken, ("a", "b"))
    assert "replay stopped" in data["steps"][-1]["label"][0]


# ------------------------------------------------------------------------------------------- command
def _parser() -> tuple[argparse.ArgumentParser, dict[str, Any]]:
    p = argparse.ArgumentParser(prog="arena")
    commands: dict[str, Any] = {}
    add_report_parser(p.add_subparsers(dest="command", required=True), commands)
    return p, commands


def test_command_renders(real: tuple[Store, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, _ = real
    p, commands = _parser()
    args = p.parse_args(["report", str(store.path), "-o", str(tmp_path / "out")])
    assert commands["report"](args) == 0
    assert (tmp_path / "out" / "index.html").is_file()
    assert str(tmp_path / "out" / "index.html") in capsys.readouterr().out


def test_command_errors_are_arena_errors(tmp_path: Path) -> None:
    p, commands = _parser()
    with pytest.raises(StoreError, match="no such database"):
        commands["report"](p.parse_args(["report", str(tmp_path / "missing.db")]))
    junk = tmp_path / "junk.db"
    junk.write_text("this is not sqlite" * 100)
    with pytest.raises(StoreError):
        commands["report"](p.parse_args(["report", str(junk)]))
    store = synthetic_db(tmp_path / "ok.db", n_bots=2, n_matches=2, pool_size=4)
    store.close()
    (tmp_path / "file").write_text("x")
    with pytest.raises(ArenaError, match="cannot write the report"):
        commands["report"](p.parse_args(["report", str(tmp_path / "ok.db"), "-o", str(tmp_path / "file")]))


def test_command_through_the_cli_error_path(tmp_path: Path) -> None:
    """The real `arena report` of a missing database: one line on stderr and exit code 2, no traceback."""
    import subprocess

    r = subprocess.run([sys.executable, "-m", "arena", "report", str(tmp_path / "nope.db"), "-o", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "no such database" in r.stderr


# ------------------------------------------------------------------------------------------- size
@pytest.mark.slow
def test_large_tournament_renders_every_page(tmp_path: Path) -> None:
    """300 matches of 20 bots: every page is written (bench/report_bench.py measures how fast, for 5,000)."""
    store = synthetic_db(tmp_path / "arena.db", n_bots=20, n_matches=300, pool_size=30, flaky="bot19")
    render_report(store, tmp_path / "report")
    render_report(store, tmp_path / "report", index_only=True)
    assert len(os.listdir(tmp_path / "report" / "data")) == 300 + 1  # every match, and the list
    assert len(standings_bots(tmp_path / "report")) == 20


def test_rendering_over_an_earlier_report_removes_its_page_per_match(tmp_path: Path) -> None:
    store = synthetic_db(tmp_path / "arena.db", n_bots=3, n_matches=6, pool_size=4)
    out = tmp_path / "report"
    for folder in ("matches", "pairs"):  # what earlier versions wrote: a page per match and per pair
        (out / folder).mkdir(parents=True)
        (out / folder / "bot00-vs-bot01-p0-g0.html").write_text("<p>old</p>")
    render_report(store, out)
    assert not (out / "matches").exists() and not (out / "pairs").exists()
    assert (out / "match.html").is_file() and (out / "pair.html").is_file()


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_worker_processes_render_the_same_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.report as report

    store = synthetic_db(tmp_path / "arena.db", n_bots=4, n_matches=24, pool_size=8)
    render_report(store, tmp_path / "serial", workers=1)
    monkeypatch.setattr(report, "MATCHES_PER_WORKER", 5)
    render_report(store, tmp_path / "parallel", workers=3)
    assert _tree(tmp_path / "serial") == _tree(tmp_path / "parallel")
    # a worker that cannot run: its share is rendered in-process, nothing is missing
    monkeypatch.setattr(sys, "executable", "/bin/false")
    render_report(store, tmp_path / "fallback", workers=3)
    assert _tree(tmp_path / "serial") == _tree(tmp_path / "fallback")
