"""The report in a real browser: headless Debian chromium driven by Playwright, pages opened from disk.

Sorting the standings, following a link to a match, stepping the replay with the buttons and the keyboard,
links to a deal and step (``#d3s7``), each bot's info lines and think time at a step, a duplicate pair side by
side, filtering the matches by bot, no request leaving file://, no script error, and no alert from a bot named
``<script>alert(1)</script>``.
Screenshots (desktop and phone width) land in pytest's tmp_path, and in $ARENA_SCREENSHOTS if set.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="no /usr/bin/chromium: install Debian's chromium (`make browser`, or apt-get install chromium)",
)

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

from reference_replay import replay  # noqa: E402
from test_report import (  # noqa: E402
    EVIL,
    EVIL_INFO,
    EVIL_STDERR,
    match_data,
    play_real_tournament,
    play_why_tournament,
    replay_data,
    step_actions,
    synthetic_db,
)

from arena.game import RuleSet, twin_deck  # noqa: E402
from arena.game.cards import Card  # noqa: E402
from arena.report import context as ctx  # noqa: E402
from arena.report import render_report  # noqa: E402
from arena.store import Store  # noqa: E402


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("browser")
    real = play_real_tournament(base / "real.db")
    render_report(real, base / "real")
    evil = synthetic_db(base / "evil.db", names=["greedy", EVIL, "quiet"], n_matches=12, stderr=EVIL_STDERR,
                        flaky=EVIL, flaky_rate=0.5, pool_size=8, info=EVIL_INFO)
    with pytest.MonkeyPatch.context() as mp:  # pages of 5 rows: 12 matches make 3 pages of the list
        mp.setattr(ctx, "MATCHES_PAGE_ROWS", 5)
        render_report(evil, base / "evil")
    why = play_why_tournament(base / "why.db", base / "why-bots")
    render_report(why, base / "why")
    return {"real": base / "real", "evil": base / "evil", "why": base / "why", "why.db": base / "why.db",
            "real.db": base / "real.db", "evil.db": base / "evil.db"}


class Browser:
    """One chromium for the module; every page records script errors, dialogs and non-file requests."""

    def __init__(self, browser: Any, shots: list[Path]) -> None:
        self.browser = browser
        self.shots = shots
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.remote: list[str] = []
        self.files: list[str] = []  # every file:// URL a page loaded

    def page(self, width: int = 1280, height: int = 900) -> Any:
        context = self.browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(15_000)

        def route(r: Any) -> None:
            if r.request.url.startswith("file://"):
                self.files.append(r.request.url)
                r.continue_()
            else:
                self.remote.append(r.request.url)
                r.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)

        def dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        page.on("dialog", dialog)
        return page

    def shot(self, page: Any, path: Path) -> None:
        page.screenshot(path=str(path), full_page=True)
        self.shots.append(path)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    shots: list[Path] = []
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield Browser(b, shots)
        finally:
            b.close()
    keep = os.environ.get("ARENA_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for s in shots:
            shutil.copy(s, Path(keep) / s.name)


def ready(page: Any) -> None:
    """Wait until report.js has shown the page's data files (the replay, the transcripts): it loads them
    with <script src> from file:// and inflates them, then sets <body data-ready>."""
    page.wait_for_selector("body[data-ready]", state="attached")


def goto(page: Any, url: str) -> None:
    if page.url.split("#")[0] == url.split("#")[0]:  # the same viewer page, another match: load it afresh
        page.goto("about:blank")
    page.goto(url)
    ready(page)


def viewer(report: Path, match_id: str, step: str = "", page: str = "match") -> str:
    """The viewer's address for a match (or, with page="pair", for its duplicate pair), at a step."""
    return (report / f"{page}.html").as_uri() + f"#{ctx.file_name(match_id)}" + (f"/{step}" if step else "")


def stored(path: Path) -> Store:
    return Store.open_existing(path)


def _bots(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#standings tbody th[scope=row]").all_inner_texts()]


def test_sort_standings_and_open_a_match(reports: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    page = browser.page()
    goto(page, (reports["real"] / "index.html").as_uri())
    assert page.title().startswith("real")
    by_rank = _bots(page)
    assert sorted(by_rank) == ["garbage", "greedy", "random"]
    browser.shot(page, tmp_path / "index-desktop.png")

    page.click("#standings thead th:nth-child(2) button")  # Bot: alphabetical
    assert _bots(page) == ["garbage", "greedy", "random"]
    assert page.get_attribute("#standings thead th:nth-child(2)", "aria-sort") == "ascending"
    assert _bots(page) != by_rank
    page.click("#standings thead th:nth-child(2) button")  # again: reversed
    assert _bots(page) == ["random", "greedy", "garbage"]
    assert page.get_attribute("#standings thead th:nth-child(2)", "aria-sort") == "descending"
    page.click("#standings thead th:nth-child(3) button")  # Elo: best first, which is the rank order
    assert _bots(page) == by_rank
    assert page.get_attribute("#standings thead th:nth-child(2)", "aria-sort") is None

    page.click("a[href='match.html#random-vs-greedy-p0-g0']")
    page.wait_for_url("**/match.html#random-vs-greedy-p0-g0")
    ready(page)
    assert page.locator("h1").inner_text().replace("\n", " ").startswith("random vs greedy")
    assert not browser.errors and not browser.remote and not browser.dialogs


@pytest.mark.slow
def test_replay_steps_forward_and_back(reports: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    page = browser.page()
    goto(page, viewer(reports["real"], "random-vs-greedy-p0-g0"))
    step = lambda: int(page.get_attribute("#replay", "data-step"))  # noqa: E731
    label = lambda: page.inner_text("#r-label")  # noqa: E731
    state = lambda: (page.inner_text("#r-points0"), page.inner_text("#r-points1"),  # noqa: E731
                     page.inner_text("#r-tricks0"), page.inner_text("#r-tricks1"))
    assert step() == 0
    # the replay and the transcripts came from the match's data file, loaded from disk by <script src>
    assert any(u.endswith("/data/random-vs-greedy-p0-g0.js") for u in browser.files), browser.files
    start_label, start_pos, start_state = label(), page.inner_text("#r-pos"), state()
    assert "deals" in start_label and start_state == ("0", "0", "0", "0")
    assert page.locator("#r-hand0 .card").count() == 6 and page.locator("#r-hand1 .card").count() == 6
    assert page.is_disabled("#r-prev")

    page.click("#r-next")  # the lead: one card on the table
    assert step() == 1 and label() != start_label
    assert page.locator("#r-table .card").count() == 1
    page.click("#r-next")  # the answer: the trick is complete, somebody has points
    assert page.locator("#r-table .card").count() == 2
    assert "wins the trick" in label()
    after_trick = state()
    assert after_trick != start_state and "1" in after_trick[2:]
    browser.shot(page, tmp_path / "match-desktop.png")

    page.keyboard.press("ArrowRight")
    assert step() == 3
    page.keyboard.press("ArrowLeft")
    assert step() == 2 and state() == after_trick
    page.click("#r-prev")
    page.keyboard.press("ArrowLeft")
    assert step() == 0
    assert label() == start_label and state() == start_state and page.inner_text("#r-pos") == start_pos

    page.click("#r-next-deal")
    assert page.inner_text("#r-pos").startswith("deal 2 of")
    assert state() == ("0", "0", "0", "0")
    assert page.inner_text("#r-score0") + page.inner_text("#r-score1") != "00"  # deal 1 was scored
    page.keyboard.press("Shift+ArrowLeft")
    assert step() == 0
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    assert page.inner_text("#r-pos").startswith("deal 3 of")

    # a match without a fault keeps no protocol lines in the report, and says where they are
    omitted = page.inner_text("#t-omitted")
    assert "arena transcript DB random-vs-greedy-p0-g0" in omitted and "--transcripts all" in omitted
    assert page.locator("pre#log0").count() == 0
    for _ in range(400):
        if page.is_disabled("#r-next"):
            break
        page.keyboard.press("ArrowRight")
    final = [t.strip() for t in page.locator(".scoreline .big").all_inner_texts()]
    assert [page.inner_text("#r-score0"), page.inner_text("#r-score1")] == final
    assert "Deal over" in label()

    phone = browser.page(390, 844)
    goto(phone, viewer(reports["real"], "random-vs-greedy-p0-g0"))
    for _ in range(5):
        phone.click("#r-next")
    browser.shot(phone, tmp_path / "match-phone.png")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390 + 1  # no sideways scrolling page
    goto(phone, (reports["real"] / "index.html").as_uri())
    browser.shot(phone, tmp_path / "index-phone.png")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390 + 1
    assert not browser.errors and not browser.remote and not browser.dialogs


def test_bot_page_and_forfeit_replay(reports: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    page = browser.page()
    goto(page, (reports["real"] / "bots" / "garbage.html").as_uri())
    assert page.locator("h1").inner_text() == "garbage"
    assert page.locator("svg.chart.trajectory").count() == 1
    browser.shot(page, tmp_path / "bot-desktop.png")
    page.click("a[href='../match.html#random-vs-garbage-p0-g0'] >> nth=0")
    page.wait_for_url("**/match.html#random-vs-garbage-p0-g0")
    ready(page)
    page.keyboard.press("End")  # not a replay key: the page may scroll, the replay stays
    assert page.get_attribute("#replay", "data-step") == "0"
    while not page.is_disabled("#r-next"):
        page.click("#r-next")
    assert "forfeited" in page.inner_text("#r-label")
    # a faulted match keeps its transcripts: the protocol lines with their times, the offending line
    page.click("details.transcript >> nth=1 >> summary")
    log = page.inner_text("pre#log1")
    assert "> arena 1" in log and "< hello world ~~~" in log and "! " in log
    assert "protocol lines" in page.inner_text("details.transcript >> nth=1 >> summary")
    browser.shot(page, tmp_path / "forfeit-transcript.png")
    assert not browser.errors and not browser.remote and not browser.dialogs


@pytest.mark.slow
def test_hostile_names_stay_text_in_the_browser(reports: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    page = browser.page()
    goto(page, (reports["evil"] / "index.html").as_uri())
    assert EVIL in _bots(page)
    page.click(f"a[href='bots/{ctx.file_name(EVIL)}.html'] >> nth=0")
    assert page.locator("h1").inner_text() == EVIL
    page.click("details summary")  # the list of matches
    page.click("td.id a >> nth=0")
    page.wait_for_load_state()
    ready(page)
    assert EVIL in page.inner_text("h1")
    assert EVIL in page.inner_text(".board")
    page.click("#r-next")
    page.click("details.transcript >> nth=0 >> summary")
    browser.shot(page, tmp_path / "evil-match.png")
    html_stderr = page.locator("pre.stderr")
    if html_stderr.count():
        assert "<img src=x onerror=alert(2)>" in html_stderr.first.inner_text()
    assert page.locator("img").count() == 0
    said = page.inner_text("#replay .say")  # a hostile info line stays text, under its seat
    assert "<img src=x onerror=alert(3)>" in said or "<img src=x onerror=alert(3)>" in page.inner_text("#r-say0")
    page.click("a.pair-link")  # the pair page of a hostile name, stepped to the end
    page.wait_for_load_state()
    ready(page)
    assert EVIL in page.inner_text("h1")
    while not page.is_disabled("#p-next"):
        page.keyboard.press("ArrowRight")
    assert page.locator("img").count() == 0
    assert not browser.dialogs, browser.dialogs
    assert not browser.errors and not browser.remote


def _pos(page: Any) -> str:
    return str(page.inner_text("#r-pos"))


def test_a_link_opens_the_replay_at_a_deal_and_step(reports: dict[str, Path], browser: Browser) -> None:
    mid = "random-vs-greedy-p0-g0"
    store = stored(reports["real.db"])
    try:
        data = replay_data(reports["real"], store, mid)
    finally:
        store.close()
    assert len(data["deals"]) >= 4 and data["deals"][2]["steps"] >= 8
    page = browser.page()
    goto(page, viewer(reports["real"], mid, "d3s7"))
    assert _pos(page).startswith(f"deal 3 of {len(data['deals'])} \u00b7 step 7 of {data['deals'][2]['steps']}")
    assert int(page.get_attribute("#replay", "data-step")) == data["deals"][2]["first"] + 6
    assert page.get_attribute("#r-link", "href") == f"#{mid}/d3s7"
    # stepping updates the link in the address bar (waited for: a busy page may draw the step a frame later)
    page.keyboard.press("ArrowRight")
    page.wait_for_function("h => location.hash === h", arg=f"#{mid}/d3s8")
    page.click("#r-next-deal")
    page.wait_for_function("h => location.hash === h", arg=f"#{mid}/d4s1")
    label = page.inner_text("#r-label")
    page.reload()  # the same step again
    ready(page)
    assert _pos(page).startswith("deal 4 of") and page.inner_text("#r-label") == label
    page.click(f"table.deals a[href='#{mid}/d2s1']")  # the deals table links into the replay
    page.wait_for_function("() => document.getElementById('r-pos').textContent.startsWith('deal 2 of')")
    assert "step 1 of" in _pos(page)
    assert int(page.get_attribute("#replay", "data-step")) == data["deals"][1]["first"]
    goto(page, viewer(reports["real"], mid, "d99s99"))  # out of range: the last step of the last deal
    page.reload()
    ready(page)
    assert int(page.get_attribute("#replay", "data-step")) == len(data["steps"]) - 1
    assert page.is_disabled("#r-next")
    goto(page, viewer(reports["real"], "random-vs-garbage-p0-g0"))
    assert "garbage (seat 1) forfeited the match: malformed" in page.inner_text("#forfeit")
    page.click("#forfeit a")  # the step where it happened (the viewer follows the hash when it changes)
    page.wait_for_function("/forfeited/.test(document.querySelector('#r-label').textContent)", timeout=10_000)
    assert not browser.errors and not browser.remote and not browser.dialogs


def test_each_bot_s_info_lines_and_think_time_at_a_step(reports: dict[str, Path], browser: Browser,
                                                        tmp_path: Path) -> None:
    store = stored(reports["why.db"])
    try:
        mid = "chatty-vs-greedy-p0-g1"  # chatty in seat 1
        data = replay_data(reports["why"], store, mid)
        actions = step_actions(store, mid, data)
        think = {s.seat: s.think_ms for s in store.seats(mid)}
        sloppy = replay_data(reports["why"], store, "sloppy-vs-greedy-p0-g0")
    finally:
        store.close()
    chatty_steps = [n for n in sorted(actions) if actions[n].startswith("1:")]
    step = chatty_steps[5]  # chatty's sixth decision
    deal = data["steps"][step]["deal"]
    k = step - data["deals"][deal]["first"] + 1
    page = browser.page()
    goto(page, viewer(reports["why"], mid, f"d{deal + 1}s{k}"))
    mine, other = page.inner_text("#r-say1"), page.inner_text("#r-say0")
    action = actions[step].split(":", 1)[1]
    assert "decision 6 of " in mine and f"chose {action}" in mine and "done 6" in mine
    shown = float(mine.split("thought ")[1].split(" ms")[0])
    assert shown == pytest.approx(think[1][5], rel=0.01)  # its sixth think time, as stored
    assert other.strip() == ""  # greedy did not act at this step
    browser.shot(page, tmp_path / "why-step.png")
    page.keyboard.press("ArrowRight")  # greedy answers: its own think time, chatty's box empties
    assert page.inner_text("#r-say1").strip() == ""
    assert float(page.inner_text("#r-say0").split("thought ")[1].split(" ms")[0]) == pytest.approx(
        think[0][sum(1 for n in actions if n <= step + 1 and actions[n].startswith("0:")) - 1], rel=0.01)
    goto(page, viewer(reports["why"], mid))  # the first step: what chatty said before its first turn
    assert "hello from chatty" in page.inner_text("#r-say1")
    broke = next(n for n, s in enumerate(sloppy["steps"]) for e in s.get("say", []) if "notes" in e)
    goto(page, viewer(reports["why"], "sloppy-vs-greedy-p0-g0"))
    while int(page.get_attribute("#replay", "data-step")) < broke:
        page.keyboard.press("ArrowRight")
    said = page.inner_text("#r-say0")
    assert "termination illegal" in said and "answered exchange" in said and "breaks the rules" in said
    assert not browser.errors and not browser.remote and not browser.dialogs


def test_a_duplicate_pair_side_by_side(reports: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    g0, g1 = "chatty-vs-greedy-p0-g0", "chatty-vs-greedy-p0-g1"
    page = browser.page()
    goto(page, viewer(reports["why"], g0))
    page.click("a.pair-link")
    page.wait_for_url(f"**/pair.html#{g0}")
    ready(page)
    assert page.title().startswith("chatty vs greedy, pair 0")
    # the table of deals: how each was dealt and where the play diverged, computed here from the rows
    store = stored(reports["why.db"])
    try:
        d0, d1 = store.deals(g0), store.deals(g1)
        rules = RuleSet.from_dict(store.tournament_info().rules)
    finally:
        store.close()
    rows = page.locator("#pair-deals tbody tr")
    assert rows.count() == max(len(d0), len(d1))
    for n, (a, b) in enumerate(zip(d0, d1, strict=False)):
        row = rows.nth(n)
        cell = row.locator("td").nth(4).inner_text()
        if a.dealer != b.dealer:  # the other seat deals the deck's twin: the same hands in the same seats
            assert list(b.record().deck) == twin_deck(rules, a.record().deck)
            assert row.get_attribute("data-seating") == "twinned" and cell == "–", n  # no step to compare
            continue
        assert a.deck == b.deck  # the same dealer: the same hands in the same seats
        theirs = list(b.actions)
        first = next((i for i in range(min(len(a.actions), len(theirs))) if a.actions[i] != theirs[i]), None)
        if first is None and len(a.actions) != len(theirs):
            first = min(len(a.actions), len(theirs))
        assert row.get_attribute("data-seating") == "swapped", n
        assert cell == "never: the same play" if first is None else cell.startswith(f"at step {first + 2}: "), n
    # deal 1 is dealt alike (same first dealer); chatty plays the last legal action, greedy its own choice
    cells = rows.nth(0).locator("td").all_inner_texts()
    assert cells[3] == "the same hands, bots swapped" and cells[4].startswith("at step ")
    diverge = int(cells[4].split()[2].rstrip(":"))
    i = diverge - 2
    for token, seats, shown in ((d0[0].actions[i], ("chatty", "greedy"), cells[4].split(": ", 1)[1].split(" / ")[0]),
                                (d1[0].actions[i], ("greedy", "chatty"), cells[4].split(" / ")[1])):
        seat, kind, *card = token.split(":")
        assert shown.startswith(f"{seats[int(seat)]}: {kind}")
        if card:
            assert shown.endswith(Card.parse(card[0]).display())
    assert page.get_attribute("#pair", "data-k") == "0"
    labels = lambda: (page.inner_text("#a-label"), page.inner_text("#b-label"))  # noqa: E731
    cards = lambda: [page.locator(f"#{g}-label .card").all_inner_texts() for g in "ab"]  # noqa: E731
    assert "chatty" in page.inner_text("#a-seat0") and "greedy" in page.inner_text("#b-seat0")
    assert page.inner_text("#a-hand0") == page.inner_text("#b-hand0")  # the same cards in the same seat
    page.click("#p-diverge")
    assert page.evaluate("location.hash") == f"#{g0}/d1s{diverge}"
    assert "The play diverges here" in page.inner_text("#p-status")
    a, b = cards()
    assert a != b  # the two boards show different actions
    # the same seat acts in both games: one bot in game 0, the other in game 1
    assert {labels()[0].split()[0], labels()[1].split()[0]} == {"chatty", "greedy"}
    browser.shot(page, tmp_path / "pair-diverged.png")
    page.keyboard.press("ArrowLeft")  # one step before: the same play in both games
    assert "The same play so far" in page.inner_text("#p-status")
    a, b = cards()
    assert a == b
    assert page.inner_text("#a-hand0") == page.inner_text("#b-hand0")
    assert page.inner_text("#a-hand1") == page.inner_text("#b-hand1")
    page.click("#a-open")  # one game's replay at the same step
    page.wait_for_url(f"**/match.html#{g0}/d1s{diverge - 1}")
    ready(page)
    assert f"step {diverge - 1} of" in _pos(page)
    goto(page, viewer(reports["why"], g1, f"d1s{diverge}", page="pair"))  # either game names the pair
    assert "The play diverges here" in page.inner_text("#p-status")
    assert page.locator("#a-game").get_attribute("data-match") == g0
    twinned = [n for n, (a, b) in enumerate(zip(d0, d1, strict=False)) if a.dealer != b.dealer]
    assert twinned, "the two games' dealers part ways in some deal"
    goto(page, viewer(reports["why"], g0, f"d{twinned[0] + 1}s1", page="pair"))
    assert "the other seat deals" in page.inner_text("#p-status")
    assert page.inner_text("#a-hand0") == page.inner_text("#b-hand0")  # the twin: the same hands, same seats
    goto(page, viewer(reports["why"], "sloppy-vs-greedy-p0-g0", page="pair"))  # no partner: it says so
    assert "no duplicate partner" in page.inner_text("#v-status")
    phone = browser.page(390, 844)
    goto(phone, viewer(reports["why"], g0, page="pair"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390 + 1
    browser.shot(phone, tmp_path / "pair-phone.png")
    assert not browser.errors and not browser.remote and not browser.dialogs


def _label_text(label: list[Any]) -> str:
    return "".join(p if isinstance(p, str) else f"[{p[0]}]" for p in label)


def test_the_viewer_rebuilds_every_step_as_the_rules_engine_plays_it(reports: dict[str, Path],
                                                                     browser: Browser) -> None:
    """report.js rebuilds each step's table from a deal's dealt hands and public events, by bookkeeping; for
    every match of the three reports it gives the table that arena.game gives at every step (hands, talon,
    trump card, trick, points with pending marriages, tricks, marriages, closing, who moves, the score) and
    the same words."""
    page = browser.page()
    goto(page, viewer(reports["real"], "random-vs-greedy-p0-g0"))
    checked = 0
    for name in ("real", "why", "evil"):
        store = stored(reports[f"{name}.db"])
        try:
            rules = ctx.rules_of(store.tournament_info().rules)
            assert rules is not None
            for m in store.matches(store.tournament_info().name):
                if not m.done:
                    continue
                note = f"{m.terminated_bot}: {m.termination}" if m.termination else None
                want = replay(rules, store.deals(m.match_id), m.seats, note)["steps"]
                got = page.evaluate("d => rebuildReplay(d).steps", match_data(reports[name], m.match_id))
                assert len(got) == len(want), m.match_id
                for n, (g, w) in enumerate(zip(got, want, strict=True)):
                    g.pop("say", None)
                    g["label"], w["label"] = _label_text(g["label"]), _label_text(w["label"])
                    assert g == w, (m.match_id, n)
                checked += len(want)
        finally:
            store.close()
    assert checked > 1000
    assert not browser.errors


def test_titles_and_seats_follow_the_match_id(reports: dict[str, Path], browser: Browser) -> None:
    """``A-vs-B-pN-gG`` names the pairing: the viewer of either game is titled "A vs B" (also the second
    game, where B has seat 0), says which seat each bot has, and its deals and terminations link to steps."""
    store = stored(reports["real.db"])
    try:
        matches = store.matches("real")
    finally:
        store.close()
    page = browser.page()
    for m in matches:
        goto(page, viewer(reports["real"], m.match_id))
        a, b = m.match_id.rsplit("-p", 1)[0].split("-vs-")
        assert page.title() == f"{a} vs {b} \u00b7 arena"
        assert page.inner_text("h1").split() == [a, "vs", b]
        assert f"{m.seat0} has seat 0, {m.seat1} seat 1" in page.inner_text("#seating")
        assert [t.strip() for t in page.locator(".scoreline .name").all_inner_texts()] == [a, b]
        n = page.locator("table.deals tbody tr").count()
        assert n == m.deals
        for d in range(1, n + 1):
            assert page.locator(f"table.deals a[href='#{m.match_id}/d{d}s1']").count() == 1
    goto(page, viewer(reports["real"], "random-vs-garbage-p0-g0"))
    text = " ".join(page.inner_text("#forfeit").split())
    assert text.startswith("garbage (seat 1) forfeited the match: malformed, ") and "in deal 1." in text
    assert "The line: hello world ~~~." in text
    assert "random wins by forfeit (garbage: malformed)" in page.inner_text("dl.facts")
    steps = page.evaluate("() => document.querySelector('#forfeit a').getAttribute('href')")
    assert page.locator(f"section table a[href='{steps}']").count() == 1  # the termination's deal: its last step
    goto(page, viewer(reports["real"], "no-such-match"))  # a match the report does not have: one clear line
    assert "cannot be shown" in page.inner_text("#v-status") and "no-such-match" in page.inner_text("#v-status")
    assert not browser.remote and not browser.dialogs
    browser.errors.clear()  # the missing data file is a failed load, which the page reports


def _visible_rows(page: Any) -> list[list[str]]:
    rows = page.locator("#matches tbody tr:visible")
    return [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()] for i in range(rows.count())]


def test_filter_the_matches_by_bot(reports: dict[str, Path], browser: Browser) -> None:
    page = browser.page()
    goto(page, (reports["real"] / "matches.html").as_uri())
    assert len(_visible_rows(page)) == 6
    page.select_option("#f-bot", "garbage")
    rows = _visible_rows(page)
    assert len(rows) == 4 and all("garbage" in r[2:4] for r in rows)
    assert page.inner_text("#f-count") == "4 of 6 matches"
    assert page.evaluate("location.hash") == "#bot=garbage"
    page.select_option("#f-result", "won")
    assert _visible_rows(page) == [] and page.is_visible("#f-none")
    page.select_option("#f-result", "lost")
    assert len(_visible_rows(page)) == 4
    page.select_option("#f-bot", "greedy")
    page.select_option("#f-result", "won")
    rows = _visible_rows(page)
    assert rows and all(r[5] == "greedy" for r in rows)
    assert page.evaluate("location.hash") == "#bot=greedy&result=won"
    page.click("#matches thead th:nth-child(5) button")  # sorting keeps the filter
    assert _visible_rows(page) and all(r[5] == "greedy" for r in _visible_rows(page))
    page.select_option("#f-bot", "")  # won by whom? the result filter needs a bot
    assert len(_visible_rows(page)) == 6 and page.evaluate("location.hash") == ""
    goto(page, (reports["real"] / "bots" / "garbage.html").as_uri())
    page.click("#filtered-matches")  # a bot page links to its matches in the list
    page.wait_for_url("**/matches.html#bot=garbage")
    ready(page)
    assert page.input_value("#f-bot") == "garbage" and len(_visible_rows(page)) == 4
    goto(page, (reports["evil"] / "bots" / f"{ctx.file_name(EVIL)}.html").as_uri())
    page.click("#filtered-matches")
    page.wait_for_load_state()
    ready(page)
    assert page.input_value("#f-bot") == EVIL
    rows = _visible_rows(page)
    assert rows and all(EVIL in r[2:4] for r in rows) and len(rows) < 12
    page.select_option("#f-result", "forfeit")
    assert all(r[7].endswith(f"({EVIL})") for r in _visible_rows(page))
    assert not browser.dialogs and not browser.errors and not browser.remote


def test_the_matches_list_shows_a_page_at_a_time(reports: dict[str, Path], browser: Browser) -> None:
    """A large tournament's list is paged (here 5 rows a page, 12 matches): filtering and sorting work on
    every row, not only on the page shown."""
    page = browser.page()
    goto(page, (reports["evil"] / "matches.html").as_uri())
    assert page.is_visible("#f-pages") and page.inner_text("#f-page") == "rows 1\u20135 of 12"
    assert [r[0] for r in _visible_rows(page)] == ["1", "2", "3", "4", "5"]
    assert page.is_disabled("#f-prev")
    page.click("#f-next")
    assert [r[0] for r in _visible_rows(page)] == ["6", "7", "8", "9", "10"]
    page.click("#f-next")
    assert [r[0] for r in _visible_rows(page)] == ["11", "12"] and page.is_disabled("#f-next")
    page.click("#matches thead th:nth-child(1) button")  # "#" again: descending, from the first page
    assert [r[0] for r in _visible_rows(page)] == ["12", "11", "10", "9", "8"]
    page.select_option("#f-bot", "quiet")
    n = int(page.inner_text("#f-count").split()[0])
    assert 0 < n < 12 and page.inner_text("#f-count") == f"{n} of 12 matches"
    rows = _visible_rows(page)
    assert len(rows) == min(n, 5) and all("quiet" in r[2:4] for r in rows)
    assert page.is_visible("#f-pages") == (n > 5)
    page.click("td.id a >> nth=0")  # a row links to its match in the viewer
    page.wait_for_url("**/match.html#*")
    ready(page)
    assert "quiet" in page.inner_text("h1")
    assert not browser.errors and not browser.remote and not browser.dialogs

