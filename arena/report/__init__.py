"""The HTML report: static pages that open from disk (file://) with no network at all.

    render_report(store, Path("reports/demo"))                   # everything
    render_report(store, Path("reports/demo"), index_only=True)  # just index.html (live, while running)

Pages (see docs/REPORTS.md): ``index.html`` (standings, ratings chart, cross table, LOS matrix),
``rules.html``, ``matches.html`` (every match, filtered by bot), ``bots/<name>.html``, ``matches/<id>.html``
(result, replay viewer with each bot's info lines and think time, transcripts) and ``pairs/<id>.html`` (a
duplicate pair's two games side by side), sharing ``static/report.css`` and ``static/report.js``. A match's
replay data and transcripts are not in its page but in ``data/<id>.js`` (compressed), which the match page
and the pair page load with ``<script src>``. One jinja2 environment with autoescaping on for every
template; the SVG charts are built in Python with every text escaped.
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from arena.report import context as ctx

if TYPE_CHECKING:
    from arena.tournament.store import Store, StoredDeal, StoredMatch, StoredTermination

__all__ = ["environment", "render_report"]

_HERE = Path(__file__).resolve().parent
STATIC_FILES = ("report.css", "report.js")


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The report's one jinja2 environment (autoescape on for every template, also for strings)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_HERE / "templates")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters.update(card=card_html, cards=cards_html, signed=ctx.signed, pct=ctx.pct, ms=_ms, fname=ctx.file_name,
                       when=ctx._when)
    return env


def card_html(card: str | None) -> Markup:
    """``Th`` as a small card: ``<span class="card red">10♥</span>`` (the text escaped, always)."""
    if not card:
        return Markup("")
    html = _CARD_HTML.get(card)
    if html is None:
        suit = card[1:2]
        red = " red" if suit in ("h", "d") else ""
        name = f"{'10' if card[0] == 'T' else card[0]} of {ctx.SUIT_NAMES.get(suit, '?')}"
        html = Markup('<span class="card{}" title="{}">{}</span>').format(red, name, ctx.card_text(card))
        if len(_CARD_HTML) < 1000:
            _CARD_HTML[card] = html
    return html


_CARD_HTML: dict[str, Markup] = {}


def cards_html(cards: str | Iterable[str] | None) -> Markup:
    if not cards:
        return Markup("")
    items = cards.split() if isinstance(cards, str) else list(cards)
    return Markup(" ").join(card_html(c) for c in items)


def _ms(v: float | None) -> str:
    if v is None:
        return "–"
    if v >= 1000:
        return f"{v / 1000:.2f} s"
    return f"{v:.3g} ms"


def _write(path: Path, text: str) -> None:
    """Write through a temporary file and rename, so a browser reloading the page never sees half of it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _copy_static(out: Path) -> None:
    (out / "static").mkdir(exist_ok=True)
    for name in STATIC_FILES:
        src, dst = _HERE / "static" / name, out / "static" / name
        if not dst.exists() or dst.read_bytes() != src.read_bytes():
            shutil.copyfile(src, dst)


def _existing_pages(out: Path) -> set[str]:
    pages = {p for p in ("rules.html", "matches.html") if (out / p).exists()}
    for folder in ("bots", "matches", "pairs"):
        try:
            pages.update(f"{folder}/{n}" for n in os.listdir(out / folder) if n.endswith(".html"))
        except OSError:
            pass
    return pages


def render_report(store: Store, out_dir: Path, index_only: bool = False, workers: int | None = None) -> Path:
    """Render the tournament in ``store`` into ``out_dir``; returns the path of ``index.html``.

    ``index_only`` re-renders just the index (cheaper ratings bootstrap, progress line while the
    tournament runs); it links only to pages that already exist. ``workers`` caps the processes that
    render match pages of a large tournament (default: the CPUs, at most 8; env ``ARENA_REPORT_WORKERS``).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    env = environment()
    _copy_static(out)
    # Not through the tournament runner (arena.tournament.runner, the owner of concurrency for matches): pages
    # are CPU-bound Python, which only separate processes render in parallel, and the runner's slots are
    # trio tasks that wait on bots. So the match pages are split into chunks, one per render process.
    children: list[tuple[subprocess.Popen[bytes], dict[str, Any]]] = []
    own_job: dict[str, Any] | None = None
    if not index_only:
        t, matches = ctx.load_matches(store)
        names = ctx.bot_names(store, t.name, matches)
        base = {"tournament": t.name, "status": t.status}
        linked = {"rules.html", "matches.html"}
        linked.update(f"bots/{ctx.file_name(b)}.html" for b in names)
        linked.update(f"matches/{ctx.file_name(m.match_id)}.html" for m in matches if m.done)
        by_id = {m.match_id: m for m in matches}
        linked.update(f"pairs/{ctx.file_name(ctx.pair_id(by_id[g0]))}.html" for g0, _ in ctx.comparable_pairs(matches))
        (out / "matches").mkdir(exist_ok=True)
        jobs = [{"base": base, "linked": sorted(linked), "items": chunk}
                for chunk in _chunks(ctx.match_plan(matches), _worker_count(workers, len(matches)))]
        own_job = jobs[0] if jobs else None
        children = [(_start_worker(store, out, job), job) for job in jobs[1:]]
    data = ctx.load(store, bootstrap=ctx.BOOTSTRAP_LIVE if index_only else ctx.BOOTSTRAP_FINAL,
                    think_times=not index_only)
    base = {"tournament": data.tournament.name, "status": data.status}
    _write(out / "rules.html", env.get_template("rules.html").render(
        **base, root="", linked={"rules.html"}, **ctx.template_vars(ctx.rules_context(data))))
    if index_only:
        linked = _existing_pages(out)
    else:
        _render_lists(store, data, out, env, base, linked)
        if own_job is not None:
            render_matches(store, out, own_job)
        for proc, job in children:
            try:
                failed = proc.wait(timeout=WORKER_TIMEOUT_S) != 0
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                failed = True
            if failed:  # a worker that failed, hung or could not start: render its share here
                render_matches(store, out, job)
    index = out / "index.html"
    _write(index, env.get_template("index.html").render(**base, root="", linked=linked,
                                                         **ctx.template_vars(ctx.index_context(data))))
    return index


# ------------------------------------------------------------------------------------------- match pages
MATCHES_PER_WORKER = 250  # below this many matches per process, starting one costs more than it saves
WORKER_TIMEOUT_S = 900.0


def _worker_count(requested: int | None, matches: int) -> int:
    if requested is None:
        env = os.environ.get("ARENA_REPORT_WORKERS", "")
        if env.isdigit():
            requested = int(env)
        else:
            try:
                cpus = len(os.sched_getaffinity(0))
            except (AttributeError, OSError):
                cpus = os.cpu_count() or 1
            requested = min(8, cpus)
    return max(1, min(requested, math.ceil(matches / MATCHES_PER_WORKER)))


def _chunks(items: list[Any], n: int) -> list[list[Any]]:
    if not items:
        return []
    size = math.ceil(len(items) / n)
    return [items[i:i + size] for i in range(0, len(items), size)]


def _start_worker(store: Store, out: Path, job: dict[str, Any]) -> subprocess.Popen[bytes]:
    """A fresh interpreter that renders ``job``'s match pages (see :func:`_worker_main`). A plain
    subprocess rather than multiprocessing: nothing of the caller's ``__main__`` runs again in it."""
    package_root = str(_HERE.parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from arena.report import _worker_main; _worker_main()"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(json.dumps({"db": str(Path(store.path).resolve()), "out": str(out.resolve()),
                                     **job}).encode())
        proc.stdin.close()
    except OSError:
        pass  # it died at once; wait() reports it and the caller renders the job itself
    return proc


def _worker_main() -> None:
    job = json.loads(sys.stdin.read())
    from arena.tournament.store import Store

    store = Store.open_existing(Path(job["db"]))
    try:
        render_matches(store, Path(job["out"]), job)
    finally:
        store.close()


def render_matches(store: Store, out: Path, job: dict[str, Any]) -> None:
    """Render the match pages of ``job["items"]`` (each ``[id, partner id, previous id, next id, first
    game id]``, see :func:`arena.report.context.match_plan`), and after the second game of a comparable
    duplicate pair its pair page (the first game's deals are usually the previous item's). Each match's
    replay and transcripts go to ``data/<id>.js``, which both pages load."""
    env = environment()
    page = env.get_template("match.html")
    pair_page = env.get_template("pair.html")
    t, matches = ctx.load_matches(store)
    by_id = {m.match_id: m for m in matches}
    rules = ctx.rules_of(t.rules)
    linked = set(job["linked"])
    base = job["base"]
    for folder in ("matches", "data"):
        (out / folder).mkdir(exist_ok=True)
    recent: dict[str, list[StoredDeal]] = {}  # match id -> deals: the last few
    for mid, partner, prev, nxt, *rest in job["items"]:
        m = by_id.get(mid)
        if m is None or not m.done:
            continue
        deals = store.deals(mid)
        seats = store.seats(mid)
        replay = ctx.match_replay(rules, m, deals, seats) if rules is not None else None
        context = ctx.match_context(m, deals, store.match_terminations(mid), seats,
                                    by_id.get(partner) if partner else None,
                                    (by_id.get(prev) if prev else None, by_id.get(nxt) if nxt else None), rules,
                                    replay_data=replay)
        _write(out / "data" / f"{context.data_file}.js", ctx.match_data_script(mid, replay, seats))
        html = page.render(**base, root="../", linked=linked, **ctx.template_vars(context))
        _write(out / "matches" / f"{ctx.file_name(mid)}.html", html)
        if replay is None:
            continue
        if len(recent) >= 4:
            recent.pop(next(iter(recent)))
        recent[mid] = deals
        first = by_id.get(rest[0]) if rest and rest[0] else None
        if first is not None and rules is not None:
            if first.match_id not in recent:
                recent[first.match_id] = store.deals(first.match_id)
            pair = ctx.pair_context((first, m), (recent[first.match_id], deals))
            (out / "pairs").mkdir(exist_ok=True)
            _write(out / "pairs" / f"{ctx.file_name(pair.pair)}.html",
                   pair_page.render(**base, root="../", linked=linked, **ctx.template_vars(pair)))


# ------------------------------------------------------------------------------------------- other pages
def _render_lists(store: Store, data: ctx.Data, out: Path, env: jinja2.Environment, base: dict[str, Any],
                  linked: set[str]) -> None:
    name = data.tournament.name
    listing = ctx.matches_context(data)
    (out / "data").mkdir(exist_ok=True)
    _write(out / "data" / "matches.js", ctx.matches_data_script(listing, linked))
    _write(out / "matches.html", env.get_template("matches.html").render(
        **base, root="", linked=linked, **ctx.template_vars(listing)))
    (out / "bots").mkdir(exist_ok=True)
    standings = {r.bot: r for r in ctx.standing_rows(data)}
    traj = ctx.trajectory(data)
    terms: dict[str, list[StoredTermination]] = {}
    for t in store.terminations(name):
        terms.setdefault(t.bot, []).append(t)
    hellos = store.hellos(name)
    by_bot: dict[str, list[StoredMatch]] = {b: [] for b in data.names}
    for m in data.done:
        for b in {m.seat0, m.seat1}:
            by_bot.setdefault(b, []).append(m)
    bot_page = env.get_template("bot.html")
    for b in data.names:
        page = bot_page.render(**base, root="../", linked=linked, **ctx.template_vars(ctx.bot_context(
            data, b, standings[b], traj, terms.get(b, []), hellos.get(b), by_bot.get(b, []))))
        _write(out / "bots" / f"{ctx.file_name(b)}.html", page)
