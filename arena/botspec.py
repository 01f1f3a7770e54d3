"""A bot's command line: from the text a user wrote to an argv the referee can start, and a fingerprint.

Used by `arena match` (a command given on the command line) and by the tournament config (a ``command``
key). Two rules make a command written once work from anywhere:

- ``python`` / ``python3`` as the program means *the interpreter that runs arena* (``sys.executable``,
  usually ``.venv/bin/python``), so a Python bot can import the arena package and its bot kit
  (``arena.protocol.botkit``) without any setup of its own.
- Relative paths are relative to ``base_dir`` (a config file's directory, or the current directory for
  `arena match`), and are made absolute: a bot process runs in a fresh temporary directory by default.
- The *script* of a command is what an interpreter is asked to run, in any language: the first argument
  that is not an option and either ends like a script (``.py``, ``.js``, ...: it need not exist yet) or,
  when the program is a system one (found on PATH or under /usr: an interpreter, not the bot's own
  program), names an existing file (``tclsh bot.tcl``, ``guile bot.scm``, ``sbcl --script bot.lisp``).
  Its folder is the bot's own in the sandbox (arena.referee.sandbox.bot_files). The arguments of a bot's
  own program (``./mybot /home/me/weights.bin``) are its own business: no folder is shown for them.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError

__all__ = ["BotProvenance", "BotSpecError", "OutsideError", "check_command", "confine_command", "fingerprint",
           "resolve_command", "script_argument", "split_command"]


class BotSpecError(ConfigError):
    """A bot's command cannot be started: empty, not found, or not executable. The message says which."""


class OutsideError(BotSpecError):
    """A confined command (`confine_command`) names a path outside its folder."""


@dataclass(frozen=True)
class BotProvenance:
    """What ran as a bot, as the database keeps it: ``command`` as written, ``argv`` the resolved command
    line, ``hash`` the fingerprint of what runs, ``build_output`` None for a bot without a build."""

    name: str
    command: str
    argv: tuple[str, ...]
    hash: str
    build_output: str | None = None


# Arguments with these endings are scripts handed to an interpreter: they are paths even before they exist
# (a build may produce them), and the first one after the program must exist when the command is checked.
SCRIPT_SUFFIXES = (
    ".py", ".pyz", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".lua", ".php", ".jar",
    ".java", ".tcl", ".R", ".jl", ".exs", ".scm", ".rkt", ".lisp", ".hs", ".awk", ".raku",
)
_PYTHON_NAMES = ("python", "python3")
# Where the system's programs live: a program there (or found on PATH there) is an interpreter, whose first
# plain argument that names a file is its script whatever it is called.
_SYSTEM_PROGRAM_DIRS = ("/usr/", "/bin/", "/sbin/")


def split_command(text: str | Sequence[str], base_dir: Path) -> list[str]:
    """Tokenize and rewrite a command (see the module doc) without checking that anything exists.

    The program, if written as a path (it contains ``/``), and every argument ending in a script suffix
    are made absolute against ``base_dir`` whether or not they exist yet; any other argument that
    contains ``/`` is made absolute only when it names an existing file or directory there (so
    ``--out=a/b`` or a regular expression is left alone). ``--opt=path`` is treated like ``path``.
    """
    if isinstance(text, str):
        try:
            argv = shlex.split(text)
        except ValueError as e:  # unbalanced quotes
            raise BotSpecError(f"cannot split command {text!r}: {e}") from None
    else:
        argv = [str(t) for t in text]
    if not argv or not argv[0]:
        raise BotSpecError("the command is empty; expected a program and its arguments")
    base = Path(base_dir).absolute()
    program = argv[0]
    if program in _PYTHON_NAMES:
        program = sys.executable
    elif "/" in program:
        program = _absolute(program, base)
    script = _script_index(argv, base)
    return [program] + [_absolute(a, base) if i == script else _rewrite_argument(a, base)
                        for i, a in enumerate(argv[1:], 1)]


def check_command(argv: Sequence[str], text: str | None = None, base_dir: Path | None = None) -> None:
    """Raise BotSpecError unless the program can be started (and its script, if it has one, exists).

    ``text`` is the command as the user wrote it, quoted in messages; ``base_dir`` only improves a message.
    """
    if not argv:
        raise BotSpecError("the command is empty; expected a program and its arguments")
    shown = text if text is not None else shlex.join(argv)
    program = argv[0]
    if "/" in program:
        path = Path(program)
        written = _first_token(text) or program
        try:
            path.stat()
        except PermissionError:  # a folder on the way that you may not enter (pathlib.exists would raise it)
            raise BotSpecError(f"{written!r} cannot be reached: permission denied (looked for {path})") from None
        except (OSError, ValueError):
            raise BotSpecError(f"{written!r} not found (looked for {path})") from None
        if path.is_dir():
            raise BotSpecError(f"{written!r} is a directory, not a program ({path})")
        if not os.access(path, os.X_OK):
            raise BotSpecError(f"{written!r} is not executable (chmod +x {path})")
        _check_shebang(path, written)
    elif shutil.which(program) is None:
        hint = ""
        if base_dir is not None and (Path(base_dir) / program).is_file():
            hint = f" (to run the file {program!r} in {base_dir}, write ./{program})"
        raise BotSpecError(f"command {program!r} not found on PATH{hint}")
    script = script_argument(argv)
    if script is not None and not os.path.isfile(script):  # (False, not PermissionError, where it cannot be seen)
        raise BotSpecError(f"script {script!r} of command {shown!r} not found")


def _check_shebang(path: Path, written: str) -> None:
    """Refuse a script the kernel cannot start for a reason the user cannot see: its first line ends in a
    carriage return (saved with Windows line endings), so the interpreter it names, `/bin/sh\r`, does not
    exist, and starting it fails with 'No such file or directory' about a file that is there."""
    try:
        with open(path, "rb") as f:
            first = f.readline(256)
    except OSError:
        return
    if first.startswith(b"#!") and first.endswith(b"\r\n"):
        raise BotSpecError(f"{written!r} has Windows line endings (CRLF): the interpreter its first line names "
                           f"ends in a carriage return and cannot be found; save it with LF line endings "
                           f"(dos2unix {path})")


def resolve_command(text: str | Sequence[str], base_dir: Path) -> list[str]:
    """`split_command` then `check_command`: an argv that can be started, or BotSpecError."""
    argv = split_command(text, base_dir)
    check_command(argv, text if isinstance(text, str) else shlex.join(str(t) for t in text), base_dir)
    return argv


def fingerprint(argv: Sequence[str]) -> str:
    """sha256 (first 16 hex digits) over what the command runs: the program's bytes, the bytes of every
    argument that is an existing file, and the text of the other arguments.

    So ``python bots/random.py`` changes fingerprint when the script changes, not only when python does,
    and moving a checkout to another directory keeps it (file arguments count by content, not path).
    """
    h = hashlib.sha256()
    for i, arg in enumerate(argv):
        path = _program_path(arg) if i == 0 else arg
        if path is not None and os.path.isfile(path):
            h.update(b"file\0" + _file_digest(*_file_key(path)) + b"\0")
        elif i > 0 and os.path.isdir(arg):
            h.update(b"dir\0")
        else:
            h.update(b"arg\0" + arg.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()[:16]


# Where the system's programs and libraries live: what a confined command may name besides its own folder, and
# what every sandbox shows (arena.referee.sandbox).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def confine_command(text: str | Sequence[str], folder: Path, check: bool = True) -> list[str]:
    """`resolve_command` for a command that comes from a stranger (an upload), confined to ``folder``: its
    relative paths are resolved there, and its program, script and every argument that names a path must
    lie in ``folder`` (after following links) or be the system's (its programs and libraries, the Python
    that runs arena). BotSpecError otherwise, naming the word.

    A word names a path when it contains ``/``, is ``.``, ``..`` or starts with ``~``; ``--opt=value``,
    ``a:b``, ``a,b`` (a class path) and ``sh -c`` text are looked at part by part, and ``-I../x`` without
    its option letters. A plain word (``book.txt``) is a file in ``folder`` if it is one at all. Without
    ``check``, what it names need not exist yet (before a build that makes it)."""
    try:
        words = shlex.split(text) if isinstance(text, str) else [str(t) for t in text]
    except ValueError as e:  # unbalanced quotes
        raise BotSpecError(f"cannot split command {text!r}: {e}") from None
    if not words:
        raise BotSpecError("the command is empty; expected a program and its arguments")
    root = os.path.realpath(folder)
    system = [*SYSTEM_DIRS, *{os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}]

    def refuse(word: str) -> BotSpecError:
        return OutsideError(f"{word!r} names a path outside the bot's own folder: an uploaded bot may use only "
                            "its own files and the system's programs")

    def allowed(path: str, own: bool = True) -> bool:
        real = os.path.realpath(os.path.join(root, os.path.expanduser(path)) if not os.path.isabs(path) else path)
        return (own and _within(real, [root])) or _within(real, system)

    program = words[0]
    if program.startswith("~") or ("/" in program and not allowed(program)):
        raise refuse(program)
    if "/" not in program and program not in _PYTHON_NAMES and not _system_program(program):
        if shutil.which(program):
            raise refuse(program)
        if check:
            raise BotSpecError(f"command {program!r} not found on PATH")
    for word in words[1:]:
        for part in _path_parts(word):
            if part.startswith("~") or not allowed(part):
                raise refuse(word)
    argv = split_command(words, Path(root))
    if check:
        check_command(argv, shlex.join(words), Path(root))
    return argv


def _path_parts(word: str) -> list[str]:
    """The parts of a word that name paths (see `confine_command`)."""
    out = []
    for part in re.split(r"[=:,\s]", word):
        if part.startswith("-"):
            part = re.sub(r"^-+[A-Za-z]*", "", part)
        if "/" in part or part in (".", "..") or part.startswith("~"):
            out.append(part)
    return out


def _within(path: str, dirs: Sequence[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


# --- helpers


def _absolute(token: str, base: Path) -> str:
    if os.path.isabs(token):
        return token
    return os.path.normpath(os.path.join(base, token))


def _first_token(text: str | None) -> str | None:
    try:
        tokens = shlex.split(text) if text else []
    except ValueError:
        return None
    return tokens[0] if tokens else None


def _looks_like_script(token: str) -> bool:
    return (
        token.endswith(SCRIPT_SUFFIXES)
        and not token.startswith("-")
        and "://" not in token
        and not any(c.isspace() for c in token)
    )


def _rewrite_argument(arg: str, base: Path) -> str:
    if arg.startswith("-") and "=" in arg:
        option, value = arg.split("=", 1)
        rewritten = _rewrite_argument(value, base) if value and not value.startswith("-") else value
        return f"{option}={rewritten}"
    if not arg or arg.startswith("-") or os.path.isabs(arg):
        return arg
    if _looks_like_script(arg):
        return _absolute(arg, base)
    if "/" in arg and "://" not in arg and os.path.exists(os.path.join(base, arg)):
        return _absolute(arg, base)
    return arg


def script_argument(argv: Sequence[str]) -> str | None:
    """The script an interpreter is asked to run (see the module doc), or None: the first argument that is
    not an option and ends like a script, or names an existing file when the program is a system one.
    Other words are skipped (``perl -I lib bot.pl``: ``lib``), so plain arguments (``./mybot 5``) give None."""
    index = _script_index(argv, None)
    return None if index is None else argv[index]


def own_files(argv: Sequence[str]) -> list[str]:
    """A bot's program (unless a system one, found on PATH) and its script (`script_argument`), absolute."""
    return [os.path.abspath(p) for p in (argv[0] if "/" in argv[0] else None, script_argument(argv)) if p]


def _script_index(argv: Sequence[str], base: Path | None) -> int | None:
    """Where `script_argument` is in ``argv``; a relative one is looked for in ``base`` (None: as it is)."""
    interpreter: bool | None = None  # found out only when needed (it may look the program up on PATH)
    for i, arg in enumerate(argv[1:], 1):
        if not arg or arg.startswith("-") or "://" in arg:
            continue
        if _looks_like_script(arg):
            return i
        if interpreter is None:
            interpreter = _system_program(argv[0])
        if interpreter and _is_file(arg if base is None else _absolute(arg, base)):
            return i
    return None


@functools.lru_cache(maxsize=256)
def _system_program(program: str) -> bool:
    """Whether ``program`` is one of the system's (under /usr, /bin, /sbin, or the Python running arena),
    not a bot's own: its real path, the PATH lookup's for a bare name."""
    found = program if "/" in program else shutil.which(program)
    if found is None:
        return False
    real = os.path.realpath(found)
    prefixes = {os.path.realpath(p) + "/" for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return real.startswith((*_SYSTEM_PROGRAM_DIRS, *prefixes)) or found == sys.executable


def _is_file(path: str) -> bool:
    try:
        return os.path.isfile(path)
    except ValueError:  # a NUL in it
        return False


def _program_path(program: str) -> str | None:
    return program if "/" in program else shutil.which(program)


def _file_key(path: str) -> tuple[str, int, int, int, int, int]:
    real = os.path.realpath(path)
    st = os.stat(real)
    return real, st.st_dev, st.st_ino, st.st_ctime_ns, st.st_mtime_ns, st.st_size


@functools.lru_cache(maxsize=256)
def _file_digest(real: str, dev: int, ino: int, ctime_ns: int, mtime_ns: int, size: int) -> bytes:
    # Keyed by the file's identity and change time, so a rewritten file is read again (a bot can restore
    # the mtime and size of a program it rewrote, but not its ctime); the interpreter is read once.
    h = hashlib.sha256()
    with open(real, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.digest()
