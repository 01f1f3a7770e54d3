"""The large-tournament benchmark (`make bench-large`; not part of the test suite nor of `make bench`).

20 trivial C bots (bench/trivial_bot.c, each with its own seed: a seeded random legal action), a round robin
of 50 duplicate pairs per pairing: 190 pairings x 100 = 19,000 matches. It plays as many as fit in the time
budget (default five minutes) in one referee process, as `arena run` plays them (config, schedule, runner,
store), then renders the full report in a fresh `arena report` process and fits the ratings, and prints:

- matches played, hands/s, the referee's CPU per decision and its peak RSS;
- database bytes per match (the file after the store is closed, which checkpoints the WAL) and per table;
- report bytes per match, the report's render time and the render's peak RSS (largest process);
- the ratings time (the Bradley-Terry fit with its bootstrap, as the final report computes it).

Where the budget ends the tournament early, the figures for all 19,000 matches are extrapolated, and the
output says which are measured and which extrapolated (bytes and render time per match times 19,000).

    .venv/bin/python bench/large.py                      # 20 bots, 19,000 matches scheduled, 300 s
    .venv/bin/python bench/large.py --budget 60 --keep /tmp/large   # a quick look; keep the files
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
TRIVIAL_C = BENCH / "out" / "trivial_bot"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

import trio  # noqa: E402
from cases import OtherLoad  # noqa: E402

from arena.report import context as ctx  # noqa: E402
from arena.stats import ratings  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.tournament.config import parse_config  # noqa: E402
from arena.tournament.runner import Progress, play_tournament  # noqa: E402
from arena.tournament.schedule import build_schedule  # noqa: E402


def config_text(bots: int, pairs: int, concurrency: int, reuse: bool, sandbox: str, tmp: Path) -> str:
    lines = [
        "name: large", "variant: santase", "format: round-robin", f"rounds: {pairs}", "seed: 2026",
        f"concurrency: {concurrency}", "workers: 1", f"reuse_bots: {str(reuse).lower()}",
        *([f"sandbox: {sandbox}"] if sandbox != "auto" else []), "time:", "  move: 1s", "  handshake: 5s",
        "output:", f"  database: {tmp / 'arena.db'}",
        f"  report: {tmp / 'report'}", "bots:",
    ]
    for i in range(bots):
        lines += [f"  - name: c{i:02d}", f"    command: {TRIVIAL_C} {1000 + i}"]
    return "\n".join(lines) + "\n"


def _tree_bytes(path: Path) -> tuple[int, int]:
    total = files = 0
    for root, _, names in os.walk(path):
        for n in names:
            total += os.path.getsize(os.path.join(root, n))
            files += 1
    return total, files


def _table_bytes(path: Path) -> dict[str, int]:
    import sqlite3

    conn = sqlite3.connect(str(path))
    try:
        rows = conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    except sqlite3.Error:
        rows = []
    finally:
        conn.close()
    return {name: int(size) for name, size in rows}


def run(bots: int, pairs: int, budget: float, concurrency: int, reuse: bool, sandbox: str, tmp: Path) -> dict[str, Any]:
    text = config_text(bots, pairs, concurrency, reuse, sandbox, tmp)
    src = tmp / "large.yaml"
    src.write_text(text)
    config = parse_config(text, src, cwd=tmp)
    schedule = build_schedule(config)
    store = Store(config.database)
    store.begin(config.name, str(src), text, config.hash, config.rules.to_dict(), config.seed, config.format,
                schedule, [])
    pending = store.pending(config.name)
    progress = Progress(total=len(pending))

    async def main() -> None:
        with trio.move_on_after(budget):
            await play_tournament(config, store, pending, progress)

    cpu0, wall0 = time.process_time(), time.perf_counter()
    with OtherLoad() as others:
        trio.run(main)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    done, deals = store.db.execute(
        "SELECT COUNT(*), SUM(deals) FROM matches WHERE status = 'done'").fetchone()
    decisions = store.db.execute("SELECT SUM(decisions) FROM seats").fetchone()[0] or 0
    referee_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    t = time.perf_counter()
    data = ctx.load(store, bootstrap=ctx.BOOTSTRAP_FINAL)
    load_s = time.perf_counter() - t
    t = time.perf_counter()
    ratings(data.results, bootstrap=ctx.BOOTSTRAP_FINAL, seed=0)
    ratings_s = time.perf_counter() - t
    store.close()  # the last connection checkpoints the WAL into the file
    db_bytes = sum(p.stat().st_size for p in tmp.glob("arena.db*"))
    tables = _table_bytes(config.database)

    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    report = subprocess.run([sys.executable, "-m", "arena", "report", str(config.database), "-o", str(tmp / "report")],
                            cwd=ROOT, capture_output=True, text=True)
    render_s = time.perf_counter() - t
    if report.returncode != 0:
        raise RuntimeError(f"arena report failed: {report.stderr}")
    render_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    report_bytes, report_files = _tree_bytes(tmp / "report")
    biggest = {name: _tree_bytes(tmp / "report" / name)[0] if (tmp / "report" / name).is_dir()
               else (tmp / "report" / name).stat().st_size
               for name in ("index.html", "matches.html", "bots", "data")}
    scheduled = len(schedule)
    scale = scheduled / max(1, done)
    return {
        "bots": bots, "scheduled": scheduled, "played": done, "budget_s": budget, "concurrency": concurrency,
        "reuse_bots": reuse, "sandbox": sandbox, "wall_s": wall, "referee_cpu_s": cpu,
        "others": others.cores,  # CPUs other processes kept busy while it played (0: a quiet machine)
        "hands": deals or 0, "hands_per_s": (deals or 0) / wall, "matches_per_s": done / wall,
        "referee_cpu_us_per_decision": 1e6 * cpu / max(1, decisions),
        "referee_peak_rss_mib": referee_rss / 1024,
        "db_bytes": db_bytes, "db_bytes_per_match": db_bytes / max(1, done), "db_tables": tables,
        "report_bytes": report_bytes, "report_files": report_files,
        "report_bytes_per_match": report_bytes / max(1, done),
        "report_parts": biggest, "render_s": render_s, "render_peak_rss_mib": max(render_rss, before) / 1024,
        "load_s": load_s, "ratings_s": ratings_s,
        "extrapolated_to_scheduled": {
            "wall_s": wall * scale, "db_bytes": db_bytes * scale, "report_bytes": report_bytes * scale,
            "render_s": render_s * scale,
        } if done < scheduled else None,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bots", type=int, default=20)
    ap.add_argument("--pairs", type=int, default=50, help="duplicate pairs per pairing (default 50)")
    ap.add_argument("--budget", type=float, default=300.0, help="seconds of play at most (default 300)")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--spawn", action="store_true", help="start the bots for every match (default: reuse_bots)")
    ap.add_argument("--sandbox", default="auto", choices=["auto", "bwrap", "none"])
    ap.add_argument("--keep", type=Path, help="keep the database and the report in this directory")
    ap.add_argument("--json", type=Path, default=BENCH / "out" / "large.json")
    args = ap.parse_args()
    if not TRIVIAL_C.exists():
        subprocess.run(["make", "-s", "-C", str(BENCH)], check=True)
    tmp = Path(tempfile.mkdtemp(prefix="arena-large-"))
    tmp.chmod(0o755)  # the bots run as another user in the sandbox
    try:
        out = run(args.bots, args.pairs, args.budget, args.concurrency, not args.spawn, args.sandbox, tmp)
    finally:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for p in tmp.iterdir():
                shutil.move(str(p), args.keep / p.name)
        shutil.rmtree(tmp, ignore_errors=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=2))
    e = out["extrapolated_to_scheduled"]
    print(f"{out['played']:,} of {out['scheduled']:,} matches in {out['wall_s']:.0f} s "
          f"({out['bots']} bots, concurrency {out['concurrency']}, reuse_bots {out['reuse_bots']}, "
          f"sandbox {out['sandbox']}; other processes kept {out['others']:.2f} CPUs busy meanwhile)")
    print(f"  hands/s {out['hands_per_s']:,.0f}; referee CPU per decision {out['referee_cpu_us_per_decision']:.1f} us; "
          f"referee peak RSS {out['referee_peak_rss_mib']:.0f} MiB")
    print(f"  database {out['db_bytes'] / 1e6:.1f} MB = {out['db_bytes_per_match'] / 1e3:.2f} kB per match")
    print(f"  report {out['report_bytes'] / 1e6:.1f} MB in {out['report_files']:,} files = "
          f"{out['report_bytes_per_match'] / 1e3:.2f} kB per match; rendered in {out['render_s']:.1f} s, "
          f"peak RSS {out['render_peak_rss_mib']:.0f} MiB")
    print(f"  ratings (fit + bootstrap) {out['ratings_s']:.2f} s; the report's data load {out['load_s']:.2f} s")
    if e:
        print(f"  extrapolated to {out['scheduled']:,} matches (linear in matches): play {e['wall_s'] / 60:.0f} min, "
              f"database {e['db_bytes'] / 1e6:.0f} MB, report {e['report_bytes'] / 1e6:.0f} MB, "
              f"render {e['render_s']:.0f} s")
    print(f"bench: raw figures written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
