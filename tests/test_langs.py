"""Bots in other languages play in the default sandbox (bubblewrap): Java, Tcl, Perl and Ruby, each a small
reference bot of tests/bots/langs against a Python one. Each test skips itself, naming the runtime, where
that runtime is not installed (`make test` installs them where it can: root with apt).

What they catch: a script the sandbox does not show (``tclsh bot.tcl``: no known ending), and a runtime
whose configuration lives in /etc behind symlinks (Debian's JDK: conf/security/java.security)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.api import run_tournament
from arena.referee.sandbox import bwrap_problem
from arena.tournament.store import Store
from tests.harness import bot_copy

LANGS = Path(__file__).resolve().parent / "bots" / "langs"
# A JVM reserves far more address space than it uses: under the default memory limit (RLIMIT_AS, 2G) it
# needs smaller reservations (docs/CONFIG.md, limits)
JAVA = "java -Xmx256m -XX:CompressedClassSpaceSize=64m"

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")


def needs(*programs: str) -> None:
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed (Debian: apt-get install default-jdk-headless tcl ruby)")


def play(tmp_path: Path, entry: str) -> list[str]:
    """One pair (two matches) of the bot ``entry`` (a YAML mapping's keys) against good.py, sandboxed; the
    terminations of both matches, as 'bot kind: detail'."""
    good = bot_copy(tmp_path / "good", "good.py", "_common.py")
    config = tmp_path / "t.yaml"
    config.write_text(
        "name: langs\nseed: 5\nrounds: 1\nsandbox: bwrap\nconcurrency: 2\n"
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
