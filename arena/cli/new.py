"""`arena new NAME --lang LANG`: write a working bot skeleton into a new folder (arena.skeletons)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.skeletons import LANGUAGES


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "new",
        help="write a working bot skeleton into a new folder",
        description="Write a new folder NAME/ (under the current directory, or --dir) with a bot that plays legally "
        "and a little better than random, a README on how to run it, and for C a Makefile. It passes `arena "
        "check` as written; the command to run next is printed.",
    )
    p.add_argument("name", metavar="NAME", help="the bot's name and its folder's (letters, digits, _ . -)")
    p.add_argument("--lang", required=True, choices=list(LANGUAGES), help="the language of the skeleton")
    p.add_argument("--dir", type=Path, default=None, metavar="DIR",
                   help="create NAME/ inside DIR (default: the current directory)")
    commands["new"] = cmd_new


def cmd_new(args: argparse.Namespace) -> int:
    from arena.skeletons import write_skeleton

    skeleton = write_skeleton(args.name, args.lang, args.dir)
    print(f"created {skeleton.folder}/ with a {LANGUAGES[args.lang].name} bot:")
    for path in skeleton.files:
        print(f"  {path}")
    print("next, check it:" if skeleton.build is None else "next, build it and check it:")
    if skeleton.build:
        print(f"  {skeleton.build}")
    print(f"  {skeleton.check}")
    return 0
