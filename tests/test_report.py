"""The HTML report: contexts, templates, escaping, links, the replay data, the `arena report` command.

Two kinds of database: ``real_db`` plays a tiny tournament with real bot processes (random, greedy and the
misbehaving tests/bots/garbage.py); :func:`synthetic_db` writes valid matches straight into a Store (the
deals are real games of the engine, the outcomes drawn from given strengths), for hostile names and for
size. The browser test (test_report_browser.py) and bench/report_bench.py use both.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from arena.cli.report import add_parser as add_report_parser
from arena.errors import ArenaError, StoreError
from arena.game import Match, preset
from arena.referee.record import BotTermination, MatchRecord, MatchSpec, Termination
from arena.report import context as ctx
from arena.report import render_report
from arena.report.charts import histogram, line_chart, ratings_chart
from arena.tournament.build import BotProvenance
from arena.tournament.store import Store

ROOT = Path(__file__).resolve().parent.parent
EVIL = "<script>alert(1)</script>"
EVIL_STDERR = "warning: <b>bold</b></script><img src=x onerror=alert(2)> & done\n"


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
        rec = d.record()
        rec["forfeit"] = False
        deals.append(rec)
    decisions = [sum(1 for d in deals for a in d["actions"] if a[0] == str(s)) for s in (0, 1)]
    return {"deals": deals, "score": tuple(m.score), "winner": m.winner, "decisions": decisions}


def _transcript(decisions: int, seat: int, rng: random.Random) -> list[list[Any]]:
    lines: list[list[Any]] = [[0.4, ">", "arena 1"], [30.0, "<", f"bot 1 synthetic{seat}"]]
    t = 40.0
    for n in range(decisions):
        lines.append([t, ">", f"turn seat={seat} hand=9c,Jc,Qh,Kh,Ts,As trump=h turned=9h talon={12 - n % 12} "
                              "closed=- led=- leader=0 dealer=1 points=0 opp_points=0 pending=0 tricks=0 "
                              "opp_tricks=0 marriages=- played=- known=- score=0 opp_score=0 time=1000 bank=- "
                              "legal=play:9c,play:Jc,play:Qh,play:Kh,play:Ts,play:As"])
        t += rng.uniform(0.1, 3.0)
        lines.append([t, "<", "play 9c"])
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
) -> Store:
    """A tournament of ``n_matches`` (round robin, duplicate pairs) written straight into a Store.

    The deals are real games of random play from a pool of ``pool_size`` simulated matches (both games
    of a pair get the same one), the winner of each match is drawn from the bots' strengths (bot i is
    100*i Elo stronger than bot 0) and the bot ``flaky`` (if any) times out in ``flaky_rate`` of its matches. With
    ``status="running"`` only the first two thirds of the matches are played.
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
    transcripts = {id(sim): [json.dumps(_transcript(sim["decisions"][s], s, rng)) for s in (0, 1)]
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
        deals = [dict(d) for d in sim["deals"]]
        score = sim["score"]
        terms: list[BotTermination] = []
        reason = "target"
        bad = [s for s in (0, 1) if (s0, s1)[s] == flaky]
        if bad and rng.random() < flaky_rate:
            seat = bad[0]
            deals = deals[:1]
            deals[0] = dict(deals[0], actions=deals[0]["actions"][:5], winner=None, game_points=None,
                            reason="forfeit", points=None, tricks=None, forfeit=True)
            winner = 1 - seat
            score = (rules.match_target, 0) if winner == 0 else (0, rules.match_target)
            reason = "timeout"
            terms = [BotTermination(Termination.TIMEOUT, seat, flaky, "no reply within 1000 ms", None, 0, 1234.5)]
        think = tuple([round(rng.lognormvariate(0.0, 1.2), 3) for _ in range(sim["decisions"][s])] for s in (0, 1))
        rec = MatchRecord(
            match_id=spec.match_id, bots=(s0, s1), rules=rules.to_dict(), deal_seed=spec.deal_seed,
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
def evil(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, Path]:
    base = tmp_path_factory.mktemp("evil")
    store = synthetic_db(base / "arena.db", names=["greedy", EVIL, "a/../../b", "Greedy"], n_matches=24,
                         stderr=EVIL_STDERR, flaky=EVIL, flaky_rate=0.5, pool_size=12)
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


def replay_data(page: Path) -> dict[str, Any]:
    return json.loads(parse(page).script_text["replay-data"])  # type: ignore[no-any-return]


def match_page(report: Path, match_id: str) -> Path:
    return report / "matches" / f"{ctx.file_name(match_id)}.html"


# ------------------------------------------------------------------------------------------- real tournament
def test_index_has_standings_for_every_bot(real: tuple[Store, Path]) -> None:
    store, report = real
    assert sorted(standings_bots(report)) == ["garbage", "greedy", "random"]
    html = (report / "index.html").read_text()
    assert "progress:" not in html  # the tournament is done
    rows = {r[1]: r for r in parse(report / "index.html").rows["standings"][1:]}
    assert rows["garbage"][3:5] == ["0", "4"]  # won, lost
    assert "malformed 4" in rows["garbage"][8]
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
    assert len(pages) == 1 + 1 + 1 + 3 + 6  # index, rules, matches, bots, matches
    for page in pages:
        p = parse(page)
        for ref in p.refs:
            assert not re.match(r"^[a-z]+:", ref) and not ref.startswith("//"), (page, ref)
            target = ref.split("#")[0]
            if target:
                assert (page.parent / target).resolve().is_file(), (page, ref)
        text = page.read_text()
        assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert "https://" not in text
        for s in p.scripts:  # only our own script and the replay's JSON
            assert s.get("src", "").endswith("static/report.js") or s.get("type") == "application/json"  # type: ignore[union-attr]
    css = (report / "static" / "report.css").read_text()
    assert "url(" not in css and "@import" not in css


def test_match_page_replay_has_one_step_per_action_plus_one_per_deal(real: tuple[Store, Path]) -> None:
    store, report = real
    for m in store.matches("real"):
        deals = list(store.db.query("SELECT * FROM deals WHERE match_id = ? ORDER BY idx", [m.match_id]))
        data = replay_data(match_page(report, m.match_id))
        expected = sum(1 + len((d["actions"] or "").split()) for d in deals)
        assert len(data["steps"]) == expected
        assert len(data["deals"]) == len(deals) == m.deals
        assert data["bots"] == [m.spec.seat0, m.spec.seat1]
        for d, info in zip(deals, data["deals"], strict=True):
            first = data["steps"][info["first"]]
            assert first["hands"] == info["dealt"]
            assert [len(h.split()) for h in first["hands"]] == [6, 6]
            assert first["points"] == [0, 0] and first.get("table", []) == []
            last = data["steps"][info["first"] + info["steps"] - 1]
            assert last.get("end") is True
            if not d["forfeit"]:
                assert last["points"] == [d["points0"], d["points1"]]
                assert last["tricks"] == [d["tricks0"], d["tricks1"]]
        final = data["steps"][-1]
        if m.reason == "target":
            assert final["score"] == list(m.score)


def test_match_page_links_the_duplicate_partner(real: tuple[Store, Path]) -> None:
    store, report = real
    html = match_page(report, "random-vs-greedy-p0-g0").read_text()
    assert 'href="../matches/random-vs-greedy-p0-g1.html"' in html
    partner = match_page(report, "random-vs-greedy-p0-g1").read_text()
    assert 'href="../matches/random-vs-greedy-p0-g0.html"' in partner
    assert "Duplicate partner" in html and "different deals" not in html


def test_match_page_shows_termination_and_transcripts(real: tuple[Store, Path]) -> None:
    _, report = real
    page = match_page(report, "random-vs-garbage-p0-g0")
    text = page.read_text()
    assert "malformed" in text and "hello world ~~~" in text
    assert text.count('<details class="transcript">') == 2
    assert "arena 1" in text  # the handshake line of the transcript
    data = replay_data(page)
    assert "forfeited" in "".join(p for p in data["steps"][-1]["label"] if isinstance(p, str))


def test_bot_pages(real: tuple[Store, Path]) -> None:
    store, report = real
    html = (report / "bots" / "garbage.html").read_text()
    assert "python tests/bots/garbage.py" in html and "sha256:garbage" in html
    # every termination links to its match
    links = re.findall(r'href="\.\./matches/([^"]+)\.html"', html)
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
    assert not (out / "matches").exists() and not (out / "bots").exists()
    html = index.read_text()
    assert "progress: 8 of 12 matches played" in html
    assert "Reload to refresh" in html
    assert 'href="bots/' not in html and 'href="matches/' not in html  # those pages do not exist yet
    render_report(store, out)  # the full render links them
    html = index.read_text()
    assert 'href="bots/bot00.html"' in html and 'href="matches/' in html
    assert len(list((out / "matches").glob("*.html"))) == 8


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


# ------------------------------------------------------------------------------------------- hostile input
def test_hostile_names_and_stderr_render_as_text(evil: tuple[Store, Path]) -> None:
    store, report = evil
    for page in report.rglob("*.html"):
        text = page.read_text()
        assert EVIL not in text, page
        assert "<img src=x" not in text, page
        assert "<b>bold</b>" not in text, page
        # nothing but the replay JSON and our script: a name cannot open a script element
        assert text.count("<script") == text.count('<script src="') + text.count('<script type="application/json"')
    index = (report / "index.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in index
    assert EVIL in standings_bots(report)
    evil_matches = [m for m in store.matches("synthetic") if m.status == "done" and EVIL in m.spec.seats]
    page = match_page(report, evil_matches[0].match_id)
    text = page.read_text()
    assert "&lt;b&gt;bold&lt;/b&gt;&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; &amp; done" in text \
        or evil_matches[0].spec.seat1 == EVIL
    script = parse(page).script_text["replay-data"]
    assert "</" not in script and "<" not in script
    assert EVIL in json.loads(script)["bots"]


def test_hostile_names_get_safe_distinct_file_names(evil: tuple[Store, Path]) -> None:
    _, report = evil
    files = sorted(p.name for p in (report / "bots").iterdir())
    assert len(files) == 4  # "greedy" and "Greedy" do not share a file
    for f in files + [p.name for p in (report / "matches").iterdir()]:
        assert re.fullmatch(r"[a-z0-9][a-z0-9._-]*\.html", f), f
    assert not (report.parent / "b.html").exists()
    assert all(p.resolve().parent == (report / "bots").resolve() for p in (report / "bots").iterdir())
    assert "greedy.html" in files


def test_flaky_bot_terminations_link_to_matches(evil: tuple[Store, Path]) -> None:
    store, report = evil
    terms = list(store.db.query("SELECT * FROM terminations"))
    assert terms, "the synthetic flaky bot should time out at least once"
    html = (report / "bots" / f"{ctx.file_name(EVIL)}.html").read_text()
    for t in terms:
        assert f'href="../matches/{ctx.file_name(t["match_id"])}.html"' in html


def test_file_name() -> None:
    assert ctx.file_name("greedy") == "greedy"
    assert ctx.file_name("random-vs-greedy-p0-g1") == "random-vs-greedy-p0-g1"
    names = ["Greedy", "greedy", "../x", "..", ".hidden", "a b", "a_b", "", "é", EVIL, "x" * 300]
    out = [ctx.file_name(n) for n in names]
    assert len(set(out)) == len(out)
    for f in out:
        assert re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,80}", f), f


def test_json_for_script_cannot_close_the_element() -> None:
    text = str(ctx.json_for_script({"a": "</script><!-- & \u2028", "b": [1, 2]}))
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!-- & \u2028", "b": [1, 2]}


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
        text = " ".join(a for d in sim["deals"] for a in d["actions"])
        if "exchange" in text and "marriage" in text and "close" in text:
            break
    rows = [{"idx": i, "dealer": d["dealer"], "trump": d["trump"], "deck": d["deck"],
             "actions": " ".join(d["actions"]), "winner": d["winner"],
             "game_points": d["game_points"], "reason": d["reason"], "forfeit": 0} for i, d in enumerate(sim["deals"])]
    data = ctx.replay(rules, rows, ("north", "south"))
    labels = [" ".join(p if isinstance(p, str) else p[0] for p in s["label"]) for s in data["steps"]]
    joined = "\n".join(labels)
    for words in ("exchanges", "declares the marriage", "closes the talon", "wins the trick", "draws",
                  "Deal over"):
        assert words in joined
    assert data["steps"][-1]["score"] == list(sim["score"])
    assert "differs" not in joined
    # a corrupt row stops the replay of its deal with a message instead of failing the page
    broken = [dict(rows[0], actions="0:play:Xx")]
    data = ctx.replay(rules, broken, ("a", "b"))
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
def test_large_tournament_renders_every_page(tmp_path: Path) -> None:
    """500 matches of 20 bots: every page is written (bench/report_bench.py measures how fast, for 5,000)."""
    store = synthetic_db(tmp_path / "arena.db", n_bots=20, n_matches=500, pool_size=30, flaky="bot19")
    render_report(store, tmp_path / "report")
    render_report(store, tmp_path / "report", index_only=True)
    assert len(os.listdir(tmp_path / "report" / "matches")) == 500
    assert len(standings_bots(tmp_path / "report")) == 20


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
