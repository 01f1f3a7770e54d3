"""Build steps before a tournament, and the provenance of every bot (what exactly played).

A bot's ``build`` is a shell command run once before the tournament in the config file's directory; bots
sharing the same build command (``make -C bots/c`` for several C bots) share one run. A bot with a build
has its command checked only here, after the build, since the build may be what produces the program.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from dataclasses import dataclass

from arena.botspec import fingerprint
from arena.tournament.config import ConfigFileError, Problem, TournamentConfig, check_bot_command

__all__ = ["BUILD_TIMEOUT_S", "BuildResult", "bot_provenance", "run_builds"]

BUILD_TIMEOUT_S = 300.0
_TAIL_LINES = 20
_TAIL_CHARS = 2000


@dataclass(frozen=True)
class BuildResult:
    """What one build printed (stdout and stderr together) and whether it succeeded."""

    output: str
    ok: bool


def run_builds(config: TournamentConfig, *, timeout: float = BUILD_TIMEOUT_S) -> dict[str, BuildResult]:
    """Run each distinct build command once; return the result for every bot that has a build.

    Raises ConfigFileError (file:line of each failed bot's ``build`` key, and the tail of the output) when a
    build fails or times out, and — once all builds succeeded — when a built bot's command still cannot be
    started. All failing builds are run and reported together.
    """
    by_command: dict[str, list[int]] = {}
    for index, bot in enumerate(config.bots):
        if bot.build is not None:
            by_command.setdefault(bot.build, []).append(index)

    results: dict[str, BuildResult] = {}
    problems: list[Problem] = []
    # One at a time, not through the runner's slots: two builds may share a Makefile or an output folder,
    # and make runs its own jobs in parallel when asked to (make -j).
    for command, indexes in by_command.items():
        result, failure = _run(command, config, timeout)
        for i in indexes:
            results[config.bots[i].name] = result
        if failure is not None:
            first = indexes[0]
            key = f"bots[{first}].build"
            shared = [config.bots[i].name for i in indexes[1:]]
            also = f" (also the build of {', '.join(shared)})" if shared else ""
            problems.append(Problem(
                str(config.source), config.lines.get(key), key,
                f"build {command!r}{also} {failure}",
                "a build command that succeeds (it runs with sh in the config's directory)",
                _tail(result.output),
            ))
    if problems:
        raise ConfigFileError(problems)

    for bot in config.bots:
        if bot.build is not None:
            try:
                check_bot_command(config, bot)
            except ConfigFileError as e:
                problems.extend(e.problems)
    if problems:
        raise ConfigFileError(problems)
    return results


@dataclass(frozen=True)
class BotProvenance:
    """What ran as a bot, as the database keeps it: ``command`` as written, ``argv`` the resolved command
    line, ``hash`` the fingerprint of what runs, ``build_output`` None for a bot without a build."""

    name: str
    command: str
    argv: tuple[str, ...]
    hash: str
    build_output: str | None = None


def bot_provenance(config: TournamentConfig, builds: dict[str, BuildResult]) -> list[BotProvenance]:
    """One per bot, in config order."""
    return [
        BotProvenance(bot.name, bot.command_text, tuple(bot.command), fingerprint(bot.command),
                      None if bot.name not in builds else builds[bot.name].output)
        for bot in config.bots
    ]


def _run(command: str, config: TournamentConfig, timeout: float) -> tuple[BuildResult, str | None]:
    """Run one build; the failure text is None on success."""
    # The output goes to a file, not a pipe: the build is over when its shell exits, even where it left a
    # process behind (`server &`) that would hold a pipe open, and so keep the run waiting, to the timeout.
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen(
                command, shell=True, cwd=config.directory, stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True,
            )
        except OSError as e:
            return BuildResult(str(e), False), f"could not be started ({e.strerror})"
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(proc)  # what the build left running (or all of it, interrupted or out of time)
            proc.wait()
        out.seek(0)
        output = out.read().decode("utf-8", "replace")
    if timed_out:
        return BuildResult(output, False), f"did not finish within {timeout:g} s"
    if proc.returncode != 0:
        how = (f"was killed by signal {-proc.returncode}" if proc.returncode < 0
               else f"failed with exit status {proc.returncode}")
        return BuildResult(output, False), how
    return BuildResult(output, True), None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _tail(output: str) -> str:
    lines = output.rstrip().splitlines()
    if not lines:
        return "  (the build printed nothing)"
    tail = "\n".join(lines[-_TAIL_LINES:])[-_TAIL_CHARS:]
    head = f"  last {_TAIL_LINES} lines of its output:" if len(lines) > _TAIL_LINES else "  its output:"
    return head + "\n" + "\n".join("    " + line for line in tail.splitlines())
