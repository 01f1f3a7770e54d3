"""`make bench`: every performance figure of arena beside its yardstick and its goal, in one table.

    make bench                                   installs the yardstick, builds bench/out/, runs this
    .venv/bin/python bench/run.py                the same, once bench/out/ is built
    .venv/bin/python bench/run.py --quick        smaller samples (about a minute), for a quick look
    .venv/bin/python bench/run.py --rows 2,3     only some rows
    .venv/bin/python bench/run.py --json FILE    save every raw measurement there (default bench/out/last.json)

Each measurement runs in a fresh process (bench/cases.py) and each ratio is taken against a yardstick
measured in the same run, on the same machine, at about the same time, so a slower or busier machine moves
both sides. docs/PERFORMANCE.md says how to read each row; bench/profile_referee.py says where the
referee's time goes.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CASES = BENCH / "cases.py"
NEEDED = (BENCH / "out" / "trivial_bot", BENCH / "out" / "echo")


def log(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


def run_case(name: str, timeout: float = 240, **kwargs: Any) -> dict[str, Any]:
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, str(CASES), name, json.dumps(kwargs)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-8:])
        raise RuntimeError(f"case {name} {kwargs} failed (exit {proc.returncode}):\n{tail}")
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    out["elapsed_s"] = time.monotonic() - t0
    return out


# --------------------------------------------------------------------------------------------- formatting
def num(x: float, unit: str = "") -> str:
    if x >= 100:
        s = f"{x:,.0f}"
    elif x >= 10:
        s = f"{x:.1f}"
    else:
        s = f"{x:.2f}"
    return f"{s} {unit}".rstrip()


def mib(kib: float) -> str:
    return f"{kib / 1024:.1f} MiB"


def kb(n: float) -> str:
    return f"{n / 1000:.1f} kB" if n >= 1000 else f"{n:.0f} B"


class Table:
    HEAD = ("#", "what", "figure", "yardstick", "ratio", "goal", "met", "others")

    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []

    def add(self, row: str, what: str, figure: str, yardstick: str, ratio: float | None, goal: str = "-",
            met: bool | None = None, *, load: tuple[dict[str, Any] | None, ...] = ()) -> None:
        r = "-" if ratio is None else f"{ratio:.2f}x"
        m = "-" if met is None else ("yes" if met else "NO")
        others = [x["other_load_cores"] for x in load if x and "other_load_cores" in x]
        self.rows.append((row, what, figure, yardstick, r, goal, m, f"{max(others):.2f}" if others else "-"))

    def error(self, row: str, what: str, err: str) -> None:
        self.rows.append((row, what, "error", err.splitlines()[-1][:60], "-", "-", "-", "-"))

    def render(self) -> str:
        widths = [max(len(r[i]) for r in [self.HEAD, *self.rows]) for i in range(len(self.HEAD))]
        right = {2, 3, 4, 7}

        def line(cells: tuple[str, ...]) -> str:
            return "| " + " | ".join(c.rjust(w) if i in right else c.ljust(w)
                                     for i, (c, w) in enumerate(zip(cells, widths, strict=True))) + " |"

        sep = "|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2))
                             for i, w in enumerate(widths)) + "|"
        return "\n".join([line(self.HEAD), sep, *(line(r) for r in self.rows)])


# --------------------------------------------------------------------------------------------- machine
def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"python": platform.python_version(), "cpus": os.cpu_count()}
    try:
        affinity = len(os.sched_getaffinity(0))
        info["usable_cpus"] = affinity
    except AttributeError:
        pass
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info["kernel"] = platform.release()
    try:
        info["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                        cwd=ROOT).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "arena"],
                               capture_output=True, text=True, cwd=ROOT).stdout.strip()
        info["arena_dirty"] = bool(dirty)
    except OSError:
        pass
    return info


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


# --------------------------------------------------------------------------------------------- the rows
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smaller samples (noisier figures)")
    p.add_argument("--rows", default="1,2,3,4,5,6", help="rows to run, e.g. 1,3 (default all)")
    p.add_argument("--json", type=Path, metavar="FILE", default=BENCH / "out" / "last.json",
                   help="where to save every raw measurement as JSON (default bench/out/last.json)")
    p.add_argument("--busy", type=float, default=0.3,
                   help="CPUs of other processes' load above which a measurement is repeated (default 0.3)")
    p.add_argument("--retries", type=int, default=2, help="repeats of a measurement on a busy machine (default 2)")
    p.add_argument("--budget", type=float, default=150,
                   help="seconds after which nothing is repeated any more (default 150)")
    args = p.parse_args(argv)
    rows = {int(r) for r in args.rows.split(",") if r.strip()}
    missing = [str(x.relative_to(ROOT)) for x in NEEDED if not x.exists()]
    if missing:
        log(f"missing {', '.join(missing)}: building them (make -s -C bench)")
        subprocess.run(["make", "-s", "-C", str(BENCH)], check=True)
    q = 0.5 if args.quick else 1.0
    raw: dict[str, Any] = {"machine": machine(), "started": datetime.datetime.now().isoformat(timespec="seconds"),
                           "loadavg_start": loadavg(), "quick": args.quick}
    t = Table()
    t0 = time.monotonic()

    def measure(key: str, name: str, **kwargs: Any) -> dict[str, Any] | None:
        """Run a case; while other processes kept more than --busy CPUs busy during it, run it again (at
        most --retries times, and not past --budget seconds) and keep the run with the least such load."""
        best: dict[str, Any] | None = None
        for attempt in range(1 + args.retries):
            log(f"{key}: {name} {json.dumps(kwargs)}" + (" (again: the machine was busy)" if attempt else ""))
            try:
                out = run_case(name, **kwargs)
            except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:
                raw[key] = {"error": str(e)}
                log(f"{key} failed: {e}")
                return None
            out["attempts"] = attempt + 1
            if best is None or out["other_load_cores"] < best["other_load_cores"]:
                best = out
            if best["other_load_cores"] <= args.busy or time.monotonic() - t0 > args.budget:
                break
            time.sleep(2)
        raw[key] = best
        return best

    # 1. rules engine
    if 1 in rows:
        e = measure("engine", "engine", seconds=8 * q, rounds=8)
        if e is None:
            t.error("1", "rules engine", raw["engine"]["error"])
        else:
            ratio = e["arena_deals_per_s"] / e["schnapsen_deals_per_s"]
            t.add("1", "rules engine: random santase deals/s, one process", num(e["arena_deals_per_s"], "/s"),
                  f"schnapsen pkg {num(e['schnapsen_deals_per_s'], '/s')}", ratio, ">= 4x", ratio >= 4, load=(e,))

    # 2. referee overhead (also the yardstick of row 3)
    echo_cpu_us: float | None = None
    per_hand = 13.0
    if rows & {2, 3}:
        o = measure("overhead", "overhead", rounds=5, matches=int(12 * q) or 1, round_trips=int(4000 * q),
                    spawn_matches=int(16 * q))
        if o is None:
            t.error("2", "referee overhead", raw["overhead"]["error"])
        else:
            echo_cpu_us = o["echo_cpu_us"]
            per_hand = o["decisions_per_deal"]
            if 2 in rows:
                ratio = o["referee_cpu_us"] / echo_cpu_us
                yard = f"trio echo {num(echo_cpu_us, 'us')}"
                pinned = ", all on 1 CPU" if o.get("pinned") else ""
                t.add("2", f"referee CPU per decision, 2 trivial C bots{pinned}", num(o["referee_cpu_us"], "us"),
                      yard, ratio, "<= 1.5x", ratio <= 1.5, load=(o,))
                t.add("2b", "  the same, both bots started per match", num(o["spawn_cpu_us"], "us"), yard,
                      o["spawn_cpu_us"] / echo_cpu_us, load=(o,))
                if "cross_cpu_us" in o:
                    t.add("2c", "  trio echo, the echo process on the other CPU", num(o["cross_cpu_us"], "us"),
                          yard, o["cross_cpu_us"] / echo_cpu_us, load=(o,))

    # 3. throughput
    c_rates: dict[int, float] = {}
    if 3 in rows:
        ceiling = None if echo_cpu_us is None else 1e6 / (echo_cpu_us * per_hand)
        for conc in (1, 2, 4, 8):
            r = measure(f"tournament-c-{conc}", "tournament", bot="c", matches=int(120 * q) // 2 * 2,
                        concurrency=conc)
            if r is None:
                t.error("3", f"hands/s, C bots, concurrency {conc}", raw[f"tournament-c-{conc}"]["error"])
                continue
            c_rates[conc] = r["hands_per_s"]
            t.add("3", f"hands/s, trivial C bots, concurrency {conc}", num(r["hands_per_s"], "/s"),
                  "echo ceiling " + ("?" if ceiling is None else num(ceiling, "/s")),
                  None if ceiling is None else r["hands_per_s"] / ceiling, ">= 2,000/s", r["hands_per_s"] >= 2000,
                  load=(r,))
        for conc in (1, 2, 4, 8):
            r = measure(f"tournament-py-{conc}", "tournament", bot="python", matches=int(48 * q) // 2 * 2,
                        concurrency=conc)
            if r is None:
                t.error("3", f"hands/s, Python bots, concurrency {conc}", raw[f"tournament-py-{conc}"]["error"])
                continue
            base = c_rates.get(conc)
            t.add("3", f"hands/s, trivial Python bots, concurrency {conc}", num(r["hands_per_s"], "/s"),
                  "C bots " + ("?" if base is None else num(base, "/s")), None if base is None else
                  r["hands_per_s"] / base, load=(r,))

        # issue 16's goal: one referee process, bots kept across matches (no sandbox start per match), as
        # `make bench-large` plays; "on a free core" is 1 / the referee's CPU per hand
        r = measure("tournament-c-reuse", "tournament", bot="c", matches=int(400 * q) // 2 * 2, concurrency=4,
                    reuse=True)
        if r is None:
            t.error("3r", "hands/s, C bots, reuse_bots", raw["tournament-c-reuse"]["error"])
        else:
            per_hand_ms = 1e3 * r["referee_cpu_s"] / max(1, r["deals"])
            t.add("3r", "hands/s, trivial C bots, reuse_bots: true, concurrency 4", num(r["hands_per_s"], "/s"),
                  f"a free core {num(1e3 / per_hand_ms, '/s')}", None, ">= 1,000/s", r["hands_per_s"] >= 1000,
                  load=(r,))

    def best_of(key: str, pairs: int, a: dict[str, Any], b: dict[str, Any], rate: str) -> tuple[Any, Any]:
        """Measure a and b alternately ``pairs`` times; keep each one's best run (load elsewhere only slows
        a run down, and alternating gives both sides the same chances)."""
        best: list[dict[str, Any] | None] = [None, None]
        for i in range(pairs):
            for side, kwargs in enumerate((a, b)):
                out = measure(f"{key}-{'ab'[side]}{i + 1}", "tournament", **kwargs)
                if out is None:
                    return None, None
                cur = best[side]
                if cur is None or out[rate] > cur[rate]:
                    best[side] = out
        return best[0], best[1]

    # 4. cores
    if 4 in rows:
        n = int(160 * q) // 2 * 2
        one, auto = best_of("workers", 2, {"bot": "c", "matches": n, "concurrency": 4, "workers": 1},
                            {"bot": "c", "matches": n, "concurrency": 4, "workers": "auto"}, "hands_per_s")
        if one is None or auto is None:
            t.error("4", "workers: auto against 1", "see --json")
        else:
            raw["workers-1"], raw["workers-auto"] = one, auto
            ratio = auto["hands_per_s"] / one["hands_per_s"]
            t.add("4", f"hands/s, workers: auto (= {auto['workers']}), C bots, concurrency 4",
                  num(auto["hands_per_s"], "/s"), f"workers: 1 {num(one['hands_per_s'], '/s')}", ratio,
                  ">= 1.8x", ratio >= 1.8, load=(one, auto))

    # 5. spawn
    if 5 in rows:
        n = int(60 * q) // 2 * 2
        fresh, reuse = best_of("spawn", 2, {"bot": "c", "matches": n, "concurrency": 1},
                               {"bot": "c", "matches": n, "concurrency": 1, "reuse": True}, "matches_per_s")
        if fresh is None or reuse is None:
            t.error("5", "spawn per match against reuse", "see --json")
        else:
            raw["spawn-per-match"], raw["spawn-reuse"] = fresh, reuse
            t.add("5", "matches/s, C bots started per match, concurrency 1", num(fresh["matches_per_s"], "/s"),
                  f"reuse_bots {num(reuse['matches_per_s'], '/s')}", fresh["matches_per_s"] / reuse["matches_per_s"],
                  load=(fresh, reuse))

    # 6. memory, database
    if 6 in rows:
        m1 = measure("memory-1", "memory", concurrency=1, matches=8)
        m64 = measure("memory-64", "memory", concurrency=64, matches=64)
        if m1 is None or m64 is None:
            t.error("6", "peak RSS", "see --json")
        else:
            t.add("6", "referee peak RSS, 64 matches at once (C bots)", mib(m64["peak_rss_kib"]),
                  f"1 match {mib(m1['peak_rss_kib'])}", m64["peak_rss_kib"] / m1["peak_rss_kib"], load=(m1, m64))
        src = next((raw[k] for k in ("spawn-per-match", "tournament-c-1", "workers-1") if k in raw and
                    "db_bytes_per_match" in raw[k]), None)
        if src is None:
            src = measure("database", "tournament", bot="c", matches=40, concurrency=4)
        if src is not None:
            t.add("6b", "database bytes per match", kb(src["db_bytes_per_match"]),
                  f"deck+actions {kb(src['replay_bytes_per_match'])}",
                  src["db_bytes_per_match"] / src["replay_bytes_per_match"], load=(src,))

    raw["loadavg_end"] = loadavg()
    raw["elapsed_s"] = time.monotonic() - t0
    m = raw["machine"]
    print(f"arena bench, {raw['started']}, commit {m.get('commit', '?')}"
          f"{' + uncommitted changes in arena/' if m.get('arena_dirty') else ''}; {m.get('cpu', '?')}, "
          f"{m.get('usable_cpus', m['cpus'])} CPUs; Python {m['python']}; load average {raw['loadavg_start']} at "
          f"the start, {raw['loadavg_end']} at the end; {raw['elapsed_s']:.0f} s{' (--quick)' if args.quick else ''}")
    print()
    print(t.render())
    print()
    print("others: CPUs kept busy by other processes while the row was measured (0 = a quiet machine); where it is")
    print("well above 0, the row's figures are low and its ratios unreliable, rows 1 and 4 most of all.")
    again = sum(v.get("attempts", 1) - 1 for v in raw.values() if isinstance(v, dict))
    if again:
        print(f"{again} measurements were repeated because other processes were busy; each row keeps its quietest run.")
    if args.json:
        args.json.write_text(json.dumps(raw, indent=2) + "\n")
        log(f"raw measurements written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
