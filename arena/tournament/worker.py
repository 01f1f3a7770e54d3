"""Referee worker processes: `workers: N` in a config runs N of these, each its own trio loop.

The boundary is the one a distributed backend has: a worker takes match specs and returns match records,
as JSON lines on its stdin/stdout. It plays every match it is given at once; the parent's runner decides
how many that is (the one owner of concurrency). Only the parent writes the database and the report.

    parent -> worker   {"setup": {...players, rules, policy, reuse, cpu}}
    parent -> worker   {"match": MatchSpec.to_dict()}
    worker -> parent   {"record": MatchRecord.to_dict()}
    parent closes stdin: the worker finishes what it has and exits.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import trio

from arena.game.variants import RuleSet
from arena.referee.clock import TimeControl
from arena.referee.match import Player
from arena.referee.policy import ViolationPolicy
from arena.referee.pool import MatchPool
from arena.referee.process import BotSpec, DirectProcess, Limits, die_with_parent
from arena.referee.record import MatchRecord, MatchSpec


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
    write_lock = trio.Lock()
    buf = b""

    async with trio.open_nursery() as nursery:
        pool: MatchPool | None = None
        players: dict[str, Player] = {}
        rules: RuleSet | None = None
        policy = ViolationPolicy.LOSE_MATCH

        async def play(spec: MatchSpec) -> None:
            assert pool is not None and rules is not None
            rec = await pool.play(spec, players, rules, policy)
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
                        policy = ViolationPolicy(setup["policy"])
                        pool = MatchPool(nursery, bool(setup["reuse"]))
                    else:
                        matches.start_soon(play, MatchSpec.from_dict(msg["match"]))
        if pool is not None:
            await pool.close()
        nursery.cancel_scope.cancel()


def main() -> None:
    try:
        trio.run(_worker_main)
    except KeyboardInterrupt:  # the parent was interrupted too; it does not want our results
        pass


# ----------------------------------------------------------------------------------------- the parent
class WorkerDied(RuntimeError):
    """A referee worker process exited while it still had matches to play."""


class _Worker:
    """One worker process, seen from the parent: the matches it is playing, each awaiting its record."""

    def __init__(self, proc: DirectProcess) -> None:
        self.proc = proc
        self.waiting: dict[str, tuple[trio.Event, list[MatchRecord]]] = {}
        self.error: WorkerDied | None = None
        self.send_lock = trio.Lock()  # one writer at a time on the pipe (trio refuses two)

    async def read_records(self) -> None:
        assert self.proc.stdout is not None
        buf = b""
        while True:
            chunk = await self.proc.stdout.receive_some(1 << 20)
            if not chunk:
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                rec = MatchRecord.from_dict(json.loads(line)["record"])
                done, box = self.waiting.pop(rec.match_id)
                box.append(rec)
                done.set()
        self.error = WorkerDied(f"referee worker {self.proc.pid} exited unexpectedly ({await self.proc.wait()})")
        for done, _ in self.waiting.values():
            done.set()

    async def play(self, spec: MatchSpec) -> MatchRecord:
        assert self.proc.stdin is not None
        if self.error is not None:
            raise self.error
        done, box = self.waiting[spec.match_id] = (trio.Event(), [])
        async with self.send_lock:
            await self.proc.stdin.send_all((json.dumps({"match": spec.to_dict()}) + "\n").encode())
        await done.wait()
        if not box:
            assert self.error is not None
            raise self.error
        return box[0]


class WorkerExecutor:
    """Hands each match to the worker with the fewest matches in flight."""

    def __init__(self, workers: list[_Worker]) -> None:
        self.workers = workers

    async def play(self, spec: MatchSpec) -> MatchRecord:
        worker = min(self.workers, key=lambda w: len(w.waiting))
        return await worker.play(spec)


@asynccontextmanager
async def open_worker_executor(players: Mapping[str, Player], rules: RuleSet, policy: ViolationPolicy, reuse: bool,
                               workers: int, concurrency: int) -> AsyncIterator[WorkerExecutor]:
    setup = {"players": [player_to_dict(p) for p in players.values()], "rules": rules.to_dict(),
             "policy": policy, "reuse": reuse}
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    started: list[_Worker] = []
    try:
        async with trio.open_nursery() as nursery:
            for i in range(max(1, min(workers, concurrency))):
                # From the main thread with a parent-death signal: if `arena run` is killed, its workers (and
                # so the sandboxes of their bots, which die with them) go at once instead of finishing.
                proc = DirectProcess.spawn([sys.executable, "-m", "arena.tournament.worker"], None, None,
                                           die_with_parent(os.getpid()), new_session=False, capture_stderr=False)
                worker = _Worker(proc)
                started.append(worker)
                # One CPU per worker when there are enough: its bots inherit the mask, and a pipe round trip
                # between processes on one CPU costs a fraction of one that wakes the other CPU.
                cpu = cpus[i] if len(cpus) >= workers else None
                assert proc.stdin is not None
                await proc.stdin.send_all((json.dumps({"setup": {**setup, "cpu": cpu}}) + "\n").encode())
                nursery.start_soon(worker.read_records)
            yield WorkerExecutor(started)
            for worker in started:  # the worker finishes what it has (nothing, by now) and exits
                assert worker.proc.stdin is not None
                await worker.proc.stdin.aclose()
    finally:
        with trio.CancelScope(shield=True):
            for worker in started:
                if worker.proc.returncode is None:
                    worker.proc.kill()
                    await worker.proc.wait()


if __name__ == "__main__":
    main()
