"""The tournament YAML file: what a valid file gives, and what a user sees for each kind of mistake.

A message must name the file, the line and the key, say what is wrong and what was expected, and list every
problem of the file at once.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT

from arena import cli
from arena.botspec import BotSpecError, fingerprint, resolve_command
from arena.errors import ConfigError
from arena.game.variants import PRESETS
from arena.tournament import (
    ConfigFileError,
    Limits,
    TimeControl,
    bot_provenance,
    load_config,
    run_builds,
)
from arena.tournament.config import cpu_count

TWO_BOTS = """\
bots:
  - name: a
    command: sh a.sh
  - name: b
    command: sh b.sh
"""


def write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    for script in ("a.sh", "b.sh"):
        (tmp_path / script).write_text("#!/bin/sh\n")
    return path


def executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def problems_of(path: Path) -> list[str]:
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    return [str(p) for p in info.value.problems]


def one_problem(path: Path) -> str:
    problems = problems_of(path)
    assert len(problems) == 1, problems
    return problems[0]


# --------------------------------------------------------------------------------------------- valid files


def test_minimal_config_gets_documented_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, "name: demo\n" + TWO_BOTS)
    c = load_config(path, cwd=tmp_path / "elsewhere")
    assert c.name == "demo"
    assert c.rules == PRESETS["santase"]
    # no seed: None here; `arena run` draws a random one and keeps it in the database
    assert (c.format, c.challenger, c.rounds, c.duplicate, c.seed) == ("round-robin", None, 1, True, None)
    assert c.concurrency == cpu_count() and c.workers == 1
    assert c.time == TimeControl(move_ms=1000, bank_ms=None, handshake_ms=5000, grace_ms=50)
    assert c.limits == Limits(memory_bytes=2 * 1024**3, cpu_seconds=None, processes=None,
                              file_size_bytes=64 * 1024**2, cpus=1.0)
    assert c.on_violation == "lose-match" and c.reuse_bots is False
    # output defaults are relative to the current directory, not to the config file
    assert c.database == tmp_path / "elsewhere" / "reports" / "demo" / "arena.db"
    assert c.report_dir == tmp_path / "elsewhere" / "reports" / "demo"
    assert c.source == path and c.text == path.read_text()
    assert [b.name for b in c.bots] == ["a", "b"]


def test_every_key_is_read(tmp_path: Path) -> None:
    executable(tmp_path / "bin" / "c-bot")
    (tmp_path / "work").mkdir()
    path = write(tmp_path, """
        name: full.1
        variant: {preset: sixty-six, match_target: 5, last-trick-bonus: 0}
        format: gauntlet
        challenger: b
        rounds: 3
        duplicate: false
        seed: 7
        concurrency: 4
        workers: auto
        time: {move: 1.5s, bank: 2m, handshake: 3000, grace: 0}
        on_violation: random-move
        limits: {memory: 512M, cpu: 5m, processes: 64, file_size: 1G, cpus: 0.5}
        reuse_bots: true
        bots:
          - name: a
            command: sh a.sh
            time: {move: 250ms, bank: null}
          - name: b
            command: [sh, b.sh, --level, 3]
            cwd: work
          - name: "2048"
            command: ./bin/c-bot --x
            build_network: true
        output: {database: out/x.db, report: out/html}
    """)
    c = load_config(path, cwd=tmp_path)
    assert c.rules.name == "sixty-six" and c.rules.match_target == 5 and c.rules.last_trick_bonus == 0
    assert (c.format, c.challenger, c.rounds, c.duplicate, c.seed) == ("gauntlet", "b", 3, False, 7)
    assert c.concurrency == 4 and c.workers == cpu_count()
    assert c.time == TimeControl(move_ms=1500, bank_ms=120_000, handshake_ms=3000, grace_ms=0)
    assert c.on_violation == "random-move" and c.reuse_bots is True
    assert c.limits == Limits(memory_bytes=512 * 1024**2, cpu_seconds=300, processes=64,
                              file_size_bytes=1024**3, cpus=0.5)
    a, b, c2048 = c.bots
    assert (a.build_network, c2048.build_network) == (False, True)
    assert a.time == TimeControl(move_ms=250, bank_ms=None, handshake_ms=3000, grace_ms=0)  # merged
    assert b.time == c.time
    assert b.command == ("sh", str(tmp_path / "b.sh"), "--level", "3")
    assert b.command_text == "sh b.sh --level 3"
    assert b.cwd == tmp_path / "work"
    assert c2048.name == "2048" and c2048.command == (str(tmp_path / "bin" / "c-bot"), "--x")
    assert c.database == tmp_path / "out" / "x.db" and c.report_dir == tmp_path / "out" / "html"


def test_relative_paths_start_at_the_config_directory_and_python_is_arenas(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    conf = tmp_path / "tournaments"
    conf.mkdir()
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "x.py").write_text("print()\n")
    (tmp_path / "bots" / "data.txt").write_text("weights\n")
    path = write(conf, """
        name: t
        bots:
          - {name: a, command: python ../bots/x.py --data ../bots/data.txt --out=../bots/data.txt --re a/b}
          - {name: b, command: python3 -u ../bots/x.py}
    """)
    monkeypatch.chdir("/")
    c = load_config(path)
    bots = str(tmp_path / "bots")
    assert c.bots[0].command == (sys.executable, f"{bots}/x.py", "--data", f"{bots}/data.txt",
                                 f"--out={bots}/data.txt", "--re", "a/b")
    assert c.bots[1].command == (sys.executable, "-u", f"{bots}/x.py")


def test_yaml_merge_keys_work_for_shared_bot_settings(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        defaults: &slow {time: {move: 5s}}
        bots:
          - {<<: *slow, name: a, command: sh a.sh}
          - {<<: *slow, name: b, command: sh b.sh, time: {move: 1s}}
    """)
    # `defaults` is not a key of the schema: anchors belong inside known keys
    assert "defaults: unknown key" in one_problem(path)
    path = write(tmp_path, """
        name: t
        bots:
          - &a {name: a, command: sh a.sh, time: {move: 5s}}
          - {<<: *a, name: b}
    """)
    c = load_config(path)
    assert c.bots[1].time.move_ms == 5000 and c.bots[1].command_text == "sh a.sh"


def test_example_config_in_the_repository_loads() -> None:
    example = ROOT / "tournaments" / "example.yaml"
    missing = [p for p in ("bots/random.py", "bots/greedy.py", "bots/sh/random.sh", "bots/js/random.js",
                           "bots/c/Makefile") if not (ROOT / p).exists()]
    if missing:
        pytest.skip(f"reference bots not there yet: {missing}")
    if os.system("command -v node >/dev/null 2>&1") != 0:
        pytest.skip("node is not installed")
    c = load_config(example)
    assert c.format == "gauntlet" and c.challenger == "greedy" and len(c.bots) == 5
    assert c.bot("c-random").build == "make -s -C ../bots/c"


# --------------------------------------------------------------------------------------------- mistakes


def test_unknown_keys_name_file_line_key_and_suggest(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        formt: gauntlet
        time: {move: 1s, banc: 2s}
        bots:
          - name: a
            command: sh a.sh
            comand: x
          - name: b
            command: sh b.sh
    """)
    p = problems_of(path)
    assert p[0].startswith(f"{path}:2: formt: unknown key (did you mean 'format'?); expected one of name,")
    assert p[1].startswith(f"{path}:3: time.banc: unknown key (did you mean 'bank'?); expected one of move,")
    assert p[2].startswith(f"{path}:7: bots[0].comand: unknown key (did you mean 'command'?)")
    assert len(p) == 3


@pytest.mark.parametrize(
    "line, expected",
    [
        ("rounds: two", "rounds: 'two' is not an integer; expected an integer >= 1"),
        ("rounds: 0", "rounds: 0 is too small; expected an integer >= 1"),
        ("duplicate: maybe", "duplicate: 'maybe' is not true or false; expected true or false"),
        ("seed: 1.5", "seed: 1.5 is not an integer; expected an integer"),
        ("concurrency: 0", "concurrency: 0 is too small; expected an integer >= 1 or auto"),
        ("workers: many", "workers: 'many' is not an integer; expected an integer >= 1 or auto"),
        ("format: knockout", "format: 'knockout' is not allowed; expected round-robin | gauntlet | swiss"),
        ("on_violation: lose", "on_violation: 'lose' is not allowed (did you mean 'lose-deal'?); expected "
                               "lose-match | lose-deal | random-move"),
        ("reuse_bots: 1", "reuse_bots: 1 is not true or false"),
        ("time: 1s", "time: '1s' is not a mapping; expected a mapping with move, bank, handshake, grace"),
        ("limits: {memory: lots}", "limits.memory: 'lots' is not understood; expected bytes, or a number"),
        ("limits: {cpu: 10ms}", "limits.cpu: '10ms' is not understood; expected CPU seconds"),
        ("limits: {processes: 0}", "limits.processes: 0 is too small; expected an integer >= 1"),
        ("limits: {cpus: 0}", "limits.cpus: 0 is too small; expected a number of CPUs (1, 0.5, 2) from 0.01"),
        ("limits: {cpus: two}", "limits.cpus: 'two' is not understood; expected a number of CPUs"),
        ("output: {database: [a]}", "output.database: a list is not a single value; expected a path"),
    ],
)
def test_wrong_types_and_values(tmp_path: Path, line: str, expected: str) -> None:
    path = write(tmp_path, f"name: t\n{line}\n" + TWO_BOTS)
    assert one_problem(path).startswith(f"{path}:2: {expected}")


@pytest.mark.parametrize(
    "value, expected",
    [
        ("1x", "time.move: '1x' is not a duration; expected milliseconds, or a number with ms, s or m"),
        ("0", "time.move: 0 is too short; expected milliseconds, or a number with ms, s or m "
              "(250, 250ms, 1.5s, 2m), at least 1 ms"),
        ("-5", "time.move: -5 is not a duration"),
        ("0.5ms", "time.move: '0.5ms' is not a whole number of milliseconds"),
        ("null", "time.move: an empty value is not a duration"),
    ],
)
def test_bad_durations(tmp_path: Path, value: str, expected: str) -> None:
    path = write(tmp_path, f"name: t\ntime:\n  move: {value}\n" + TWO_BOTS)
    assert one_problem(path).startswith(f"{path}:3: {expected}")


def test_duplicate_bot_names(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        bots:
          - name: a
            command: sh a.sh
          - name: a
            command: sh b.sh
    """)
    assert one_problem(path) == (f"{path}:5: bots[1].name: duplicate bot name 'a' (first at line 3); "
                                 "expected a unique name for each bot")


def test_bad_names(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: my demo
        bots:
          - {name: a/b, command: sh a.sh}
          - {name: x-vs-y, command: sh b.sh}
          - {command: sh b.sh}
    """)
    p = problems_of(path)
    assert p[0].startswith(f"{path}:1: name: 'my demo' is not a valid name; expected a name made of letters")
    assert p[1].startswith(f"{path}:3: bots[0].name: 'a/b' is not a valid name")
    assert p[2].startswith(f"{path}:4: bots[1].name: 'x-vs-y' contains '-vs-'")
    assert p[3].startswith(f"{path}:5: bots[2].name: missing; expected a name")


def test_names_that_would_give_two_matches_one_id_are_refused(tmp_path: Path) -> None:
    """`a-vs` against `b` and `a` against `vs-b` would both be match `a-vs-vs-b-p0-g0`: one of the two
    pairings would silently never be played."""
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: sh a.sh}
          - {name: a-vs, command: sh a.sh}
          - {name: b, command: sh b.sh}
          - {name: vs-b, command: sh b.sh}
          - {name: vs, command: sh b.sh}
          - {name: vsx, command: sh b.sh}
          - {name: -x, command: sh b.sh}
          - {name: .., command: sh b.sh}
    """)
    p = problems_of(path)
    assert [line.split(": ")[1] for line in p] == ["bots[1].name", "bots[3].name", "bots[4].name", "bots[6].name",
                                                   "bots[7].name"]
    assert "'-x' is not a valid name; expected a name made of letters, digits and _ . -, that begins with" in p[3]
    assert p[0].startswith(f"{path}:4: bots[1].name: 'a-vs' contains '-vs-', or begins with 'vs-' or ends "
                           "with '-vs'; expected a name without '-vs-' at either end or inside")


def test_missing_required_keys(tmp_path: Path) -> None:
    path = write(tmp_path, "seed: 3\n")
    p = problems_of(path)
    assert p == [
        f"{path}:1: name: missing; expected a name made of letters, digits and _ . -, that begins with a "
        "letter, digit or _ (e.g. greedy-2)",
        f"{path}:1: bots: missing; expected a list of at least 2 bots, each with a name and a command",
    ]


def test_fewer_than_two_bots(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\nbots:\n  - {name: a, command: sh a.sh}\n")
    assert one_problem(path) == f"{path}:2: bots: 1 bot; expected at least 2 bots"
    path = write(tmp_path, "name: t\nbots: []\n")
    assert one_problem(path) == f"{path}:2: bots: 0 bots; expected at least 2 bots"
    path = write(tmp_path, "name: t\nbots: {a: b}\n")
    assert one_problem(path).startswith(f"{path}:2: bots: a mapping is not a list; expected a list of at least 2")


def test_command_not_found_on_path(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: sh a.sh}
          - {name: b, command: no-such-bot-xyz --fast}
    """)
    assert one_problem(path) == (f"{path}:4: bots[1].command: command 'no-such-bot-xyz' not found on PATH; "
                                 "expected a program that exists and is executable, or is found on PATH")


def test_command_in_config_dir_without_dot_slash_gets_a_hint(tmp_path: Path) -> None:
    executable(tmp_path / "mybot")
    path = write(tmp_path, "name: t\nbots:\n  - {name: a, command: mybot}\n  - {name: b, command: sh b.sh}\n")
    assert "command 'mybot' not found on PATH (to run the file 'mybot' in" in one_problem(path)
    assert "write ./mybot" in one_problem(path)


def test_a_script_of_any_language_is_the_command_s_script(tmp_path: Path) -> None:
    """An interpreter's first plain argument that names a file is its script, whatever its ending: made
    absolute from the config's directory (a bot runs elsewhere) and shown in its sandbox; a bot's own
    program's file arguments are not (they would show their folders)."""
    from arena.botspec import script_argument
    from arena.referee.sandbox import bot_files

    (tmp_path / "bot.scheme").write_text("(display 1)\n")
    (tmp_path / "weights.bin").write_text("")
    mybot = executable(tmp_path / "own" / "mybot")
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: sh -e bot.scheme 3}
          - {name: b, command: ./own/mybot weights.bin 3}
    """)
    a, b = load_config(path).bots
    assert a.command[1:] == ("-e", str(tmp_path / "bot.scheme"), "3")
    assert script_argument(a.command) == str(tmp_path / "bot.scheme")
    assert str(tmp_path) in bot_files(a.command, None)
    assert b.command == (str(mybot), "weights.bin", "3") and script_argument(b.command) is None
    assert bot_files(b.command, None) == (str(mybot), str(mybot.parent))


def test_sandbox_paths(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    path = write(tmp_path, "name: t\nbots:\n  - {name: a, command: sh a.sh, sandbox_paths: [data, /usr/share]}\n"
                           "  - {name: b, command: sh b.sh}\n")
    assert load_config(path).bots[0].sandbox_paths == (tmp_path / "data", Path("/usr/share"))
    assert load_config(path).bots[1].sandbox_paths == ()
    for value, what in (("[nowhere]", f": {tmp_path}/nowhere not found"), ("/opt", ": '/opt' is not a list"),
                        ("[/]", "[0]: / would show the whole machine to the bot")):
        path = write(tmp_path, f"name: t\nbots:\n  - {{name: a, command: sh a.sh, sandbox_paths: {value}}}\n"
                               "  - {name: b, command: sh b.sh}\n")
        assert one_problem(path).startswith(f"{path}:3: bots[0].sandbox_paths{what}; expected "), value


def test_command_not_executable_or_missing(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "x").write_text("#!/bin/sh\n")  # not chmod +x
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: ./bots/x}
          - {name: b, command: ./bots/missing --x}
          - {name: c, command: python bots/missing.py}
          - {name: d, command: ./bots}
          - {name: e, command: ""}
          - {name: f, command: "sh 'unbalanced"}
    """)
    p = problems_of(path)
    assert p[0].startswith(f"{path}:3: bots[0].command: './bots/x' is not executable (chmod +x "
                           f"{tmp_path}/bots/x); expected a program that exists and is executable")
    assert p[1].startswith(f"{path}:4: bots[1].command: './bots/missing' not found (looked for "
                           f"{tmp_path}/bots/missing)")
    assert p[2].startswith(f"{path}:5: bots[2].command: script '{tmp_path}/bots/missing.py' of command "
                           "'python bots/missing.py' not found")
    assert p[3].startswith(f"{path}:6: bots[3].command: './bots' is a directory, not a program")
    assert p[4].startswith(f"{path}:7: bots[4].command: an empty value is not text; expected a command line")
    assert p[5].startswith(f"{path}:8: bots[5].command: cannot split command")
    assert len(p) == 6


def test_values_that_are_not_text_are_shown_as_written(tmp_path: Path) -> None:
    """Not as Python shows them (True, datetime.date(2024, 1, 1))."""
    path = write(tmp_path, """
        name: 2024-01-01
        rounds: true
        concurrency: 1.5
        variant:
        bots:
          - {name: a, command: sh a.sh}
    """)
    p = problems_of(path)
    assert [line.split(": ", 1)[1].split(";")[0] for line in p[:4]] == [
        "name: 2024-01-01 is not a valid name", "rounds: true is not an integer",
        "concurrency: 1.5 is not an integer", "variant: no variant"]


def test_a_rule_value_is_shown_as_the_config_writes_it(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        variant: {preset: santase, deal_batches: [3, x]}
        bots:
          - {name: a, command: sh a.sh}
          - {name: b, command: sh b.sh}
    """)
    assert problems_of(path)[0].startswith(f"{path}:2: variant.deal_batches: [3, 'x'] is not allowed")


def test_a_script_saved_with_windows_line_endings_is_named_as_such(tmp_path: Path) -> None:
    """Started as it is, it fails with 'No such file or directory' about a file that is there."""
    (tmp_path / "bot.sh").write_bytes(b"#!/bin/sh\r\nexec python3 random.py\r\n")
    (tmp_path / "bot.sh").chmod(0o755)
    (tmp_path / "ok.sh").write_bytes(b"#!/bin/sh\nexec python3 random.py  # a comment\r\n")
    (tmp_path / "ok.sh").chmod(0o755)
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: ./bot.sh}
          - {name: b, command: ./ok.sh}
    """)
    assert problems_of(path) == [
        f"{path}:3: bots[0].command: './bot.sh' has Windows line endings (CRLF): the interpreter its first line "
        f"names ends in a carriage return and cannot be found; save it with LF line endings (dos2unix "
        f"{tmp_path}/bot.sh); expected a program that exists and is executable, or is found on PATH"]


def test_command_is_checked_only_when_the_bot_entry_is_otherwise_valid(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: no-such-bot-xyz, time: {move: fast}}
          - {name: b, command: sh b.sh}
    """)
    assert one_problem(path).startswith(f"{path}:3: bots[0].time.move: 'fast' is not a duration")


def test_missing_cwd(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: sh a.sh, cwd: nowhere}
          - {name: b, command: sh b.sh}
    """)
    assert one_problem(path).startswith(f"{path}:3: bots[0].cwd: directory {tmp_path}/nowhere not found")


def test_bad_variant_and_rule_parameters(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\nvariant: santaze\n" + TWO_BOTS)
    assert one_problem(path).startswith(
        f"{path}:2: variant: unknown variant 'santaze' (did you mean 'santase'?); "
        "expected one of santase, sixty-six, schnapsen")
    path = write(tmp_path, textwrap.dedent("""\
        name: t
        variant:
          preset: schnapsen
          match_targt: 5
          deck: 32
          must_trump: sometimes
    """) + TWO_BOTS)
    p = problems_of(path)
    assert p[0].startswith(f"{path}:4: variant.match_targt: unknown key (did you mean 'match_target'?); "
                           "expected preset, or a rule parameter: name, deck,")
    assert p[1] == f"{path}:5: variant.deck: '32' is not allowed; expected 24 | 20"
    assert p[2] == f"{path}:6: variant.must_trump: 'sometimes' is not allowed; expected true | false"
    assert len(p) == 3


def test_rule_values_that_do_not_fit_together_name_the_variant(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\nvariant: {preset: santase, hand_size: 5}\n" + TWO_BOTS)
    assert one_problem(path).startswith(f"{path}:2: variant: deal_batches [3, 3] must add up to hand_size 5")
    path = write(tmp_path, "name: t\nvariant: {preset: santase, hand_size: 5, deal_batches: [3, 2]}\n" + TWO_BOTS)
    assert load_config(path).rules.hand_size == 5


def test_gauntlet_challenger(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\nformat: gauntlet\n" + TWO_BOTS)
    assert one_problem(path) == (f"{path}:2: challenger: missing (format: gauntlet); "
                                 "expected the name of the bot that plays every other bot")
    path = write(tmp_path, "name: t\nformat: gauntlet\nchallenger: c\n" + TWO_BOTS)
    assert one_problem(path) == f"{path}:3: challenger: unknown bot 'c'; expected one of the bots: a, b"
    path = write(tmp_path, "name: t\nchallenger: a\n" + TWO_BOTS)
    assert one_problem(path) == (f"{path}:2: challenger: a challenger is only used by format: gauntlet; "
                                 "expected no challenger, or format: gauntlet")


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        bots:
          - name: a
           command: sh a.sh
    """)
    message = one_problem(path)
    assert message.startswith(f"{path}:4: YAML syntax error:")
    assert "expected valid YAML" in message
    path = write(tmp_path, 'name: "t\n')
    assert one_problem(path).startswith(f"{path}:2: YAML syntax error: while scanning a quoted scalar")


def test_duplicate_yaml_key(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\nseed: 1\nseed: 2\n" + TWO_BOTS)
    assert one_problem(path) == f"{path}:3: seed: duplicate key (first at line 2); expected each key once"


def test_empty_file_list_file_and_missing_file(tmp_path: Path) -> None:
    assert one_problem(write(tmp_path, "# nothing\n")).endswith(
        ":1: the file is empty; expected a mapping with name, variant, bots, ...")
    assert one_problem(write(tmp_path, "- a\n- b\n")).endswith(
        ": a list is not a mapping; expected a mapping with name, variant, bots, ... at the top")
    missing = tmp_path / "nope.yaml"
    assert one_problem(missing) == f"{missing}: file not found; expected a tournament YAML file"
    assert one_problem(tmp_path) == f"{tmp_path}: is a directory; expected a tournament YAML file"


def test_many_problems_are_reported_at_once_in_line_order(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        format: gauntlet
        rounds: -1
        time: {move: soon}
        bots:
          - {name: a, command: sh a.sh}
          - {name: a, command: sh b.sh}
          - {name: c, command: no-such-bot-xyz}
        variant: nope
    """)
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    e = info.value
    assert [(p.line, p.key_path) for p in e.problems] == [
        (2, "challenger"), (3, "rounds"), (4, "time.move"), (7, "bots[1].name"), (8, "bots[2].command"),
        (9, "variant"),
    ]
    lines = str(e).splitlines()
    assert lines[0] == f"6 problems in {path}:"
    assert all(line.startswith(f"{path}:") for line in lines[1:])
    assert isinstance(e, ConfigError) and e.exit_code == 2


def test_problems_are_values_with_their_parts(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\nrounds: x\n" + TWO_BOTS)
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    (p,) = info.value.problems
    assert (p.file, p.line, p.key_path) == (str(path), 2, "rounds")
    assert p.what == "'x' is not an integer" and p.expected == "an integer >= 1, at most 100000"


# --------------------------------------------------------------------------------------------- the hash


def _hash(tmp_path: Path, text: str) -> str:
    return load_config(write(tmp_path, text)).hash


def test_hash_ignores_how_the_tournament_is_run_but_not_what_it_plays(tmp_path: Path) -> None:
    base = "name: t\nseed: 1\n" + TWO_BOTS
    h = _hash(tmp_path, base)
    assert len(h) == 64
    # same tournament: concurrency, workers, output, limits, comments, spelling of equal values
    assert _hash(tmp_path, base + "concurrency: 3\nworkers: 2\noutput: {database: x.db}\n") == h
    assert _hash(tmp_path, base + "limits: {memory: 1G}\nreuse_bots: true\n") == h
    assert _hash(tmp_path, "# a comment\n" + base + "time: {move: 1000}\nvariant: santase\n") == h
    # a different tournament
    assert _hash(tmp_path, base.replace("seed: 1", "seed: 2")) != h
    assert _hash(tmp_path, base + "rounds: 2\n") != h
    assert _hash(tmp_path, base + "duplicate: false\n") != h
    assert _hash(tmp_path, base + "variant: {match_target: 7}\n") != h
    assert _hash(tmp_path, base + "time: {move: 2s}\n") != h
    assert _hash(tmp_path, base + "on_violation: lose-deal\n") != h
    assert _hash(tmp_path, base.replace("sh b.sh", "sh  b.sh --level 2")) != h
    assert _hash(tmp_path, base.replace("name: b", "name: bb")) != h


def test_where_points_at_a_key_after_loading(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\n" + TWO_BOTS)
    c = load_config(path)
    assert c.where("bots[1].command") == f"{path}:6"
    assert c.where("seed") == str(path)


# --------------------------------------------------------------------------------------------- builds


def test_build_produces_the_program_which_is_checked_after_the_build(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        bots:
          - name: a
            command: ./out/bot --x
            cwd: out
            build: mkdir -p out && printf '#!/bin/sh\\n' > out/bot && chmod +x out/bot && echo built
          - {name: b, command: sh b.sh}
    """)
    c = load_config(path)  # ./out/bot does not exist yet: not an error before the build
    assert not (tmp_path / "out").exists()  # load_config runs nothing
    assert c.bots[0].command == (str(tmp_path / "out" / "bot"), "--x")
    assert c.bots[0].cwd == tmp_path / "out"  # a directory the build makes: checked after it, too
    builds = run_builds(c)
    assert builds["a"].ok and builds["a"].output == "built\n" and "b" not in builds
    prov = bot_provenance(c, builds)
    assert [p.name for p in prov] == ["a", "b"]
    assert prov[0].command == "./out/bot --x" and prov[0].build_output == "built\n"
    assert prov[0].argv == (f"{tmp_path}/out/bot", "--x")
    assert prov[1].build_output is None and len(prov[1].hash) == 16


def test_failed_build_names_the_build_key_and_shows_the_output_tail(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: sh a.sh}
          - name: b
            command: ./b
            build: for i in $(seq 1 30); do echo line $i; done; echo oops >&2; exit 3
    """)
    c = load_config(path)
    with pytest.raises(ConfigFileError) as info:
        run_builds(c)
    message = str(info.value)
    assert message.startswith(f"{path}:6: bots[1].build: build 'for i in")
    # (sandboxed where bubblewrap works: the build's failure says so, tests/test_sealed.py)
    assert re.search(r"failed with exit status 3( in the sandbox \(docs/SECURITY.md\))?; expected a build command "
                     "that succeeds", message), message
    assert "    oops" in message and "    line 30" in message and "line 5\n" not in message


def test_build_that_does_not_produce_the_program(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: sh a.sh}
          - {name: b, command: ./never-built, build: "true"}
    """)
    c = load_config(path)
    with pytest.raises(ConfigFileError) as info:
        run_builds(c)
    assert str(info.value).startswith(f"{path}:4: bots[1].command: './never-built' not found")


def test_a_shared_build_runs_once_in_the_config_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    executable(tmp_path / "x")
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: ./x, build: echo run >> builds.log}
          - {name: b, command: ./x, build: echo run >> builds.log}
          - {name: c, command: ./x, build: echo other >> builds.log}
    """)
    monkeypatch.chdir("/")
    builds = run_builds(load_config(path))
    assert sorted(builds) == ["a", "b", "c"]
    assert (tmp_path / "builds.log").read_text().splitlines() == ["run", "other"]


def test_build_timeout_kills_the_build(tmp_path: Path) -> None:
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: sh a.sh}
          - {name: b, command: sh b.sh, build: "echo started; sleep 30 & sleep 30"}
    """)
    with pytest.raises(ConfigFileError) as info:  # 3 s: time for a loaded machine to start it and echo; not 30
        run_builds(load_config(path), timeout=3)
    assert "did not finish within 3 s" in str(info.value)
    assert "    started" in str(info.value)


def test_a_build_that_prints_without_end_is_stopped_at_the_output_limit(tmp_path: Path) -> None:
    """`yes` prints about a gigabyte a second: the build is stopped once it has printed 8 MiB (the output
    is read as it comes; it went to a file that was looked at five times a second, and held 200 MB by then)."""
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: sh a.sh}
          - {name: b, command: sh b.sh, build: "yes printed"}
    """)
    with pytest.raises(ConfigFileError) as info:
        run_builds(load_config(path), timeout=300)  # (a bound that only stops a hang)
    assert "build 'yes printed' printed more than 8 MiB" in str(info.value)
    assert str(info.value).endswith("    printed")


def test_a_build_that_leaves_a_process_behind_is_over_when_its_shell_exits(tmp_path: Path) -> None:
    """`server &` in a build held the output pipe open, and the run waited, silently, to the timeout. The
    build ends with its shell now, and what it left running is stopped."""
    path = write(tmp_path, """
        name: t
        bots:
          - {name: a, command: sh a.sh}
          - {name: b, command: sh b.sh, build: "sleep 600 & echo $! > left.pid; echo built"}
        sandbox: none  # (the pid it writes is this machine's; a sandboxed build's: tests/test_sealed.py)
    """)
    builds = run_builds(load_config(path), timeout=300)  # (a bound that only stops a hang)
    assert builds["b"].ok and builds["b"].output == "built\n"
    try:
        left = os.pidfd_open(int((tmp_path / "left.pid").read_text()))
    except ProcessLookupError:
        return  # killed and reaped already
    try:  # readable once it has exited; SIGKILL takes effect a moment after it is sent
        assert select.select([left], [], [], 60)[0], "the build's `sleep 600` is still running"
    finally:
        os.close(left)


# --------------------------------------------------------------------------------------------- botspec


def test_resolve_command_messages(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match="command 'foo-not-a-program' not found on PATH"):
        resolve_command("foo-not-a-program", tmp_path)
    (tmp_path / "x").write_text("")
    with pytest.raises(BotSpecError, match=r"'./x' is not executable \(chmod \+x"):
        resolve_command("./x", tmp_path)
    with pytest.raises(BotSpecError, match="the command is empty"):
        resolve_command("   ", tmp_path)
    assert isinstance(BotSpecError("x"), ConfigError)
    executable(tmp_path / "x")
    assert resolve_command(["./x", "a b"], tmp_path) == [str(tmp_path / "x"), "a b"]
    assert resolve_command("python -c pass", tmp_path) == [sys.executable, "-c", "pass"]


def test_fingerprint_follows_file_contents_not_paths(tmp_path: Path) -> None:
    script = tmp_path / "one" / "bot.py"
    script.parent.mkdir()
    script.write_text("print(1)\n")
    argv = resolve_command("python bot.py --seed 1", script.parent)
    f1 = fingerprint(argv)
    assert len(f1) == 16 and f1 == fingerprint(argv)
    assert fingerprint(argv[:-1] + ["2"]) != f1  # arguments count
    moved = tmp_path / "two" / "bot.py"
    moved.parent.mkdir()
    moved.write_text("print(1)\n")
    assert fingerprint(resolve_command("python bot.py --seed 1", moved.parent)) == f1  # same bytes elsewhere
    os.utime(script, ns=(1, 1))
    script.write_text("print(2)\n")
    assert fingerprint(argv) != f1  # the script changed
    assert fingerprint(["sh", "x"]) == fingerprint(["sh", "x"])  # a program found on PATH is hashed too


# --------------------------------------------------------------------------------------------- the CLI


def test_cli_turns_a_config_error_into_exit_2_without_traceback(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "name: t\nrounds: x\nformat: knockout\n" + TWO_BOTS)
    assert cli.main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines() == [
        f"arena: 2 problems in {path}:",
        f"{path}:2: rounds: 'x' is not an integer; expected an integer >= 1, at most 100000",
        f"{path}:3: format: 'knockout' is not allowed; expected round-robin | gauntlet | swiss",
    ]


def test_cli_bad_bot_command_exits_2_in_a_real_process(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "arena", "match", "no-such-bot-xyz", "sh", "--matches", "1"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "arena: command 'no-such-bot-xyz' not found on PATH" in proc.stderr
