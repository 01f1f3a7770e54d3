"""`arena play BOT`: a person plays a bot in the terminal, through the referee a tournament uses.

The person's seat is a process arena provides (arena.human, whose docstring says why), started beside the
bot and given this command's standard input and output; the match itself is arena.referee.match's, with
the same rules, clocks and named terminations as in `arena run`. This module only checks the options,
starts the match and prints its result.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli.options import add_rules_options, add_sandbox_option, duration_option, int_option, rules_option
from arena.errors import ArenaError
from arena.units import printable

if TYPE_CHECKING:
    from arena.referee.record import MatchRecord

HUMAN_HANDSHAKE_MS = 60_000  # the human seat is arena's own Python, started on a possibly busy machine
STDERR_LINES = 8  # of a seat that failed, shown with the result

EPILOG = """\
The screen shows your hand, the trump card, the talon, the trick on the table, both seats' points and the
match score; your legal moves are numbered, and you type a number and Enter (q leaves). With standard input
not a terminal (a pipe or a file) one number is read per line and echoed; a wrong entry is refused, and
after 5 wrong entries in a row, or at the end of the input, you leave the match.

exit status: 0 the match was played out (or the bot forfeited it), 1 you left it (end of input, q, or your
time ran out), 2 bad input (an option, the command), 130 interrupted (Ctrl-C).

example: arena play "python bots/random.py" --variant schnapsen --seed 7
         yes 1 | head -n 300 | arena play "python bots/random.py" --seed 7   (a script that always takes 1)
see docs/PLAY.md"""


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "play",
        help="play a match against a bot yourself, in the terminal",
        description="Play one match against a bot in the terminal. The bot runs as in a tournament (sandboxed,\n"
        "with its own time limits), and the same referee enforces the rules, for you too. BOT is a command\n"
        "line, e.g. \"python bots/random.py\" or ./bots/c/random.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("bot", metavar="BOT", help="command line of the bot to play against")
    add_rules_options(p)
    p.add_argument("--seed", type=int_option("--seed"), default=None,
                   help="seed of the deals, 0 to 2**63 - 1 (default: a random one, printed)")
    p.add_argument("--as", dest="seat", type=int, choices=(0, 1), default=0,
                   help="your seat, 0 or 1 (default 0); the deals are the seed's either way")
    p.add_argument("--ascii", action="store_true",
                   help="suits as letters c d h s (default: symbols, unless the terminal cannot show them)")
    p.add_argument("--move-time", default="10m", help="your time per move: 90s, 10m (default 10m); the bot "
                   "keeps its own limit (1 s a move)")
    add_sandbox_option(p, "the bot")
    commands["play"] = cmd_play


def cmd_play(args: argparse.Namespace) -> int:
    import trio

    from arena.api import default_names, display_names, hello_names
    from arena.botspec import fingerprint, resolve_command
    from arena.referee.clock import TimeControl
    from arena.referee.match import Player, play_match
    from arena.referee.process import BotSpec
    from arena.referee.sandbox import bot_files, check_bot_files, resolve_sandbox
    from arena.seeds import random_seed
    from arena.units import duration_text

    # Every option is checked before anything starts: a mistake costs one line and exit 2.
    rules = rules_option(args.variant, args.set)
    move_ms = duration_option(args.move_time, "--move-time", "move")
    argv = resolve_command(args.bot, Path.cwd())
    bot_name, human_name = default_names(args.bot, "human")
    sandbox = resolve_sandbox(args.sandbox)
    files = bot_files(argv, None)
    if sandbox == "bwrap":
        check_bot_files(bot_name, files)
    # the bot's own name from its handshake (`bot 1 NAME`), as arena match shows it
    bot_name, human_name = display_names((hello_names([argv], sandbox)[0], "human"), (bot_name, human_name))
    seed = random_seed() if args.seed is None else args.seed
    me = args.seat
    scripted = not _isatty(0)
    ascii_only = args.ascii or not _shows_symbols()

    # The person's input and screen, as descriptors the human seat inherits (at new numbers: its own 0
    # and 1 are its protocol pipes). Inherited, not reopened: they share this process's open files.
    try:
        person_in, person_out = os.dup(0), os.dup(1)
    except OSError as e:
        raise ArenaError(f"arena play needs a standard input and output ({e.strerror}); run it in a terminal, "
                         "or give it a script on standard input") from None
    try:
        human = BotSpec(
            name=human_name,
            argv=(sys.executable, "-m", "arena.human", "--in", str(person_in), "--out", str(person_out),
                  *(["--scripted"] if scripted else []), *(["--ascii"] if ascii_only else [])),
            cwd=Path(__file__).resolve().parent.parent.parent,  # where `-m arena.human` finds this arena
            sandbox="none",  # arena's own code; it needs the person's terminal
            pass_fds=(person_in, person_out),
        )
        bot = BotSpec(name=bot_name, argv=tuple(argv), sandbox=sandbox, fingerprint=fingerprint(argv), files=files)
        seats = [Player(human, TimeControl(move_ms=move_ms, handshake_ms=HUMAN_HANDSHAKE_MS)),
                 Player(bot, TimeControl())]
        if me == 1:
            seats.reverse()
        print(f"arena play: you (seat {me}) against {bot_name}, {rules.name} to {rules.match_target} game points, "
              f"seed {seed} (--seed {seed} plays these deals again); {duration_text(move_ms)} per move"
              + ("." if scripted else "; type the number of your move and Enter, q leaves."), flush=True)
        try:
            record = trio.run(play_match, "play", (seats[0], seats[1]), rules, seed, seed)
        except BaseExceptionGroup as group:  # Ctrl-C arrives inside the match's nursery
            if group.subgroup(KeyboardInterrupt) is not None:
                raise KeyboardInterrupt from None
            raise
    finally:
        os.close(person_in)
        os.close(person_out)
    line, detail, code = describe_result(record, me, bot_name, move_ms)
    print()  # the seat may have been stopped in the middle of its prompt's line
    print(line)
    if detail:
        print(detail)
    return code


def describe_result(rec: MatchRecord, me: int, bot: str, move_ms: int) -> tuple[str, str, int]:
    """The result line, lines that explain a termination (or ""), and the exit status."""
    from arena.units import duration_text

    score = f"you {rec.score[me]} - {rec.score[1 - me]} {bot}"
    winner = "you win" if rec.winner == me else f"{bot} wins"
    if rec.reason == "target":
        return f"Result: {score}: {winner} the match.", "", 0
    ended = [t for t in rec.terminations if t.kind == rec.reason] or rec.terminations
    term = ended[-1]
    if term.seat != me:
        forfeit = f"{bot} forfeited it ({term.kind}: {term.detail})"
        return f"Result: {score}: {winner} the match; {forfeit}.", _stderr_tail(rec.stderr[term.seat], bot), 0
    why = {
        "disconnect": "you left it",
        "timeout": f"your time for a move ({duration_text(move_ms)}) ran out",
    }.get(term.kind)
    if why is None:  # the human seat itself failed: arena's fault, so show what it said
        return (f"Result: {score}: {winner} the match ({term.kind}); your seat failed: {term.detail}.",
                _stderr_tail(rec.stderr[me], "the human seat"), 1)
    return f"Result: {score}: {winner} the match ({term.kind}): {why}.", "", 1


def _stderr_tail(text: str, whose: str) -> str:
    lines = text.rstrip().splitlines()[-STDERR_LINES:]
    return "\n".join([f"last lines of {whose}'s stderr:", *(f"  {printable(line)}" for line in lines)]) if lines else ""


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _shows_symbols() -> bool:
    """Whether standard output's encoding can show the suit symbols."""
    try:
        "\u2663\u2666\u2665\u2660".encode(getattr(sys.stdout, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True
