"""`arena serve` in a real browser: headless Debian chromium driven by Playwright, a real server on loopback.

A whole match against the random bot played by clicking (and the keyboard) on a phone-sized page; a room
created in one browser context and joined by its code in another, played to the end of a deal; the
Bulgarian pages; and no request leaving the server, no script error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_report_browser import ARGS, CHROMIUM
from test_serve import Server, start_server, stop_server

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="no /usr/bin/chromium: install Debian's chromium (`make browser`, or apt-get install chromium)",
)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = start_server(tmp_path_factory.mktemp("serve-browser"), "--set", "match_target=3")
    try:
        yield s
    finally:
        stop_server(s)


class Pages:
    def __init__(self, browser: Any, server: Server) -> None:
        self.browser = browser
        self.server = server
        self.errors: list[str] = []
        self.outside: list[str] = []

    def page(self, width: int = 1024, height: int = 800, locale: str = "en-US") -> Any:
        context = self.browser.new_context(viewport={"width": width, "height": height}, locale=locale)
        context.set_default_timeout(20_000)
        base = self.server.url.rstrip("/")

        def route(r: Any) -> None:
            if r.request.url.startswith(base):
                r.continue_()
            else:
                self.outside.append(r.request.url)
                r.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        return page


@pytest.fixture(scope="module")
def pages(server: Server) -> Iterator[Pages]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield Pages(b, server)
        finally:
            b.close()


def _take_turn(page: Any, how: int) -> None:
    """A move three ways: a click, the number key 1, or an arrow to the first move and Enter."""
    if how == 0:
        page.locator("button[data-action]").first.click()
    elif how == 1:
        page.keyboard.press("1")
    else:
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.activeElement.dataset.action") is not None
        page.keyboard.press("Enter")


def test_a_whole_match_against_random_by_clicking(server: Server, pages: Pages, tmp_path: Path) -> None:
    page = pages.page(390, 844)  # a phone
    page.goto(server.url)
    page.select_option("#opponent", "random")
    page.click("#quick-play")
    page.wait_for_url("**/room/*")
    code = page.inner_text("#room-code")
    assert len(code) == 10
    moves = 0
    while True:
        page.wait_for_selector("button[data-action], #result-box:not([hidden])")
        if page.is_visible("#result-box"):
            break
        assert page.inner_text("#status") == "Your turn"
        tokens = page.eval_on_selector_all("button[data-action]", "bs => bs.map(b => b.dataset.action)")
        assert all(t.split(":")[0] in ("play", "marry", "exchange", "close", "declare") for t in tokens)
        version = int(page.get_attribute("#game", "data-version") or 0)
        _take_turn(page, moves % 3)
        moves += 1
        page.wait_for_function(  # the next turn, or the end (the state after the move itself has no buttons)
            "v => +document.getElementById('game').dataset.version > v && "
            "(document.querySelector('button[data-action]') || !document.getElementById('result-box').hidden)",
            arg=version)
    status = page.inner_text("#status")
    score = re.search(r"won the match (\d+)–(\d+)", status)
    assert score is not None and max(int(score[1]), int(score[2])) >= 3  # match_target=3
    assert page.locator("#deals li").count() >= 1  # a summary after each deal
    assert page.locator(".card.red").count() + page.locator(".card:not(.red)").count() > 0
    page.screenshot(path=str(tmp_path / "match-phone.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    page.wait_for_selector("#replay:not([hidden])")
    page.click("#replay")
    page.wait_for_url("**/replay/santase/match.html#*")
    page.wait_for_function("document.querySelector('h1') && /random/.test(document.querySelector('h1').textContent)")
    assert moves >= 3 and not pages.errors and not pages.outside  # by click, key 1, arrow and Enter


def test_two_friends_in_a_room(server: Server, pages: Pages) -> None:
    host = pages.page()
    host.goto(server.url)
    host.click("#create-room")
    host.wait_for_url("**/room/*")
    code = host.inner_text("#room-code")
    assert host.inner_text("#status") == "Waiting for a friend to join…"
    guest = pages.page(390, 844)
    guest.goto(server.url)
    guest.fill("#join-code", code.lower())
    guest.click("#join")
    guest.wait_for_url(f"**/room/{code}")
    players = [host, guest]
    while not all(p.locator("#deals li").count() for p in players):
        for p in players:
            if p.locator("button[data-action]").count():
                assert p.inner_text("#status") == "Your turn"
                other = players[1 - players.index(p)]
                assert other.locator("button[data-action]").count() == 0
                assert other.inner_text("#status") != "Your turn"
                version = int(p.get_attribute("#game", "data-version") or 0)
                p.locator("button[data-action]").first.click()
                # the clicking page has taken the move in before the other is looked at (their two sockets'
                # updates may arrive in either order)
                p.wait_for_function("v => +document.getElementById('game').dataset.version > v", arg=version)
        host.wait_for_timeout(50)  # poll both pages; the server answers within milliseconds
    summary = host.inner_text("#deals li")
    assert summary.startswith("Deal 1:") and "game point" in summary
    assert guest.inner_text("#deals li").startswith("Deal 1:")
    assert not pages.errors and not pages.outside


def test_bulgarian_pages_and_no_request_outside(server: Server, pages: Pages) -> None:
    page = pages.page(locale="bg-BG")
    page.goto(server.url)  # Accept-Language: bg
    assert page.get_attribute("html", "lang") == "bg"
    assert page.inner_text("#quick-play") == "Бърза игра"
    page.goto(server.url + "?lang=en")  # the switch, remembered in a cookie
    assert page.get_attribute("html", "lang") == "en"
    page.goto(server.url + "rules/schnapsen")
    assert page.get_attribute("html", "lang") == "en" and "Rules of Schnapsen" in page.inner_text("h1")
    page.goto(server.url + "?lang=bg")
    assert page.inner_text("#create-room") == "Създай стая"
    page.goto(server.url + "rules/santase")
    assert page.get_attribute("html", "lang") == "bg" and page.inner_text("h1") == "Правила на Сантасе"
    assert "66" in page.inner_text("main")
    page.goto(server.url)
    page.click("#quick-play")
    page.wait_for_url("**/room/*")
    page.wait_for_selector("button[data-action]")
    assert page.inner_text("#status") == "Ваш ред е"
    assert page.inner_text("#name-me") == "човек (вие)"  # the person's seat name too, not "human (вие)"
    assert not pages.errors and not pages.outside
