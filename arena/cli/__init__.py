"""The `arena` command: a thin layer over the library (arena.api). One module per subcommand parses its
arguments, calls the library and prints; arena.cli.options holds the option parsing they share.

Every ArenaError (and the rules' own ValueErrors for bad user input) becomes one line on stderr and exit
code 2. Anything else is a bug and keeps its traceback. The exit codes are listed in `arena --help`
(EXIT_CODES). A bare `arena` prints the help on stdout and exits 2, as git does (help, and a failure status:
no command ran).
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from arena import __version__
from arena.errors import ArenaError
from arena.game.variants import RulesError

EXIT_CODES = """exit codes:
  0    success
  1    a check failed (arena check: the bot does not pass; arena replay: a record differs from the rules),
       or you left the match (arena play)
  2    bad input: a wrong option, file or setting (one line on stderr says what), or no command
  130  interrupted (Ctrl-C, SIGTERM or SIGHUP); finished matches are kept, run the command again to resume

Run `arena COMMAND --help` for a command's options. Documentation: README.md and docs/ in the source."""

_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse's own errors: exit 2, without a traceback
        # One line, like every other input error: a bad option value ("argument --matches: '0' is too
        # small; expected ...") names the option; a malformed command line names the command and where its
        # options are listed, instead of argparse's usage block above the error.
        m = re.fullmatch(r"argument (-\S+): (.*)", message, re.DOTALL)
        if m:
            print(f"arena: {m[1]}: {' '.join(m[2].split())}", file=sys.stderr)
        else:
            hint = "" if "(choose from" in message else f" (`{self.prog} --help` lists the arguments)"
            print(f"arena: {' '.join(message.split())}{hint}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    # Each subcommand's module imports trio and the referee only when its command runs, so building the
    # parser (and `arena rules`) stays light.
    from arena.cli import check, export, ladder, match, new, play, replay, report, rules, run, serve, transcript

    p = _Parser(prog="arena", description="Tournaments for Santase / Sixty-Six / Schnapsen bots.",
                epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"arena {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", title="commands", parser_class=_Parser)
    for command in (new, check, play, match, run, ladder, report, export, replay, transcript, rules, serve):
        command.add_parser(sub, _COMMANDS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from arena.cli.match import join_sprt_words

    parser = build_parser()
    args, unknown = parser.parse_known_args(join_sprt_words(sys.argv[1:] if argv is None else list(argv)))
    if unknown:  # named by the command's own parser, whose --help lists what it takes
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        (commands.choices.get(args.command) or parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:  # bare `arena`: the help, as git gives it, and no command ran
        parser.print_help(sys.stdout)
        return 2
    try:
        return _COMMANDS[args.command](args)
    except (ArenaError, RulesError) as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `arena rules santase | head`: the reader left; that is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:
        if e.errno not in _FULL:
            raise
        # `arena export DB > file` on a full disk: where the output goes is the user's to fix; what arena
        # writes itself (the database, a report, -o) says so in its own words before it gets here
        print(f"arena: cannot write the output: {e.strerror}", file=sys.stderr)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (no second error at exit)
        return 2


_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS}


if __name__ == "__main__":
    raise SystemExit(main())
