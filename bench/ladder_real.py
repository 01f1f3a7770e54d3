"""A real ladder of 12 reference bots (different seeds and settings) for a fixed time: pairs per minute, and
when each bot added during the run had its rank settled (its rank interval within ±1 for good).

    .venv/bin/python bench/ladder_real.py [--minutes 10] [--pairs-in-flight 2] [--out DIR]

Eight bots are there from the start; four more are added, one every ``minutes / 5``, while `arena ladder
run --for` plays (so their placement is measured on a ladder in motion, as a course's would be). The figures
are written into docs/PERFORMANCE.md by hand.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena"]
C = ROOT / "bots" / "c"
ISMCTS = ROOT / "bots" / "ismcts" / "ismcts"
FIRST = [
    ("random-1", f"{C}/random 1"), ("random-2", f"{C}/random 2"), ("random-3", f"{C}/random 3"),
    ("greedy-c", f"{C}/greedy"), ("greedy-py", f"python3 {ROOT}/bots/greedy.py"),
    ("ismcts-50", f"{ISMCTS} --iters 50 --seed 1"), ("ismcts-200", f"{ISMCTS} --iters 200 --seed 1"),
    ("ismcts-800", f"{ISMCTS} --iters 800 --seed 1"),
]
LATER = [
    ("random-py", f"python3 {ROOT}/bots/random.py --seed 4"), ("ismcts-100", f"{ISMCTS} --iters 100 --seed 2"),
    ("ismcts-400", f"{ISMCTS} --iters 400 --seed 2"), ("random-4", f"{C}/random 4"),
]


def ladder(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, "ladder", str(db), *args], cwd=ROOT, capture_output=True, text=True, check=False)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--pairs-in-flight", type=int, default=2)
    p.add_argument("--out", type=Path, default=None, help="keep the database here (default: a temporary folder)")
    args = p.parse_args()
    subprocess.run(["make", "-s", "-C", str(C)], check=True)
    subprocess.run(["make", "-s", "-C", str(ISMCTS.parent)], check=True)
    folder = args.out or Path(tempfile.mkdtemp(prefix="arena-ladder-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "ladder.db"
    assert ladder(db, "init", "--seed", "1", "--move-time", "1s",
                  "--pairs-in-flight", str(args.pairs_in_flight)).returncode == 0
    for name, command in FIRST:
        out = ladder(db, "add", name, command, "--author", "bench")
        assert out.returncode == 0, out.stdout + out.stderr
    start = time.monotonic()
    run = subprocess.Popen([*ARENA, "ladder", str(db), "run", "--for", f"{args.minutes * 60:.0f}s"], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    added_at: dict[str, float] = {}
    for i, (name, command) in enumerate(LATER):
        wait = start + (i + 1) * args.minutes * 60 / 5 - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        out = ladder(db, "add", name, command, "--author", "bench")
        added_at[name] = time.monotonic() - start
        print(f"{added_at[name] / 60:5.1f} min: {name}: {out.stdout.strip().splitlines()[-1]}", flush=True)
    run.wait()
    elapsed = time.monotonic() - start
    report(db, elapsed, added_at)


def report(db: Path, elapsed: float, added_at: dict[str, float]) -> None:
    with sqlite3.connect(db) as conn:
        (pairs,) = conn.execute("SELECT count(*) FROM ladder_pairs WHERE kind = 'rated' AND status = 'done'").fetchone()
        (first_at,) = conn.execute("SELECT min(chosen_at) FROM ladder_pairs").fetchone()
        finished = dict(conn.execute("SELECT seq, finished_at FROM ladder_pairs WHERE seq IS NOT NULL"))
        print(f"{pairs} rated pairs in {elapsed / 60:.1f} min: {pairs / (elapsed / 60):.1f} pairs a minute")
        if first_at is None:
            return
        t0 = datetime.fromisoformat(first_at)
        for key, program in conn.execute("SELECT key, program FROM ladder_versions "
                                                "WHERE since_pair IS NOT NULL ORDER BY rowid"):
            history = conn.execute("SELECT seq, rank, rank_low, rank_high, pairs FROM ladder_history WHERE key = ? "
                                   "ORDER BY seq", [key]).fetchall()
            settled = None
            for seq, _, low, high, own in history:
                if high - low <= 2:
                    settled = settled or (seq, own)
                else:
                    settled = None
            if not history:
                print(f"  {key:<22} never played")
                continue
            _, rank, low, high, own = history[-1]
            where = "never" if settled is None else (
                f"after {settled[1]} of its pairs, "
                f"{(datetime.fromisoformat(finished[settled[0]]) - t0).total_seconds() / 60:.1f} min into the run")
            late = f" (added at {added_at[program] / 60:.1f} min)" if program in added_at else ""
            print(f"  {key:<22} rank {rank} ({low}-{high}), {own} pairs; settled {where}{late}")


if __name__ == "__main__":
    main()
