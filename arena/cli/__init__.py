"""The `arena` command: a thin layer over the library.

Every ArenaError (and the rules' own ValueErrors for bad user input) becomes one line on stderr and exit
code 2. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import NoReturn

from arena.errors import ArenaError
from arena.game.variants import PRESETS, RulesError, RuleSet, allowed_values

_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse's own errors: exit 2, without a traceback
        # A bad option value ("argument --matches: '0' is too small; expected ...") is one line naming the
        # option, like every other input error; a malformed command line gets the usage line too.
        m = re.fullmatch(r"argument (-\S+): (.*)", message, re.DOTALL)
        if m:
            print(f"arena: {m[1]}: {' '.join(m[2].split())}", file=sys.stderr)
        else:
            self.print_usage(sys.stderr)
            print(f"arena: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _cmd_rules(args: argparse.Namespace) -> int:
    from arena.commands import parse_overrides  # light: trio and the referee load only when a match runs

    try:
        rules = RuleSet.from_dict(args.variant).with_overrides(parse_overrides(args.set))
    except RulesError as e:  # argparse checked the preset: the overrides are what is wrong
        raise ArenaError(f"--set: {e}") from None
    print(f"rules {rules.name}")
    width = max(len(f.name) for f in fields(rules))
    for f in fields(rules):
        value = getattr(rules, f.name)
        shown = " ".join(map(str, value)) if isinstance(value, tuple) else str(value).lower() \
            if isinstance(value, bool) else str(value)
        print(f"  {f.name:<{width}}  {shown:<12}  {f.metadata.get('doc', '')} [{allowed_values(f)}]")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="arena", description="Tournaments for Santase / Sixty-Six / Schnapsen bots.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    r = sub.add_parser("rules", help="print a variant's resolved rule set")
    r.add_argument("variant", choices=sorted(PRESETS), help="preset name")
    r.add_argument("--set", action="append", metavar="NAME=VALUE", help="override one rule (repeatable)")
    _COMMANDS["rules"] = _cmd_rules
    for hook in _extra_parsers():
        hook(sub, _COMMANDS)
    return p


def _extra_parsers() -> list[Callable[..., None]]:
    # Their modules import trio and the referee only when a command runs, so `arena rules` stays light.
    from arena.commands import add_match_parser, add_run_parser
    from arena.report.command import add_report_parser

    return [add_match_parser, add_run_parser, add_report_parser]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    raise SystemExit(main())
