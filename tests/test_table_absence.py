"""Leaving the table and coming back, in a real browser (Debian chromium via Playwright, a real `arena serve` on
loopback, two people in a room, each in their own browser context).

A player who leaves (another page in the same tab, then Back; the network gone, then back) before the leave
timeout plays on, and the match ends normally; one who stays away past it forfeits at that moment, by the
server, whoever was to move: both pages say who left and why at once, and the page that comes back shows the
forfeit, never a playable table. The opponent and a spectator see the absent player's countdown; each person's
move clock is shown to the other. The database records the `disconnect` termination of the seat that left.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator
from typing import Any

import pytest
from test_report_browser import ARGS, CHROMIUM
from test_serve import Server, serving

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="no /usr/bin/chromium: install Debian's chromium (`make browser`, or apt-get install chromium)",
)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

NAMES = ("Ana", "Boris")  # the players' chosen names, host's and guest's: what the forfeit names
LEAVE_S = 4  # the server's --leave-timeout: short, yet long enough for a page to come back on a busy machine
WAIT_MS = 20_000  # bounds that only stop a hang

# What a page showed, in order: its status line's texts, and PLAYABLE whenever a move could be clicked;
# RESTORED marks a return from the back/forward cache (the same document shown again).
SEEN = """
window.__seen = [];
window.__restored = 0;
addEventListener('pageshow', e => { if (e.persisted) { window.__restored += 1; window.__seen.push('RESTORED'); } });
const look = () => {
  const s = document.getElementById('status'), seen = window.__seen;
  if (s && seen[seen.length - 1] !== s.textContent) seen.push(s.textContent);
  const game = document.getElementById('game');
  const b = document.querySelector('button[data-action]:not([disabled])');
  if (b && game && !game.classList.contains('stale') && seen[seen.length - 1] !== 'PLAYABLE') seen.push('PLAYABLE');
};
new MutationObserver(look).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
addEventListener('pageshow', look);
"""
# what the page showed since it came back (from the back/forward cache: since RESTORED; else its whole life)
SINCE_BACK = "() => { const s = window.__seen, i = s.lastIndexOf('RESTORED'); return s.slice(i + 1); }"
PLAYABLE = "() => !!document.querySelector('button[data-action]:not([disabled])')"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("absence"), "--set", "match_target=1", "--leave-timeout",
                     f"{LEAVE_S}s", "--seed", "2031") as s:
        yield s


class Pages:
    def __init__(self, browser: Any, server: Server) -> None:
        self.browser = browser
        self.server = server
        self.errors: list[str] = []

    def page(self) -> Any:
        context = self.browser.new_context(viewport={"width": 1024, "height": 800}, locale="en-US")
        context.set_default_timeout(WAIT_MS)
        context.add_init_script(SEEN)
        page = context.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        return page

    def room(self) -> tuple[Any, Any, str]:
        """A room of two people, its match begun: (host, guest, code)."""
        host = self.page()
        host.goto(self.server.url)
        host.fill("#nickname", NAMES[0])
        host.click("#create-room")
        host.wait_for_url("**/room/*")
        code = host.inner_text("#room-code")
        guest = self.page()
        guest.goto(self.server.url)  # (the name is kept in the browser, and seats the guest by name)
        guest.fill("#nickname", NAMES[1])
        guest.dispatch_event("#nickname", "change")
        guest.goto(self.server.url + f"room/{code}")
        return host, guest, code


@pytest.fixture(scope="module")
def pages(server: Server) -> Iterator[Pages]:
    with sync_api.sync_playwright() as p:
        # (Playwright turns the back/forward cache off; a player's Chrome has it on, and Back then shows the old
        # document again without loading it: the pages must handle both)
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS,
                              ignore_default_args=["--disable-back-forward-cache"])
        try:
            yield Pages(b, server)
        finally:
            b.close()


LOOK = """() => [document.getElementById('status').textContent, document.getElementById('game').className,
  document.getElementById('game').dataset.version, window.__seen.slice(-8),
  [...document.querySelectorAll('button[data-action]')].map(b => b.dataset.action + (b.disabled ? '-' : ''))]"""
OVER = "() => !document.getElementById('result-box').hidden"


def shows(page: Any, pattern: str) -> None:
    """Waits until the page's status line matches ``pattern`` (a JavaScript regular expression); failing, says
    every status the page showed. (Polled by interval: a page's animation frames may lag on a busy machine.)"""
    try:
        page.wait_for_function("p => new RegExp(p).test(document.getElementById('status').textContent)",
                               arg=pattern, polling=100)
    except sync_api.TimeoutError:
        raise AssertionError(f"the status never matched /{pattern}/; the page showed, in order: "
                             f"{page.evaluate('window.__seen')}; now: {page.evaluate(LOOK)}") from None


def turn(a: Any, b: Any) -> tuple[Any, Any]:
    """(the page to move, the other), once one of them may move; (None, None) when the match is over. Both
    pages are looked at in turn: either may still show the state before the last move for a moment."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        for p, q in ((a, b), (b, a)):
            if p.evaluate(PLAYABLE):
                return p, q
        if a.evaluate(OVER) and b.evaluate(OVER):
            return None, None
        a.wait_for_timeout(50)  # (a look every 50 ms, bounded: which page will be the one cannot be waited on)
    raise AssertionError(f"neither page may move: {[p.evaluate(LOOK) for p in (a, b)]}")


def move(page: Any) -> None:
    """The page's first legal move; a card that would start a marriage, or a risky action, asks first: a
    marriage card is then led plainly, anything else confirmed."""
    before = int(page.get_attribute("#game", "data-version"))
    page.click("button[data-action]")
    if page.is_visible("#confirm"):
        page.click("#confirm-alt" if page.is_visible("#confirm-alt") else "#confirm-yes")
    page.wait_for_function("v => +document.getElementById('game').dataset.version > v", arg=before)


def play_to_the_end(a: Any, b: Any) -> None:
    """Both people play their first legal move until the match is over."""
    while True:
        mover, _ = turn(a, b)
        if mover is None:
            break
        move(mover)
    for p in (a, b):
        p.wait_for_selector("#result-box:not([hidden])")


def termination(server: Server, code: str) -> tuple[Any, ...] | None:
    conn = sqlite3.connect(server.db)
    try:
        match = conn.execute("SELECT status, winner, reason, termination FROM matches WHERE id = ?",
                             [f"room-{code.lower()}"]).fetchone()
        term = conn.execute("SELECT kind, seat, detail FROM terminations WHERE match_id = ?",
                            [f"room-{code.lower()}"]).fetchall()
    finally:
        conn.close()
    return (*match, term) if match else None


def seat_of(page: Any) -> int:
    return int(page.get_attribute("#game", "data-seat"))


COUNTDOWN = re.compile(r"^(Ana|Boris) left — forfeits in 0:0[0-4] unless they return$")


def test_the_rules_link_opens_beside_the_table(server: Server, pages: Pages) -> None:
    host, guest, _ = pages.room()
    link = host.locator("#rules-link")
    assert link.get_attribute("target") == "_blank" and link.get_attribute("rel") == "noopener"
    with host.context.expect_page() as opened:
        link.click()
    rules = opened.value
    rules.wait_for_load_state()
    assert "/rules/" in rules.url and "/room/" in host.url  # the table stays where it was
    rules.close()
    for p in (host, guest):
        p.context.close()


@pytest.mark.slow
def test_back_before_the_deadline_plays_on_to_the_end(server: Server, pages: Pages) -> None:
    host, guest, code = pages.room()
    watcher = pages.page()
    watcher.goto(server.url + f"room/{code}")
    mover, away = turn(host, guest)
    # each person's move clock is shown to the other: the one who waits sees the mover's clock run
    away.wait_for_function("() => /^[0-9]+:[0-9]{2}$/.test(document.getElementById('clock-them').textContent)")
    assert re.fullmatch(r"Time left \d+:\d\d", mover.inner_text("#clock"))
    # the one who waits reads the rules in this tab (the opponent is to play), and comes back in time
    away.goto(server.url + "rules/santase")
    for p in (mover, watcher):  # the absent player's countdown, on the opponent's page and a spectator's
        p.wait_for_selector("#absence:not([hidden])")
        assert COUNTDOWN.match(p.inner_text("#absence")), p.inner_text("#absence")
    assert mover.is_hidden("#result-box")
    away.go_back(wait_until="commit")
    shows(away, "to play")
    for p in (mover, watcher):
        p.wait_for_selector("#absence", state="hidden")
    # the match goes on, and ends as matches end: a target reached, no termination
    play_to_the_end(mover, away)
    watcher.wait_for_selector("#result-box:not([hidden])")
    for p in (mover, away, watcher):
        assert re.search(r"won the match \d+–\d+\.$", p.inner_text("#result")), p.inner_text("#result")
        assert "left" not in p.inner_text("#result")
    assert termination(server, code) == ("done", termination(server, code)[1], "target", None, [])
    assert not pages.errors


@pytest.mark.slow
def test_back_after_the_deadline_shows_the_forfeit_at_once(server: Server, pages: Pages) -> None:
    host, guest, code = pages.room()
    mover, away = turn(host, guest)
    left, stayed = seat_of(away), seat_of(mover)
    name = NAMES[left]
    shows(away, "to play")  # (the page that leaves had its state: it was at the table)
    away.goto(server.url + "rules/santase")
    mover.wait_for_selector("#absence:not([hidden])")
    counted = time.monotonic()
    # at the deadline the server decides, while the one who stayed is still to play: their page says so then
    mover.wait_for_selector("#result-box:not([hidden])", timeout=(LEAVE_S + 10) * 1000)
    print(f"\nthe countdown shown to the forfeit shown: {time.monotonic() - counted:.2f} s (leave timeout {LEAVE_S} s)")
    said = f"{name} left the table and did not return within {LEAVE_S} s: you win the match."
    assert mover.inner_text("#result") == said and mover.inner_text("#status") == said
    assert not mover.evaluate(PLAYABLE) and mover.is_hidden("#absence")
    away.go_back(wait_until="commit")  # the page that comes back shows the forfeit, and was never playable
    away.wait_for_selector("#result-box:not([hidden])")
    winner = NAMES[stayed]
    told = f"You left the table and did not return within {LEAVE_S} s: {winner} wins the match."
    assert away.inner_text("#result") == told
    # shown again from the back/forward cache: first stale ("Reconnecting…"), then the forfeit, nothing between
    assert away.evaluate("window.__restored") == 1
    seen = away.evaluate(SINCE_BACK)
    assert seen[-1] == told and set(seen) <= {"Reconnecting…", told}, seen
    recorded = termination(server, code)
    assert recorded is not None and recorded[:4] == ("done", winner, "disconnect", "disconnect"), recorded
    assert [(k, s) for k, s, _ in recorded[4]] == [("disconnect", left)]
    assert f"within {LEAVE_S} s" in recorded[4][0][2]
    assert not pages.errors


@pytest.mark.slow
def test_a_dropped_connection_before_and_after_the_deadline(server: Server, pages: Pages) -> None:
    host, guest, code = pages.room()
    mover, away = turn(host, guest)
    left = seat_of(away)
    # (the page that waits may not have had its first state yet: a page that never had one cannot know its
    # leave timeout, and says only that it reconnects)
    shows(away, "to play")
    # the network goes and comes back in time: the page reconnects, and the game goes on
    away.context.set_offline(True)
    mover.wait_for_selector("#absence:not([hidden])")
    assert COUNTDOWN.match(mover.inner_text("#absence")), mover.inner_text("#absence")
    shows(away, r"^Connection lost; reconnecting… Unless it returns, you forfeit in 0:0[0-4]\.$")
    away.context.set_offline(False)
    mover.wait_for_selector("#absence", state="hidden")
    shows(away, "to play")
    # the game goes on: the page that came back plays, until its opponent is to move again
    moved = 0
    while True:
        to_move, _ = turn(mover, away)
        if to_move is mover and moved:
            break
        moved += to_move is away
        move(to_move)
    assert termination(server, code)[0] != "done"  # type: ignore[index]  # (the match goes on)
    # gone again with the opponent to play, now past the deadline: both pages say so at once
    tried: list[str] = []  # the sockets the page opened meanwhile
    away.on("websocket", lambda ws: tried.append(ws.url))
    away.context.set_offline(True)
    mover.wait_for_selector("#result-box:not([hidden])", timeout=(LEAVE_S + 10) * 1000)
    name = NAMES[left]
    assert mover.inner_text("#result") == f"{name} left the table and did not return within {LEAVE_S} s: " \
                                          "you win the match."
    assert tried == []  # (the browser said it was offline: no attempt until it says it is online again)
    away.context.set_offline(False)
    away.wait_for_selector("#result-box:not([hidden])")
    winner = NAMES[1 - left]
    assert away.inner_text("#result") == f"You left the table and did not return within {LEAVE_S} s: " \
                                         f"{winner} wins the match."
    assert not away.evaluate(PLAYABLE)
    recorded = termination(server, code)
    assert recorded is not None and recorded[:4] == ("done", winner, "disconnect", "disconnect"), recorded
    assert [(k, s) for k, s, _ in recorded[4]] == [("disconnect", left)]
    assert not pages.errors


async def test_the_referee_ends_a_match_by_a_forfeit_while_the_other_seat_thinks() -> None:
    """The referee's own part, without a browser: a Forfeit of the seat that is not to move ends the match at
    once (the mover's wait is cancelled, its move never played), with that seat's disconnect recorded."""
    import trio

    from arena.game.variants import preset
    from arena.protocol.session import Termination, Violation
    from arena.referee.clock import TimeControl
    from arena.referee.match import Forfeit, Player, play_match
    from arena.referee.process import BotSpec
    from arena.serve.seat import Watched, WebSeat

    watched = Watched()
    seats = [WebSeat(name, i, watched) for i, name in enumerate(("ana", "boris"))]
    players = tuple(Player(BotSpec(name=s.name, argv=("browser",), sandbox="none"),
                           TimeControl(move_ms=60_000, handshake_ms=5000), connect=s.connect) for s in seats)
    forfeit = Forfeit()
    record: list[Any] = []

    async def play() -> None:
        record.append(await play_match("m", players, preset("santase"), 7, 7, forfeit=forfeit))  # type: ignore[arg-type]

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play)
            while not any(s.legal for s in seats):  # someone is to move, and thinks
                await watched.wait_past(watched.version)
            thinking = next(i for i, s in enumerate(seats) if s.legal)
            forfeit.now(1 - thinking, Violation(Termination.DISCONNECT, "left the table"))
    rec = record[0]
    assert rec.winner == thinking and str(rec.reason) == "disconnect"
    terminations = [(str(t.kind), t.seat, t.detail) for t in rec.terminations]
    assert terminations == [("disconnect", 1 - thinking, "left the table")]
    assert seats[thinking].result == {"winner": thinking, "score": [0, 0], "reason": "disconnect"}
