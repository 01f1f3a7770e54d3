"""Referee worker processes: `workers: N` in a config runs N of these, each its own trio loop.

The boundary is the one a distributed backend would have: a worker takes match specs and returns match
records, as JSON lines on its stdin/stdout. Only the parent writes the database and the report.

    parent -> worker   {"setup": {...players, rules, policy, reuse, concurrency}}
    parent -> worker   {"match": {"id", "seat0", "seat1", "deal_seed", "match_seed"}}
    worker -> parent   {"record": MatchRecord.to_dict()}
    parent closes stdin: the worker finishes what it has and exits.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import trio

from arena.game.variants import RuleSet
from arena.referee.clock import TimeControl
from arena.referee.match import Player
from arena.referee.pool import MatchPool
from arena.referee.process import BotSpec, DirectProcess, Limits, die_with_parent
from arena.referee.record import MatchRecord


def player_to_dict(p: Player) -> dict[str, Any]:
    return {
        "name": p.spec.name, "argv": list(p.spec.argv), "cwd": None if p.spec.cwd is None else str(p.spec.cwd),
        "limits": asdict(p.spec.limits), "time": asdict(p.time), "sandbox": p.spec.sandbox,
        "fingerprint": p.spec.fingerprint, "files": p.spec.files,
    }


def player_from_dict(d: dict[str, Any]) -> Player:
    return Player(
        BotSpec(d["name"], tuple(d["argv"]), None if d["cwd"] is None else Path(d["cwd"]), Limits(**d["limits"]),
                d["sandbox"], d["fingerprint"], None if d["files"] is None else tuple(d["files"])),
        TimeControl(**d["time"]),
    )


# ----------------------------------------------------------------------------------------- the worker
async def _worker_main() -> None:
    stdin = trio.lowlevel.FdStream(0)
    out = trio.lowlevel.FdStream(1)
    buf = b""
    setup: dict[str, Any] | None = None
    write_lock = trio.Lock()

    async with trio.open_nursery() as nursery:
        pool: MatchPool | None = None
        limiter = trio.CapacityLimiter(1)
        players: dict[str, Player] = {}
        rules: RuleSet | None = None

        async def run_one(row: dict[str, Any]) -> None:
            assert pool is not None and rules is not None and setup is not None
            async with limiter:
                rec = await pool.play(row, players, rules, setup["policy"])
            data = (json.dumps({"record": rec.to_dict()}) + "\n").encode()
            async with write_lock:
                await out.send_all(data)

        async with trio.open_nursery() as matches:
            while True:
                chunk = await stdin.receive_some(65536)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    msg = json.loads(line)
                    if "setup" in msg:
                        setup = msg["setup"]
                        if setup.get("cpu") is not None:
                            os.sched_setaffinity(0, {setup["cpu"]})
                        players = {d["name"]: player_from_dict(d) for d in setup["players"]}
                        rules = RuleSet.from_dict({"preset": "santase", **setup["rules"]})
                        limiter.total_tokens = max(1, int(setup["concurrency"]))
                        pool = MatchPool(nursery, bool(setup["reuse"]))
                    else:
                        matches.start_soon(run_one, msg["match"])
        if pool is not None:
            await pool.close()
        nursery.cancel_scope.cancel()


def main() -> None:
    try:
        trio.run(_worker_main)
    except KeyboardInterrupt:  # the parent was interrupted too; it does not want our results
        pass


# ----------------------------------------------------------------------------------------- the parent
async def run_in_workers(
    workers: int,
    setup: dict[str, Any],
    rows: list[dict[str, Any]],
    on_started: Callable[[dict[str, Any]], None],
    on_record: Callable[[MatchRecord], None],
) -> None:
    """Spread the rows over ``workers`` processes, keeping each one's slots full, in schedule order."""
    per_worker = max(1, math.ceil(setup["concurrency"] / workers))
    queue = list(reversed(rows))
    async with trio.open_nursery() as nursery:
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        for i in range(workers):
            # One CPU per worker when there are enough: its bots inherit the mask, and a pipe round trip
            # between processes on one CPU costs a fraction of one that wakes the other CPU.
            cpu = cpus[i] if len(cpus) >= workers else None
            nursery.start_soon(_drive_worker, {**setup, "concurrency": per_worker, "cpu": cpu}, per_worker, queue,
                               on_started, on_record)


async def _drive_worker(
    setup: dict[str, Any],
    slots: int,
    queue: list[dict[str, Any]],
    on_started: Callable[[dict[str, Any]], None],
    on_record: Callable[[MatchRecord], None],
) -> None:
    # From the main thread with a parent-death signal: if `arena run` is killed, its workers (and so the
    # sandboxes of their bots, which die with them) go at once instead of finishing their matches.
    proc = DirectProcess.spawn([sys.executable, "-m", "arena.tournament.worker"], None, None,
                               die_with_parent(os.getpid()), new_session=False, capture_stderr=False)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        await proc.stdin.send_all((json.dumps({"setup": setup}) + "\n").encode())
        in_flight = 0

        async def feed() -> None:
            nonlocal in_flight
            assert proc.stdin is not None
            data = b""
            while in_flight < slots and queue:
                row = queue.pop()
                on_started(row)
                in_flight += 1
                data += (json.dumps({"match": row}) + "\n").encode()
            if data:
                await proc.stdin.send_all(data)
            if not queue and in_flight == 0:
                await proc.stdin.aclose()

        await feed()
        buf = b""
        while in_flight or queue:
            chunk = await proc.stdout.receive_some(1 << 20)
            if not chunk:
                raise RuntimeError(f"referee worker {proc.pid} exited unexpectedly ({await proc.wait()})")
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                rec = MatchRecord.from_dict(json.loads(line)["record"])
                in_flight -= 1
                on_record(rec)
            await feed()
        await proc.wait()
    finally:
        with trio.CancelScope(shield=True):
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


if __name__ == "__main__":
    main()
