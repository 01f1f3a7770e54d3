"""Bots in other languages play in the default sandbox (bubblewrap): Java, Tcl, Perl and Ruby, each a small
reference bot of tests/bots/langs against a Python one. Each test skips itself, naming the runtime, where
that runtime is not installed (`make test` installs them where it can: root with apt).

What they catch: a script the sandbox does not show (``tclsh bot.tcl``: no known ending), and a runtime
whose configuration lives in /etc behind symlinks (Debian's JDK: conf/security/java.security). And when a
bot does not start in the sandbox, `arena run` stops before any match and says what to add."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import BOTS, bot_copy, python_in_sandbox

from arena.api import run_tournament
from arena.referee.sandbox import bwrap_problem
from arena.store import Store
from arena.tournament.preflight import BotStartError

LANGS = BOTS / "langs"
# A JVM reserves far more address space than it uses: under the default memory limit (RLIMIT_AS, 2G) it
# needs smaller reservations (docs/CONFIG.md, limits)
JAVA = "java -Xmx256m -XX:CompressedClassSpaceSize=64m"

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")


def needs(*programs: str) -> None:
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed (Debian: apt-get install default-jdk-headless tcl ruby)")


def play(tmp_path: Path, entry: str, memory: str = "2G") -> list[str]:
    """One pair (two matches) of the bot ``entry`` (a YAML mapping's keys) against good.py, sandboxed; the
    terminations of both matches, as 'bot kind: detail'."""
    good = tmp_path / "good" / "good.py"
    if not good.exists():
        bot_copy(good.parent, "good.py", "_common.py")
    config = tmp_path / "t.yaml"
    config.write_text(
        f"name: langs\nseed: 5\nrounds: 1\nsandbox: bwrap\nconcurrency: 2\nlimits: {{memory: {memory}}}\n"
        "variant: {preset: santase, match_target: 3}\ntime: {move: 5s, handshake: 30s}\n"
        f"bots:\n  - {{name: lang, {entry}}}\n  - {{name: good, command: python {good}}}\n"
        f"output: {{database: {tmp_path / 'arena.db'}}}\n")
    outcome = run_tournament(config, report=False)
    assert outcome.left == 0 and outcome.total == 2
    store = Store(outcome.database)
    try:
        facts = store.match_facts("langs", think_times=False)
    finally:
        store.close()
    assert len(facts) == 2
    return [f"{t.bot} {t.kind}: {t.detail}" for f in facts for t in f.terminations]


@pytest.mark.parametrize("program, script", [("tclsh", "bot.tcl"), ("perl", "bot.pl"), ("ruby", "bot.rb")])
def test_a_script_bot_plays_in_the_sandbox(tmp_path: Path, program: str, script: str) -> None:
    needs(program)
    folder = tmp_path / program
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)  # (pytest's folders are 0700: the bot's own uid must read it)
    shutil.copy(LANGS / script, folder / script)
    # relative to the config's directory, as a user writes it (a .tcl script has no ending arena knew)
    assert play(tmp_path, f"command: {program} {folder.name}/{script}") == []


def test_a_java_bot_plays_in_the_sandbox(tmp_path: Path) -> None:
    """Compiled now into a folder of its own, run from its classes with that folder as its cwd."""
    needs("java", "javac")
    classes = tmp_path / "java"
    classes.mkdir(mode=0o755)
    classes.chmod(0o755)
    subprocess.run(["javac", "-d", str(classes), str(LANGS / "Bot.java")], check=True, timeout=300)
    assert play(tmp_path, f"command: {JAVA} -cp . Bot, cwd: java") == []


def test_a_java_source_file_plays_in_the_sandbox(tmp_path: Path) -> None:
    """`java Bot.java` (Java 11+ compiles it at start): the script is shown, and the JDK's configuration in
    /etc (Debian's conf/security/java.security is a symlink there) too, or the launcher cannot even report
    its error."""
    needs("java")
    folder = tmp_path / "java"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    shutil.copy(LANGS / "Bot.java", folder / "Bot.java")
    assert play(tmp_path, f"command: {JAVA} java/Bot.java") == []


async def test_a_match_says_which_file_a_sandboxed_bot_could_not_find(tmp_path: Path) -> None:
    """The referee's own termination, in a match: a bot that crashes at start because a file it reads is not
    in its sandbox gets a detail naming that file and what to do (the run's start-up check shows the same)."""
    from arena.game import PRESETS
    from arena.referee.clock import TimeControl
    from arena.referee.match import Player, play_match
    from arena.referee.process import BotSpec

    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    (data / "weights.bin").write_bytes(b"\0")
    bot = bot_copy(tmp_path / "needs", "needs_file.py", "_common.py")
    good = bot_copy(tmp_path / "good", "good.py", "_common.py")
    tc = TimeControl(handshake_ms=30_000)
    players = (Player(BotSpec("needs", ("/usr/bin/python3", str(bot), str(data / "weights.bin")), sandbox="bwrap"), tc),
               Player(BotSpec("good", ("/usr/bin/python3", str(good)), sandbox="bwrap"), tc))
    rec = await play_match("m", players, PRESETS["santase"], 1, 1)
    [t] = rec.terminations
    assert (t.bot, t.kind) == ("needs", "crash")
    assert t.detail == ("the bot exited with status 1 while the referee waited for the handshake; "
                        f"{data / 'weights.bin'} exists on this machine but not in the bot's sandbox: add what it "
                        "needs to the bot's sandbox_paths (docs/CONFIG.md), or run it without a sandbox (sandbox: "
                        "none, --sandbox none)"), t.detail


def test_a_jvm_over_the_memory_limit_is_told_what_to_do(tmp_path: Path) -> None:
    """Without its flags a JVM cannot reserve its class space under RLIMIT_AS 2G: the run stops before any
    match, and the message says it is the memory limit and what a JVM needs."""
    needs("java")
    folder = tmp_path / "java"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    shutil.copy(LANGS / "Bot.java", folder / "Bot.java")
    with pytest.raises(BotStartError) as info:
        play(tmp_path, "command: java java/Bot.java")
    [failure] = info.value.failures
    assert failure.name == "lang" and failure.kind in ("handshake", "crash"), failure
    assert "limits.memory (2 GiB) caps each process's address space" in failure.detail, failure
    assert "-Xmx256m -XX:CompressedClassSpaceSize=64m" in str(info.value)
    assert not (tmp_path / "arena.db").exists()


def test_a_file_the_sandbox_does_not_show_is_named_with_what_to_add(tmp_path: Path) -> None:
    """A bot that reads a file outside its folder before its handshake crashes in the sandbox: the run stops
    before any match, naming that file and sandbox_paths; with the folder in sandbox_paths it plays."""
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    (data / "weights.bin").write_bytes(b"\0" * 16)
    bot = bot_copy(tmp_path / "needs", "needs_file.py", "_common.py")
    with pytest.raises(BotStartError) as info:
        play(tmp_path, f"command: python {bot} {data / 'weights.bin'}")
    [failure] = info.value.failures
    assert (failure.name, failure.kind) == ("lang", "crash"), failure
    assert f"{data / 'weights.bin'} exists on this machine but not in the bot's sandbox: add what it needs to the " \
           "bot's sandbox_paths (docs/CONFIG.md)" in failure.detail, failure
    assert "FileNotFoundError" in failure.stderr
    assert "did not complete its handshake (crash)" in str(info.value) and "sandbox_paths" in str(info.value)
    assert ("a sandboxed bot sees only the system's files and its own (docs/SECURITY.md): if it starts with "
            "--sandbox none (sandbox: none), add what it needs to the bot's sandbox_paths") in str(info.value)
    assert not (tmp_path / "arena.db").exists()
    assert play(tmp_path, f"command: python {bot} {data / 'weights.bin'}, sandbox_paths: [data]") == []


# Python's multiprocessing takes its locks as POSIX semaphores, files of /dev/shm (sem_open), as C programs
# and other runtimes do for shared memory; then it fills /dev/shm past the file size limit.
SHARED_MEMORY = r"""
import multiprocessing, os
lock = multiprocessing.Lock()
with multiprocessing.Pool(2) as pool:
    print("pool", sum(pool.map(abs, [-1, -2, -3])), flush=True)
try:
    with open("/dev/shm/fill", "wb") as f:
        for _ in range(64):
            f.write(b"x" * 65536)
except OSError as e:
    print("fill", os.strerror(e.errno), os.path.getsize("/dev/shm/fill"), flush=True)
"""


def test_a_bot_may_use_posix_shared_memory_in_its_own_capped_dev_shm() -> None:
    """bubblewrap's /dev/shm is root's (0755): as root, where a bot runs as a uid of its own, a Python bot
    with a multiprocessing lock or pool could not start. It is the bot's own tmpfs, capped like /tmp."""
    cap = 1024 * 1024
    run = python_in_sandbox(SHARED_MEMORY, cap)
    assert run.stdout.splitlines()[:1] == ["pool 6"], run.stderr  # (as it was: PermissionError at the Lock)
    fill = run.stdout.splitlines()[1]
    assert fill.startswith("fill No space left on device ") and cap // 2 < int(fill.split()[-1]) <= cap, fill


def test_a_start_failure_names_the_folders_the_command_gives_that_the_sandbox_does_not_show(tmp_path: Path) -> None:
    """What a runtime says names no path (`java -cp classes Bot`: "Could not find or load main class Bot",
    Python: "No module named '_common'"); the hint then looks at the command: a folder it names, or the
    script's own folder withheld because another bot lies below it."""
    from arena.referee.sandbox import bot_files, sandbox_hint

    classes = tmp_path / "classes"
    classes.mkdir()
    java = ("/usr/bin/java", "-cp", str(classes), "Bot")
    said = "Error: Could not find or load main class Bot\nCaused by: java.lang.ClassNotFoundException: Bot\n"
    assert sandbox_hint(java, None, bot_files(java, None), said) == (
        f"{classes} exists on this machine but not in the bot's sandbox: add what it needs to the bot's sandbox_paths "
        "(docs/CONFIG.md), or run it without a sandbox (sandbox: none, --sandbox none)")
    assert sandbox_hint(java, None, bot_files(java, None, extra=[classes]), said) is None  # given: shown

    mine = bot_copy(tmp_path / "bots", "good.py", "_common.py")
    theirs = bot_copy(tmp_path / "bots" / "perl", "good.py")
    argv, other = ("/usr/bin/python3", str(mine)), ("/usr/bin/python3", str(theirs))
    said = "ModuleNotFoundError: No module named '_common'\n"
    assert sandbox_hint(argv, None, bot_files(argv, None, [other]), said) == (
        f"its script's folder {mine.parent} holds other bots' files, so its sandbox shows only its script from there: "
        "give each bot a folder of its own, or add what it needs to the bot's sandbox_paths (docs/CONFIG.md)")
    assert sandbox_hint(argv, None, bot_files(argv, None), said) is None  # alone, its folder is shown
