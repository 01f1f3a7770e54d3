"""`arena serve` under load: one server process, N concurrent quick-play games (the random bot against
scripted WebSocket clients that always take the first legal action at once).

Measured: the round-trip latency of an action on loopback (from sending the action to receiving the state
that shows the seat's next turn, or the end; so it includes the bot's reply and the referee's work), median
and p99; and the server's CPU time (user + system, its bots excluded) per action.

    .venv/bin/python bench/serve_bench.py [--games 50] [--target 3]
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import trio
from trio_websocket import open_websocket_url

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(pid: int) -> float:
    """User + system CPU of the process itself (not its children: the bots)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime, stime in clock ticks (100 Hz)


def quick(base: str) -> tuple[str, str]:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(urllib.request.Request(base + "/quick", data=b"opponent=random",
                                            headers={"Origin": base}), timeout=60) as r:
        code = r.url.rsplit("/", 1)[1]
    return code, "; ".join(f"{c.name}={c.value}" for c in jar)


async def play(base: str, port: int, room: tuple[str, str], latencies: list[float]) -> int:
    code, cookie = room
    actions = 0
    async with open_websocket_url(f"ws://127.0.0.1:{port}/ws/{code}",
                                  extra_headers=[("Cookie", cookie), ("Origin", base)]) as ws:
        sent: float | None = None
        while True:
            m = json.loads(await ws.get_message())
            if m["type"] != "state":
                continue
            if sent is not None and (m["legal"] or m["result"]):
                latencies.append(time.perf_counter() - sent)
                sent = None
            if m["result"]:
                return actions
            if m["legal"]:
                sent = time.perf_counter()
                actions += 1
                await ws.send_message(json.dumps({"type": "action", "action": m["legal"][0]}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--target", type=int, default=3, help="match_target of each game")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--port", "0", "--db", f"{tmp}/bench.db", "--sandbox", "none",
             "--set", f"match_target={args.target}", "--max-games", str(args.games),
             "--max-connections", str(2 * args.games), "--max-rooms", str(2 * args.games)],
            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert proc.stdout is not None
            base = re.search(r"(http://\S+)/", proc.stdout.readline()).group(1)  # type: ignore[union-attr]
            port = int(base.rsplit(":", 1)[1])
            rooms = [quick(base) for _ in range(args.games)]
            latencies: list[float] = []
            counts: list[int] = []
            cpu0, wall0 = cpu_seconds(proc.pid), time.perf_counter()

            async def run() -> None:
                async def one(room: tuple[str, str]) -> None:
                    counts.append(await play(base, port, room, latencies))

                async with trio.open_nursery() as nursery:
                    for room in rooms:
                        nursery.start_soon(one, room)

            trio.run(run)
            cpu, wall = cpu_seconds(proc.pid) - cpu0, time.perf_counter() - wall0
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            if proc.stdout is not None:
                proc.stdout.close()
    actions = sum(counts)
    lat = sorted(latencies)
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
    print(f"{args.games} concurrent games (match_target={args.target}) against the random bot, {actions} actions "
          f"in {wall:.1f} s")
    print(f"round trip of an action: median {statistics.median(lat) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")
    print(f"server CPU: {cpu:.2f} s in all, {cpu / actions * 1000:.2f} ms per action (bots excluded)")


if __name__ == "__main__":
    main()
