"""The Dask executor's cost: hands/s on a 2-worker LocalCluster against the local executor with `workers: 2`,
and the coordinator's CPU per match (docs/PERFORMANCE.md, "The Dask executor").

    make -C bench && .venv/bin/python bench/dask_bench.py [--matches 200] [--rounds 2] [--json FILE]

Needs the extra (pip install 'arena[dask]'). Trivial C bots (bench/out/trivial_bot), concurrency 4, no sandbox
(its start-up cost is the same for every executor and would hide theirs: docs/PERFORMANCE.md, "The sandbox's
cost"), bots started per match (Dask tasks never reuse them). Each setup plays a warm-up of 8 matches (the
workers import arena on their first task), then the timed matches, in this process: the timer and the CPU
clock run around `run_matches` alone, which stores every record as `arena run` does.

Setups, alternated ``--rounds`` times, each keeping its best run:

- ``local``: `workers: 2`, arena's own referee processes, each pinned to a CPU;
- ``dask:local``: a LocalCluster of 2 worker processes (2 threads each, pinned like the workers); its
  scheduler runs inside the coordinator's process, so "coordinator CPU" includes the scheduler's;
- ``dask:tcp``: `dask scheduler` and two `dask worker --nthreads 2` processes on 127.0.0.1, not pinned: the
  coordinator's CPU alone, and the scheduler's (read from /proc) beside it.

"others" is the CPU that other processes of the machine kept busy meanwhile (bench/cases.py, OtherLoad).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import trio  # noqa: E402
from cases import TRIVIAL_C, OtherLoad  # noqa: E402

from arena.store import Store  # noqa: E402
from arena.tournament.config import ExecutorConfig, parse_config  # noqa: E402
from arena.tournament.dask_executor import plan_dask  # noqa: E402
from arena.tournament.executors import open_executor  # noqa: E402
from arena.tournament.runner import player_for, run_matches  # noqa: E402
from arena.tournament.schedule import build_schedule  # noqa: E402

CONCURRENCY = 4
WARMUP = 8


def log(text: str) -> None:
    print(f"dask_bench: {text}", file=sys.stderr, flush=True)


def config_text(matches: int, tmp: Path) -> str:
    return f"""\
name: dask-bench
variant: santase
rounds: {max(1, (matches + WARMUP) // 2)}
seed: 2026
concurrency: {CONCURRENCY}
workers: 2
sandbox: none
time: {{move: 1s, handshake: 5s}}
bots:
  - {{name: a, command: {TRIVIAL_C}}}
  - {{name: b, command: {TRIVIAL_C}}}
output:
  database: {tmp / 'bench.db'}
  report: {tmp / 'report'}
"""


def proc_cpu_s(pid: int | None) -> float:
    if pid is None:
        return 0.0
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(setup: str, matches: int, address: str | None, scheduler_pid: int | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="arena-dask-bench-") as tmpdir:
        tmp = Path(tmpdir)
        src = tmp / "bench.yaml"
        text = config_text(matches, tmp)
        src.write_text(text)
        config = parse_config(text, src, cwd=tmp)
        executor = {"local": ExecutorConfig(), "dask:local": ExecutorConfig("dask", None, 2),
                    "dask:tcp": ExecutorConfig("dask", address)}[setup]
        import dataclasses

        config = dataclasses.replace(config, executor=executor)
        store = Store(config.database)
        store.begin(config.name, str(src), text, config.hash, config.rules.to_dict(), config.seed, config.format,
                    build_schedule(config), [], force=False)
        pending = store.pending(config.name)
        players = {b.name: player_for(config, b.name) for b in config.bots}
        dask = plan_dask(config) if executor.kind == "dask" else None
        out: dict[str, Any] = {"setup": setup}

        def save(spec: Any, rec: Any) -> None:
            store.save(rec)

        async def main() -> None:
            async with open_executor(players, config.rules, config.on_violation, False, config.workers,
                                     CONCURRENCY, dask) as ex:
                await run_matches(pending[:WARMUP], ex, CONCURRENCY, None, save)
                timed = pending[WARMUP:WARMUP + matches]
                sched0 = proc_cpu_s(scheduler_pid)
                with OtherLoad() as load:
                    cpu0, wall0 = time.process_time(), time.perf_counter()
                    await run_matches(timed, ex, CONCURRENCY, None, save)
                    out["wall_s"] = time.perf_counter() - wall0
                    out["coordinator_cpu_s"] = time.process_time() - cpu0
                out["scheduler_cpu_s"] = proc_cpu_s(scheduler_pid) - sched0
                out["others"] = round(load.cores, 3)
                out["ids"] = [s.match_id for s in timed]

        trio.run(main)
        ids = out.pop("ids")
        marks = ",".join("?" * len(ids))
        done, deals = store.db.execute(f"SELECT COUNT(*), SUM(deals) FROM matches WHERE status = 'done' AND id IN "
                                       f"({marks})", ids).fetchone()
        store.close()
    if done != len(ids):
        raise RuntimeError(f"{setup}: {done} of {len(ids)} matches done")
    out.update(matches=done, deals=deals, hands_per_s=deals / out["wall_s"],
               coordinator_cpu_ms_per_match=1000 * out["coordinator_cpu_s"] / done,
               scheduler_cpu_ms_per_match=1000 * out["scheduler_cpu_s"] / done)
    return out


class ExternalCluster:
    """`dask scheduler` and two `dask worker --nthreads 2` on 127.0.0.1, stopped on exit."""

    def __enter__(self) -> ExternalCluster:
        self.procs: list[subprocess.Popen[str]] = []
        self.drains: list[threading.Thread] = []
        found = threading.Event()
        self.address = ""

        def drain(proc: subprocess.Popen[str], watch: bool) -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                m = re.search(r"Scheduler at:\s+(tcp://\S+)", line) if watch else None
                if m and not found.is_set():
                    self.address = m[1]
                    found.set()

        def spawn(argv: list[str], watch: bool = False) -> subprocess.Popen[str]:
            proc = subprocess.Popen([sys.executable, "-m", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True)
            thread = threading.Thread(target=drain, args=(proc, watch), daemon=True)
            thread.start()
            self.drains.append(thread)
            self.procs.append(proc)
            return proc

        self.scheduler = spawn(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                                "--no-dashboard"], watch=True)
        if not found.wait(120):
            raise RuntimeError("the scheduler printed no address")
        for _ in range(2):
            spawn(["distributed.cli.dask_worker", self.address, "--nthreads", "2", "--no-dashboard"])
        from distributed import Client

        with Client(self.address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()
        for thread in self.drains:
            thread.join()
        for proc in self.procs:
            assert proc.stderr is not None
            proc.stderr.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json", type=Path, default=BENCH / "out" / "dask_bench.json")
    args = ap.parse_args()
    if not TRIVIAL_C.exists():
        log(f"{TRIVIAL_C} is missing: run make -C bench first")
        return 2
    best: dict[str, dict[str, Any]] = {}
    with ExternalCluster() as cluster:
        for r in range(args.rounds):
            for setup in ("local", "dask:local", "dask:tcp"):
                out = one_run(setup, args.matches, cluster.address,
                              cluster.scheduler.pid if setup == "dask:tcp" else None)
                log(f"round {r + 1} {setup}: {out['hands_per_s']:.0f} hands/s, coordinator "
                    f"{out['coordinator_cpu_ms_per_match']:.2f} ms CPU/match, others {out['others']}")
                if setup not in best or out["hands_per_s"] > best[setup]["hands_per_s"]:
                    best[setup] = out
    base = best["local"]["hands_per_s"]
    print(f"| setup ({args.matches} matches, C bots, concurrency {CONCURRENCY}) | hands/s | vs local | "
          "coordinator CPU/match | scheduler CPU/match | others |")
    print("|---|---:|---:|---:|---:|---:|")
    for setup, o in best.items():
        sched = f"{o['scheduler_cpu_ms_per_match']:.2f} ms" if setup == "dask:tcp" else \
            ("in the coordinator" if setup == "dask:local" else "-")
        print(f"| {setup} | {o['hands_per_s']:,.0f} | {o['hands_per_s'] / base:.2f}x | "
              f"{o['coordinator_cpu_ms_per_match']:.2f} ms | {sched} | {o['others']:.2f} |")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(best, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
