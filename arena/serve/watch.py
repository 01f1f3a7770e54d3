"""`arena serve --watch DB`: the report of a database that `arena run` is writing, live.

The report is rendered by arena.report into a private folder (in a worker thread), again whenever the
database changes; the index page gets one more script (static/watch.js) that listens to server-sent events
on ``/events`` and swaps in the new page's content when a match finishes: the standings change without a
reload.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from arena.serve.app import STATIC, file_response
from arena.serve.seat import Watched
from arena.store.store import LuckCache

POLL_S = 0.5
WATCH_SCRIPT = '<script src="/_serve/watch.js"></script>'


class Watcher:
    def __init__(self, db: Path) -> None:
        self.db = db
        self.out = Path(tempfile.mkdtemp(prefix="arena-serve-watch-"))
        self.watched = Watched()
        self.seen: tuple[float, ...] = ()
        self.luck: LuckCache = {}  # kept between renders (Store's luck_cache)

    def stamp(self) -> tuple[float, ...]:
        out = []
        for suffix in ("", "-wal"):
            try:
                st = os.stat(str(self.db) + suffix)
                out += [st.st_mtime, st.st_size]
            except OSError:
                out += [0.0, 0.0]
        return tuple(out)

    def render(self, index_only: bool) -> None:
        from arena.report import render_report
        from arena.store import Store

        with Store.open_existing(self.db, luck_cache=self.luck) as store:
            render_report(store, self.out, index_only=index_only, workers=1)

    async def first(self) -> None:
        self.seen = self.stamp()
        await trio.to_thread.run_sync(self.render, False)
        self.watched.bump()

    async def follow(self) -> None:
        """Render again when the database changes: the index at once, every page now and then."""
        renders = 0
        while True:
            await trio.sleep(POLL_S)
            now = self.stamp()
            if now == self.seen:
                continue
            self.seen = now
            renders += 1
            await trio.to_thread.run_sync(self.render, renders % 10 != 0)
            self.watched.bump()

    def close(self) -> None:
        shutil.rmtree(self.out, ignore_errors=True)


def build_watch_app(watcher: Watcher) -> Starlette:
    async def page(request: Request) -> Response:
        path = request.path_params.get("path", "") or "index.html"
        response = file_response(watcher.out, path)
        if path.endswith(".html") and response.status_code == 200:
            html = bytes(response.body).decode("utf-8")
            html = html.replace("</body>", WATCH_SCRIPT + "\n</body>", 1)
            return Response(html, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})
        return response

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            version = watcher.watched.version
            yield f"event: hello\ndata: {version}\n\n"
            while True:
                with trio.move_on_after(15):
                    await watcher.watched.wait_past(version)
                if watcher.watched.version == version:
                    yield ": keep-alive\n\n"
                    continue
                version = watcher.watched.version
                yield f"data: {version}\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def script(request: Request) -> Response:
        return Response(STATIC["watch.js"].read_bytes(), media_type="text/javascript; charset=utf-8")

    return Starlette(routes=[
        Route("/events", events),
        Route("/_serve/watch.js", script),
        Route("/", page),
        Route("/{path:path}", page),
    ])
