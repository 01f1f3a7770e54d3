"""`arena serve` at the protocol level: a real server process on loopback, real bots, real WebSockets.

A whole quick-play match recorded and rendered by `arena report`; hostile messages (malformed, oversized,
unknown, illegal, out of turn, from a spectator, with a forged seat token, from another origin) answered
with an error and no change; a reloading player gets the seat back, a player who leaves forfeits with a named
termination after the leave timeout; a spectator sees no hand; `--watch` pushes an event when a game lands.
"""

from __future__ import annotations

import contextlib
import functools
import http.cookiejar
import json
import os
import re
import socket
import sqlite3
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import ARENA
from trio_websocket import open_websocket_url

from arena.referee.sandbox import bwrap_problem
from arena.report.context import read_match_data

LEAVE_S = 3


@dataclass
class Server:
    url: str
    db: Path
    proc: subprocess.Popen[str]
    first_line: str = ""

    @property
    def port(self) -> int:
        return int(self.url.rstrip("/").rsplit(":", 1)[1])


def start_server(tmp: Path, *extra: str) -> Server:
    """`arena serve` on a free port of 127.0.0.1 (the default registry: the house levels and random), its URL read
    from the line it prints."""
    db = tmp / "games.db"
    return spawn_server(db, tmp, "serve", "--port", "0", "--db", str(db), "--sandbox", "none", "--leave-timeout",
                        f"{LEAVE_S}s", "--seed", "2026", *extra)


def spawn_server(db: Path, cwd: Path, *args: str) -> Server:
    """`arena ARGS` (a command that serves), its URL read from the first line it prints; ``db`` the database
    the test reads."""
    proc = subprocess.Popen([*ARENA, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"(http://\S+/)", line)
    if m is None:
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"arena {' '.join(args[:2])} did not start: {line!r} {err}")
    server = Server(m.group(1), db, proc)
    server.first_line = line
    return server


def stop_server(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=20)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
        for stream in (server.proc.stdout, server.proc.stderr):
            if stream is not None:
                stream.close()


@contextlib.contextmanager
def serving(folder: Path, *args: str) -> Iterator[Server]:
    """A server for a module's tests (a module-scoped fixture yields it), stopped at the end."""
    s = start_server(folder, *args)
    try:
        yield s
    finally:
        stop_server(s)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("serve"), "--set", "match_target=1") as s:
        yield s


class Browser:
    """A visitor with its own cookies (its seat tokens), speaking HTTP like a page does."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def post(self, path: str, data: str, origin: str | None = None) -> tuple[int, str]:
        req = urllib.request.Request(self.server.url.rstrip("/") + path, data=data.encode(),
                                     headers={"Origin": origin or self.server.url.rstrip("/")})
        try:
            with self.opener.open(req, timeout=30) as r:
                return r.status, r.url
        except urllib.error.HTTPError as e:
            e.close()
            return e.code, ""

    def get(self, path: str) -> tuple[int, str]:
        try:
            with self.opener.open(self.server.url.rstrip("/") + path, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            body = e.read().decode()
            e.close()
            return e.code, body

    def quick(self, opponent: str = "random") -> str:
        status, url = self.post("/quick", f"opponent={opponent}&variant=santase")
        assert status == 200 and "/room/" in url
        return url.rsplit("/", 1)[1]

    def cookie(self, **forged: str) -> str:
        pairs = {c.name: c.value for c in self.jar}
        pairs.update(forged)
        return "; ".join(f"{k}={v}" for k, v in pairs.items())


class Socket:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.states: list[dict[str, Any]] = []

    async def next(self) -> dict[str, Any]:
        with trio.fail_after(60):
            m: dict[str, Any] = json.loads(await self.ws.get_message())
        if m["type"] == "state":
            self.states.append(m)
        return m

    async def state_where(self, test: Any) -> dict[str, Any]:
        while True:
            m = await self.next()
            if m["type"] == "state" and test(m):
                return m

    async def send(self, data: Any) -> None:
        await self.ws.send_message(data if isinstance(data, str | bytes) else json.dumps(data))

    async def error(self) -> dict[str, Any]:
        """The next error message (states that arrive meanwhile are kept)."""
        while True:
            m = await self.next()
            if m["type"] == "error":
                return m


def connect(server: Server, code: str, cookie: str, origin: str | None = None) -> Any:
    return open_websocket_url(f"ws://127.0.0.1:{server.port}/ws/{code}",
                              extra_headers=[("Cookie", cookie), ("Origin", origin or server.url.rstrip("/"))])


async def upgrade_status(server: Server, code: str, cookie: str, origin: str) -> int:
    """The HTTP status a WebSocket upgrade request gets (a page of another site would send its Origin)."""
    stream = await trio.open_tcp_stream("127.0.0.1", server.port)
    async with stream:
        await stream.send_all(
            f"GET /ws/{code} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {origin}\r\nCookie: {cookie}\r\n\r\n".encode())
        head = b""
        with trio.fail_after(30):
            while b"\r\n" not in head:
                head += await stream.receive_some(1024)
    return int(head.split(b" ")[1])


async def hammer(server: Server, code: str, cookie: str, messages: int = 60) -> int | None:
    """Send ``messages`` garbage frames on a raw WebSocket; the close code the server answers with, if any."""
    stream = await trio.open_tcp_stream("127.0.0.1", server.port)
    async with stream:
        await stream.send_all(
            f"GET /ws/{code} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            f"Cookie: {cookie}\r\n\r\n".encode())
        data = b""
        with trio.fail_after(60):
            while b"\r\n\r\n" not in data:  # the 101 answer first: frames sent before it are a bad handshake
                chunk = await stream.receive_some(65536)
                assert chunk, data
                data += chunk
        assert data.startswith(b"HTTP/1.1 101"), data
        frame = b"\x81\x87\x00\x00\x00\x00garbage"  # a masked text frame (a zero mask leaves the text as is)
        await stream.send_all(frame * messages)
        with trio.fail_after(60):
            while True:
                chunk = await stream.receive_some(65536)
                if not chunk:
                    break
                data += chunk
    body = data.split(b"\r\n\r\n", 1)[1]
    while body:  # unmasked server frames: opcode byte, length byte (< 126 here), payload
        opcode, length = body[0] & 0x0F, body[1] & 0x7F
        header = 2 if length < 126 else 4
        if length == 126:
            length = int.from_bytes(body[2:4], "big")
        if opcode == 8:
            return int.from_bytes(body[header:header + 2], "big")
        body = body[header + length:]
    return None


async def play_out(sock: Socket, until: Any) -> dict[str, Any]:
    """Take the first legal action at each turn (the one already shown first) until ``until(state)``."""
    pending = sock.states[-1:]
    while True:
        m = pending.pop() if pending else await sock.next()
        if m["type"] != "state":
            continue
        if until(m):
            return m
        if m["legal"]:
            await sock.send({"type": "action", "action": m["legal"][0]})


def _match_rows(db: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT id, status, winner, reason, termination FROM matches ORDER BY ord").fetchall()
    finally:
        conn.close()


async def test_quick_play_match_is_recorded_and_reported(server: Server, tmp_path: Path) -> None:
    b = Browser(server)
    code = b.quick("random")
    status, page = b.get(f"/room/{code}")
    assert status == 200 and f'id="room-code">{code}<' in page
    async with connect(server, code, b.cookie()) as ws:
        sock = Socket(ws)
        final = await play_out(sock, lambda m: m["phase"] == "over" and m["replay"])
    assert final["result"]["reason"] == "target" and max(final["result"]["score"]) >= 1
    assert final["deals"] and final["deals"][-1]["score"] == final["result"]["score"]
    assert sock.states[0]["names"] == ["human", "random"] and all(s["seat"] == 0 for s in sock.states)
    assert len({repr(s["target"]) for s in sock.states}) == 1  # a number in every state, the first one too
    assert isinstance(sock.states[-1]["target"], int)
    # the replay page, from the server's own database
    viewer, _, file = final["replay"].partition("#")
    status, page = b.get(viewer)
    assert status == 200 and "data/" in page  # the report's viewer, which loads the match's data file
    status, script = b.get(viewer.replace("match.html", f"data/{file}.js"))
    _, data = read_match_data(script)
    assert status == 200 and data["m"]["bots"] == ["human", "random"]
    # the game is in the database, the person a bot row of kind human, and `arena report` renders it
    rows = [r for r in _match_rows(server.db) if r[0] == f"quick-{code.lower()}"]
    assert rows and rows[0][1] == "done" and rows[0][3] == "target"
    conn = sqlite3.connect(server.db)
    try:
        kinds = dict(conn.execute("SELECT name, kind FROM bots").fetchall())
    finally:
        conn.close()
    assert kinds["human"] == "human" and kinds["random"] == "bot"
    out = tmp_path / "report"
    done = subprocess.run([*ARENA, "report", str(server.db), "-o", str(out)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert (out / "data" / f"quick-{code.lower()}.js").is_file() and (out / "match.html").is_file()


async def test_hostile_messages_get_an_error_and_change_nothing(server: Server) -> None:
    b = Browser(server)
    code = b.quick("random")
    async with connect(server, code, b.cookie()) as ws:
        sock = Socket(ws)
        turn = await sock.state_where(lambda m: m["legal"])
        not_legal = next(f"play:{c}" for c in ("9c", "Jc", "Qc", "Kc", "Tc", "Ac", "9d", "Jd")
                         if f"play:{c}" not in turn["legal"])
        hostile = [
            ("{not json", "malformed"),
            ("[1, 2, 3]", "malformed"),
            (json.dumps({"type": "action", "action": "play:Th", "pad": "x" * 2000}), "too-long"),
            (b"\xff\xfe binary garbage", "malformed"),
            (json.dumps({"type": "shell", "command": "rm -rf /"}), "unknown-type"),
            (json.dumps({"type": "action", "action": ["play:Th"]}), "malformed"),
            (json.dumps({"type": "action", "action": "play:Zz"}), "illegal"),
            (json.dumps({"type": "action", "action": not_legal}), "illegal"),
            (json.dumps({"type": "action", "action": "marry:" + not_legal[5:]}), "illegal"),
        ]
        for message, code_expected in hostile:
            await sock.send(message)
            error = await sock.error()
            assert error["code"] == code_expected, (message, error)
        # nothing moved: a second connection of the same seat gets the very same turn
        async with connect(server, code, b.cookie()) as ws2:
            again = await Socket(ws2).state_where(lambda m: True)
        for key in ("hand", "legal", "table", "points", "deal", "log", "score"):
            assert again[key] == turn[key], key
        assert again["clock_ms"] <= turn["clock_ms"]
        # and a legal move still plays
        await sock.send({"type": "action", "action": turn["legal"][0]})
        await sock.state_where(lambda m: m["legal"] != turn["legal"] or m["result"])
    # a script that keeps sending garbage is cut off
    assert await hammer(server, code, b.cookie()) == 1008


async def test_room_turns_tokens_and_a_spectator(server: Server) -> None:
    host, guest, visitor = Browser(server), Browser(server), Browser(server)
    status, url = host.post("/create", "variant=santase")
    code = url.rsplit("/", 1)[1]
    assert status == 200 and re.fullmatch(r"[23456789A-HJ-NP-Z]{10}", code)
    assert guest.get(f"/room/{code.lower()}")[0] == 200  # the link joins, whatever its case
    status, page = visitor.get(f"/room/{code}")  # both seats taken: a third visitor watches
    assert status == 200 and 'data-seat=""' in page
    async with connect(server, code, host.cookie()) as w0, connect(server, code, guest.cookie()) as w1, \
            connect(server, code, visitor.cookie()) as w2, \
            connect(server, code, visitor.cookie(**{f"seat_{code}": "forged-token"})) as w3:
        seats = [Socket(w0), Socket(w1)]
        watcher, forger = Socket(w2), Socket(w3)
        found: dict[int, dict[str, Any]] = {}
        async with trio.open_nursery() as nursery:  # whoever is asked first: the other seat waits for it

            async def first_turn(i: int) -> None:
                found[i] = await seats[i].state_where(lambda m: m["legal"])
                nursery.cancel_scope.cancel()

            for i in (0, 1):
                nursery.start_soon(first_turn, i)
        (mover, now), = found.items()
        assert now["seat"] == mover and now["names"] == ["host", "guest"]
        assert all(m["seat"] == i for i in (0, 1) for m in seats[i].states)
        waiting = seats[1 - mover]
        # out of turn, a spectator, a forged token: refused, and the turn is still the mover's
        await waiting.send({"type": "action", "action": now["legal"][0]})
        assert (await waiting.error())["code"] == "not-your-turn"
        await watcher.send({"type": "action", "action": now["legal"][0]})
        assert (await watcher.error())["code"] == "spectator"
        await forger.send({"type": "action", "action": now["legal"][0]})
        assert (await forger.error())["code"] == "spectator"
        # play the deal to its end, both seats taking their first legal action
        async with trio.open_nursery() as nursery:
            for s in seats:
                nursery.start_soon(play_out, s, lambda m: m["deals"])
        public = await watcher.state_where(lambda m: m["deals"])
        assert public["deals"] == seats[0].states[-1]["deals"]
        for m in watcher.states:
            assert m["seat"] is None and m["hand"] == [] and m["known"] == [] and m["legal"] == []
            assert all(e["card"] is None for e in m["log"] if e["kind"] == "draw")
        # each seat saw its own hand only: a card in both seats' hands (at different times) went through the
        # talon's turned card (an exchange); what a seat knows of the other's hand, the other held
        turned = {m["trump_card"] for i in (0, 1) for m in seats[i].states if m["trump_card"]}
        hands = [{c for m in seats[i].states for c in m["hand"]} for i in (0, 1)]
        assert hands[0] & hands[1] <= turned
        for me in (0, 1):
            assert {c for m in seats[me].states for c in m["known"]} <= hands[1 - me]


async def test_in_a_room_the_mover_sees_its_own_move_at_once(server: Server) -> None:
    """Both seats and a spectator get the state with the move in it as soon as the referee applied it, not at
    the mover's next turn (a seat's event lines wait for its next turn line; the pages do not)."""
    host, guest = Browser(server), Browser(server)
    _, url = host.post("/create", "variant=santase")
    code = url.rsplit("/", 1)[1]
    guest.get(f"/room/{code}")
    async with connect(server, code, host.cookie()) as w0, connect(server, code, guest.cookie()) as w1, \
            connect(server, code, Browser(server).cookie()) as w2:
        socks = [Socket(w0), Socket(w1), Socket(w2)]
        for _ in range(8):
            mover, token, deal = await _first_turn(socks[:2])
            await socks[mover].send({"type": "action", "action": token})
            card = token.partition(":")[2]
            # Without the referee's on_change the mover's page would get its move only at its next turn,
            # which needs the other person to move: never, here. Ten seconds tells that apart on any machine.
            with trio.fail_after(10):
                for sock in socks:
                    await sock.state_where(functools.partial(_shows_play, card, deal))


async def _first_turn(socks: list[Socket]) -> tuple[int, str, int]:
    """Whichever seat is asked first: (its seat, a play it may make, the deal). A turn may have come with the
    last state already read."""
    found = {i: s.states[-1] for i, s in enumerate(socks) if s.states and s.states[-1]["legal"]}
    async with trio.open_nursery() as nursery:
        async def turn(i: int) -> None:
            found[i] = await socks[i].state_where(lambda m: m["legal"])
            nursery.cancel_scope.cancel()

        for i in (0, 1):
            if not found:
                nursery.start_soon(turn, i)
    (mover, now), = found.items()
    return mover, next(t for t in now["legal"] if t.startswith("play:")), now["deal"]


def _shows_play(card: str, deal: int, m: dict[str, Any]) -> bool:
    """The state has the play of ``card`` in ``deal`` (or is past that deal already)."""
    return m["deal"] > deal or any(e["kind"] == "play" and e["card"] == card for e in m["log"])


async def test_reload_gets_the_seat_back_and_a_leaver_forfeits(server: Server) -> None:
    b = Browser(server)
    code = b.quick("random")
    async with connect(server, code, b.cookie()) as ws:
        before = await Socket(ws).state_where(lambda m: m["hand"])
    async with connect(server, code, b.cookie()) as ws:  # a reload: same cookie, same seat, same cards
        after = await Socket(ws).state_where(lambda m: m["hand"])
    assert after["seat"] == 0 and set(after["hand"]) <= set(before["hand"]) | {c for c in after["hand"]}
    assert after["names"] == before["names"] and after["deal"] == before["deal"]
    # gone for good: after the leave timeout the referee records a disconnect, and the bot wins
    match_id = f"quick-{code.lower()}"
    with trio.fail_after(60):
        while True:
            rows = [r for r in _match_rows(server.db) if r[0] == match_id and r[1] == "done"]
            if rows:
                break
            await trio.sleep(0.2)
    assert rows[0][2] == "random" and rows[0][3] == "disconnect" and rows[0][4] == "disconnect"
    conn = sqlite3.connect(server.db)
    try:
        detail = conn.execute("SELECT detail FROM terminations WHERE match_id = ?", [match_id]).fetchone()[0]
    finally:
        conn.close()
    assert f"within {LEAVE_S} s" in detail


async def test_a_person_out_of_time_loses_by_timeout_and_is_told(tmp_path: Path) -> None:
    short = start_server(tmp_path, "--human-time", "1s")
    try:
        b = Browser(short)
        code = b.quick("random")
        async with connect(short, code, b.cookie()) as ws:
            sock = Socket(ws)
            turn = await sock.state_where(lambda m: m["legal"])
            assert 0 < turn["clock_ms"] <= 1000  # the person's own limit, not the bot's
            final = await sock.state_where(lambda m: m["result"])  # no move: the clock runs out
        assert final["result"]["reason"] == "timeout" and final["result"]["winner"] == 1
        assert final["legal"] == [] and final["clock_ms"] is None
    finally:
        stop_server(short)


async def test_caps_per_client_and_idle_rooms_expire(tmp_path: Path) -> None:
    capped = start_server(tmp_path, "--max-games", "1", "--max-connections", "2", "--idle-timeout", "1s")
    try:
        b = Browser(capped)
        status, url = b.post("/create", "variant=santase")
        code = url.rsplit("/", 1)[1]
        assert status == 200 and b.post("/quick", "opponent=random")[0] == 429  # one open game per client
        with trio.fail_after(30):
            while b.get(f"/room/{code}")[0] != 404:  # nobody joined: the room expires
                await trio.sleep(0.1)
        code = b.quick("random")  # the expired room no longer counts
        async with connect(capped, code, b.cookie()) as ws1, connect(capped, code, b.cookie()) as ws2:
            assert await upgrade_status(capped, code, b.cookie(), capped.url.rstrip("/")) == 403
            assert (await Socket(ws1).state_where(lambda m: True))["seat"] == 0
            assert (await Socket(ws2).state_where(lambda m: True))["seat"] == 0
    finally:
        stop_server(capped)


async def test_other_origins_and_unknown_rooms_are_refused(server: Server) -> None:
    b = Browser(server)
    code = b.quick("random")
    assert await upgrade_status(server, code, b.cookie(), "http://evil.example") == 403
    assert await upgrade_status(server, code, b.cookie(), server.url.rstrip("/")) == 101
    assert b.post("/quick", "opponent=random", origin="http://evil.example")[0] == 403
    assert b.post("/quick", "opponent=sh%20-c%20id")[0] == 404  # a browser names a registry bot, never a command
    assert b.get("/room/ZZZZZZZZZZ")[0] == 404
    # the seat still works from this origin
    async with connect(server, code, b.cookie()) as ws:
        assert (await Socket(ws).state_where(lambda m: True))["seat"] == 0


def test_bad_command_lines_are_one_line_and_exit_2(tmp_path: Path) -> None:
    for args, words in ((["nope.yaml"], "nope.yaml"), (["--port", "99999"], "--port"),
                        (["--variant", "poker"], "--variant"), (["--watch", "missing.db"], "missing.db"),
                        (["--human-time", "soon"], "--human-time")):
        done = subprocess.run([*ARENA, "serve", *args], cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and "Traceback" not in done.stderr


@pytest.mark.skipif(bwrap_problem() is not None, reason="the check is the sandbox's")
def test_a_named_pipe_among_a_registry_bots_files_is_refused_before_serving(tmp_path: Path) -> None:
    """As `arena run` refuses it: every sandbox showing the bot's folder could open the pipe, so two games of
    the bot at once would share a channel."""
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bot.py").write_text("")
    os.mkfifo(tmp_path / "bot" / "pipe")
    (tmp_path / "t.yaml").write_text("name: t\nbots:\n  - {name: piped, command: python3 bot/bot.py}\n"
                                     "  - {name: other, command: python3 bot/bot.py}\n")
    done = subprocess.run([*ARENA, "serve", "t.yaml", "--port", "0"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"bot piped: {tmp_path / 'bot' / 'pipe'} is a named pipe" in done.stderr, done.stderr


def test_an_address_it_cannot_listen_on_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:  # a port another program listens on
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for args, line in (
            (["--port", port], f"arena: --host/--port: cannot listen on 127.0.0.1:{port}: Address already in use"),
            (["--port", port, "--watch", str(tmp_path / "x.db")], "cannot listen on 127.0.0.1"),
            (["--host", "999.1.1.1"], "arena: --host: '999.1.1.1' is not an address or host name here"),
        ):
            if "--watch" in args:
                (tmp_path / "x.db").write_bytes(b"")
            done = subprocess.run([*ARENA, "serve", *args], cwd=tmp_path, capture_output=True, text=True,
                                  timeout=60)
            assert done.returncode == 2 and done.stderr.count("\n") == 1 and line in done.stderr, done.stderr


async def raw_status(port: int, host: str | None, path: str = "/", websocket: bool = False) -> int:
    """The status of one raw HTTP/1.1 request naming ``host`` (None: no Host header at all)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        head = f"GET {path} HTTP/1.1\r\n" + (f"Host: {host}\r\n" if host is not None else "")
        if websocket:
            head += ("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n")
        await stream.send_all((head + "Connection: close\r\n\r\n" if not websocket else head + "\r\n").encode())
        data = b""
        with trio.fail_after(30):
            while b"\r\n" not in data:
                chunk = await stream.receive_some(1024)
                if not chunk:
                    break
                data += chunk
    return int(data.split(b" ")[1])


async def test_a_foreign_host_header_is_refused(server: Server, tmp_path: Path) -> None:
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends Host: evil.example."""
    port = server.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        assert await raw_status(port, host) == 200, host
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}", f"localhost.evil:{port}",
                 "bad host", f"127.0.0.1:{port}@evil.example"):
        assert await raw_status(port, host) == 421, host
    assert await raw_status(port, None) == 400
    code = Browser(server).quick("random")
    assert await raw_status(port, f"evil.example:{port}", f"/ws/{code}", websocket=True) == 403
    assert await raw_status(port, f"127.0.0.1:{port}", f"/ws/{code}", websocket=True) == 101
    # a name the server is told to answer to (a proxy's), with any port or the one given
    other = start_server(tmp_path, "--allowed-host", "play.example.org", "--allowed-host", "cards.example:8443")
    try:
        for host, status in (("play.example.org", 200), ("play.example.org:443", 200), ("cards.example:8443", 200),
                             ("cards.example", 421), ("evil.example", 421)):
            assert await raw_status(other.port, host) == status, host
    finally:
        stop_server(other)
    done = subprocess.run([*ARENA, "serve", "--allowed-host", "evil example"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--allowed-host" in done.stderr, done.stderr


async def test_watch_pushes_live_updates(server: Server, tmp_path: Path) -> None:
    b = Browser(server)
    async with connect(server, b.quick("level-3-intermediate"), b.cookie()) as ws:  # at least one game in the database
        await play_out(Socket(ws), lambda m: m["phase"] == "over" and m["replay"])
    proc = subprocess.Popen([*ARENA, "serve", "--watch", str(server.db), "--port", "0"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watch = Server("", server.db, proc)
    try:
        assert proc.stdout is not None
        watch.url = re.search(r"(http://\S+/)", proc.stdout.readline()).group(1)  # type: ignore[union-attr]
        viewer = Browser(watch)
        status, index = viewer.get("/")
        assert status == 200 and "/_serve/watch.js" in index

        async def first_update() -> None:
            stream = await trio.open_tcp_stream("127.0.0.1", watch.port)
            async with stream:
                await stream.send_all(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{watch.port}\r\n"
                                      "Accept: text/event-stream\r\n\r\n".encode())
                seen = b""
                while seen.count(b"data: ") < 2:  # the hello, then a change
                    seen += await stream.receive_some(4096)

        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(first_update)
                async with connect(server, b.quick("level-3-intermediate"), b.cookie()) as ws:  # a game lands meanwhile
                    await play_out(Socket(ws), lambda m: m["phase"] == "over" and m["replay"])
        assert viewer.get("/")[1] != index
    finally:
        stop_server(watch)


@pytest.mark.parametrize(("lang", "key", "you", "n", "values", "expected"), [
    ("bg", "ev_play", True, None, {"card": "10♣"}, "Вие изиграхте 10♣"),
    ("bg", "ev_play", False, None, {"name": "Играч 2", "card": "10♣"}, "Играч 2 изигра 10♣"),
    ("bg", "ev_trick", True, None, {"points": 14}, "Вие взехте взятката (+14)"),
    ("bg", "ev_trick", False, None, {"name": "random", "points": 14}, "random взе взятката (+14)"),
    ("bg", "ev_draw", True, None, {"card": "Д♠"}, "Вие изтеглихте Д♠"),
    ("bg", "ev_close", True, None, {}, "Вие затворихте талона"),
    ("bg", "ev_exchange", True, None, {"card": "А♥", "low": "9♥", "word": "деветката"},
     "Вие сменихте деветката (9♥) и взехте А♥"),
    ("bg", "ev_marriage", False, None, {"name": "Играч 2", "cards": "К♥ Д♥", "points": 40}, "Играч 2 обяви 40: К♥ Д♥"),
    ("bg", "deal_won", True, 1, {"gp": 1}, "Вие спечелихте 1 точка"),
    ("bg", "deal_won", True, 3, {"gp": 3}, "Вие спечелихте 3 точки"),
    ("bg", "deal_won", False, 2, {"name": "random", "gp": 2}, "random спечели 2 точки"),
    ("bg", "talon_cards", False, 1, {}, "1 карта в талона"),
    ("bg", "talon_cards", False, 8, {}, "8 карти в талона"),
    ("bg", "took_it", True, None, {"points": 21}, "Вие я взехте (+21)"),
    ("bg", "talon_closed", True, None, {}, "затворен от вас"),
    ("bg", "talon_closed", False, None, {"name": "random"}, "затворен от random"),
    ("en", "deal_won", True, 1, {"gp": 1}, "You won 1 game point"),
    ("en", "deal_won", False, 2, {"name": "guest", "gp": 2}, "guest won 2 game points"),
    ("en", "ev_play", True, None, {"card": "10♣"}, "You played 10♣"),
    ("en", "talon_cards", False, 1, {}, "1 card in the talon"),
    # why a deal's game points: what the loser lacked, the closer who failed
    ("bg", "gp_schneider", True, 33, {}, "вие имате под 33 точки"),
    ("bg", "gp_schneider", False, 33, {"name": "Играч 2"}, "Играч 2 има под 33 точки"),
    ("bg", "gp_no-tricks", False, None, {"name": "random"}, "random не взе нито една взятка"),
    ("bg", "gp_no-tricks", True, None, {}, "вие не взехте нито една взятка"),
    ("bg", "why_failed_close", True, None, {}, "вие затворихте талона и не стигнахте първи до 66"),
    ("bg", "why_failed_close", False, None, {"name": "Ана"}, "Ана затвори талона и не стигна пръв до 66"),
    ("en", "gp_schneider", False, 33, {"name": "guest"}, "guest has fewer than 33 points"),
    ("en", "gp_no-tricks", True, None, {}, "you took no trick"),
])
def test_phrases_take_the_form_their_subject_and_number_need(lang: str, key: str, you: bool, n: int | None,
                                                            values: dict[str, Any], expected: str) -> None:
    from arena.serve.i18n import phrase

    assert phrase(lang, key, you, n, **values) == expected


def test_every_string_has_both_languages_and_every_you_form_its_plain_one() -> None:
    from arena.serve.i18n import _STRINGS

    assert set(_STRINGS["en"]) == set(_STRINGS["bg"])
    for key in _STRINGS["bg"]:
        if key.endswith("_you"):
            assert key[:-4] in _STRINGS["bg"], key
    for key, text in _STRINGS["bg"].items():  # the wrong forms the issue found are gone
        assert "вие игра" not in text.lower() and "вие взе " not in text.lower(), key


async def test_a_channel_has_every_part_of_a_bot_process_the_referee_uses() -> None:
    """A person's seat (ChannelBot) must keep up with what the session and the match loop call on a bot
    process: a name used there as ``bot.NAME`` that ChannelBot lacks would end every browser game."""
    from arena.referee import match, session
    from arena.referee.channel import ChannelBot

    used = set()
    for module in (session, match):
        used |= set(re.findall(r"\bbot\.([a-z_]+)", Path(module.__file__).read_text()))  # type: ignore[arg-type]
    used -= {"proc"}  # a process's own (its pid), read only for a started program
    channel = ChannelBot("human", lambda lines: None)
    assert used and not {name for name in used if not hasattr(channel, name)}


def test_no_process_left_behind(server: Server) -> None:
    """Keep last: the module's server still answers (nothing above broke it)."""
    assert Browser(server).get("/")[0] == 200
    assert os.path.exists(server.db)
