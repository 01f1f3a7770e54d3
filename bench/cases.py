"""The measurements behind `make bench`, one per call, each meant to run in a fresh process.

    .venv/bin/python bench/cases.py CASE [JSON-ARGS]      prints one JSON object

bench/run.py starts one process per measurement (so one's memory, threads or leftover processes never
touch the next one's figures) and prints the table. Cases:

    engine      {"seconds"}                          arena.game against the schnapsen package (row 1)
    overhead    {"rounds", "matches", "round_trips"} row 2: echo and referee blocks interleaved, pinned
    referee     {"matches", "spawn"}                 referee CPU per decision alone (profile_referee.py)
    echo        {"round_trips", "line_bytes"}        a bare trio echo alone, unpinned
    tournament  {"bot", "matches", "concurrency", "workers", "reuse"}   a real tournament (rows 3-6)
    memory      {"concurrency", "matches"}           peak RSS of a referee running matches (row 6)

Every figure is the referee's own (time.process_time, ru_maxrss of RUSAGE_SELF); the bots' CPU is reported
separately (RUSAGE_CHILDREN, once they are reaped).
"""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
TRIVIAL_C = OUT / "trivial_bot"
ECHO_C = OUT / "echo"
GOOD_PY = ROOT / "tests" / "bots" / "good.py"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import trio  # noqa: E402

from arena.game import preset  # noqa: E402
from arena.referee.clock import TimeControl  # noqa: E402
from arena.referee.match import BotHandle, Player, play_match  # noqa: E402
from arena.referee.process import BotSpec  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.tournament.config import parse_config  # noqa: E402
from arena.tournament.runner import Progress, play_tournament  # noqa: E402
from arena.tournament.schedule import build_schedule  # noqa: E402


def bot_argv(kind: str) -> tuple[str, ...]:
    if kind == "c":
        return (str(TRIVIAL_C),)
    if kind == "python":
        return (sys.executable, str(GOOD_PY))
    raise ValueError(f"unknown bot kind {kind!r}")


def _cpu() -> float:
    return time.process_time()


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _maxrss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _machine_busy_s() -> float:
    """CPU seconds all CPUs spent not idle since boot (/proc/stat), or -1 where there is no /proc."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()[1:]
    except OSError:
        return -1.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class OtherLoad:
    """How many CPUs other processes kept busy during a block: the machine's busy time less this process's
    and its reaped children's. A figure measured while others used the CPUs is not to be trusted."""

    def __enter__(self) -> OtherLoad:
        self.t0 = time.perf_counter()
        self.busy0, self.own0 = _machine_busy_s(), _cpu() + _children_cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        wall = time.perf_counter() - self.t0
        busy = _machine_busy_s() - self.busy0
        own = _cpu() + _children_cpu() - self.own0
        self.cores = max(0.0, (busy - own) / wall) if self.busy0 >= 0 and wall > 0 else 0.0


# ----------------------------------------------------------------------------------- row 1: the engine
def case_engine(seconds: float = 6.0, rounds: int = 6) -> dict[str, Any]:
    import engine_speed

    return engine_speed.compare(seconds, rounds)


# ------------------------------------------------------------------------------ row 2: referee overhead
def case_referee(matches: int = 60, spawn: bool = False) -> dict[str, Any]:
    """Referee CPU per decision of real matches between two trivial C bots, played one after another.

    ``spawn`` False: both bots are started once (and a warm-up match played) before the clock starts, so
    the figure is the per-decision cost alone. True: every match starts and stops its own two processes.
    """
    player = Player(BotSpec("trivial", bot_argv("c")), TimeControl())
    rules = preset("santase")
    result: dict[str, Any] = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            handles = None if spawn else (BotHandle(player, nursery), BotHandle(player, nursery))
            await play_match("warm-up", (player, player), rules, 0, 0, handles=handles)
            records = []
            cpu0, wall0 = _cpu(), time.perf_counter()
            for i in range(matches):
                records.append(await play_match(f"m{i}", (player, player), rules, 1000 + i, i, handles=handles))
            cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
            if handles is not None:
                for h in handles:
                    await h.quit()
        decisions = sum(len(r.think_ms[0]) + len(r.think_ms[1]) for r in records)
        deals = sum(len(r.deals) for r in records)
        bad = [(r.match_id, [(t.kind, t.bot, t.detail) for t in r.terminations], r.stderr) for r in records
               if r.reason != "target"]
        if bad:
            raise RuntimeError(f"{len(bad)} matches not ended by the target: {bad[:3]}")
        result.update(matches=matches, decisions=decisions, deals=deals, cpu_s=cpu, wall_s=wall,
                      cpu_us_per_decision=1e6 * cpu / decisions, wall_us_per_decision=1e6 * wall / decisions,
                      decisions_per_deal=decisions / deals)

    trio.run(main)
    return result


def case_echo(round_trips: int = 20000, line_bytes: int = 300) -> dict[str, Any]:
    """The yardstick of row 2: a trio parent writes a line to a C echo process and awaits it back.

    The process is started like a bot (trio.lowlevel.open_process, pipes), minus the referee's machinery.
    """
    line = (b"turn " + b"x" * (line_bytes - 6) + b"\n")
    result: dict[str, Any] = {}

    async def main() -> None:
        proc = await trio.lowlevel.open_process([str(ECHO_C)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        stdin, stdout = proc.stdin, proc.stdout
        assert stdin is not None and stdout is not None

        async def one() -> None:
            await stdin.send_all(line)
            got = await stdout.receive_some(65536)
            while not got.endswith(b"\n"):
                got += await stdout.receive_some(65536)

        for _ in range(200):  # warm up
            await one()
        cpu0, wall0 = _cpu(), time.perf_counter()
        for _ in range(round_trips):
            await one()
        cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
        await stdin.aclose()
        await proc.wait()
        result.update(round_trips=round_trips, line_bytes=len(line), cpu_s=cpu, wall_s=wall,
                      cpu_us_per_round_trip=1e6 * cpu / round_trips,
                      wall_us_per_round_trip=1e6 * wall / round_trips)

    trio.run(main)
    return result


def _cpus() -> list[int]:
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return []


def case_overhead(rounds: int = 5, matches: int = 12, round_trips: int = 4000, line_bytes: int = 300,
                  spawn_matches: int = 12, pin: bool = True) -> dict[str, Any]:
    """Row 2 in one process, interleaved so that both sides see the same machine: ``rounds`` times, an echo
    block (``round_trips`` round trips), then a referee block (``matches`` matches, bots reused), then an
    echo block with the echo process on another CPU. The figures are the lowest CPU per unit over the
    rounds (load from elsewhere only ever adds to it); the medians are in the output too. Then
    ``spawn_matches`` matches that start their own bots.

    ``pin``: the process (and so every process it starts) runs on one CPU. Where the scheduler puts a bot
    changes the cost of a round trip a lot (a wake-up on another CPU costs an inter-processor interrupt,
    which in a VM is an exit to the hypervisor), so an unpinned figure depends on the scheduler's mood.
    The cross-CPU echo block shows that cost on its own."""
    cpus = _cpus()
    if pin and cpus:
        os.sched_setaffinity(0, {cpus[0]})
    other_cpu = cpus[1] if len(cpus) > 1 else None
    player = Player(BotSpec("trivial", bot_argv("c")), TimeControl())
    rules = preset("santase")
    line = b"turn " + b"x" * (line_bytes - 6) + b"\n"
    series: dict[str, list[float]] = {k: [] for k in ("echo", "echo_wall", "cross", "cross_wall", "ref", "ref_wall")}
    counts = {"decisions": 0, "deals": 0}
    spawn: dict[str, float] = {}

    async def play(i: int, handles: tuple[BotHandle, BotHandle] | None) -> tuple[int, int]:
        rec = await play_match(f"m{i}", (player, player), rules, 1000 + i, i, handles=handles)
        if rec.reason != "target":
            raise RuntimeError(f"match ended by {rec.reason}: {[(t.kind, t.detail) for t in rec.terminations]}")
        return len(rec.think_ms[0]) + len(rec.think_ms[1]), len(rec.deals)

    async def open_echo(cpu: int | None) -> trio.Process:
        def there() -> None:
            if cpu is not None:
                os.sched_setaffinity(0, {cpu})

        return await trio.lowlevel.open_process([str(ECHO_C)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                preexec_fn=there)

    async def echo_block(proc: trio.Process, n: int, key: str | None) -> None:
        stdin, stdout = proc.stdin, proc.stdout
        assert stdin is not None and stdout is not None
        cpu0, wall0 = _cpu(), time.perf_counter()
        for _ in range(n):
            await stdin.send_all(line)
            got = await stdout.receive_some(65536)
            while not got.endswith(b"\n"):
                got += await stdout.receive_some(65536)
        if key is not None:
            series[key].append(1e6 * (_cpu() - cpu0) / n)
            series[key + "_wall"].append(1e6 * (time.perf_counter() - wall0) / n)

    async def main() -> None:
        same = await open_echo(None)  # inherits this process's CPU mask
        cross = await open_echo(other_cpu) if pin and other_cpu is not None else None
        async with trio.open_nursery() as nursery:
            handles = (BotHandle(player, nursery), BotHandle(player, nursery))
            await play(0, handles)  # starts both bots; warms up
            await echo_block(same, 200, None)
            if cross is not None:
                await echo_block(cross, 200, None)
            for r in range(rounds):
                await echo_block(same, round_trips, "echo")
                decisions = deals = 0
                cpu0, wall0 = _cpu(), time.perf_counter()
                for i in range(matches):
                    d, n = await play(1 + r * matches + i, handles)
                    decisions += d
                    deals += n
                series["ref"].append(1e6 * (_cpu() - cpu0) / decisions)
                series["ref_wall"].append(1e6 * (time.perf_counter() - wall0) / decisions)
                counts["decisions"] += decisions
                counts["deals"] += deals
                if cross is not None:
                    await echo_block(cross, round_trips // 4, "cross")
            for h in handles:
                await h.quit()
            decisions = 0
            cpu0, wall0 = _cpu(), time.perf_counter()
            for i in range(spawn_matches):
                decisions += (await play(10_000 + i, None))[0]
            spawn["cpu_us_per_decision"] = 1e6 * (_cpu() - cpu0) / decisions
            spawn["wall_us_per_decision"] = 1e6 * (time.perf_counter() - wall0) / decisions
        for proc in (same, cross):
            if proc is not None:
                assert proc.stdin is not None
                await proc.stdin.aclose()
                await proc.wait()

    trio.run(main)
    out: dict[str, Any] = {
        "rounds": rounds, "line_bytes": len(line), "pinned": bool(pin and cpus),
        "decisions": counts["decisions"], "decisions_per_deal": counts["decisions"] / counts["deals"],
        "spawn_cpu_us": spawn["cpu_us_per_decision"], "spawn_wall_us": spawn["wall_us_per_decision"],
    }
    names = {"echo": "echo_cpu_us", "echo_wall": "echo_wall_us", "cross": "cross_cpu_us",
             "cross_wall": "cross_wall_us", "ref": "referee_cpu_us", "ref_wall": "referee_wall_us"}
    for key, name in names.items():
        if series[key]:
            out[name] = min(series[key])
            out[name + "_median"] = statistics.median(series[key])
            out[name + "_rounds"] = series[key]
    return out


# ------------------------------------------------------------------- rows 3-6: tournaments, memory
def tournament_yaml(bot: str, matches: int, concurrency: int, workers: int | str, reuse: bool, tmp: Path) -> str:
    argv = bot_argv(bot)
    command = " ".join(argv)
    return f"""\
name: bench
variant: santase
format: round-robin
rounds: {max(1, matches // 2)}
seed: 2026
concurrency: {concurrency}
workers: {workers}
reuse_bots: {str(reuse).lower()}
time:
  move: 1s
  handshake: 5s
bots:
  - name: a
    command: {command}
  - name: b
    command: {command}
output:
  database: {tmp / 'bench.db'}
  report: {tmp / 'report'}
"""


def case_tournament(
    bot: str = "c", matches: int = 40, concurrency: int = 1, workers: int | str = 1, reuse: bool = False,
) -> dict[str, Any]:
    """A tournament as `arena run` plays it (config, schedule, store, runner), timed around
    play_tournament. The database lives in a temporary directory and is measured at the end."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmpdir:
        tmp = Path(tmpdir)
        src = tmp / "bench.yaml"
        text = tournament_yaml(bot, matches, concurrency, workers, reuse, tmp)
        src.write_text(text)
        config = parse_config(text, src, cwd=tmp)
        schedule = build_schedule(config)
        store = Store(config.database)
        store.begin(config.name, str(src), text, config.hash, config.rules.to_dict(), config.seed, config.format,
                    schedule, [], force=False)
        pending = store.pending(config.name)
        progress = Progress(total=len(pending))
        # the store's share of the referee process's CPU (Store.save, once per match), apart
        save, store_cpu = store.save, [0.0]

        def timed_save(rec: Any) -> None:
            c0 = _cpu()
            save(rec)
            store_cpu[0] += _cpu() - c0

        store.save = timed_save  # type: ignore[method-assign]
        ccpu0 = _children_cpu()
        cpu0, wall0 = _cpu(), time.perf_counter()
        trio.run(play_tournament, config, store, pending, progress)
        cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
        children = _children_cpu() - ccpu0
        rows = store.db.execute(
            "SELECT COUNT(*), SUM(deals), SUM(CASE WHEN reason = 'target' THEN 0 ELSE 1 END) FROM matches "
            "WHERE status = 'done'").fetchone()
        done, deals, bad = rows[0], rows[1] or 0, rows[2] or 0
        decisions = store.db.execute("SELECT SUM(decisions) FROM seats").fetchone()[0] or 0
        replay = store.db.execute("SELECT SUM(LENGTH(deck) + LENGTH(actions)) FROM deals").fetchone()[0] or 0
        store.close()  # the last connection checkpoints the WAL into the file
        db_bytes = sum(p.stat().st_size for p in tmp.glob("bench.db*"))
        tables = _table_bytes(config.database)
    if done != len(pending) or bad:
        raise RuntimeError(f"{done} of {len(pending)} matches done, {bad} not ended by the target")
    return {
        "bot": bot, "matches": done, "concurrency": concurrency, "workers": config.workers, "reuse": reuse,
        "deals": deals, "decisions": decisions, "wall_s": wall, "referee_cpu_s": cpu, "children_cpu_s": children,
        "hands_per_s": deals / wall, "matches_per_s": done / wall,
        "referee_cpu_us_per_decision": 1e6 * cpu / max(1, decisions),
        "store_cpu_s": store_cpu[0], "store_cpu_us_per_decision": 1e6 * store_cpu[0] / max(1, decisions),
        "referee_cpu_ms_per_hand": 1e3 * cpu / max(1, deals),
        "db_bytes": db_bytes, "db_bytes_per_match": db_bytes / max(1, done),
        "replay_bytes_per_match": replay / max(1, done), "table_bytes": tables,
        "peak_rss_kib": _maxrss_kib(),
    }


def _table_bytes(path: Path) -> dict[str, int]:
    """Bytes per table and index (SQLite's dbstat), or {} where SQLite was built without it."""
    try:
        conn = sqlite3.connect(str(path))
        try:
            rows = conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return {}
    return {name: int(size) for name, size in rows}


def case_memory(concurrency: int = 64, matches: int = 64) -> dict[str, Any]:
    """Peak RSS of a referee process that plays ``matches`` matches of trivial C bots, ``concurrency`` at
    once, through the tournament runner (records stored in a temporary database as they finish)."""
    before = _maxrss_kib()
    out = case_tournament("c", matches, concurrency, 1, False)
    return {"concurrency": concurrency, "matches": out["matches"], "rss_before_kib": before,
            "peak_rss_kib": out["peak_rss_kib"], "hands_per_s": out["hands_per_s"]}


CASES: dict[str, Callable[..., dict[str, Any]]] = {
    "engine": case_engine, "overhead": case_overhead, "referee": case_referee, "echo": case_echo,
    "tournament": case_tournament, "memory": case_memory,
}


def main() -> int:
    name = sys.argv[1]
    kwargs = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    sys.path.insert(0, str(BENCH))
    with OtherLoad() as load:
        out = CASES[name](**kwargs)
    out["case"] = name
    out["other_load_cores"] = round(load.cores, 3)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
