"""The HTML report: static pages that open from disk (file://) with no network at all.

    render_report(store, Path("reports/demo"))                   # everything
    render_report(store, Path("reports/demo"), index_only=True)  # just index.html (live, while running)

Pages (see docs/REPORTS.md): ``index.html`` (standings, ratings chart, cross table, LOS matrix),
``rules.html``, ``matches.html`` (every match, filtered by bot), ``bots/<name>.html``, and two viewer pages
that are the same for every match: ``match.html#<id>`` (result, replay with each bot's info lines and think
time, deals, transcripts) and ``pair.html#<id>`` (a duplicate pair's two games side by side), sharing
``static/report.css`` and ``static/report.js``. What the viewer shows of a match is in ``data/<id>.js``
(compressed: the facts, a compact replay that report.js rebuilds the steps from, the bots' info lines and
think times, stderr, and the transcripts of the matches with a fault), which it loads with a ``<script>``
element. One jinja2 environment with autoescaping on for every template; the SVG charts are built in
Python with every text escaped.
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from arena.report import context as ctx

if TYPE_CHECKING:
    from arena.store import Store, StoredMatch, StoredTermination

__all__ = ["environment", "match_data_file", "render_report"]

_HERE = Path(__file__).resolve().parent
STATIC_FILES = ("report.css", "board.css", "cards.js", "report.js")  # board.css, cards.js: shared with arena serve


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
    env.filters.update(signed=ctx.signed, pct=ctx.pct, ms=_ms, fname=ctx.file_name,
                       when=ctx._when)
    return env


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
    """What a link may point to: the pages, and ``data/<id>.js`` for each match the viewer can show."""
    pages = {p for p in ("rules.html", "matches.html") if (out / p).exists()}
    for folder, ext in (("bots", ".html"), ("data", ".js")):
        try:
            pages.update(f"{folder}/{n}" for n in os.listdir(out / folder) if n.endswith(ext))
        except OSError:
            pass
    return pages


def _remove_old_pages(out: Path) -> None:
    """The page per match and per pair of earlier versions (``matches/``, ``pairs/``): the viewer replaced them."""
    for folder in ("matches", "pairs"):
        try:
            names = os.listdir(out / folder)
        except OSError:
            continue
        for n in names:
            if n.endswith(".html"):
                (out / folder / n).unlink(missing_ok=True)
        try:
            (out / folder).rmdir()
        except OSError:
            pass


def render_report(store: Store, out_dir: Path, index_only: bool = False, workers: int | None = None,
                  transcripts: str = "faults") -> Path:
    """Render the tournament in ``store`` into ``out_dir``; returns the path of ``index.html``.

    ``index_only`` re-renders just the index (cheaper ratings bootstrap, progress line while the
    tournament runs); it links only to pages that already exist. ``workers`` caps the processes that
    write the matches' data files of a large tournament (default: the CPUs, at most 8; env
    ``ARENA_REPORT_WORKERS``). ``transcripts`` says which matches' data files carry their protocol
    transcripts: ``all``, ``faults`` (those with a termination or a substitution) or ``none``.
    A ladder's seed is left out (it stays open, and every rated deal derives from it).
    """
    if transcripts not in ctx.TRANSCRIPTS:
        raise ValueError(f"transcripts must be one of {', '.join(ctx.TRANSCRIPTS)}, not {transcripts!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    env = environment()
    _copy_static(out)
    # Not through the tournament runner (arena.tournament.runner, the owner of concurrency for matches): data
    # files are CPU-bound Python, which only separate processes write in parallel, and the runner's slots are
    # trio tasks that wait on bots. So the matches are split into chunks, one per render process.
    children: list[tuple[subprocess.Popen[bytes], dict[str, Any]]] = []
    own_job: dict[str, Any] | None = None
    if not index_only:
        t, matches = ctx.load_matches(store)
        names = ctx.bot_names(store, t.name, matches)
        linked = {"rules.html", "matches.html"}
        linked.update(f"bots/{ctx.file_name(b)}.html" for b in names)
        linked.update(f"data/{ctx.file_name(m.match_id)}.js" for m in matches if m.done)
        _remove_old_pages(out)
        jobs = [{"transcripts": transcripts, "items": chunk}
                for chunk in _chunks(ctx.match_plan(matches), _worker_count(workers, len(matches)))]
        if len(jobs) == 1:
            own_job = jobs[0]
        else:  # every share in a worker: this process fits the ratings and writes the other pages meanwhile
            children = [(_start_worker(store, out, job), job) for job in jobs]
    data = ctx.load(store, bootstrap=ctx.BOOTSTRAP_LIVE if index_only else ctx.BOOTSTRAP_FINAL,
                    think_times=not index_only)
    base = {"tournament": data.tournament.name, "status": data.status}
    _write(out / "rules.html", env.get_template("rules.html").render(
        **base, root="", linked={"rules.html"}, **ctx.template_vars(ctx.rules_context(data))))
    if index_only:
        linked = _existing_pages(out)
    else:
        for viewer in ("match.html", "pair.html"):
            _write(out / viewer, env.get_template(viewer).render(**base, root="", linked=linked, title=viewer))
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
                                                         hide_seed=data.tournament.format == "ladder",
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
        proc.stdin.write(json.dumps({"db": str(Path(store.file).resolve()), "out": str(out.resolve()),
                                     **job}).encode())
        proc.stdin.close()
    except OSError:
        pass  # it died at once; wait() reports it and the caller renders the job itself
    return proc


def _worker_main() -> None:
    job = json.loads(sys.stdin.read())
    from arena.store import Store

    with Store.open_existing(Path(job["db"])) as store:
        render_matches(store, Path(job["out"]), job)


def render_matches(store: Store, out: Path, job: dict[str, Any]) -> None:
    """Write the data files of ``job["items"]`` (each ``[id, partner id, previous id, next id]``, see
    :func:`arena.report.context.match_plan`): ``data/<id>.js``, one match's facts, compact
    replay, what its bots said and (for the matches ``job["transcripts"]`` names) its transcripts, which the
    viewer pages ``match.html`` and ``pair.html`` load. One match at a time: memory stays flat."""
    t, matches = ctx.load_matches(store)
    by_id = {m.match_id: m for m in matches}
    rules = ctx.rules_of(t.rules)
    policy = job.get("transcripts", "faults")
    terms: dict[str, list[StoredTermination]] = {}
    for term in store.terminations(t.name):
        terms.setdefault(term.match_id, []).append(term)
    (out / "data").mkdir(exist_ok=True)
    for mid, partner, prev, nxt, *_ in job["items"]:
        m = by_id.get(mid)
        if m is None or not m.done:
            continue
        mterms = terms.get(mid, [])
        full = ctx.wants_transcripts(policy, m, mterms)
        payload = ctx.match_data(m, store.deals(mid), mterms, store.seats(mid, referee_lines=full),
                                 by_id.get(partner) if partner else None,
                                 (by_id.get(prev) if prev else None, by_id.get(nxt) if nxt else None), rules, full)
        file = ctx.file_name(mid)
        _write(out / "data" / f"{file}.js", ctx.match_data_script(file, payload))


def match_data_file(store: Store, match_id: str, transcripts: str = "faults") -> str | None:
    """One finished match's data file (``data/<file>.js``), read and built from that match alone, its
    duplicate partner named: what `arena serve --ladder` answers for a replay however many matches the
    database holds. The viewer links no previous and next match. None when there is no such finished match."""
    m = store.match(match_id)
    if m is None or not m.done:
        return None
    game = m.spec.game or 0
    twin_id = match_id[:-1] + str(1 - game) if match_id.endswith(f"-g{game}") else None
    partner = store.match(twin_id) if twin_id else None
    rules = ctx.rules_of(store.tournament_info().rules)
    terms = store.match_terminations(match_id)
    full = ctx.wants_transcripts(transcripts, m, terms)
    payload = ctx.match_data(m, store.deals(match_id), terms, store.seats(match_id, referee_lines=full),
                             partner if partner is not None and partner.done else None, (None, None), rules, full)
    file = ctx.file_name(match_id)
    return ctx.match_data_script(file, payload)


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
