"""`arena serve --ladder`'s upload queue and author pages, through a real HTTP server on loopback run in this
process (hypercorn on trio in a thread) over a LadderSite whose admission function the test controls: the
queue's order and positions are then deterministic, with no sleep and no bot to build."""

from __future__ import annotations

import contextlib
import functools
import http.client
import queue
import re
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import HANG_S
from test_ladder import lad_init

import arena.serve.ladder as ladder_site
from arena.serve.app import secured, unread_released
from arena.serve.ladder import LadderSite, build_ladder_app
from arena.store.ladder import LadderStore, data_folder
from arena.tournament.ladder import Added, new_token


@contextlib.contextmanager
def serving(db: Path, admit: Any, admissions: int = 1) -> Iterator[tuple[str, LadderSite]]:
    """A ladder server on a free port of 127.0.0.1 with ``admit`` as its admission function; its URL."""
    from hypercorn.config import Config
    from hypercorn.trio import serve

    ready: queue.Queue[Any] = queue.Queue()
    site = LadderSite(db, "none", admissions=admissions, admit=admit)

    async def main() -> None:
        config = Config()
        config.bind = ["127.0.0.1:0"]
        config.accesslog = config.errorlog = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(site.admissions)
            binds = await nursery.start(functools.partial(
                serve, secured(unread_released(build_ladder_app(site))), config))  # type: ignore[arg-type]
            ready.put((binds[0], trio.lowlevel.current_trio_token(), nursery.cancel_scope))

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    url, token, scope = ready.get(timeout=60)
    try:
        yield url, site
    finally:
        trio.from_thread.run_sync(scope.cancel, trio_token=token)
        thread.join(HANG_S)


def call(url: str, method: str, path: str, token: str, body: bytes | None = None,
         content_type: str = "") -> tuple[int, str]:
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=HANG_S)
    headers = {"Authorization": f"Bearer {token}", "Origin": url}
    if content_type:
        headers["Content-Type"] = content_type
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def upload(url: str, token: str, name: str, files: dict[str, bytes] | None = None) -> tuple[int, str]:
    body = f'--B\r\nContent-Disposition: form-data; name="name"\r\n\r\n{name}\r\n'.encode()
    body += b'--B\r\nContent-Disposition: form-data; name="command"\r\n\r\n./run\r\n'
    for filename, data in (files or {"bot.sh": b"#!/bin/sh\n"}).items():
        body += (f'--B\r\nContent-Disposition: form-data; name="files"; filename="{filename}"\r\n'
                 f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    return call(url, "POST", "/upload", token, body + b"--B--\r\n", "multipart/form-data; boundary=B")


@pytest.fixture
def ladder(tmp_path: Path) -> tuple[Path, str, str]:
    db = lad_init(tmp_path / "l.db")
    with LadderStore(db) as store:
        return db, new_token(store, "Ana"), new_token(store, "Bo")


def test_uploads_are_admitted_one_at_a_time_and_the_author_sees_the_queue(ladder: tuple[Path, str, str]) -> None:
    db, ana, bo = ladder
    started = {name: threading.Event() for name in ("first", "second", "third")}
    release = {name: threading.Event() for name in started}
    log: list[str] = []

    def admit(store: LadderStore, name: str, command: str, build: str | None, author: str, folder: Path,
              sandbox: str | None) -> Added:
        log.append(f"start {name}")
        started[name].set()
        assert release[name].wait(HANG_S)
        log.append(f"end {name}")
        key = store.record_refusal(name, author, command, "refused on purpose", f"the detail of {name}")
        return Added(key, "refused", "refused on purpose")

    with serving(db, admit) as (url, site):
        try:
            assert upload(url, ana, "first")[0] == 202
            assert started["first"].wait(HANG_S)  # the one worker took it
            status, body = upload(url, ana, "second")
            assert status == 202 and "number 1 in the queue" in body
            assert upload(url, bo, "third")[0] == 202
            status, mine = call(url, "GET", "/mine", ana)
            assert status == 200
            queued = re.findall(r'<li data-upload="\d+" data-state="(\w+)">(\w+): ([^<]*)</li>', mine)
            assert queued == [("admitting", "first", "being built and checked now"),
                              ("queued", "second", "queued, number 1 of 2")], mine
            assert "third" not in mine  # Bo's upload: not on Ana's page
            _, theirs = call(url, "GET", "/mine", bo)
            assert "queued, number 2 of 2" in theirs
            assert not started["second"].is_set()  # --admissions 1: the second waits for the first
            release["first"].set()
            assert started["second"].wait(HANG_S)
            release["second"].set()
            assert started["third"].wait(HANG_S)
        finally:
            for event in release.values():
                event.set()
    assert log == ["start first", "end first", "start second", "end second", "start third", "end third"]
    assert list(data_folder(db).iterdir()) == []  # refused: no folder left


def test_an_author_sees_their_own_detail_and_nobody_elses(ladder: tuple[Path, str, str]) -> None:
    db, ana, bo = ladder
    done = threading.Semaphore(0)

    def admit(store: LadderStore, name: str, command: str, build: str | None, author: str, folder: Path,
              sandbox: str | None) -> Added:
        detail = f"cc: error in {name} of {author}\x1b[2J\u202e<script>alert(1)</script>"
        key = store.record_refusal(name, author, command, f"the build of {name} failed", detail)
        done.release()
        return Added(key, "refused", "the build failed")

    with serving(db, admit) as (url, _):
        assert upload(url, ana, "anas")[0] == 202
        assert upload(url, bo, "bos")[0] == 202
        assert done.acquire(timeout=HANG_S) and done.acquire(timeout=HANG_S)
        _, mine = call(url, "GET", "/mine", ana)
        assert "cc: error in anas of Ana" in mine and "the build of anas failed" in mine
        assert "bos" not in mine and "of Bo" not in mine
        assert "\x1b" not in mine and "\u202e" not in mine and "<script>alert" not in mine
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in mine  # escaped, shown as text
        _, board = call(url, "GET", "/", ana)  # the public leaderboard: the reasons only
        assert "the build of anas failed" in board and "cc: error" not in board
        _, page = call(url, "GET", "/bot/" + re.search(r'data-key="(anas[^"]+)"', mine)[1], bo)  # type: ignore[index]
        assert "cc: error" not in page


def test_files_that_cannot_all_be_kept_leave_no_folder(ladder: tuple[Path, str, str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    db, ana, _ = ladder
    keep = ladder_site._keep

    def half_kept(folder: Path, files: Any) -> None:
        keep(folder, files[:1])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ladder_site, "_keep", half_kept)
    with serving(db, lambda *args: pytest.fail("nothing to admit")) as (url, _):
        status, body = upload(url, ana, "half", {"a.sh": b"a", "b.sh": b"b"})
    assert status == 500 and "cannot keep the files (No space left on device)" in body
    assert list(data_folder(db).iterdir()) == []


def test_the_quota_counts_the_queue_and_kept_versions(ladder: tuple[Path, str, str]) -> None:
    db, ana, bo = ladder
    release = threading.Event()

    def admit(store: LadderStore, name: str, command: str, build: str | None, author: str, folder: Path,
              sandbox: str | None) -> Added:
        assert release.wait(HANG_S)
        return Added("x", "refused", "")

    with serving(db, admit) as (url, site):
        site.author_quota = 100_000
        try:
            assert upload(url, ana, "big", {"bot": b"\0" * 60_000})[0] == 202  # being admitted
            status, body = upload(url, ana, "more", {"bot": b"\1" * 60_000})
            assert status == 413 and "take 59 KB of your 98 KB" in body, body
            assert upload(url, bo, "bos", {"bot": b"\0" * 60_000})[0] == 202  # another author's own quota
        finally:
            release.set()


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="no /usr/bin/chromium (`make browser`)")
def test_the_play_page_and_its_replay_work_under_the_policy(tmp_path: Path) -> None:
    """The table of `arena serve` (Quick Play, a few moves) and the replay it links to, in Chromium, with a
    listener for Content-Security-Policy violations on every page: none, and no console error."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from test_ladder_serve import watch_csp
    from test_report_browser import ARGS, CHROMIUM
    from test_serve import start_server, stop_server

    server = start_server(tmp_path, "--set", "match_target=1")
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            try:
                page = browser.new_page()
                page.set_default_timeout(20_000)
                violations: list[str] = []
                errors: list[str] = []
                watch_csp(page, violations, errors)
                page.goto(server.url)
                page.select_option("#opponent", "random")
                page.click("#quick-play")
                page.wait_for_url("**/room/*")
                for _ in range(3):  # the page's script draws the table and plays the moves
                    page.wait_for_selector("#hand button[data-action]")
                    page.click("#hand button[data-action] >> nth=0")
                    if page.is_visible("#confirm"):  # a card of a marriage asks whether to announce it
                        page.click("#confirm-alt")
                page.wait_for_selector("#log li", state="attached")
                assert page.locator("#hand .card, #hand button").count() > 0
                page.goto(server.url + "rules/santase")
                page.goto(server.url + "replay/santase/index.html")  # none finished yet: a 404 page, headers still
                errors[:] = [e for e in errors if "status of 404" not in e]
                assert violations == [] and errors == [], (violations, errors)
            finally:
                browser.close()
    finally:
        stop_server(server)
