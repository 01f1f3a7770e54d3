"""The report in a real browser: headless Debian chromium driven by Playwright, pages opened from disk.

Sorting the standings, following a link to a match, stepping the replay with the buttons and the keyboard,
no request leaving file://, no script error, and no alert from a bot named ``<script>alert(1)</script>``.
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

from test_report import EVIL, EVIL_STDERR, play_real_tournament, synthetic_db  # noqa: E402

from arena.report import context as ctx  # noqa: E402
from arena.report import render_report  # noqa: E402


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("browser")
    real = play_real_tournament(base / "real.db")
    render_report(real, base / "real")
    evil = synthetic_db(base / "evil.db", names=["greedy", EVIL, "quiet"], n_matches=12, stderr=EVIL_STDERR,
                        flaky=EVIL, flaky_rate=0.5, pool_size=8)
    render_report(evil, base / "evil")
    return {"real": base / "real", "evil": base / "evil"}


class Browser:
    """One chromium for the module; every page records script errors, dialogs and non-file requests."""

    def __init__(self, browser: Any, shots: list[Path]) -> None:
        self.browser = browser
        self.shots = shots
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.remote: list[str] = []

    def page(self, width: int = 1280, height: int = 900) -> Any:
        context = self.browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(15_000)

        def route(r: Any) -> None:
            if r.request.url.startswith("file://"):
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


def _bots(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#standings tbody th[scope=row]").all_inner_texts()]


def test_sort_standings_and_open_a_match(reports: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    page = browser.page()
    page.goto((reports["real"] / "index.html").as_uri())
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

    page.click("a[href='matches/random-vs-greedy-p0-g0.html']")
    page.wait_for_url("**/matches/random-vs-greedy-p0-g0.html")
    assert page.locator("h1").inner_text().replace("\n", " ").startswith("random vs greedy")
    assert not browser.errors and not browser.remote and not browser.dialogs


def test_replay_steps_forward_and_back(reports: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    page = browser.page()
    page.goto((reports["real"] / "matches" / "random-vs-greedy-p0-g0.html").as_uri())
    step = lambda: int(page.get_attribute("#replay", "data-step"))  # noqa: E731
    label = lambda: page.inner_text("#r-label")  # noqa: E731
    state = lambda: (page.inner_text("#r-points0"), page.inner_text("#r-points1"),  # noqa: E731
                     page.inner_text("#r-tricks0"), page.inner_text("#r-tricks1"))
    assert step() == 0
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

    # the transcripts open, and the last step of the match shows its final score
    page.click("details.transcript >> nth=0 >> summary")
    assert "arena 1" in page.inner_text("details.transcript >> nth=0 >> pre")
    for _ in range(400):
        if page.is_disabled("#r-next"):
            break
        page.keyboard.press("ArrowRight")
    final = [t.strip() for t in page.locator(".scoreline .big").all_inner_texts()]
    assert [page.inner_text("#r-score0"), page.inner_text("#r-score1")] == final
    assert "Deal over" in label()

    phone = browser.page(390, 844)
    phone.goto((reports["real"] / "matches" / "random-vs-greedy-p0-g0.html").as_uri())
    for _ in range(5):
        phone.click("#r-next")
    browser.shot(phone, tmp_path / "match-phone.png")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390 + 1  # no sideways scrolling page
    phone.goto((reports["real"] / "index.html").as_uri())
    browser.shot(phone, tmp_path / "index-phone.png")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390 + 1
    assert not browser.errors and not browser.remote and not browser.dialogs


def test_bot_page_and_forfeit_replay(reports: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    page = browser.page()
    page.goto((reports["real"] / "bots" / "garbage.html").as_uri())
    assert page.locator("h1").inner_text() == "garbage"
    assert page.locator("svg.chart.trajectory").count() == 1
    browser.shot(page, tmp_path / "bot-desktop.png")
    page.click("a[href='../matches/random-vs-garbage-p0-g0.html'] >> nth=0")
    page.wait_for_url("**/random-vs-garbage-p0-g0.html")
    page.keyboard.press("End")  # not a replay key: the page may scroll, the replay stays
    assert page.get_attribute("#replay", "data-step") == "0"
    while not page.is_disabled("#r-next"):
        page.click("#r-next")
    assert "forfeited" in page.inner_text("#r-label")
    assert not browser.errors and not browser.remote and not browser.dialogs


def test_hostile_names_stay_text_in_the_browser(reports: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    page = browser.page()
    page.goto((reports["evil"] / "index.html").as_uri())
    assert EVIL in _bots(page)
    page.click(f"a[href='bots/{ctx.file_name(EVIL)}.html'] >> nth=0")
    assert page.locator("h1").inner_text() == EVIL
    page.click("details summary")  # the list of matches
    page.click("td.id a >> nth=0")
    page.wait_for_load_state()
    assert EVIL in page.inner_text("h1")
    assert EVIL in page.inner_text(".board")
    page.click("#r-next")
    page.click("details.transcript >> nth=0 >> summary")
    browser.shot(page, tmp_path / "evil-match.png")
    html_stderr = page.locator("pre.stderr")
    if html_stderr.count():
        assert "<img src=x onerror=alert(2)>" in html_stderr.first.inner_text()
    assert page.locator("img").count() == 0
    assert not browser.dialogs, browser.dialogs
    assert not browser.errors and not browser.remote
