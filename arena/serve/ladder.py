"""`arena serve --ladder DB`: a ladder seen live (docs/SERVE.md, docs/LADDER.md).

The leaderboard (rating, interval, provisional mark, rank interval, pairs, author, version), each version's
page (its rating after each of its pairs as an inline SVG, its recent matches with links to their replays),
the replays themselves (the database's report, rendered again when it changed) and an upload form that
registers a version exactly as `arena ladder DB add` does, for a holder of a valid token. Admission runs in
a worker thread; the page answers at once.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.types import Message

from arena.game.variants import RuleSet
from arena.report.charts import band_chart
from arena.serve.app import (
    _file_name,
    environment,
    file_response,
    lang_of,
    render_page,
    same_origin,
    static_response,
)
from arena.serve.i18n import rules_sections, strings, variant_name
from arena.serve.watch import Watcher
from arena.store.ladder import LadderStore, data_folder

if TYPE_CHECKING:
    from arena.stats.ladder import LadderRating
    from arena.store.ladder import LadderVersion
    from arena.tournament.ladder import Board

MAX_UPLOAD_BYTES = 20 * 1024 * 1024  # a bot's sources or a static binary, not a data set
MAX_FILES = 50
_FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,99}")


class LadderSite:
    """The ladder's database, read per request (a run writes it meanwhile), and its rendered report."""

    def __init__(self, db: Path, sandbox: str | None = None) -> None:
        self.db = db
        self.sandbox = sandbox
        self.watcher = Watcher(db)
        self.rendered: tuple[float, ...] | None = None
        self.render_lock = trio.Lock()
        self.nursery: trio.Nursery | None = None  # where admissions run; the server's, set when it starts
        with LadderStore(db) as store:
            rules, _, _ = store.ladder_settings()
        self.rules = RuleSet.from_dict(rules)
        self.variant = self.rules.name

    async def replays(self) -> Path:
        async with self.render_lock:
            stamp = self.watcher.stamp()
            if stamp != self.rendered:
                await trio.to_thread.run_sync(self.watcher.render, False)
                self.rendered = stamp
        return self.watcher.out

    def board(self) -> Board:
        from arena.tournament.ladder import board

        with LadderStore(self.db) as store:
            return board(store)

    def admit_in_background(self, name: str, command: str, build: str | None, author: str, folder: Path) -> None:
        """Register and admit an upload (arena.tournament.ladder.admit_upload; in a worker thread: it takes
        seconds)."""
        from arena.tournament.ladder import admit_upload

        with LadderStore(self.db) as store:
            admit_upload(store, name, command, build, author, folder, self.sandbox)

    def bot(self, key: str) -> tuple[LadderVersion, list[Any], list[Any], LadderRating | None] | None:
        """A version's page: the version, its rating history, its recent matches and its rating now."""
        from arena.tournament.ladder import standings

        with LadderStore(self.db) as store:
            version = store.version(key)
            if version is None:
                return None
            rating = next((r for r in standings(store) if r.key == key), None)
            return version, store.history(key), store.recent_matches(key), rating

    def resume_admissions(self) -> None:
        """Admit again what an earlier server (or `add`) was admitting when it stopped: the uploaded files are
        still in their folder, and the author should not have to send them twice (in a worker thread)."""
        from arena.tournament.ladder import admit, claim_abandoned

        with LadderStore(self.db) as store:
            for version in store.versions():
                mine = claim_abandoned(store, version)
                if mine is not None:
                    admit(store, mine, self.sandbox)

    def close(self) -> None:
        self.watcher.close()


def build_ladder_app(site: LadderSite) -> Starlette:
    env = environment()

    def page(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        return render_page(env, request, template, status, variant=site.variant,
                           variant_label=variant_name(site.variant, lang_of(request)), **values)

    async def board(request: Request) -> Response:
        shown = await trio.to_thread.run_sync(site.board)
        return page(request, "ladder_board.html", rows=shown.rows, waiting=shown.waiting, flagged=shown.flagged)

    async def bot(request: Request) -> Response:
        key = request.path_params["key"]
        found = await trio.to_thread.run_sync(site.bot, key)  # (SQLite off the event loop, as the board's)
        if found is None:
            return page(request, "serve_message.html", 404, message="unknown",
                        detail=strings(lang_of(request))["ladder_unknown_bot"].format(name=key))
        version, history, recent, rating = found
        lang = lang_of(request)
        t = strings(lang)
        viewer = "match.html" if lang == "en" else f"match.html?lang={lang}"  # the replay in the page's language
        chart = band_chart([h.seq + 1 for h in history], [h.rating.rating for h in history],
                           [h.rating.low for h in history], [h.rating.high for h in history],
                           f"{key}: {t['ladder_history']}", t["ladder_history_axis"])
        return page(request, "ladder_bot.html", version=version, rating=rating, chart=chart, recent=recent,
                    replay_url=lambda match_id: f"/replay/{viewer}#{_file_name(match_id)}")

    async def upload_form(request: Request) -> Response:
        return page(request, "ladder_upload.html", message=None)

    async def upload(request: Request) -> Response:
        from arena.tournament.config import name_problem
        from arena.tournament.ladder import token_hash

        t = strings(lang_of(request))

        def refuse(reason: str, status: int = 400) -> Response:
            return page(request, "ladder_upload.html", status, message=t["ladder_bad_upload"].format(reason=reason))

        if not same_origin(request.headers.get("origin"), request.headers.get("host")):
            return refuse("cross-site request", 403)
        def too_large() -> Response:
            return refuse(f"more than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB", 413)

        if int(request.headers.get("content-length") or 0) > MAX_UPLOAD_BYTES:
            return too_large()
        # the bytes are counted as they come: a chunked upload has no Content-Length to trust
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_UPLOAD_BYTES:
                return too_large()

        async def replay_body() -> Message:
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        try:
            form = await Request(request.scope, replay_body).form(max_files=MAX_FILES, max_fields=10)
        except Exception as e:  # noqa: BLE001  (python-multipart's errors: a malformed body)
            return refuse(f"the form was not understood ({type(e).__name__})")
        fields = {k: v for k, v in form.items() if isinstance(v, str)}
        files = [f for f in form.getlist("files") if isinstance(f, UploadFile) and f.filename]
        with LadderStore(site.db) as store:
            author = store.token_author(token_hash(fields.get("token", "")))
        if author is None:
            return page(request, "ladder_upload.html", 403, message=t["ladder_bad_token"])
        name = fields.get("name", "").strip()
        wrong = name_problem(name)
        if wrong is not None:
            return refuse(f"name: {wrong[0]}")
        command = fields.get("command", "").strip()
        if not command and len(files) == 1:
            command = f"./{files[0].filename}"
        if not command:
            return refuse("give a command line, or one file to run")
        folder = data_folder(site.db) / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns() % 10**6}"
        try:
            folder.mkdir(parents=True)
            folder.chmod(0o755)  # a sandboxed bot runs under its own uid: it must read its files
            for f in files:
                base = Path(f.filename or "").name
                if not _FILE_NAME.fullmatch(base):
                    return refuse(f"file name {base[:40]!r}: letters, digits and _ . - only")
                target = folder / base
                with target.open("wb") as out:
                    shutil.copyfileobj(f.file, out)
                target.chmod(0o755)
        except OSError as e:
            return refuse(f"cannot keep the files ({e.strerror})", 500)
        build = fields.get("build", "").strip() or None
        assert site.nursery is not None
        site.nursery.start_soon(trio.to_thread.run_sync, site.admit_in_background, name, command, build, author,
                                folder)
        return page(request, "ladder_upload.html", 202, message=t["ladder_received"].format(name=name))

    async def rules(request: Request) -> Response:
        if request.path_params["variant"] != site.variant:
            return Response("not found", 404)
        lang = lang_of(request)
        return page(request, "serve_rules.html", sections=rules_sections(site.rules, lang),
                    variants=[(site.variant, variant_name(site.variant, lang))])

    async def replay(request: Request) -> Response:
        return file_response(await site.replays(), request.path_params["path"])

    async def static(request: Request) -> Response:
        return static_response(request.path_params["name"])

    return Starlette(routes=[
        Route("/", board),
        Route("/bot/{key}", bot),
        Route("/upload", upload_form),
        Route("/upload", upload, methods=["POST"]),
        Route("/rules/{variant}", rules),
        Route("/replay/{path:path}", replay),
        Route("/static/{name}", static),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
    ])
