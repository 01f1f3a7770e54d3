"""The card table as players meet it (issue 35): no tap that loses by accident, buttons that name their cards, a
marriage chosen by tapping its card, panels that close, players by name, the turn signalled, a phone's touch
targets, the replay in a player's words, and the Bulgarian of Santase players, checked against one list.

A real `arena serve` on loopback (one per module, short matches: first to 3) and Debian's Chromium through
Playwright (one browser per module), in English and Bulgarian, on a desktop and on phones (390×844, 360×740,
touch). The seeds are fixed, so the deals each test meets are too.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import time
from collections.abc import Iterator
from typing import Any

import pytest
from test_report_browser import ARGS, CHROMIUM
from test_serve import Server, serving

from arena.serve.i18n import _STRINGS, phrase, rules_sections, strings
from arena.serve.rooms import NICK_MAX, clean_nick

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
browser_only = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (`make browser`)")

MAX_GAMES = 6  # Quick Play games a test may play to meet the situation it checks (the seeds fix how many)
SUIT = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
RANK = {"en": {"A": "A", "T": "10", "K": "K", "Q": "Q", "J": "J", "9": "9"},
        "bg": {"A": "А", "T": "10", "K": "К", "Q": "Д", "J": "В", "9": "9"}}


def card_text(code: str, lang: str) -> str:
    return RANK[lang][code[0]] + SUIT[code[1]]


# ------------------------------------------------------------------------------------------------ the words
# Each phrase of the table that issue 35 names, as English and Bulgarian players read it: one list.
PHRASES: dict[str, tuple[str, str]] = {
    "your_turn": ("Your turn", "Вие сте на ход"),
    "you_cap": ("You", "Вие"),
    "who_host": ("Player 1", "Играч 1"),
    "who_guest": ("Player 2", "Играч 2"),
    "who_human": ("Player", "Играч"),
    "marry": ("Lead {card}, announce {points}", "Изиграйте {card}, обявете {points}"),
    "marry_plain": ("Lead {card} without announcing", "Изиграйте {card} без обява"),
    "marry_choice": ("Announce {value} as you lead {card}?", "Обявявате ли {value}, като играете {card}?"),
    "exchange": ("Give {low} for {card}", "Сменете деветката: {low} за {card}"),
    "exchange_J": ("Give {low} for {card}", "Сменете валето: {low} за {card}"),
    "close": ("Close the talon", "Затворете талона"),
    "declare": ("Declare 66 (you have {n})", "Обявете 66 (имате {n})"),
    "declare_low": ("Declare 66 (you have {n}: below 66 the opponent scores {gp})",
                    "Обявете 66 (имате {n}: под 66 противникът получава {gp})"),
    "confirm_declare_yes": ("Declare 66 anyway", "Обявете 66 въпреки това"),
    "confirm_close_yes": ("Close the talon", "Затворете талона"),
    "cancel": ("Cancel", "Отказ"),
    "play": ("Play {card}", "Изиграйте {card}"),
    "create_room": ("Create a room", "Създайте стая"),
    "join": ("Join", "Влезте"),
    "continue": ("Continue", "Продължете"),
    "deal_won": ("{name} won {gp} game points", "{name} спечели {gp} точки"),
    "deal_won_one_you": ("You won 1 game point", "Вие спечелихте 1 точка"),
    "why_reached-66": ("{name} reached 66", "{name} стигна 66"),
    "why_reached-66_you": ("you reached 66", "вие стигнахте 66"),
    "why_wrong-declaration_you": ("you declared 66 without having it", "вие обявихте 66, без да ги имате"),
    "ev_exchange": ("{name} gave {low} for {card}", "{name} смени {word} ({low}) и взе {card}"),
    "log": ("Game log", "Ход на играта"),
    "result_win": ("You won the match {a}–{b}.", "Вие спечелихте мача {a}–{b}."),
    "title_turn": ("● Your turn", "● Вие сте на ход"),
}
# What the reader of issue 35 found in the Bulgarian: never again, anywhere in the table's strings.
CALQUES = ("човек", "Ваш ред", "Обява К", "Смени коза", "за играта", "Защо:", "достигнати", "чакащи",
           "Какво стана", "домакин", "гост ")
# Informal imperatives ("ти" form) beside the formal ("Вие") ones the table uses: one form of address.
INFORMAL = ("Създай", "Влез", "Играй", "Изиграй", "Затвори", "Смени", "Продължи", "Подай", "Обяви", "Копирай",
            "Покажи", "Избери", "Дай")


def test_both_languages_say_the_table_as_one_list() -> None:
    assert set(_STRINGS["en"]) == set(_STRINGS["bg"])  # the same keys in both
    for key, (en, bg) in PHRASES.items():
        assert (strings("en")[key], strings("bg")[key]) == (en, bg), key
    for key, text in strings("bg").items():
        for calque in CALQUES:
            assert calque not in text, (key, calque, text)
        for word in INFORMAL:  # as a command: the word whole, not the start of "Обявете" or a noun's plural
            if key in ("marriages",):  # "Обяви": the noun (the marriages shown), not a command
                continue
            assert not re.search(rf"(?<!\w){word}(?!\w)", text), (key, word, text)
    assert phrase("bg", "deal_won", True, 1, gp=1) == "Вие спечелихте 1 точка"
    assert phrase("en", "why_wrong-declaration", True, name="x") == "you declared 66 without having it"


def test_the_rules_page_says_what_the_table_does() -> None:
    from arena.game.variants import SANTASE, SIXTY_SIX

    def text(r: Any, lang: str) -> str:
        return " ".join(s for _, ss in rules_sections(r, lang) for s in ss)

    # the marriage: the queen in Santase (the button "Lead Q…, announce"), either card in Sixty-Six
    assert "as you lead the queen" in text(SANTASE, "en") and "изиграва дамата" in text(SANTASE, "bg")
    assert "the king or the queen, as you choose (tap the card you lead)" in text(SIXTY_SIX, "en")
    # "2 game points (2 if …)": the same number is not said twice
    assert "(2 if" not in text(SIXTY_SIX, "en") and "(2, ако" not in text(SIXTY_SIX, "bg")
    # the follow rules: clauses apart, not a chain of commas
    assert "отговаряте на боята; надигравате, ако можете; слагате коз" in text(SANTASE, "bg")


def test_a_chosen_name_is_cleaned_and_limited() -> None:
    assert clean_nick("  Ana\x00 \u202eMaria\u200b  ") == "Ana Maria"
    assert clean_nick("\x07\u202e ") is None and clean_nick(None) is None
    assert len(clean_nick("Я" * 300) or "") == NICK_MAX


# ------------------------------------------------------------------------------------------------ the table
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("table-players"), "--set", "match_target=3", "--seed", "3535") as s:
        yield s


class Pages:
    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.errors: list[str] = []

    def page(self, width: int = 1024, height: int = 800, phone: bool = False, locale: str = "en-US") -> Any:
        extra = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2} if phone else {}
        context = self.browser.new_context(viewport={"width": width, "height": height}, locale=locale, **extra)
        context.set_default_timeout(20_000)
        page = context.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        return page


@pytest.fixture(scope="module")
def pages(server: Server) -> Iterator[Pages]:
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium (`make browser`)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield Pages(b)
        finally:
            b.close()


def bot_kinds(server: Server, name: str) -> dict[str, str]:
    """The database's bots (name: kind) once ``name`` is among them: the server records a game's players as
    it starts, a moment after the page has its seat (a look every 0.1 s, bounded at 20 s: a hang, not a wait)."""
    deadline = time.monotonic() + 20
    while True:
        with contextlib.closing(sqlite3.connect(server.db)) as db:
            kinds = dict(db.execute("SELECT name, kind FROM bots"))
        if name in kinds or time.monotonic() > deadline:
            return kinds
        time.sleep(0.1)


def version(page: Any) -> int:
    return int(page.get_attribute("#game", "data-version") or 0)


def quick(page: Any, server: Server, lang: str, variant: str = "sixty-six") -> None:
    page.goto(server.url + f"?lang={lang}")
    # the start page fits the screen: the levels' long names and descriptions included
    assert page.evaluate("document.documentElement.scrollWidth <= screen.width")
    page.select_option("#opponent", "random")
    page.select_option("#variant", variant)
    page.click("#quick-play")
    page.wait_for_url("**/room/*")


def my_turn(page: Any) -> bool:
    """Waits for the page's turn (True) or the match's end (False); a deal-end panel is closed by Escape."""
    while True:
        page.wait_for_selector("button[data-action], #result-box:not([hidden]), #deal-panel:not([hidden])")
        if page.is_visible("#deal-panel"):
            page.keyboard.press("Escape")
            continue
        return not page.is_visible("#result-box")


def tokens(page: Any) -> list[str]:
    return page.eval_on_selector_all("button[data-action]", "bs => bs.map(b => b.dataset.action)")


def label(page: Any, token: str) -> str:
    return page.inner_text(f'#actions button[data-action="{token}"]')


def play_plainly(page: Any) -> None:
    """A move that asks nothing: a card of the hand that starts no marriage (else one, led without it)."""
    legal = tokens(page)
    v = version(page)
    cards = [t[5:] for t in legal if t.startswith("play:")]
    plain = [c for c in cards if f"marry:{c}" not in legal]
    page.click(f'#hand button[data-action="play:{(plain or cards)[0]}"]')
    if not plain:
        page.click("#confirm-alt")
    page.wait_for_function("v => +document.getElementById('game').dataset.version > v", arg=v)


def touch_and_layout(page: Any, width: int) -> None:
    """Every visible button of the table at least 44×44 px; the score on one line; nothing wider than the screen."""
    small = page.evaluate("""() => [...document.querySelectorAll('#game button')].filter(b => b.getClientRects().length)
        .map(b => [b.id || b.dataset.action || b.textContent, b.getBoundingClientRect().width,
                   b.getBoundingClientRect().height])
        .filter(x => x[1] < 44 || x[2] < 44)""")
    assert not small, small
    score = page.evaluate("""() => [...document.querySelectorAll('#match-score .nowrap')]
        .map(s => [s.textContent, s.getClientRects().length, s.getBoundingClientRect().height])""")
    assert score and all(re.fullmatch(r"\d+–\d+", t) and rects == 1 for t, rects, _ in score), score
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.slow
@browser_only
@pytest.mark.parametrize(("lang", "width", "height"), [("en", 390, 844), ("bg", 360, 740)])
def test_declaring_below_66_asks_once_and_the_panels_close(server: Server, pages: Pages, lang: str, width: int,
                                                           height: int) -> None:
    t = strings(lang)
    page = pages.page(width, height, phone=True)
    quick(page, server, lang)
    assert my_turn(page)
    touch_and_layout(page, width)
    assert page.inner_text("#name-me") == t["you_cap"]
    assert page.title().startswith(t["title_turn"] + " — ")  # the turn, in the tab's title
    points = int(page.inner_text("#stat-me strong >> nth=0").split()[0])
    tricks = int(page.inner_text("#stat-me strong >> nth=1"))
    assert tricks == 0  # the first turn of the match: a declaration now gives the deal away
    assert label(page, "declare") == t["declare_no_trick"].format(n=points, gp=2)
    declare = page.locator('#actions button[data-action="declare"]')
    v = version(page)
    declare.tap()
    page.wait_for_selector("#confirm:not([hidden])")
    assert page.inner_text("#confirm-yes") == t["confirm_declare_yes"]
    assert page.evaluate("document.activeElement.id") == "confirm-no"  # the safe answer has the focus
    page.keyboard.press("Escape")  # Escape keeps playing
    assert page.is_hidden("#confirm")
    declare.tap()
    page.tap("#confirm-no")  # so does Cancel
    assert page.is_hidden("#confirm") and version(page) == v and page.locator("#deals li").count() == 0
    assert tokens(page)  # still this page's turn, nothing sent
    declare.tap()
    page.tap("#confirm-yes")  # the declaration, confirmed: the deal is the opponent's
    page.wait_for_selector("#deal-panel:not([hidden])")
    assert page.inner_text("#deal-why") == phrase(lang, "why_wrong-declaration", True).capitalize() if lang == "bg" \
        else page.inner_text("#deal-why") == "Why: " + phrase(lang, "why_wrong-declaration", True)
    if lang == "en":
        page.tap("#deal-close")  # the deal-end panel closes by its button …
    else:
        page.keyboard.press("Escape")  # … and by Escape
    assert page.is_hidden("#deal-panel")
    # the next deal: declared at once again, the match (first to 3) is the opponent's 4–0
    assert my_turn(page)
    page.locator('#actions button[data-action="declare"]').tap()
    page.tap("#confirm-yes")
    page.wait_for_selector("#result-box:not([hidden])")
    assert page.inner_text("#result") == t["result_loss"].format(name="random", a=4, b=0)
    assert page.evaluate("[...document.querySelectorAll('#result .nowrap')].map(s => s.getClientRects().length)") == [1]
    # the match-end panel closes (button and Escape), the deals and the log stay, and it opens again
    page.tap("#result-close")
    assert page.is_hidden("#result-box") and page.is_visible("#show-result")
    assert page.locator("#deals li").count() == 2 and page.is_visible("#deals")
    page.tap("details > summary")
    assert page.locator("#log li").count() >= 1 and page.is_visible("#log li >> nth=0")
    page.tap("#show-result")
    page.wait_for_selector("#result-box:not([hidden])")
    page.keyboard.press("Escape")
    assert page.is_hidden("#result-box")
    page.tap("#show-result")
    touch_and_layout(page, width)
    # the replay from the table speaks of deals, tricks and points: no seeds, pairs, seats or schedule
    page.wait_for_selector("#replay:not([hidden])")
    page.tap("#replay")
    page.wait_for_url("**/replay/sixty-six/match.html?from=play*")
    page.wait_for_selector("body[data-ready='1'] #r-hand0 .card")
    words = page.inner_text("body")
    jargon = (r"seed|pair|seat|partner|schedule|transcript|\binfo\b" if lang == "en"
              else r"семена|двойк|двойник|програмата|място|протокол|\binfo\b")
    assert not re.search(jargon, words, re.IGNORECASE), re.search(jargon, words, re.IGNORECASE)
    assert not pages.errors, pages.errors


@pytest.mark.slow
@browser_only
@pytest.mark.parametrize("lang", ["en", "bg"])
def test_buttons_name_their_cards_and_a_marriage_is_chosen_by_its_card(server: Server, pages: Pages,
                                                                       lang: str) -> None:
    t = strings(lang)
    page = pages.page()
    seen: dict[str, bool] = {"close": False, "marriage": False}
    games = 0
    while games < MAX_GAMES and not seen["marriage"]:
        games += 1
        quick(page, server, lang)
        while not seen["marriage"] and my_turn(page):
            legal = tokens(page)
            assert len(legal) == len(set(legal))
            labels = page.eval_on_selector_all("#actions button", "bs => bs.map(b => b.textContent)")
            assert len(labels) == len(set(labels)), labels  # no two buttons alike
            trump = page.get_attribute("#trump .card", "data-card")
            if "exchange" in legal and trump:
                assert label(page, "exchange") == t["exchange"].format(
                    low=card_text("9" + trump[1], lang), card=card_text(trump, lang))
            if "close" in legal and not seen["close"]:
                seen["close"] = True
                assert label(page, "close") == t["close"]
                v = version(page)
                page.click('#actions button[data-action="close"]')  # closing asks first
                page.wait_for_selector("#confirm:not([hidden])")
                assert page.inner_text("#confirm-text") == t["confirm_close"].format(gp=2)
                page.keyboard.press("Escape")
                assert page.is_hidden("#confirm") and version(page) == v
            kings = [x[6:] for x in legal if x.startswith("marry:K")]
            if kings:
                king = kings[0]
                queen = "Q" + king[1]
                assert f"marry:{queen}" in legal  # Sixty-Six: either card of the pair is led
                tricks = int(page.inner_text("#stat-me strong >> nth=1"))
                worth = 40 if king[1] == (trump or " ")[1:] else 20
                for c in (king, queen):
                    want = (t["marry"].format(card=card_text(c, lang), points=worth) if tricks else
                            t["marry_void"].format(card=card_text(c, lang), value=worth))
                    if tricks:
                        assert label(page, f"marry:{c}") == want
                    else:
                        assert label(page, f"marry:{c}").startswith(want.split(" (")[0])
                # the king, tapped: the page asks whether to announce, naming the card it leads
                page.click(f'#hand button[data-action="play:{king}"]')
                page.wait_for_selector("#confirm:not([hidden])")
                assert page.inner_text("#confirm-yes") == label(page, f"marry:{king}")
                asked = t["marry_choice"].format(value=worth, card=card_text(king, lang))
                assert page.inner_text("#confirm-text") == asked
                assert page.inner_text("#confirm-alt") == t["marry_plain"].format(card=card_text(king, lang))
                page.click("#confirm-yes")
                page.wait_for_selector(f'#table .played [data-card="{king}"], #last-trick [data-card="{king}"], '
                                       f'#deal-panel:not([hidden])', state="attached")
                page.evaluate("document.querySelector('details').open = true")
                page.wait_for_function("() => document.getElementById('log').textContent.length > 0")
                log = page.inner_text("#log")
                assert card_text(king, lang) in log, log
                seen["marriage"] = True
                break
            play_plainly(page)
    assert seen["marriage"] and seen["close"], (games, seen)
    assert not pages.errors, pages.errors


@browser_only
def test_players_by_name_you_for_oneself_and_the_link_until_the_start(server: Server, pages: Pages) -> None:
    host = pages.page()
    host.goto(server.url)
    host.fill("#nickname", "Ana")
    host.click("#create-room")
    host.wait_for_url("**/room/*")
    code = host.inner_text("#room-code")
    assert host.is_visible("#share") and host.is_visible("#copy-link")  # the link, with a copy button
    host.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url.rstrip("/"))
    host.click("#copy-link")
    host.wait_for_function("() => document.getElementById('copy-link').textContent === 'Copied'")
    assert host.evaluate("navigator.clipboard.readText()") == server.url + f"room/{code}"
    guest = pages.page(390, 844, phone=True)
    guest.goto(server.url + "?lang=bg")
    guest.fill("#nickname", "  Боби\u202e ")
    guest.fill("#join-code", code.lower())
    guest.tap("#join")
    guest.wait_for_url(f"**/room/{code}")
    host.wait_for_function("() => document.getElementById('name-them').textContent === 'Боби'")
    assert host.inner_text("#name-me") == "You"
    guest.wait_for_function("() => document.getElementById('name-them').textContent === 'Ana'")
    assert guest.inner_text("#name-me") == "Вие"
    watcher = pages.page()
    watcher.goto(server.url + f"room/{code}")
    watcher.wait_for_function("() => document.getElementById('name-me').textContent === 'Ana'")
    assert watcher.inner_text("#name-them") == "Боби"
    for page in (host, guest, watcher):  # the game started: the share line is gone for everyone
        page.wait_for_selector("#share", state="hidden")
    # the name is remembered in the browser
    again = guest.context.new_page()
    again.goto(server.url)
    assert again.input_value("#nickname").startswith("Боби")  # as typed (the server cleans it)
    again.close()
    # the players' names in the database, where "host" and "guest" were
    kinds = bot_kinds(server, "Ana")
    assert kinds.get("Ana") == "human" and kinds.get("Боби") == "human", kinds
    # the turn: the mover's tab says so and a tone sounds; switched off, it stays silent (kept in the browser)
    mover = host if host.locator("#hand button[data-action]").count() else guest
    mover.wait_for_function("() => +document.getElementById('game').dataset.beeps >= 1")
    assert mover.title().startswith("● ")
    mover.click("#sound")
    assert mover.get_attribute("#sound", "aria-pressed") == "false"
    mover.reload()
    mover.wait_for_selector("#hand button[data-action]")
    assert mover.get_attribute("#game", "data-beeps") is None and mover.title().startswith("● ")
    assert not pages.errors, pages.errors


@browser_only
def test_a_name_like_a_bots_is_kept_apart(server: Server, pages: Pages) -> None:
    page = pages.page()
    page.goto(server.url)
    page.fill("#nickname", "random")  # the opponent's name: the person's is made distinct
    page.select_option("#opponent", "random")
    page.select_option("#variant", "santase")
    page.click("#quick-play")
    page.wait_for_url("**/room/*")
    page.wait_for_function("() => document.getElementById('name-them').textContent === 'random'")
    assert page.inner_text("#name-me") == "You"
    kinds = bot_kinds(server, "random 2")
    assert kinds["random"] == "bot" and kinds["random 2"] == "human", kinds
