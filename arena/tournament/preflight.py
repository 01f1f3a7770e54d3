"""Before a tournament: start every bot once, as its matches will, and take its handshake.

A bot that cannot start (a missing runtime, a file its sandbox does not show, a crash at import) would
otherwise lose every one of its matches the same way, and the database would keep them all as results.
`preflight` starts each bot in its sandbox with the run's limits and time control, through the referee's
own session code (`arena.referee.session.probe`: the same start, handshake and termination a match has),
ends it with ``quit``, and raises BotStartError naming every bot that failed, what went wrong and the end
of its stderr, before any match is played or stored. The bots start at the same time, at most
``concurrency`` at once.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

import trio

from arena.errors import ConfigError
from arena.referee.process import effective_sandbox
from arena.referee.session import Player, Probe, probe
from arena.units import printable, stderr_tail

__all__ = ["BotStartError", "Failure", "preflight", "probe_all"]


@dataclass(frozen=True)
class Failure:
    """A bot that did not complete its handshake: ``where`` says how the user finds it (a config's file and
    line, or its command line)."""

    name: str
    where: str
    kind: str
    detail: str
    stderr: str
    sandboxed: bool = False

    def lines(self) -> list[str]:
        out = [f"{self.where}: bot {self.name} did not complete its handshake ({self.kind}):",
               f"  {printable(' '.join(self.detail.split()))}"]
        tail = stderr_tail(self.stderr)
        if tail:
            out.append("  its stderr ended with:")
            out.extend(f"    | {line}" for line in tail)
        return out


class BotStartError(ConfigError):
    """One or more bots did not complete their handshake when started once before the tournament (exit 2:
    what to fix is the bot, its command or what its sandbox shows). ``failures`` holds each of them."""

    def __init__(self, failures: Sequence[Failure]) -> None:
        self.failures = tuple(failures)
        bots = "a bot" if len(failures) == 1 else f"{len(failures)} bots"
        lines = [f"{bots} could not start and complete the handshake, so no match was played:"]
        for failure in failures:
            lines += failure.lines()
        if any(failure.sandboxed for failure in failures):
            # (whatever its errors say: a runtime may only say that it failed)
            lines.append("a sandboxed bot sees only the system's files and its own (docs/SECURITY.md): if it starts "
                         "with --sandbox none (sandbox: none), add what it needs to the bot's sandbox_paths")
        lines.append('fix it and run again; `arena check "COMMAND"` runs a bot alone and says what is wrong '
                     "(docs/CHECK.md)")
        super().__init__("\n".join(lines))


async def probe_all(players: Sequence[Player], concurrency: int) -> list[Probe]:
    """`probe` every player, at most ``concurrency`` at once; the probes in the players' order."""
    out: list[Probe | None] = [None] * len(players)
    limiter = trio.CapacityLimiter(max(1, concurrency))

    async def one(i: int) -> None:
        async with limiter:
            out[i] = await probe(players[i])

    async with trio.open_nursery() as nursery:
        for i in range(len(players)):
            nursery.start_soon(one, i)
    return [p for p in out if p is not None]


def failures(players: Sequence[Player], probes: Sequence[Probe], where: Sequence[str]) -> list[Failure]:
    """The failed probes as Failures (``where[i]`` locates player i for the user)."""
    return [Failure(player.spec.name, place, str(p.violation.kind), p.violation.detail, p.stderr,
                    effective_sandbox(player.spec) == "bwrap")
            for player, p, place in zip(players, probes, where, strict=True) if p.violation is not None]


def preflight(players: Sequence[Player], concurrency: int, where: Sequence[str] | None = None) -> list[Probe]:
    """Start every bot once and take its handshake (`probe_all`); BotStartError if any failed. ``where``:
    how the user finds each bot in a message (default: its command line)."""
    probes = trio.run(probe_all, players, concurrency)
    place = list(where) if where is not None else [shlex.join(p.spec.argv) for p in players]
    failed = failures(players, probes, place)
    if failed:
        raise BotStartError(failed)
    return probes
