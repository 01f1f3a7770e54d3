"""`arena serve --ladder DB`: a ladder seen live, and its uploads (docs/SERVE.md, docs/LADDER.md).

The leaderboard (rating, interval, provisional mark, rank interval, pairs, author, version), each version's
page (its rating after each of its pairs as an inline SVG, its recent matches with links to their replays),
the replays themselves (`Replays`: each built from its own match when it is asked for, never from a whole
report, so a page costs the same on the semester's last day as on its first), and the uploads of the
holders of a token.

An upload is let in only by a token known before its body is read: a sign-in (a small form, answered with a
session cookie) or an ``Authorization: Bearer`` header. A wrong one is answered 403 without the body being
read, and an address that keeps sending wrong ones is answered 429 for a while without any being checked
(`Throttle`). The token is checked against the database at every upload, so a revoked one stops at once.
An accepted upload's files go into a folder of their own under ``DB.files/`` (within the author's quota) and
wait in a queue for one of the site's admission workers (`LadderSite.admissions`, ``--admissions N``); its
author's page (/mine) shows where it stands, and the outcome with the private detail of a refusal. A refused
or duplicate upload leaves no folder.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import secrets
import shutil
import signal
import stat
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import Message, Receive

from arena.game.variants import RuleSet
from arena.report.charts import band_chart
from arena.serve.app import (
    _file_name,
    content_length,
    environment,
    file_response,
    lang_of,
    render_page,
    same_origin,
    small_form,
    static_response,
)
from arena.serve.i18n import rules_sections, strings, variant_name
from arena.serve.rooms import Refused
from arena.store.ladder import LadderStore, data_folder

if TYPE_CHECKING:
    from arena.stats.ladder import LadderRating
    from arena.store.ladder import LadderVersion
    from arena.tournament.ladder import Added, Board

MAX_UPLOAD_BYTES = 20 * 1024 * 1024  # a bot's sources or a static binary, not a data set
MAX_FILES = 50
DEFAULT_AUTHOR_QUOTA = 200 * 1024 * 1024  # ten uploads at the cap; an author's folders, builds included
MAX_WAITING_PER_AUTHOR = 3  # uploads of one author queued or being admitted at once
SESSION_COOKIE = "ladder_session"
SESSION_S = 12 * 3600
MAX_SESSIONS = 10_000
_FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,99}")

# a refused token's cost to its sender: after FAILURES_ALLOWED failures within FAILURE_WINDOW_S of each other,
# BACKOFF_S seconds of 429 (without looking at any token), doubling at each further failure up to BACKOFF_CAP_S
FAILURES_ALLOWED = 5
FAILURE_WINDOW_S = 600.0
BACKOFF_S = 2.0
BACKOFF_CAP_S = 900.0
MAX_CLIENTS = 10_000

AdmitUpload = Callable[..., "Added"]  # arena.tournament.ladder.admit_upload's signature


@dataclasses.dataclass
class _Failures:
    count: int = 0
    last: float = 0.0
    until: float = 0.0


class Throttle:
    """Failed tokens per client address: after ``allowed`` failures, each within ``window`` seconds of the
    one before, the address is refused (429) for ``base`` seconds, doubled at each further failure up to
    ``cap``. At most ``max_clients`` addresses are remembered (the least recently failed is forgotten first),
    so the table's memory is bounded whatever a flood of addresses does."""

    def __init__(self, allowed: int = FAILURES_ALLOWED, window: float = FAILURE_WINDOW_S, base: float = BACKOFF_S,
                 cap: float = BACKOFF_CAP_S, max_clients: int = MAX_CLIENTS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.allowed, self.window, self.base, self.cap, self.max_clients = allowed, window, base, cap, max_clients
        self.clock = clock
        self.clients: OrderedDict[str, _Failures] = OrderedDict()

    def retry_after(self, client: str) -> int | None:
        """Seconds until ``client`` may present a token again; None if it may now."""
        entry = self.clients.get(client)
        now = self.clock()
        if entry is None or entry.until <= now:
            return None
        return max(1, math.ceil(entry.until - now))

    def failed(self, client: str) -> None:
        now = self.clock()
        entry = self.clients.pop(client, None)
        if entry is None or now - entry.last > self.window:
            entry = _Failures()
        entry.count += 1
        entry.last = now
        if entry.count >= self.allowed:
            entry.until = now + min(self.cap, self.base * 2 ** min(entry.count - self.allowed, 30))
        self.clients[client] = entry  # the most recent last
        while len(self.clients) > self.max_clients:
            self.clients.popitem(last=False)


class Sessions:
    """Signed-in browsers: a random session id (the cookie) for a token's hash, never the author: the token is
    looked up in the database at each use, so a revoked one stops its sessions at once. Bounded: at most
    ``limit`` sessions (the oldest dropped first), each for ``lifetime`` seconds."""

    def __init__(self, limit: int = MAX_SESSIONS, lifetime: float = SESSION_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.lifetime, self.clock = limit, lifetime, clock
        self.table: OrderedDict[str, tuple[str, float]] = OrderedDict()

    def open(self, token_hash: str) -> str:
        sid = secrets.token_urlsafe(32)
        self.table[sid] = (token_hash, self.clock() + self.lifetime)
        while len(self.table) > self.limit:
            self.table.popitem(last=False)
        return sid

    def token_hash(self, sid: str | None) -> str | None:
        found = self.table.get(sid) if sid else None
        if found is None:
            return None
        if found[1] <= self.clock():
            self.close(sid)
            return None
        return found[0]

    def close(self, sid: str | None) -> None:
        if sid:
            self.table.pop(sid, None)


@dataclasses.dataclass
class Upload:
    """An upload accepted and not yet decided: queued, then being admitted (built, registered, checked)."""

    number: int
    author: str
    name: str
    command: str
    build: str | None
    folder: Path
    size: int
    received: float
    state: str = "queued"  # queued, admitting, done
    result: Added | None = None


def tree_size(folder: Path) -> int:
    """The bytes of the files under ``folder`` (a symbolic link counts as itself, never followed); 0 if gone."""
    total = 0
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if not stat.S_ISDIR(st.st_mode):
                total += st.st_size
    return total


class LadderSite:
    """The ladder's database, read per request (a run writes it meanwhile), its replays, and the queue of
    uploads that ``admissions`` workers admit one at a time each."""

    def __init__(self, db: Path, sandbox: str | None = None, admissions: int = 1,
                 author_quota: int = DEFAULT_AUTHOR_QUOTA, admit: AdmitUpload | None = None) -> None:
        self.db = db.resolve()
        self.files = data_folder(self.db)
        self.sandbox = sandbox
        self.workers = admissions
        self.author_quota = author_quota
        self.admit = admit
        self.replays = Replays(self.db)
        self._flagged: tuple[float, list[str]] | None = None  # when the flagged hosts were counted, and they
        self.accept_lock = trio.Lock()  # one upload at a time between its quota check and its place in the queue
        self.throttle = Throttle()
        self.sessions = Sessions()
        self.waiting: list[Upload] = []  # queued, in order
        self.running: list[Upload] = []
        self.finished: deque[Upload] = deque(maxlen=200)
        self.numbers = 0
        self._send, self._receive = trio.open_memory_channel[Upload](math.inf)
        with LadderStore(self.db) as store:
            rules, _, _ = store.ladder_settings()
        self.rules = RuleSet.from_dict(rules)
        self.variant = self.rules.name

    # ------------------------------------------------------------------------------------------- pages
    def board(self) -> Board:
        """The leaderboard. Its flagged hosts count every match a host played, so they are counted again
        at most every FLAGGED_S (an organiser's warning, not a live figure)."""
        from arena.tournament.ladder import board, flagged_hosts

        with LadderStore(self.db) as store:
            if self._flagged is None or time.monotonic() - self._flagged[0] > FLAGGED_S:
                self._flagged = (time.monotonic(), flagged_hosts(store))
            return board(store, self._flagged[1])

    def bot(self, key: str) -> tuple[LadderVersion, list[Any], list[Any], LadderRating | None, str] | None:
        """A version's page: the version, its rating history, its recent matches, its rating now (all with
        the ladder's anchor at 0, as the leaderboard's) and its state's word key."""
        from arena.tournament.ladder import anchored, state_of

        with LadderStore(self.db) as store:
            version = store.version(key)
            if version is None:
                return None
            ratings, offset = anchored(store)
            rating = next((r for r in ratings if r.key == key), None)
            history = [dataclasses.replace(h, rating=dataclasses.replace(
                h.rating, rating=h.rating.rating - offset, low=h.rating.low - offset, high=h.rating.high - offset))
                for h in store.history(key, points=HISTORY_POINTS)]
            return version, history, store.recent_matches(key), rating, state_of(version)

    def author_of(self, token_hash: str | None) -> str | None:
        """The author of a token (by its hash), looked up now: a revoked token has none."""
        if not token_hash:
            return None
        with LadderStore(self.db) as store:
            return store.token_author(token_hash)

    def mine(self, author: str) -> tuple[list[LadderVersion], int]:
        """An author's versions, newest first, and the bytes their folders and queued uploads take."""
        with LadderStore(self.db) as store:
            versions = [v for v in store.versions() if v.author == author]
        return versions[::-1], self.usage(author, versions)

    # ----------------------------------------------------------------------------------------- uploads
    def usage(self, author: str, versions: list[LadderVersion] | None = None) -> int:
        """The bytes of ``author``'s folders under DB.files/: their versions' and their uploads in the queue."""
        if versions is None:
            with LadderStore(self.db) as store:
                versions = [v for v in store.versions() if v.author == author]
        folders = {u.folder for u in self.waiting + self.running if u.author == author}
        for v in versions:
            if v.cwd and self._ours(Path(v.cwd)):
                folders.add(Path(v.cwd).resolve())
        return sum(tree_size(f) for f in folders)

    def _ours(self, folder: Path) -> bool:
        """``folder`` is an upload's: a folder right under DB.files/ (never anything outside it)."""
        try:
            return folder.resolve().parent == self.files.resolve() and not folder.is_symlink()
        except OSError:
            return False

    def remove_folder(self, folder: Path) -> None:
        """An upload's folder, gone (only one of ours: right under DB.files/)."""
        if self._ours(folder) and folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
            if folder.exists():
                print(f"arena serve: could not remove {folder} entirely", file=sys.stderr, flush=True)

    def enqueue(self, author: str, name: str, command: str, build: str | None, folder: Path, size: int) -> Upload:
        self.numbers += 1
        upload = Upload(self.numbers, author, name, command, build, folder.resolve(), size, time.time())
        self.waiting.append(upload)
        self._send.send_nowait(upload)
        return upload

    def position(self, upload: Upload) -> int | None:
        """1 for the next upload to be admitted; None once it is no longer waiting."""
        return self.waiting.index(upload) + 1 if upload in self.waiting else None

    def uploads_of(self, author: str) -> list[Upload]:
        return [u for u in [*self.running, *self.waiting, *reversed(self.finished)] if u.author == author]

    async def admissions(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """The admission workers (and, first, the admissions an earlier server left unfinished). When the
        server stops, the uploads still queued are dropped with their folders (nothing of them was recorded)."""
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(trio.to_thread.run_sync, self.resume_admissions)
                for _ in range(self.workers):
                    nursery.start_soon(self._worker)
                task_status.started()
        finally:
            for upload in self.waiting:
                self.remove_folder(upload.folder)
            self.waiting.clear()

    async def _worker(self) -> None:
        async for upload in self._receive:
            if upload not in self.waiting:
                continue
            self.waiting.remove(upload)
            self.running.append(upload)
            upload.state = "admitting"
            try:
                upload.result = await trio.to_thread.run_sync(self._admit, upload)
            finally:
                self.running.remove(upload)
                upload.state = "done"
                self.finished.append(upload)

    def _admit(self, upload: Upload) -> Added | None:
        """Admit an upload (arena.tournament.ladder.admit_upload, in a worker thread: it takes seconds); then
        its folder is removed unless a version plays from it (a refused or duplicate upload keeps nothing)."""
        from arena.tournament.ladder import admit_upload

        admit = self.admit or admit_upload
        result = None
        try:
            with LadderStore(self.db) as store:
                result = admit(store, upload.name, upload.command, upload.build, upload.author, upload.folder,
                               self.sandbox)
        except Exception as e:  # noqa: BLE001  (the queue goes on; the author sees the upload failed)
            print(f"arena serve: the admission of {upload.name} by {upload.author} failed: {type(e).__name__}: {e}",
                  file=sys.stderr, flush=True)
        finally:
            if not self._in_use(upload.folder):
                self.remove_folder(upload.folder)
        return result

    def _in_use(self, folder: Path) -> bool:
        """A version that may play (pending, admitted, retired) runs in ``folder``."""
        with LadderStore(self.db) as store:
            return any(v.status != "refused" and v.cwd and Path(v.cwd).resolve() == folder.resolve()
                       for v in store.versions())

    def resume_admissions(self) -> None:
        """Admit again what an earlier server (or `add`) was admitting when it stopped: the uploaded files are
        still in their folder, and the author should not have to send them twice (in a worker thread)."""
        from arena.tournament.ladder import admit, claim_abandoned

        with LadderStore(self.db) as store:
            for version in store.versions():
                mine = claim_abandoned(store, version)
                if mine is not None:
                    added = admit(store, mine, self.sandbox)
                    if added.status != "admitted" and mine.cwd and not self._in_use(Path(mine.cwd)):
                        self.remove_folder(Path(mine.cwd))


#: At most about this many points of a version's rating history are drawn on its page.
HISTORY_POINTS = 400
#: Flagged hosts (a count over every match) are worked out again at most this often for the leaderboard.
FLAGGED_S = 60.0
#: The report's viewer pages, the same for every match: what a match's link opens (``match.html#<file>``).
VIEWERS = ("match.html", "pair.html")
REPORT_STATIC = Path(__file__).resolve().parent.parent / "report" / "static"


class Replays:
    """The ladder's replays, each built from its own match when asked for (arena.report.match_data_file):
    the report's two viewer pages, rendered once, and a match's data file, read from that match, its twin
    and its deals alone. A data file's name (`arena.report.context.file_name`) is mapped back to its match
    by a table kept up to date with the matches scheduled since it was last looked at."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self._files: dict[str, str] = {}  # data file name -> match id
        self._last_row = 0  # the highest rowid of matches mapped so far
        self._lock = threading.Lock()
        self._viewers: dict[str, str] = {}

    def viewer(self, name: str) -> str:
        if name not in self._viewers:
            from arena.report import environment

            self._viewers[name] = environment().get_template(name).render(
                tournament="ladder", status="running", root="", linked=set(), title=name)
        return self._viewers[name]

    def match_id(self, store: LadderStore, file: str) -> str | None:
        from arena.report.context import file_name

        with self._lock:
            if file not in self._files:
                for row, match_id in store.db.execute("SELECT rowid, id FROM matches WHERE rowid > ? ORDER BY rowid",
                                                      [self._last_row]):
                    self._files[file_name(match_id)] = match_id
                    self._last_row = row
            return self._files.get(file)

    def data(self, file: str) -> str | None:
        """The data file ``data/<file>.js`` (None: no such finished match)."""
        from arena.report import match_data_file

        with LadderStore(self.db) as store:
            match_id = self.match_id(store, file)
            return None if match_id is None else match_data_file(store, match_id)

    def version_key(self, file: str) -> str | None:
        from arena.report.context import file_name

        with LadderStore(self.db) as store:
            return next((v.key for v in store.versions() if file_name(v.key) == file), None)


class _TooLarge(Exception):
    pass


def _capped(receive: Receive, limit: int) -> Receive:
    """``receive`` that raises _TooLarge once the body passed ``limit`` bytes (counted as they come: a chunked
    body has no Content-Length to trust)."""
    seen = 0

    async def capped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise _TooLarge
        return message

    return capped


def _megabytes(size: int) -> str:
    return f"{size / 1024:.0f} KB" if size < 1024 * 1024 else f"{size / (1024 * 1024):.1f} MB"


def build_ladder_app(site: LadderSite) -> Starlette:
    env = environment()

    def page(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        lang = lang_of(request)
        return render_page(env, request, template, status, variant=site.variant, site_name=strings(lang)["ladder_site"],
                           variant_label=variant_name(site.variant, lang), **values)

    def client_of(request: Request) -> str:
        return request.client.host if request.client else "?"

    def bearer(request: Request) -> str | None:
        """The token of an ``Authorization: Bearer TOKEN`` header (a script's, e.g. curl), else None."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return token.strip() if scheme.lower() == "bearer" and token.strip() else None

    async def who(request: Request) -> tuple[str | None, Response | None]:
        """The author the request speaks for (a Bearer token, else the session cookie), checked against the
        database now; or the refusal to answer with: 429 while the address is held back (no token is looked
        at), 403 for a wrong, revoked or missing one. Nothing of the body is read."""
        from arena.tournament.ladder import token_hash

        t = strings(lang_of(request))
        client = client_of(request)
        token = bearer(request)
        if token is not None:
            wait = site.throttle.retry_after(client)
            if wait is not None:
                return None, too_many(request, wait)
            author = await trio.to_thread.run_sync(site.author_of, token_hash(token))
            if author is None:
                site.throttle.failed(client)
                return None, page(request, "ladder_signin.html", 403, message=t["ladder_bad_token"])
            return author, None
        sid = request.cookies.get(SESSION_COOKIE)
        author = await trio.to_thread.run_sync(site.author_of, site.sessions.token_hash(sid))
        if author is None:
            site.sessions.close(sid)  # expired, revoked or unknown: signed out
            return None, page(request, "ladder_signin.html", 403, message=t["ladder_sign_in_first"])
        return author, None

    def too_many(request: Request, wait: int) -> Response:
        t = strings(lang_of(request))
        response = page(request, "ladder_signin.html", 429, message=t["ladder_too_many"].format(seconds=wait))
        response.headers["Retry-After"] = str(wait)
        return response

    def cross_site(request: Request) -> Response | None:
        if same_origin(request.headers.get("origin"), request.headers.get("host")):
            return None
        t = strings(lang_of(request))
        return page(request, "ladder_signin.html", 403,
                    message=t["ladder_bad_upload"].format(reason="cross-site request"))

    async def board(request: Request) -> Response:
        shown = await trio.to_thread.run_sync(site.board)
        return page(request, "ladder_board.html", rows=shown.rows, waiting=shown.waiting, flagged=shown.flagged,
                    anchor=shown.anchor)

    async def bot(request: Request) -> Response:
        key = request.path_params["key"]
        found = await trio.to_thread.run_sync(site.bot, key)  # (SQLite off the event loop, as the board's)
        if found is None:
            return page(request, "serve_message.html", 404, message="unknown",
                        detail=strings(lang_of(request))["ladder_unknown_bot"].format(name=key))
        version, history, recent, rating, state = found
        lang = lang_of(request)
        t = strings(lang)
        viewer = "match.html" if lang == "en" else f"match.html?lang={lang}"  # the replay in the page's language
        chart = band_chart([h.seq + 1 for h in history], [h.rating.rating for h in history],
                           [h.rating.low for h in history], [h.rating.high for h in history],
                           f"{key}: {t['ladder_history']}", t["ladder_history_axis"])
        return page(request, "ladder_bot.html", version=version, rating=rating, chart=chart, recent=recent, state=state,
                    replay_url=lambda match_id: f"/replay/{viewer}#{_file_name(match_id)}")

    async def signed_in(request: Request) -> str | None:
        """The author of the session cookie, if it is still good (no refusal: a page offers to sign in)."""
        digest = site.sessions.token_hash(request.cookies.get(SESSION_COOKIE))
        return await trio.to_thread.run_sync(site.author_of, digest)

    async def upload_form(request: Request) -> Response:
        author = await signed_in(request)
        if author is None:
            return page(request, "ladder_signin.html", message=None)
        return page(request, "ladder_upload.html", message=None, author=author)

    async def signin(request: Request) -> Response:
        from arena.tournament.ladder import token_hash

        t = strings(lang_of(request))
        refusal = cross_site(request)
        if refusal is not None:
            return refusal
        client = client_of(request)
        wait = site.throttle.retry_after(client)
        if wait is not None:
            return too_many(request, wait)
        try:
            fields = await small_form(request)
        except Refused as e:
            return page(request, "ladder_signin.html", 400, message=t["ladder_bad_upload"].format(reason=str(e)))
        digest = token_hash(fields.get("token", ""))
        author = await trio.to_thread.run_sync(site.author_of, digest)
        if author is None:
            site.throttle.failed(client)
            return page(request, "ladder_signin.html", 403, message=t["ladder_bad_token"])
        response = RedirectResponse("/upload", 303)
        response.set_cookie(SESSION_COOKIE, site.sessions.open(digest), max_age=int(site.sessions.lifetime),
                            httponly=True, samesite="strict", path="/")
        return response

    async def signout(request: Request) -> Response:
        refusal = cross_site(request)
        if refusal is not None:
            return refusal
        site.sessions.close(request.cookies.get(SESSION_COOKIE))
        response = RedirectResponse("/upload", 303)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
        return response

    async def mine(request: Request) -> Response:
        from arena.tournament.ladder import private_text  # (again: a detail stored by an older arena, say)

        author, refusal = await who(request)
        if refusal is not None or author is None:
            return refusal or Response(status_code=403)
        versions, used = await trio.to_thread.run_sync(site.mine, author)
        uploads = site.uploads_of(author)
        return page(request, "ladder_mine.html", author=author, versions=versions, uploads=uploads,
                    position=site.position, waiting=len(site.waiting), used=_megabytes(used),
                    quota=_megabytes(site.author_quota), detail=private_text)

    async def upload(request: Request) -> Response:
        from arena.tournament.config import name_problem

        t = strings(lang_of(request))

        def refuse(reason: str, status: int = 400) -> Response:
            return page(request, "ladder_upload.html", status, author=author,
                        message=t["ladder_bad_upload"].format(reason=reason))

        refusal = cross_site(request)
        if refusal is not None:
            return refusal
        author, refusal = await who(request)  # before a byte of the body is read
        if refusal is not None or author is None:
            return refusal or Response(status_code=403)
        if sum(u.author == author for u in site.waiting + site.running) >= MAX_WAITING_PER_AUTHOR:
            return refuse(t["ladder_busy"].format(n=MAX_WAITING_PER_AUTHOR), 429)
        length = content_length(request)
        if length > MAX_UPLOAD_BYTES:
            return refuse(f"more than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB", 413)
        used = await trio.to_thread.run_sync(site.usage, author)
        if used >= site.author_quota:
            return refuse(t["ladder_over_quota"].format(used=_megabytes(used), quota=_megabytes(site.author_quota)),
                          413)
        try:
            form = await Request(request.scope, _capped(request.receive, MAX_UPLOAD_BYTES)).form(
                max_files=MAX_FILES, max_fields=10)
        except _TooLarge:
            return refuse(f"more than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB", 413)
        except Exception as e:  # noqa: BLE001  (python-multipart's errors: a malformed body)
            return refuse(f"the form was not understood ({type(e).__name__})")
        try:
            fields = {k: v for k, v in form.items() if isinstance(v, str)}
            files = [f for f in form.getlist("files") if isinstance(f, UploadFile) and f.filename]
            name = fields.get("name", "").strip()
            wrong = name_problem(name)
            if wrong is not None:
                return refuse(f"name: {wrong[0]}")
            command = fields.get("command", "").strip()
            if not command and len(files) == 1:
                command = f"./{files[0].filename}"
            if not command:
                return refuse("give a command line, or one file to run")
            names = [Path(f.filename or "").name for f in files]
            for base in names:
                if not _FILE_NAME.fullmatch(base):
                    return refuse(f"file name {base[:40]!r}: letters, digits and _ . - only")
            if len(set(names)) < len(names):
                return refuse("two files have the same name")
            size = sum(f.size or 0 for f in files)
            build = fields.get("build", "").strip() or None
            async with site.accept_lock:  # the quota, then the files kept and queued: one upload at a time
                used = await trio.to_thread.run_sync(site.usage, author)
                if used + size > site.author_quota:
                    return refuse(t["ladder_over_quota"].format(used=_megabytes(used),
                                                                quota=_megabytes(site.author_quota)), 413)
                folder = site.files / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}"
                try:
                    await trio.to_thread.run_sync(_keep, folder, files)
                except OSError as e:
                    site.remove_folder(folder)  # nothing half-kept
                    return refuse(f"cannot keep the files ({e.strerror})", 500)
                queued = site.enqueue(author, name, command, build, folder, size)
        finally:
            await form.close()
        position = site.position(queued) or 1
        response = page(request, "ladder_upload.html", 202, author=author,
                        message=t["ladder_received"].format(name=name, position=position))
        response.headers["Location"] = "/mine"
        return response

    async def rules(request: Request) -> Response:
        if request.path_params["variant"] != site.variant:
            return Response("not found", 404)
        lang = lang_of(request)
        return page(request, "serve_rules.html", sections=rules_sections(site.rules, lang),
                    variants=[(site.variant, variant_name(site.variant, lang))])

    async def replay(request: Request) -> Response:
        path = request.path_params["path"]
        replays = site.replays
        if path in VIEWERS:
            return HTMLResponse(replays.viewer(path), headers={"Cache-Control": "no-cache"})
        if path.startswith("static/"):
            return file_response(REPORT_STATIC, path.removeprefix("static/"))
        if path.startswith("data/") and path.endswith(".js"):
            text = await trio.to_thread.run_sync(replays.data, path[len("data/"):-len(".js")])
            if text is None:
                return Response("not found", 404)
            return Response(text, media_type="text/javascript; charset=utf-8", headers={"Cache-Control": "no-cache"})
        if path.startswith("bots/") and path.endswith(".html"):  # the viewer's link to a bot: its version page
            key = await trio.to_thread.run_sync(replays.version_key, path[len("bots/"):-len(".html")])
            return RedirectResponse(f"/bot/{key}", 303) if key else Response("not found", 404)
        if path == "rules.html":
            return RedirectResponse(f"/rules/{site.variant}", 303)
        if path in ("", "index.html", "matches.html"):  # the ladder's own pages stand for the report's
            return RedirectResponse("/", 303)
        return Response("not found", 404)

    async def static(request: Request) -> Response:
        return static_response(request.path_params["name"])

    return Starlette(routes=[
        Route("/", board),
        Route("/bot/{key}", bot),
        Route("/upload", upload_form),
        Route("/upload", upload, methods=["POST"]),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/mine", mine),
        Route("/rules/{variant}", rules),
        Route("/replay/{path:path}", replay),
        Route("/static/{name}", static),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
    ])


def _keep(folder: Path, files: list[UploadFile]) -> None:
    """An upload's files written into its new folder, readable by the sandboxed bot's own uid."""
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    for f in files:
        target = folder / Path(f.filename or "").name
        f.file.seek(0)
        with target.open("xb") as out:
            shutil.copyfileobj(f.file, out)
        target.chmod(0o755)


#: How long a stopped ladder run is given to finish what it was writing (after SIGINT) before it is killed.
RUN_STOP_S = 30.0
#: A run that ended on its own is started again after this long, doubled while it keeps ending within a
#: minute (a ladder locked by another `arena ladder DB run`, say), at most RUN_RESTART_MAX_S.
RUN_RESTART_S = 1.0
RUN_RESTART_MAX_S = 60.0


def _die_with_parent() -> None:
    """In the run's child, before exec: SIGKILL when the server dies, however it dies (its bots die with
    it, their sandboxes' --die-with-parent): a SIGKILLed server leaves nothing playing."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)


async def keep_playing(argv: list[str]) -> None:
    """`arena ladder DB serve`'s player: ``argv`` (`arena ladder DB run ...`) as a child process, started
    again whenever it ends, until cancelled; then it is asked to stop (SIGINT, as Ctrl-C: the matches
    playing end, and what finished is saved) and killed if it has not within RUN_STOP_S."""
    wait = RUN_RESTART_S
    while True:
        started = trio.current_time()
        proc = await trio.lowlevel.open_process(argv, preexec_fn=_die_with_parent)
        try:
            code = await proc.wait()
        except trio.Cancelled:
            with trio.CancelScope(shield=True):
                proc.send_signal(signal.SIGINT)
                with trio.move_on_after(RUN_STOP_S):
                    await proc.wait()
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
            raise
        wait = RUN_RESTART_S if trio.current_time() - started > RUN_RESTART_MAX_S else min(wait * 2, RUN_RESTART_MAX_S)
        print(f"arena ladder serve: the ladder run ended (exit status {code}); starting it again in {wait:g} s",
              file=sys.stderr, flush=True)
        await trio.sleep(wait)
