"""`arena new`: bot skeletons to start from, one per language, each a working bot that passes `arena check`.

The templates beside this file (python/, c/, js/, sh/ and README.md) are package data; ``@@NAME@@`` and
the other ``@@...@@`` marks are filled in when a skeleton is written. Every skeleton is standalone (nothing
of arena's is imported or needed), so it can be copied anywhere.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError

TEMPLATES = Path(__file__).parent


@dataclass(frozen=True)
class Language:
    name: str  # shown in the README
    files: tuple[str, ...]  # template files, the bot's main file first
    program: tuple[str, ...]  # the command, with {main} for the main file's path
    build: str | None = None  # a build command with {dir}, run before the bot
    executable: bool = True  # the main file gets the executable bit


LANGUAGES = {
    "python": Language("Python 3 (standard library only)", ("bot.py",), ("python", "{dir}/bot.py")),
    "c": Language("C99 (built with make and gcc)", ("bot.c", "Makefile"), ("{dir}/bot",), build="make -C {dir}",
                  executable=False),
    "js": Language("JavaScript for Node.js (no npm packages)", ("bot.js",), ("node", "{dir}/bot.js")),
    "sh": Language("POSIX sh", ("bot.sh",), ("sh", "{dir}/bot.sh")),
}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class Skeleton:
    folder: Path  # as the user named it (relative to the current directory unless --dir was absolute)
    files: tuple[Path, ...]
    build: str | None  # the command that builds it, if any
    command: str  # the bot's command line, for arena check / match / run

    @property
    def check(self) -> str:
        """The `arena check` command line to run next."""
        return f"arena check {shell_word(self.command)}"


def shell_word(text: str) -> str:
    """``text`` as one shell word: in double quotes when that needs no escaping (``"python mybot/bot.py"``)."""
    if re.fullmatch(r"[\w@%+=:,./ -]+", text):
        return f'"{text}"'
    return shlex.quote(text)


def write_skeleton(name: str, language: str, directory: str | os.PathLike[str] | None = None) -> Skeleton:
    """Write a new folder ``name`` (under ``directory``, default the current one) with a bot in ``language``.

    ConfigError, before anything is written, for a bad name, an unknown language, a missing directory or a
    folder that already exists.
    """
    if not _NAME.fullmatch(name) or set(name) <= {"."}:
        raise ConfigError(f"NAME: {shlex.quote(name)} is not a valid bot name; expected a letter or digit, then up "
                          "to 63 letters, digits and _ . - (e.g. mybot)")
    lang = LANGUAGES.get(language)
    if lang is None:
        raise ConfigError(f"--lang: unknown language {language!r}; expected one of {', '.join(LANGUAGES)}")
    parent = Path(directory) if directory is not None else Path(".")
    if not parent.is_dir():
        raise ConfigError(f"--dir: {parent} is not a directory; expected an existing directory")
    folder = parent / name if directory is not None else Path(name)
    if folder.exists() or folder.is_symlink():
        raise ConfigError(f"{folder} already exists; choose another NAME (or --dir), arena new never overwrites")
    shown = str(folder)
    argv = [part.format(dir=shown) for part in lang.program]
    command = shlex.join(argv)
    build = lang.build.format(dir=shlex.quote(shown)) if lang.build else None
    main_file = lang.files[0]
    filled = {
        "@@NAME@@": name,
        "@@LANG@@": lang.name,
        "@@MAIN@@": main_file,
        "@@CHECK@@": shell_word(command),
        "@@BUILD@@": f"\n```sh\n{build}   # build it first (again after every change)\n```\n" if build else "",
        "@@FILES@@": "\n".join(f"- `{f}`" + (": the bot" if f == main_file else ": builds it (`make`)")
                               for f in lang.files) + "\n- `README.md`: this file",
    }
    try:
        folder.mkdir()
    except OSError as e:
        raise ConfigError(f"cannot create {folder}: {e.strerror or e}") from None
    written = []
    for source, target in [(f"{language}/{f}", f) for f in lang.files] + [("README.md", "README.md")]:
        text = (TEMPLATES / source).read_text(encoding="utf-8")
        for mark, value in filled.items():
            text = text.replace(mark, value)
        path = folder / target
        path.write_text(text, encoding="utf-8")
        # readable by all: a sandboxed bot runs as a user of its own (docs/SECURITY.md)
        path.chmod(0o755 if target == main_file and lang.executable else 0o644)
        written.append(path)
    folder.chmod(0o755)
    return Skeleton(folder, tuple(written), build, command)
