"""How long the HTML report takes for a large tournament: 20 bots, 5,000 matches (synthetic rows).

    .venv/bin/python bench/report_bench.py [--matches 5000] [--bots 20] [--out DIR] [--profile]

The database is built like tests/test_report.py's ``synthetic_db`` (real deals of the engine, outcomes
drawn from strengths, realistic transcripts) and kept in DIR between runs; the report is rendered into
DIR/report, full and index only, and the times printed.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_report import synthetic_db  # noqa: E402

from arena.report import render_report  # noqa: E402
from arena.store import Store  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--matches", type=int, default=5000)
    p.add_argument("--bots", type=int, default=20)
    p.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "arena-report-bench")
    p.add_argument("--profile", action="store_true", help="print the top of a cProfile of the full render")
    args = p.parse_args()
    db = args.out / f"arena-{args.bots}x{args.matches}.db"
    args.out.mkdir(parents=True, exist_ok=True)
    if not db.exists():
        t0 = time.perf_counter()
        synthetic_db(db, n_bots=args.bots, n_matches=args.matches, pool_size=60, flaky=f"bot{args.bots - 1:02d}",
                     seed=1).close()
        print(f"built {db} in {time.perf_counter() - t0:.1f} s")
    store = Store.open_existing(db)
    report = args.out / "report"
    shutil.rmtree(report, ignore_errors=True)
    t0 = time.perf_counter()
    if args.profile:
        import cProfile
        import pstats

        cProfile.runctx("render_report(store, report)", globals(), locals(), str(args.out / "profile.out"))
        pstats.Stats(str(args.out / "profile.out")).sort_stats("cumulative").print_stats(30)
    else:
        render_report(store, report)
    full = time.perf_counter() - t0
    t0 = time.perf_counter()
    render_report(store, report, index_only=True)
    live = time.perf_counter() - t0
    files = sum(1 for f in report.rglob("*") if f.is_file())
    size = sum(f.stat().st_size for f in report.rglob("*")) / 1e6
    print(f"{args.bots} bots, {args.matches} matches: full report {full:.1f} s ({files} files, {size:.0f} MB), "
          f"index only {live:.2f} s")
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
