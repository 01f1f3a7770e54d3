"""`arena serve --ladder DB`: a real server on loopback over a real ladder; the upload form with and without
a valid token; the leaderboard and a bot's history in headless Chromium (Playwright)."""

from __future__ import annotations

import http.client
import itertools
import re
import shutil
import socket
import sqlite3
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import HANG_S
from test_ladder import new_ladder
from test_report_browser import ARGS, CHROMIUM
from test_serve import Server, spawn_server, stop_server

from arena.serve.ladder import MAX_UPLOAD_BYTES
from arena.store.ladder import LadderStore
from arena.tournament.ladder import RunOptions, new_token, run_ladder


@pytest.fixture(scope="module")
def ladder_server(tmp_path_factory: pytest.TempPathFactory, c_bots: Path) -> Iterator[tuple[Server, str]]:
    """The server of a ladder given by a relative path (`--ladder ../ladder.db`, resolved once as it starts:
    every upload admitted here is also a test of that), with an author quota of 1 MB."""
    tmp = tmp_path_factory.mktemp("ladder-serve")
    tmp.chmod(0o755)  # uploaded bots live beside the database and run as their own uid in the sandbox
    db = tmp / "ladder.db"
    new_ladder(db, ("random", f"{c_bots}/random 1"), ("greedy", f"{c_bots}/greedy"))
    run_ladder(db, RunOptions(pairs=3))
    with LadderStore(db) as store:
        token = new_token(store, "Ana")
    (tmp / "elsewhere").mkdir()
    server = spawn_server(db, tmp / "elsewhere", "serve", "--ladder", "../ladder.db", "--port", "0",
                          "--author-quota", "1M")
    try:
        yield server, token
    finally:
        stop_server(server)


def post(server: Server, fields: dict[str, str], token: str | None = None, path: str = "upload",
         source: str = "127.0.0.1") -> tuple[int, str]:
    """POST a url-encoded form, with ``Authorization: Bearer token`` when given, from the address ``source``
    (any of 127.0.0.0/8: each throttling test has an address of its own)."""
    headers = {"Origin": server.url.rstrip("/"), "Content-Type": "application/x-www-form-urlencoded"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return request(server, "POST", "/" + path, urllib.parse.urlencode(fields).encode(), headers, source)[:2]


def request(server: Server, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None,
            source: str = "127.0.0.1") -> tuple[int, str, http.client.HTTPResponse]:
    url = urllib.parse.urlsplit(server.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=HANG_S, source_address=(source, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read().decode(), response
    finally:
        conn.close()


def decided(server: Server, name: str) -> tuple[str, str]:
    """The status and reason of the version of ``name``, once its admission (in the server) ended."""
    deadline = time.monotonic() + HANG_S  # anti-hang only: admission takes seconds
    while time.monotonic() < deadline and server.proc.poll() is None:
        with sqlite3.connect(server.db) as conn:
            row = conn.execute("SELECT status, reason FROM ladder_versions WHERE program = ? AND status != 'pending'",
                               [name]).fetchone()
        if row is not None:
            return row
        time.sleep(0.2)
    raise AssertionError(f"{name} was never decided (server exit status {server.proc.poll()})")


def versions(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("SELECT program FROM ladder_versions")]


def upload_folders(server: Server, name: str) -> list[Path]:
    return sorted(Path(f"{server.db}.files").glob(f"{name}-*"))


def settled(server: Server, token: str) -> None:
    """Once the author's uploads are all through their admission, their folders kept or removed (their page
    lists nothing waiting)."""
    deadline = time.monotonic() + HANG_S  # anti-hang only
    while time.monotonic() < deadline:
        status, body, _ = request(server, "GET", "/mine", headers={"Authorization": f"Bearer {token}"})
        assert status == 200, body
        if re.search(r'<ul id="queue">\s*<li class="muted">', body):
            return
        time.sleep(0.1)
    raise AssertionError("the uploads were never all admitted")


def test_upload_registers_only_with_a_valid_token(ladder_server: tuple[Server, str], c_bots: Path) -> None:
    server, token = ladder_server
    command = f"{c_bots}/random 7"
    status, body = post(server, {"name": "sneaky", "command": command}, token="not-" + token, source="127.0.0.5")
    assert status == 403 and "not valid" in body
    status, body = post(server, {"name": "sneaky", "command": command, "token": token})  # a token in the form: no
    assert status == 403 and "Sign in" in body
    assert "sneaky" not in versions(server.db)
    program = (c_bots / "random").read_bytes()  # an upload brings its files: its command names nothing else

    def upload(name: str) -> tuple[int, str]:
        return post_parts(server, [form_part("name", name.encode()), form_part("command", b"./random 7"),
                                   form_part("files", program, "random")], token)

    status, body = upload("posted")
    assert status == 202 and "Received posted" in body
    assert decided(server, "posted") == ("admitted", "")
    with sqlite3.connect(server.db) as conn:
        (author,) = conn.execute("SELECT author FROM ladder_versions WHERE program = 'posted'").fetchone()
    assert author == "Ana"  # the token's author, not anything the form says
    # the very same program again: nothing new is played, the leaderboard says why, and nothing is kept
    status, _ = upload("again")
    assert status == 202
    state, reason = decided(server, "again")
    assert state == "refused" and re.fullmatch(r"this program is already on the ladder as posted\.\w+ \(admitted\)",
                                                reason), reason
    settled(server, token)
    assert upload_folders(server, "again") == []


def form_part(name: str, value: bytes, filename: str | None = None) -> bytes:
    """One part of a multipart/form-data body with the boundary B."""
    file = f'; filename="{filename}"\r\nContent-Type: application/octet-stream' if filename else ""
    return f'--B\r\nContent-Disposition: form-data; name="{name}"{file}\r\n\r\n'.encode() + value + b"\r\n"


def post_parts(server: Server, parts: Iterable[bytes], token: str) -> tuple[int, str]:
    """POST a multipart form with ``Authorization: Bearer token``, sent chunked (no Content-Length), as the
    parts come."""
    url = urllib.parse.urlsplit(server.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=HANG_S)
    try:
        try:
            conn.request("POST", "/upload", body=itertools.chain(parts, [b"--B--\r\n"]), encode_chunked=True,
                         headers={"Origin": server.url.rstrip("/"), "Content-Type": "multipart/form-data; boundary=B",
                                  "Authorization": f"Bearer {token}"})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed while the rest of the body was still being sent
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def test_an_uploaded_bot_runs_in_its_own_folder(ladder_server: tuple[Server, str], c_bots: Path) -> None:
    """Its files are read by relative paths, as a bot reads its opening book or weights."""
    server, token = ladder_server
    run = b"#!/bin/sh\nread -r seed < book.txt || exit 3\nexec ./random \"$seed\"\n"
    status, body = post_parts(server, [
        form_part("name", b"booked"), form_part("command", b"./run.sh"),
        form_part("files", run, "run.sh"), form_part("files", (c_bots / "random").read_bytes(), "random"),
        form_part("files", b"5\n", "book.txt")], token)
    assert status == 202, body
    assert decided(server, "booked") == ("admitted", "")


def test_an_upload_over_the_limit_is_refused_even_without_a_length(ladder_server: tuple[Server, str]) -> None:
    """A chunked body has no Content-Length to check: the server counts the bytes as they come, and stops."""
    server, token = ladder_server
    block = b"a" * (1024 * 1024)
    head = form_part("name", b"huge")
    file_head = b'--B\r\nContent-Disposition: form-data; name="files"; filename="bot"\r\n\r\n'
    status, body = post_parts(server, itertools.chain([head, file_head],
                                                      itertools.repeat(block, MAX_UPLOAD_BYTES // len(block) + 2),
                                                      [b"\r\n"]), token)
    assert status == 413 and "more than 20 MB" in body
    assert "huge" not in versions(server.db)


#: an init script: every Content-Security-Policy violation of every page, reported to the test (window.__csp)
CSP_LISTENER = """document.addEventListener('securitypolicyviolation', e => window.__csp(
  e.violatedDirective + ' ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber));"""


def watch_csp(page: Any, violations: list[str], errors: list[str]) -> None:
    """Collect ``page``'s CSP violations (a listener on every document) and its errors and console errors
    (Chromium says "Refused to ..." there for each violation too)."""
    page.expose_function("__csp", lambda text: violations.append(text))
    page.add_init_script(CSP_LISTENER)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)


sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: install Debian's chromium (`make browser`)")
def test_chromium_shows_the_leaderboard_a_history_and_uploads_a_file(
        ladder_server: tuple[Server, str], c_bots: Path, tmp_path: Path) -> None:
    server, token = ladder_server
    upload = tmp_path / "mybot"
    shutil.copy(c_bots / "random", upload)  # with its own seed: another program than the ladder's random
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page: Any = browser.new_page()
            page.set_default_timeout(20_000)
            errors: list[str] = []
            violations: list[str] = []
            watch_csp(page, violations, errors)
            page.goto(server.url)
            rows = page.locator("#leaderboard tbody tr")
            assert rows.count() >= 2
            text = page.inner_text("#leaderboard")
            assert "greedy" in text and "random" in text and "?" in text  # provisional after three pairs
            page.click("#leaderboard a:text('greedy')")
            page.wait_for_url("**/bot/greedy.*")
            assert page.locator("#history svg path.rating").count() == 1
            assert page.locator("#history svg polygon.interval").count() == 1
            assert page.locator("#recent li").count() == 6  # three pairs of two matches
            page.click("#recent li a >> nth=0")
            page.wait_for_url("**/replay/match.html#*")
            page.wait_for_selector("body[data-ready]", state="attached")  # report.js loaded the match's data
            page.click("#r-next")  # the replay steps under the report's policy
            assert page.get_attribute("#replay", "data-step") == "1"
            page.click("header.site a.home")  # the viewer's way home: the leaderboard, not a report
            page.wait_for_url(server.url)
            assert "Seed" not in page.inner_text("body")  # the ladder runs: its seed is nobody's to see

            page.goto(server.url + "upload")  # signed out: the sign-in form
            page.fill("#signin input[name=token]", token)
            page.click("#signin button[type=submit]")
            page.wait_for_selector("#upload")
            page.fill("input[name=name]", "filed")
            page.set_input_files("input[name=files]", str(upload))
            page.fill("input[name=command]", "./mybot 9")
            page.click("#upload button[type=submit]")
            assert "Received filed" in page.inner_text("#message")
            page.click("#mine-link")
            page.wait_for_url("**/mine")
            assert "filed" in page.inner_text("#main")
            assert errors == [] and violations == []
        finally:
            browser.close()
    assert decided(server, "filed") == ("admitted", "")
    assert (Path(f"{server.db}.files").glob("filed-*/mybot"))


def _rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status)[1])  # type: ignore[index]


def _answer_before_body(server: Server, headers: dict[str, str], source: str) -> str:
    """Send a POST /upload's head announcing a 20 MB body and not one byte of it: the server must answer (and
    say it closes) without waiting for the body. The status line and headers it sent."""
    url = urllib.parse.urlsplit(server.url)
    head = "".join(f"{k}: {v}\r\n" for k, v in {
        "Host": url.netloc, "Origin": server.url.rstrip("/"), "Content-Type": "multipart/form-data; boundary=B",
        "Content-Length": str(MAX_UPLOAD_BYTES), **headers}.items())
    with socket.create_connection((url.hostname, url.port), timeout=10, source_address=(source, 0)) as conn:
        conn.sendall(f"POST /upload HTTP/1.1\r\n{head}\r\n".encode())
        answer = b""
        while b"\r\n\r\n" not in answer:  # (a timeout here: the server waited for the body)
            chunk = conn.recv(65536)
            assert chunk, answer
            answer += chunk
    return answer.decode("latin-1")


def test_a_wrong_token_is_answered_before_the_body_is_read(ladder_server: tuple[Server, str]) -> None:
    server, _ = ladder_server
    for headers in ({"Authorization": "Bearer wrong"}, {}, {"Cookie": "ladder_session=forged"}):
        answer = _answer_before_body(server, headers, "127.0.0.6")
        assert answer.startswith("HTTP/1.1 403"), answer
    # and whatever the body: twelve 20 MB posts with a wrong token cost the server next to no memory
    url = urllib.parse.urlsplit(server.url)
    before = _rss_kb(server.proc.pid)
    for i in range(12):  # (each from an address of its own: none is held back)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30, source_address=(f"127.0.1.{i}", 0))
        try:
            try:
                conn.request("POST", "/upload", body=b"x" * MAX_UPLOAD_BYTES, headers={
                    "Origin": server.url.rstrip("/"), "Content-Type": "multipart/form-data; boundary=B",
                    "Authorization": f"Bearer wrong-{i}"})
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server answered and closed while the body was still being sent
            try:
                assert conn.getresponse().status == 403
            except (ConnectionResetError, http.client.RemoteDisconnected):
                pass  # the answer was lost to the reset of the unread body: the server never read it
        finally:
            conn.close()
    grown = _rss_kb(server.proc.pid) - before
    print(f"RSS {before} kB before twelve 20 MB posts with a wrong token, grown by {grown} kB")
    assert grown < 20 * 1024, grown
    status, _, _ = request(server, "GET", "/")
    assert status == 200


def test_repeated_wrong_tokens_from_one_address_are_answered_429(ladder_server: tuple[Server, str]) -> None:
    server, token = ladder_server
    for _ in range(5):  # FAILURES_ALLOWED
        status, _ = post(server, {"token": "wrong"}, path="signin", source="127.0.0.7")
        assert status == 403
    for attempt in ({"path": "signin", "fields": {"token": token}}, {"path": "upload", "fields": {}, "token": token}):
        status, body, response = request(server, "POST", "/" + str(attempt["path"]),
                                          urllib.parse.urlencode(attempt["fields"]).encode(),  # type: ignore[arg-type]
                                          {"Origin": server.url.rstrip("/"), "Authorization": f"Bearer {token}",
                                           "Content-Type": "application/x-www-form-urlencoded"}, "127.0.0.7")
        assert status == 429 and "Too many wrong tokens" in body  # even a good token: none is checked now
        assert 1 <= int(response.headers["Retry-After"]) <= 900
    status, _ = post(server, {"name": "elsewhere", "command": "./x"}, token="wrong", source="127.0.0.8")
    assert status == 403  # another address is not held back


def sign_in(server: Server, token: str) -> str:
    """The session cookie (name=value) a sign-in sets; its attributes checked."""
    form = {"Origin": server.url.rstrip("/"), "Content-Type": "application/x-www-form-urlencoded"}
    status, _, response = request(server, "POST", "/signin", urllib.parse.urlencode({"token": token}).encode(), form)
    assert status == 303 and response.headers["Location"] == "/upload"
    cookie = response.headers["Set-Cookie"]
    attributes = {a.strip().lower() for a in cookie.split(";")}
    assert "httponly" in attributes and "samesite=strict" in attributes and "path=/" in attributes, cookie
    return cookie.split(";")[0]


def test_a_session_works_until_its_token_is_revoked(ladder_server: tuple[Server, str], c_bots: Path) -> None:
    server, _ = ladder_server
    with LadderStore(server.db) as store:
        token = new_token(store, "Rev")
    cookie = sign_in(server, token)
    status, body, _ = request(server, "GET", "/upload", headers={"Cookie": cookie})
    assert status == 200 and "Signed in as Rev" in body and 'id="upload"' in body
    status, body, _ = request(server, "GET", "/mine", headers={"Cookie": cookie})
    assert status == 200 and "Signed in as Rev" in body
    status, _, _ = request(server, "POST", "/signin", b"token=" + b"a" * 5000,  # a sign-in is a small form
                           {"Origin": server.url.rstrip("/"), "Content-Type": "application/x-www-form-urlencoded"})
    assert status == 400
    with LadderStore(server.db) as store:  # what `arena ladder DB token --revoke Rev` does
        assert store.revoke_tokens("Rev") == 1
    headers = {"Cookie": cookie, "Origin": server.url.rstrip("/"), "Content-Type": "application/x-www-form-urlencoded"}
    status, body, _ = request(server, "POST", "/upload", urllib.parse.urlencode(
        {"name": "revoked", "command": f"{c_bots}/random 8"}).encode(), headers)
    assert status == 403 and "Sign in" in body
    status, _, _ = request(server, "GET", "/mine", headers={"Cookie": cookie})
    assert status == 403
    status, _ = post(server, {"name": "revoked", "command": f"{c_bots}/random 8"}, token=token, source="127.0.0.9")
    assert status == 403
    assert "revoked" not in versions(server.db)


def test_sign_out_ends_the_session(ladder_server: tuple[Server, str]) -> None:
    server, token = ladder_server
    cookie = sign_in(server, token)
    status, _, response = request(server, "POST", "/signout", b"", {"Cookie": cookie, "Origin": server.url.rstrip("/")})
    assert status == 303 and 'ladder_session=""' in response.headers["Set-Cookie"]
    status, _, _ = request(server, "GET", "/mine", headers={"Cookie": cookie})  # the old cookie, kept by a script
    assert status == 403
    status, _, _ = request(server, "POST", "/signout", b"", {"Cookie": cookie, "Origin": "http://elsewhere.example"})
    assert status == 403


def test_a_refused_upload_leaves_no_folder(ladder_server: tuple[Server, str]) -> None:
    server, token = ladder_server
    status, body = post_parts(server, [form_part("name", b"crashy"), form_part("command", b"./crash.sh"),
                                       form_part("files", b"#!/bin/sh\nexit 3\n", "crash.sh")], token)
    assert status == 202, body
    state, reason = decided(server, "crashy")
    assert state == "refused" and reason.startswith("arena check"), reason
    status, body = post_parts(server, [form_part("name", b"unbuilt"), form_part("command", b"./bot"),
                                       form_part("build", b"exit 7"), form_part("files", b"x", "bot.c")], token)
    assert status == 202, body
    assert decided(server, "unbuilt")[0] == "refused"
    settled(server, token)
    assert upload_folders(server, "crashy") == [] and upload_folders(server, "unbuilt") == []
    assert upload_folders(server, "booked") or upload_folders(server, "posted") == []  # (admitted ones stay)


def test_an_upload_over_the_authors_quota_is_refused_before_its_files_are_kept(
        ladder_server: tuple[Server, str]) -> None:
    server, _ = ladder_server  # --author-quota 1M
    with LadderStore(server.db) as store:
        token = new_token(store, "Quinn")
    status, body = post_parts(server, [form_part("name", b"heavy"), form_part("command", b"./bot"),
                                       form_part("files", b"\0" * (1024 * 1024 + 1), "bot")], token)
    assert status == 413 and "take 0 KB of your 1.0 MB" in body, body
    assert upload_folders(server, "heavy") == [] and "heavy" not in versions(server.db)


def test_every_response_carries_the_security_headers(ladder_server: tuple[Server, str]) -> None:
    server, token = ladder_server
    url = urllib.parse.urlsplit(server.url)
    cookie = sign_in(server, token)
    seen = {}
    for method, path, headers in [
            ("GET", "/", {}), ("GET", "/upload", {}), ("GET", "/upload", {"Cookie": cookie}),
            ("GET", "/mine", {"Cookie": cookie}), ("GET", "/mine", {}), ("GET", "/bot/nobody", {}),
            ("GET", "/rules/santase", {}), ("GET", "/static/report.css", {}), ("GET", "/replay/index.html", {}),
            ("GET", "/replay/match.html", {}), ("GET", "/replay/static/report.js", {}), ("GET", "/nowhere", {}),
            ("POST", "/upload", {"Origin": "http://elsewhere.example"}), ("GET", "/", {"Host": "evil.example"}),
            ("GET", "/favicon.ico", {})]:
        status, body, response = request(server, method, path, b"" if method == "POST" else None,
                                         {"Host": url.netloc, **headers})
        policy = response.headers["Content-Security-Policy"]
        for directive in ("default-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'",
                          "form-action 'self'"):
            assert directive in policy, (path, policy)
        assert "http" not in policy and "*" not in policy, policy  # no origin but the server's own
        assert response.headers["X-Content-Type-Options"] == "nosniff", path
        assert response.headers["Referrer-Policy"] == "same-origin", path
        seen[(path, status)] = policy
        with LadderStore(server.db) as store:
            seed = store.ladder_settings()[2]
        assert "<dt>Seed</dt>" not in body and f">{seed}<" not in body, path  # the ladder runs: its seed is secret
    assert seen[("/", 421)] and seen[("/nowhere", 404)] and seen[("/replay/index.html", 303)]
    assert "unsafe" not in seen[("/", 200)] and "unsafe" not in seen[("/upload", 200)]
    assert "'unsafe-inline'" in seen[("/replay/match.html", 200)]  # the report's style attributes, there only


def test_a_ladders_report_leaves_its_seed_out(ladder_server: tuple[Server, str], tmp_path: Path) -> None:
    """`arena report` on a ladder (to publish it, say) shows everything but the seed, which every rated deal
    derives from."""
    server, _ = ladder_server
    from arena.report import render_report
    from arena.store import Store

    with Store.open_existing(server.db) as store:
        index = render_report(store, tmp_path / "report", workers=1).read_text()
        seed = store.tournament_info().seed
    assert "<dt>Variant</dt>" in index and "<dt>Seed</dt>" not in index and f">{seed}<" not in index


def test_a_hostile_upload_through_the_server(ladder_server: tuple[Server, str], c_bots: Path) -> None:
    """The holes of a public ladder, tried through the real server by a second author (the measures
    themselves are switched off one by one in tests/test_ladder_hostile.py): a command naming the database,
    and a name that is another author's. The leaderboard says little; only the author's page says more."""
    server, ana = ladder_server
    with LadderStore(server.db) as store:
        eve = new_token(store, "Eve")
    program = (c_bots / "random").read_bytes()

    def upload(name: str, command: str, token: str) -> int:
        return post_parts(server, [form_part("name", name.encode()), form_part("command", command.encode()),
                                   form_part("files", program, "random")], token)[0]

    assert upload("mine", "./random 11", ana) == 202
    assert decided(server, "mine") == ("admitted", "")
    assert upload("mine", "./random 12", eve) == 202  # Ana's name
    assert upload("peek", f"sh -c 'cat \"$0\"' {server.db}", eve) == 202  # the database, named
    settled(server, eve)
    with sqlite3.connect(server.db) as conn:
        rows = conn.execute("SELECT program, status, reason FROM ladder_versions WHERE author = 'Eve'").fetchall()
        seed = str(conn.execute("SELECT seed FROM tournaments").fetchone()[0])
    assert sorted(rows) == [("mine", "refused", "the name mine belongs to another author; choose a name of your own"),
                            ("peek", "refused", "its command names a path outside its own folder")]
    _, board, _ = request(server, "GET", "/")
    assert "outside its own folder" in board and str(server.db) not in board and f">{seed}<" not in board
    _, hers, _ = request(server, "GET", "/mine", headers={"Authorization": f"Bearer {eve}"})
    assert str(server.db) in hers  # the word at fault, for its author
    _, his, _ = request(server, "GET", "/mine", headers={"Authorization": f"Bearer {ana}"})
    assert "peek" not in his and f"{server.db}.files" not in his  # nor the server's folders, in her own
    assert upload_folders(server, "peek") == []


def test_a_replay_reads_its_own_match_only(ladder_server: tuple[Server, str]) -> None:
    """A replay was a render of the whole report (13-70 s a request on a busy ladder); now it reads its match,
    its twin and its deals, whatever else the database holds."""
    server, _ = ladder_server
    from arena.report import match_data_file
    from arena.report.context import file_name, read_match_data

    with LadderStore(server.db) as store:
        match_id = store.db.execute("SELECT id FROM matches WHERE status = 'done' ORDER BY ord LIMIT 1").fetchone()[0]
        statements: list[str] = []
        store.db.conn.set_trace_callback(statements.append)
        match_data_file(store, match_id)
        store.db.conn.set_trace_callback(None)
    reads = [s for s in statements if re.search(r"\bFROM (matches|deals|seats|terminations)\b", s)]
    assert reads and all(match_id in s or match_id[:-1] in s for s in reads), reads
    status, body, _ = request(server, "GET", f"/replay/data/{file_name(match_id)}.js")
    assert status == 200 and read_match_data(body)[1]["id"] == match_id
    status, _, response = request(server, "GET", "/replay/index.html")
    assert status == 303 and response.headers["Location"] == "/"
    assert not list(Path(f"{server.db}.report").glob("**/*.js"))  # no report was rendered
