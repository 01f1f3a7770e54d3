"""The ASGI application of `arena serve` (Starlette, on trio through anyio; served by hypercorn's trio
worker): the home page, rooms, the WebSocket a page plays through, the rules pages, and each finished
match's replay (the report of the server's database, rendered by arena.report when asked for).

Nothing here decides a game: a page only shows the state its seat may see and sends a choice, which the
seat (arena.serve.seat) checks before the referee gets it. Nothing a browser sends names a command: an
opponent is the name of a registry bot, looked up in the registry.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
import mimetypes
import shutil
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

import jinja2
import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from arena.levels import BY_NAME
from arena.report import environment as report_environment
from arena.serve.i18n import LANGS, pick_language, rules_sections, strings, variant_name
from arena.serve.rooms import CODE_ALPHABET, CODE_LENGTH, Refused, Room, RoomHall, heartbeat
from arena.serve.seat import MAX_MESSAGE_BYTES, Refusal, read_message

_HERE = Path(__file__).resolve().parent
_REPORT_STATIC = _HERE.parent / "report" / "static"
STATIC = {
    "report.css": _REPORT_STATIC / "report.css",
    "board.css": _REPORT_STATIC / "board.css",  # the board and the cards: the report's replay viewer's own
    "cards.js": _REPORT_STATIC / "cards.js",
    "play.css": _HERE / "static" / "play.css",
    "play.js": _HERE / "static" / "play.js",
    "watch.js": _HERE / "static" / "watch.js",
    "home.js": _HERE / "static" / "home.js",
}
MAX_FORM_BYTES = 4096
#: Every page of `arena serve` (play, ladder, watch): nothing but the server itself, nothing inline, no
#: plugin, no frame around it, no <base>, forms posted to the server only.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")


def _inline_hash(code: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode()).digest()).decode() + "'"


#: The report's pages (the replays under /replay/, `--watch`'s pages) are the static HTML of arena.report,
#: made to open from disk: they need two inline things, named here and nothing else inline. Their tables
#: colour cells with style attributes (the cross table, the LOS matrix, a bot's opponents: a colour per
#: cell, so no list of hashes), and the matches list's filter form has one inline handler,
#: ``onsubmit="return false"``, allowed by its hash alone ('unsafe-hashes' admits handlers whose code hashes
#: to a listed value, no other). A style attribute runs no script.
REPORT_CSP = CSP.replace("script-src 'self'", f"script-src 'self' 'unsafe-hashes' {_inline_hash('return false')}"
                         ).replace("style-src 'self'", "style-src 'self'; style-src-attr 'unsafe-inline'")
SECURITY_HEADERS = ((b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"))  # no-referrer would make forms send Origin: null
COOKIE_DAYS = 1
MAX_REFUSED = 50  # refused messages in a row before a socket is closed
PING = json.dumps({"type": "ping"})  # the heartbeat a page answers with its own {"type": "ping"}


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The report's jinja2 environment (its filters, autoescape) with the server's templates in front."""
    report = report_environment()
    return report.overlay(loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(_HERE / "templates")),
                                                      report.loader]))  # type: ignore[list-item]


def opponent_option(bot: str, lang: str) -> str:
    """A registry bot as the opponent list shows it: a house level (arena/levels.py) by its label and short
    description, "Level 3 · Intermediate — greedy: ..."; any other bot by its name."""
    level = BY_NAME.get(bot)
    if level is None:
        return bot
    return f"{level.label(lang)} — {level.description.get(lang, level.description['en'])}"


def normal_code(text: str) -> str | None:
    code = text.strip().upper()
    if len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code):
        return code
    return None


def same_origin(origin: str | None, host: str | None) -> bool:
    """A browser's Origin header names this server (scheme aside: the server may sit behind TLS)."""
    if origin is None:
        return True  # not a browser (browsers always send it on WebSockets and cross-site POSTs)
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:
        return False
    return bool(host) and netloc == host


class ReplayRenderer:
    """Each variant's database rendered by arena.report into a private folder, again when a game was saved
    since (in a worker thread: rendering is CPU work that would stall every game)."""

    def __init__(self, hall: RoomHall) -> None:
        self.hall = hall
        self.root = Path(tempfile.mkdtemp(prefix="arena-serve-replays-"))
        self.rendered: Counter[str] = Counter()
        self.locks: dict[str, trio.Lock] = {}

    async def folder(self, variant: str) -> Path | None:
        if not self.hall.changed[variant]:
            return None
        lock = self.locks.setdefault(variant, trio.Lock())
        async with lock:
            wanted = self.hall.changed[variant]
            if self.rendered[variant] != wanted:
                await trio.to_thread.run_sync(self._render, variant)
                self.rendered[variant] = wanted
        return self.root / variant

    def _render(self, variant: str) -> None:
        from arena.report import render_report
        from arena.store import Store

        with Store.open_existing(self.hall.database(variant)) as store:
            render_report(store, self.root / variant, workers=1)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def file_response(folder: Path, path: str) -> Response:
    """A file of ``folder`` (never outside it), or 404."""
    try:
        target = (folder / path).resolve()
        target.relative_to(folder.resolve())
    except (ValueError, OSError):
        return Response("not found", 404)
    if target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        return Response("not found", 404)
    kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/javascript", "text/javascript"):
        kind += "; charset=utf-8"
    return Response(target.read_bytes(), media_type=kind, headers={"Cache-Control": "no-cache"})


def lang_of(request: Request | WebSocket) -> str:
    """The page's language: ?lang=, else the cookie it set, else the browser's."""
    return pick_language(request.query_params.get("lang"), request.cookies.get("lang"),
                         request.headers.get("accept-language"))


def render_page(env: jinja2.Environment, request: Request, template: str, status: int = 200,
                **values: Any) -> HTMLResponse:
    """A template of arena/serve/templates in the request's language, with the pages' security headers; a
    language chosen with ?lang= is remembered in a cookie."""
    lang = lang_of(request)
    html = env.get_template(template).render(lang=lang, t=strings(lang), langs=LANGS, path=request.url.path,
                                             **values)
    response = HTMLResponse(html, status)
    response.headers["Content-Security-Policy"] = CSP
    for name, value in SECURITY_HEADERS:
        response.headers[name.decode()] = value.decode()
    if request.query_params.get("lang") in LANGS:
        response.set_cookie("lang", lang, max_age=365 * 86400, samesite="lax", httponly=True)
    return response


def nick_of(request: Request, fields: dict[str, str] | None = None) -> str | None:
    """The name a player chose on the start page: the form's ``name`` field, else the ``nick`` cookie the
    start page keeps (a friend's link opened directly still seats its visitor by name); cleaned by the hall."""
    chosen = (fields or {}).get("name")
    if chosen is None:
        chosen = request.query_params.get("name")
    if chosen is None:
        chosen = unquote(request.cookies.get("nick", ""))[:200]
    return chosen or None


def remember_nick(response: Response, nick: str | None) -> Response:
    """The chosen name, kept for a room opened by its link later (what the start page's script keeps too)."""
    if nick is not None:
        response.set_cookie("nick", quote(nick[:60]), max_age=365 * 86400, samesite="lax", path="/")
    return response


def content_length(request: Request) -> int:
    """The request's Content-Length, 0 when it gives none (a chunked body: count its bytes as they come)."""
    text = request.headers.get("content-length") or "0"
    return int(text) if text.isascii() and text.isdigit() else 0


async def small_form(request: Request, limit: int = MAX_FORM_BYTES) -> dict[str, str]:
    """A url-encoded form of at most ``limit`` bytes (counted as they come: a longer one is not read on);
    Refused too-long or malformed."""
    if content_length(request) > limit:
        raise Refused("too-long", "the form is too long")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise Refused("too-long", "the form is too long")
    try:
        fields = parse_qs(body.decode("utf-8"), max_num_fields=10)
    except (UnicodeDecodeError, ValueError):
        raise Refused("malformed", "the form was not understood") from None
    return {k: v[0] for k, v in fields.items()}


def unread_released(app: Any) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """``app``, whose answers without reading the request's body (a refusal before an upload is read) close
    the connection at once instead of hanging it.

    Hypercorn passes a body to the application through a queue of a few chunks; as the application sends the
    end of its answer, hypercorn puts a last message (``http.disconnect``) into that queue before it closes
    the connection, and waits for room there: with a large body unread the queue is full, and the connection
    (and the application's last send) would hang until the client gave up. So before the end of an answer
    that left its body unread is sent, a task starts taking what is in the queue, the few chunks already
    received, and drops them, until that last message: hypercorn then closes the connection, the rest of the
    body unread."""

    async def released(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        ended = False

        async def watched() -> Message:
            nonlocal ended
            message = await receive()
            ended = ended or message["type"] == "http.disconnect" or not message.get("more_body", False)
            return message

        async def send_last(message: Message) -> None:
            nonlocal ended
            if message["type"] == "http.response.body" and not message.get("more_body", False) and not ended:
                ended = True
                trio.lowlevel.spawn_system_task(_drop_until_closed, receive)
            await send(message)

        await app(scope, watched, send_last)

    return released


async def _drop_until_closed(receive: Receive) -> None:
    try:
        with trio.move_on_after(30):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect" or not message.get("more_body", False):
                    return
    except Exception:  # noqa: BLE001, S110  (a connection already gone: nothing to release)
        pass


def secured(app: Any, report_prefix: str | None = "/replay/") -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """``app`` with the security headers on every HTTP response it sends (a page, a replay, a static file, an
    error, a refusal): CSP, or REPORT_CSP for the paths under ``report_prefix`` (the report's pages: "/" for
    `--watch`, whose every page is the report), nosniff and the referrer policy."""

    async def with_headers(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        report = report_prefix is not None and str(scope.get("path", "")).startswith(report_prefix)
        policy = (REPORT_CSP if report else CSP).encode()

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                ours = {b"content-security-policy", *(name for name, _ in SECURITY_HEADERS)}
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in ours]
                message = {**message, "headers": [*headers, (b"content-security-policy", policy),
                                                  *SECURITY_HEADERS]}
            await send(message)

        await app(scope, receive, send_secured)

    return with_headers


def static_response(name: str) -> Response:
    """One of the pages' stylesheets and scripts (STATIC), or 404."""
    path = STATIC.get(name)
    if path is None:
        return Response("not found", 404)
    kind = "text/css" if path.suffix == ".css" else "text/javascript"
    return Response(path.read_bytes(), media_type=f"{kind}; charset=utf-8", headers={"Cache-Control": "no-cache"})


class ServeApp:
    """The routes of `arena serve`, each a method over the one room hall (`starlette` lists them): a page
    renders a template of arena/serve/templates through `page`, a form posts through `posted`, and a room's
    page plays over `play_socket`."""

    def __init__(self, hall: RoomHall) -> None:
        self.hall = hall
        self.env = environment()
        self.replays = ReplayRenderer(hall)
        hall.replay_url = lambda variant, match_id: f"/replay/{variant}/match.html#{_file_name(match_id)}"

    def page(self, request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        return render_page(self.env, request, template, status, **values)

    def refused(self, request: Request, e: Refused, status: int = 429) -> HTMLResponse:
        return self.page(request, "serve_message.html", status, message=e.code, detail=str(e), params=e.params)

    def client_of(self, request: Request | WebSocket) -> str:
        return request.client.host if request.client else "?"

    def variants_for(self, lang: str) -> list[tuple[str, str]]:
        return [(v, variant_name(v, lang)) for v in self.hall.variants]

    async def form(self, request: Request) -> dict[str, str]:
        return await small_form(request)

    async def home(self, request: Request) -> Response:
        lang = lang_of(request)
        bots = [(b.name, opponent_option(b.name, lang)) for b in self.hall.registry.bots]
        return self.page(request, "serve_home.html", bots=bots,
                    variants=self.variants_for(lang))

    def to_room(self, room: Room, token: str | None) -> Response:
        response = RedirectResponse(f"/room/{room.code}", 303)
        if token is not None:
            response.set_cookie(f"seat_{room.code}", token, max_age=COOKIE_DAYS * 86400, httponly=True,
                                samesite="lax", path="/")
        return response

    def posted(self, handler: Callable[[Request, dict[str, str]], Response]
               ) -> Callable[[Request], Awaitable[Response]]:
        """A form's endpoint: same-origin only, the form read within its limit, a refusal as its page."""
        async def endpoint(request: Request) -> Response:
            if not same_origin(request.headers.get("origin"), request.headers.get("host")):
                return self.refused(request, Refused("cross-site", "cross-site request refused"), 403)
            try:
                return handler(request, await self.form(request))
            except Refused as e:
                status = (404 if e.code.startswith("unknown") else 400 if e.code in ("too-long", "malformed")
                          else 403 if e.code == "no-seat" else 429)
                return self.refused(request, e, status)
        return endpoint

    def quick(self, request: Request, fields: dict[str, str]) -> Response:
        room, token = self.hall.quick_play(fields.get("opponent") or None, fields.get("variant") or None,
                                      self.client_of(request), nick_of(request, fields))
        return remember_nick(self.to_room(room, token), fields.get("name"))

    def create(self, request: Request, fields: dict[str, str]) -> Response:
        room, token = self.hall.create_room(fields.get("variant") or None, self.client_of(request),
                                            nick_of(request, fields))
        return remember_nick(self.to_room(room, token), fields.get("name"))

    def rematch(self, request: Request, fields: dict[str, str]) -> Response:
        code = normal_code(request.path_params["code"])
        room = self.hall.rooms.get(code) if code else None
        if room is None or code is None:
            raise Refused("unknown-room", "no such room")
        if room.seat_of(request.cookies.get(f"seat_{code}")) is None:
            raise Refused("no-seat", "only a player of this match can ask for a rematch")
        again, token = self.hall.rematch(room, self.client_of(request), nick_of(request, fields))
        return self.to_room(again, token)

    async def join(self, request: Request) -> Response:
        code = normal_code(request.query_params.get("code", ""))
        if code is None:
            return self.page(request, "serve_message.html", 404, message="no_room",
                        detail=request.query_params.get("code", "")[:20])
        return remember_nick(RedirectResponse(f"/room/{code}", 303), request.query_params.get("name"))

    async def room_page(self, request: Request) -> Response:
        code = normal_code(request.path_params["code"])
        room = self.hall.rooms.get(code) if code else None
        if room is None or code is None:
            return self.page(request, "serve_message.html", 404, message="no_room",
                        detail=request.path_params["code"][:20])
        token = request.cookies.get(f"seat_{code}")
        seat = room.seat_of(token)
        new_token = None
        if seat is None:
            new_token = self.hall.join(room, nick_of(request))
            seat = room.seat_of(new_token)
        lang = lang_of(request)
        strings_json = json.dumps(strings(lang)).replace("</", "<\\/")
        response = self.page(request, "serve_room.html", room=room, seat=seat, strings_json=strings_json,
                        variant=room.variant, variant_label=variant_name(room.variant, lang),
                        link=str(request.url.replace(query="")))
        if new_token is not None:
            response.set_cookie(f"seat_{code}", new_token, max_age=COOKIE_DAYS * 86400, httponly=True,
                                samesite="lax", path="/")
        return response

    async def rules(self, request: Request) -> Response:
        variant = request.path_params["variant"]
        if variant not in self.hall.variants:
            return self.refused(request, Refused("unknown-variant", f"no variant {variant[:30]!r}", name=variant[:30]),
                                404)
        lang = lang_of(request)
        return self.page(request, "serve_rules.html", variant=variant, variant_label=variant_name(variant, lang),
                    sections=rules_sections(self.hall.variants[variant], lang), variants=self.variants_for(lang))

    async def static(self, request: Request) -> Response:
        return static_response(request.path_params["name"])

    async def replay(self, request: Request) -> Response:
        variant = request.path_params["variant"]
        if variant not in self.hall.variants:
            return Response("not found", 404)
        folder = await self.replays.folder(variant)
        if folder is None:
            return Response("not found", 404)
        return file_response(folder, request.path_params["path"])

    async def play_socket(self, websocket: WebSocket) -> None:
        if not same_origin(websocket.headers.get("origin"), websocket.headers.get("host")):
            await websocket.close(code=1008)  # before accept: the handshake is refused (HTTP 403)
            return
        code = normal_code(websocket.path_params["code"])
        room = self.hall.rooms.get(code) if code else None
        if room is None or code is None:
            await websocket.close(code=4404)
            return
        client = self.client_of(websocket)
        try:
            self.hall.connect(client)
        except Refused:
            await websocket.close(code=1008)
            return
        seat = room.seat_of(websocket.cookies.get(f"seat_{code}"))
        try:
            await websocket.accept()
            self.hall.attach(room, seat)
            try:
                await _talk(websocket, room, seat)
            finally:
                self.hall.detach(room, seat)
        finally:
            self.hall.disconnect(client)

    def starlette(self) -> Starlette:
        """The application: every route of `arena serve` (docs/SERVE.md)."""
        routes = [
            Route("/", self.home),
            Route("/quick", self.posted(self.quick), methods=["POST"]),
            Route("/create", self.posted(self.create), methods=["POST"]),
            Route("/rematch/{code}", self.posted(self.rematch), methods=["POST"]),
            Route("/join", self.join),
            Route("/room/{code}", self.room_page),
            Route("/rules/{variant}", self.rules),
            Route("/static/{name}", self.static),
            Route("/favicon.ico", lambda request: Response(status_code=204)),
            Route("/replay/{variant}/{path:path}", self.replay),
            WebSocketRoute("/ws/{code}", self.play_socket),
        ]
        app = Starlette(routes=routes)
        app.state.replays = self.replays
        return app


def build_app(hall: RoomHall) -> Starlette:
    """The ASGI application over ``hall`` (what `arena serve` serves)."""
    return ServeApp(hall).starlette()


async def _talk(websocket: WebSocket, room: Room, seat: int | None) -> None:
    """Send the newest state whenever it changes; check every message the page sends. A page that answers the
    heartbeat and then stays silent for its limit is gone (its socket is closed; the page reconnects when it
    can). A client that never answers it (a script) is not held to it."""
    lock = trio.Lock()
    every, silent = heartbeat(room.leave_s)
    lang = lang_of(websocket)  # a house level's name is shown in the page's language

    async def send(text: str) -> None:
        async with lock:
            await websocket.send_text(text)

    async def sender() -> None:
        version = -1
        while True:
            if room.watched.version != version:
                version = room.watched.version
                try:
                    await send(json.dumps(room.state(seat, lang)))
                except (WebSocketDisconnect, RuntimeError, trio.BrokenResourceError, trio.ClosedResourceError):
                    return  # the page went away; the receiving side notices and ends the connection
            else:
                await room.watched.wait_past(version)

    async def pinger() -> None:
        while True:
            await trio.sleep(every)
            try:
                await send(PING)
            except (WebSocketDisconnect, RuntimeError, trio.BrokenResourceError, trio.ClosedResourceError):
                return

    refused = 0
    close: int | None = None
    answers = False
    async with trio.open_nursery() as nursery:
        nursery.start_soon(sender)
        nursery.start_soon(pinger)
        try:
            while True:
                message = None
                with trio.move_on_after(silent if answers else math.inf):
                    message = await websocket.receive()
                if message is None:  # silent past the limit: the connection is gone (a dropped network)
                    close = 1001  # (closed below: a page that was only slow reconnects)
                    break
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                if raw is None:
                    raw = message.get("bytes") or b""
                answers = answers or read_message(raw) == (None, None)  # (a ping)
                refusal = _check(room, seat, raw)
                refused = refused + 1 if refusal is not None else 0
                if refusal is not None:
                    await send(refusal.message())
                if refused > MAX_REFUSED:  # a page does not do this: a script hammering the server
                    close = 1008
                    break
        except WebSocketDisconnect:
            pass
        finally:
            nursery.cancel_scope.cancel()
    if close is not None:
        try:
            await websocket.close(code=close)
        except (WebSocketDisconnect, RuntimeError, trio.BrokenResourceError, trio.ClosedResourceError):
            pass


def _check(room: Room, seat: int | None, raw: str | bytes) -> Refusal | None:
    if seat is None:
        if len(raw) > MAX_MESSAGE_BYTES:
            return Refusal("too-long", f"a message may be at most {MAX_MESSAGE_BYTES} bytes")
        refusal, token = read_message(raw)
        if refusal is None and token is None:  # a ping (a spectator's page answers the heartbeat too)
            return None
        return Refusal("spectator", "spectators cannot play")
    web = room.slots[seat].web
    if web is None:
        if len(raw) > MAX_MESSAGE_BYTES:
            return Refusal("too-long", f"a message may be at most {MAX_MESSAGE_BYTES} bytes")
        refusal, token = read_message(raw)
        if refusal is not None or token is None:
            return refusal
        return Refusal("not-your-turn", "the game has not started")
    return web.act(raw)


def _file_name(match_id: str) -> str:
    from arena.report.context import file_name

    return file_name(match_id)
