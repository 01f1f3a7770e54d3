"""A semester's ladder, served while it plays: the latency of its pages with many stored matches.

A real ladder (the C reference bots greedy and random, a few pairs played) is grown to ``--matches`` stored
matches by copying its finished matches (with their deals and seats) under new ids, as challenges, and its
rating history to one row per rated pair such a ladder would have; then `arena ladder DB serve` serves it
and plays rated pairs meanwhile, and the leaderboard, a version's page and replays (a match's data file,
of a copied match chosen at random each time, and the viewer page) are each asked for ``--requests``
times, one after the other, from another process. Printed: median, p99 and max per page, in ms.

    .venv/bin/python bench/ladder_pages.py [--matches 100000] [--requests 200]

docs/PERFORMANCE.md records the figures (issue 34: p99 at most 200 ms with 100,000 matches).
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.game.variants import PRESETS  # noqa: E402
from arena.referee.clock import TimeControl  # noqa: E402
from arena.report.context import file_name  # noqa: E402
from arena.store.ladder import LadderStore  # noqa: E402
from arena.tournament.ladder import (  # noqa: E402
    LadderSettings,
    RunOptions,
    admit,
    init_ladder,
    register_version,
    run_ladder,
)


def grow(db: Path, matches: int) -> None:
    """Copy the finished matches until the ladder holds ``matches``, in one transaction per table."""
    conn = sqlite3.connect(db)
    done = conn.execute("SELECT count(*) FROM matches WHERE status = 'done'").fetchone()[0]
    copies = max(0, (matches - done) // done)
    conn.execute("CREATE TEMP TABLE k (n INTEGER PRIMARY KEY)")
    conn.executemany("INSERT INTO k VALUES (?)", [(n,) for n in range(1, copies + 1)])

    def columns(table: str) -> list[str]:
        return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]

    def copy(table: str, key: str, where: str, extra: dict[str, str] | None = None) -> None:
        cols = columns(table)
        chosen = {c: f"t.{c}" for c in cols}
        chosen[key] = f"'B' || k.n || '-' || t.{key}"
        chosen.update(extra or {})
        conn.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {', '.join(chosen[c] for c in cols)} "
                     f"FROM {table} t, k WHERE {where}")

    with conn:
        finished = "t.status = 'done'"
        copy("matches", "id", finished, {"ord": "1000000 + k.n * 1000 + t.ord"})
        copy("deals", "match_id", "t.match_id IN (SELECT id FROM matches WHERE id NOT LIKE 'B%' AND status = 'done')")
        copy("seats", "match_id", "t.match_id IN (SELECT id FROM matches WHERE id NOT LIKE 'B%' AND status = 'done')")
        pair = conn.execute("SELECT first, second FROM ladder_pairs LIMIT 1").fetchone()
        conn.execute("INSERT INTO ladder_pairs (kind, first, second, attempt, status, score, applied) "
                     "SELECT 'challenge', ?, ?, 0, 'done', 1.0, 0 FROM k", pair)
        conn.execute("INSERT INTO ladder_matches (match_id, pair_id, host, void) SELECT m.id, "
                     "(SELECT max(id) FROM ladder_pairs), 'bench', 0 FROM matches m WHERE m.id LIKE 'B%'")
        # the rating history of a ladder of that many rated pairs: a row per version and pair (seqs below 0,
        # so that the pairs played from here on come after them)
        keys = [r[0] for r in conn.execute("SELECT key FROM ladder_versions")]
        rows = matches // 2
        conn.executemany("INSERT INTO ladder_history (seq, key, rating, low, high, rank, rank_low, rank_high, "
                         "provisional, pairs) VALUES (?, ?, 0, -50, 50, 1, 1, 2, 0, ?)",
                         [(-rows + i, keys[i % len(keys)], i) for i in range(rows)])
    conn.close()


def get(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as r:
        r.read()
        assert r.status == 200, url
    return (time.perf_counter() - start) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=100_000)
    ap.add_argument("--requests", type=int, default=200)
    args = ap.parse_args()
    bots = ROOT / "bots" / "c"
    subprocess.run(["make", "-s", "-C", str(bots)], check=True)
    with tempfile.TemporaryDirectory(prefix="ladder-pages-") as tmp:
        Path(tmp).chmod(0o755)
        db = Path(tmp) / "l.db"
        init_ladder(db, PRESETS["santase"], LadderSettings(TimeControl(move_ms=1000), pairs_in_flight=2), seed=34)
        with LadderStore(db) as store:
            for name, command in (("greedy", f"{bots}/greedy"), ("random", f"{bots}/random 1")):
                version = register_version(store, name, command)
                assert not isinstance(version, tuple) and admit(store, version).status == "admitted"  # type: ignore[arg-type]
        run_ladder(db, RunOptions(pairs=10))
        t0 = time.perf_counter()
        grow(db, args.matches)
        with sqlite3.connect(db) as conn:
            stored = conn.execute("SELECT count(*) FROM matches").fetchone()[0]
            ids = [r[0] for r in conn.execute("SELECT id FROM matches WHERE id LIKE 'B%'")]
            key = conn.execute("SELECT key FROM ladder_versions WHERE program = 'greedy'").fetchone()[0]
        print(f"{stored:,} matches stored ({time.perf_counter() - t0:.1f} s to grow the ladder)")
        proc = subprocess.Popen([sys.executable, "-m", "arena", "ladder", str(db), "serve", "--port", "0"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert proc.stdout is not None
            url = re.search(r"(http://\S+/)", proc.stdout.readline())
            assert url is not None, "the server did not start"
            base = url.group(1)
            time.sleep(3)  # (a benchmark, not a test: let the run start playing its pairs)
            rng = random.Random(34)
            pages = {
                "leaderboard /": lambda: base,
                "version page /bot/KEY": lambda: f"{base}bot/{key}",
                "replay data /replay/data/ID.js": lambda: f"{base}replay/data/{file_name(rng.choice(ids))}.js",
                "replay viewer /replay/match.html": lambda: f"{base}replay/match.html",
            }
            get(pages["replay data /replay/data/ID.js"]())  # the first maps the match ids: once per process
            print(f"| page ({args.requests} requests each, pairs playing) | median ms | p99 ms | max ms |")
            print("|---|---|---|---|")
            for name, page in pages.items():
                times = sorted(get(page()) for _ in range(args.requests))
                p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
                print(f"| {name} | {statistics.median(times):.1f} | {p99:.1f} | {times[-1]:.1f} |", flush=True)
            with sqlite3.connect(db) as conn:
                played = conn.execute("SELECT count(*) FROM ladder_pairs WHERE kind = 'rated' AND status = 'done'"
                                      ).fetchone()[0]
            print(f"rated pairs done by the end: {played} (10 before the server started)")
        finally:
            proc.terminate()
            proc.wait(timeout=120)


if __name__ == "__main__":
    main()
