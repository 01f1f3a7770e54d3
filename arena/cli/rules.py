"""`arena rules VARIANT`: print a preset's resolved rule set, with each parameter's meaning and range."""

from __future__ import annotations

import argparse
from dataclasses import fields
from typing import Any

from arena.cli.options import add_set_option, parse_overrides
from arena.errors import ArenaError
from arena.game.variants import PRESETS, RulesError, RuleSet, allowed_values


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    r = sub.add_parser(
        "rules",
        help="print a variant's resolved rule set",
        description="Print every rule parameter of a variant (a preset, with --set overrides applied): its value, "
        "what it means and the values it allows. The same names go in a tournament file's variant: mapping "
        "and in --set NAME=VALUE of arena match; docs/RULES.md explains each rule and the presets' sources. "
        "Example: arena rules schnapsen --set match_target=11",
    )
    r.add_argument("variant", choices=sorted(PRESETS), help=f"the preset: {', '.join(sorted(PRESETS))}")
    add_set_option(r)
    commands["rules"] = cmd_rules


def cmd_rules(args: argparse.Namespace) -> int:
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
