"""Bad input from a user ends in one clear message naming what to fix, and exit status 2.

Never a traceback, never a hang, never memory growing without bound: each case a tester found runs the real
command line in a subprocess (the table of bad config values runs `arena.cli.main` in-process: dozens of
values, one code path, which the subprocess cases around it cover end to end); then hypothesis throws
generated bad configs and `arena match` options at `arena.cli.main` in-process. Every generated input is
invalid by construction (and, for configs, checked to be refused by load_config first), so no match is ever
played here.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import string
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
from conftest import ROOT
from conftest import arena as run_arena
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import cli
from arena.game.variants import PRESETS
from arena.tournament.config import ConfigFileError, load_config

BOT = f"python {ROOT / 'bots' / 'random.py'}"
TIMEOUT = 120  # seconds; each case takes well under one, a hang fails instead of blocking the suite


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return run_arena(*args, cwd=cwd, timeout=TIMEOUT)


def config(tmp_path: Path, extra: str = "", *, name: str = "t", bots: int = 2) -> Path:
    """A valid config (two random bots) with ``extra`` lines appended: the lines under test."""
    lines = [f"name: {name}", "bots:"]
    lines += [f"  - {{name: b{i}, command: {BOT}}}" for i in range(bots)]
    path = tmp_path / "t.yaml"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def assert_refused(result: subprocess.CompletedProcess[str], *named: str, one_line: bool = True) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    for text in named:
        assert text in result.stderr, (text, result.stderr)
    if one_line:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("arena: "), result.stderr


# --------------------------------------------------------------------------------------------- config files


@pytest.mark.parametrize(
    "extra, named",
    [
        ("seed: " + "9" * 100 + "\n", "t.yaml:5: seed: 9999999999"),
        ("seed: -1\n", "seed: -1 is too small"),
        ("workers: 100000\n", "t.yaml:5: workers: 100000 is too large; expected an integer >= 1 or auto, at most 64"),
        ("x: " + "[" * 10_000 + "\n", "t.yaml:5: x[0][0][0]...: values nested more than 64 levels deep"),
        ("rounds: 100001\n", "rounds: 100001 is too large"),
        ("concurrency: 257\n", "concurrency: 257 is too large"),
        ("time: {move: 61m}\n", "time.move: '61m' is too long"),
        ("time: {bank: 1441m}\n", "time.bank: '1441m' is too long"),
        ("time: {handshake: 0}\n", "time.handshake: 0 is too short"),
        ("time: {handshake: 11m}\n", "time.handshake: '11m' is too long"),
        ("time: {grace: 61s}\n", "time.grace: '61s' is too long"),
        ("limits: {memory: 1K}\n", "limits.memory: '1K' is too small"),
        ("limits: {memory: 2T}\n", "limits.memory: '2T' is too large"),
        ("limits: {cpu: 1441m}\n", "limits.cpu: '1441m' is too large"),
        ("limits: {processes: 5000}\n", "limits.processes: 5000 is too large"),
        ("limits: {file_size: 2T}\n", "limits.file_size: '2T' is too large"),
        ("sandbox: docker\n", "sandbox: 'docker' is not allowed; expected bwrap | none"),
        ("sandbox: null\n", "sandbox: an empty value is not allowed"),
        ("l0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
            f"l{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 8)),
         "more than 100000 values (each use of an alias counts)"),
        ("x: &a [*a]\n", "x[0]: an alias refers to a value that contains it"),
        ("seed: 0b" + "1" * 2000 + "\n", "seed: a number of 2002 characters"),
        ("seed: 2001-13-45\n", "seed: cannot read this value (month must be in 1..12)"),
        ("x: \x01\n", "t.yaml:5: YAML error: character #x0001 is not allowed"),
        ('output: {database: "a\\0b"}\n', "output.database: 'a\\x00b' contains a NUL character"),
        ('output: {report: "\\ud800"}\n', "output.report: '\\ud800' contains a character that is not valid text"),
        ('"a\\nb": 1\n', "t.yaml:5: a b: unknown key"),
    ],
)
def test_bad_config_value(tmp_path: Path, extra: str, named: str) -> None:
    # in-process (arena.cli.main, as the fuzz tests below): the real command line's exit status and stderr are
    # the subprocess tests' around it; here each of the many values costs no interpreter start
    code, err = run_main(["run", str(config(tmp_path, extra))])
    assert_refused(subprocess.CompletedProcess(["arena", "run"], code, "", err), named)


def test_name_of_300_characters(tmp_path: Path) -> None:
    assert_refused(arena("run", str(config(tmp_path, name="n" * 300))),
                   "t.yaml:1: name: 'nnnn", "(300 characters) is too long; expected a name of at most 64")
    path = config(tmp_path)
    path.write_text(path.read_text().replace("name: b1,", f"name: {'b' * 65},"))
    assert_refused(arena("run", str(path)), "t.yaml:4: bots[1].name:", "is too long")


def test_too_many_bots_and_too_many_matches(tmp_path: Path) -> None:
    assert_refused(arena("run", str(config(tmp_path, bots=1001))), "t.yaml:2: bots: 1001 bots; expected at most 1000")
    assert_refused(arena("run", str(config(tmp_path, "rounds: 2000\n", bots=50))),
                   "rounds: 2000 rounds x 1225 pairings x 2 = 4900000 matches; expected at most 1000000 matches")


def test_config_file_larger_than_1_mib_is_not_parsed(tmp_path: Path) -> None:
    path = config(tmp_path, "# " + "x" * (1024 * 1024) + "\n")
    assert_refused(arena("run", str(path)), f"{path}: is larger than 1 MiB; expected a tournament YAML file of at")


def test_config_that_is_not_a_regular_file(tmp_path: Path) -> None:
    assert_refused(arena("run", "/dev/zero"), "/dev/zero: is not a regular file")


def test_sandbox_key_and_options_are_read_and_not_hashed(tmp_path: Path) -> None:
    plain = load_config(config(tmp_path), cwd=tmp_path)
    assert plain.sandbox is None  # no key: bubblewrap when it is available
    for value in ("bwrap", "none"):
        c = load_config(config(tmp_path, f"sandbox: {value}\n"), cwd=tmp_path)
        assert c.sandbox == value and c.hash == plain.hash  # how bots are confined is not what they play
    parser = cli.build_parser()
    assert parser.parse_args(["run", "t.yaml"]).sandbox is None
    assert parser.parse_args(["run", "t.yaml", "--sandbox", "none"]).sandbox == "none"
    assert parser.parse_args(["match", "a", "b", "--sandbox", "bwrap"]).sandbox == "bwrap"


# --------------------------------------------------------------------------------------------- arena match

MATCH = ["match", "python bots/random.py", "python bots/random.py"]


@pytest.mark.parametrize(
    "options, named",
    [
        (["--seed", "9" * 100], "arena: --seed: '9999"),
        (["--seed", "-1"], "arena: --seed: '-1' is too small; expected an integer from 0 to 9223372036854775807"),
        (["--names", "a b", "x"], "arena: --names: 'a b' is not a valid name; expected a name made of letters"),
        (["--names", "x", "x"], "arena: --names: both bots are called 'x'; expected two different names"),
        (["--names", "n" * 65, "x"], "arena: --names: 'nnn"),
        (["--concurrency", "0"], "arena: --concurrency: '0' is too small; expected an integer from 1 to 256"),
        (["--concurrency", "257"], "arena: --concurrency: '257' is too large"),
        (["--handshake-time", "0"], "arena: --handshake-time: '0' is too short; expected milliseconds"),
        (["--move-time", "0"], "arena: --move-time: '0' is too short; expected milliseconds"),
        (["--move-time", "61m"], "arena: --move-time: '61m' is too long"),
        (["--bank", "1441m"], "arena: --bank: '1441m' is too long"),
        (["--sprt", "elo0=20", "elo1=0"], "arena: --sprt: SPRT parameter 'elo1' must be greater than 'elo0'"),
        (["--sprt", "elo0=0", "elo1=20", "alpha=0.5"], "arena: --sprt: SPRT parameter 'alpha' must be between 0"),
        (["--sprt", "elo0=0", "elo1=1e6"], "arena: --sprt: SPRT parameter 'elo1' must be between -1000 and 1000"),
        (["--variant", "bridge"], "arena: --variant: unknown variant 'bridge'; expected one of santase"),
        (["--set", "match_target=0"], "arena: --set: rule match_target: 0 is not allowed"),
        (["--set", "colour=red"], "arena: --set: unknown rule parameter 'colour'"),
        (["--set", "match_target"], "arena: --set: 'match_target' is not NAME=VALUE"),
        (["--set", "match_target=[1"], "arena: --set: cannot read the value of 'match_target'"),
        (["--set", "match_target=" + "[" * 10_000], "arena: --set: the value of 'match_target' has 10000 characters"),
        (["--set", "deal_batches=[[3], [3]]"], "arena: --set: the value of 'deal_batches' is not a plain value"),
        (["--matches", "0"], "arena: --matches: '0' is too small; expected an integer from 1 to 1000000"),
        (["--matches", "1000001"], "arena: --matches: '1000001' is too large"),
        (["--matches", "many"], "arena: --matches: 'many' is not an integer"),
        (["--sandbox", "docker"], "arena: --sandbox: invalid choice: 'docker'"),
    ],
)
def test_bad_match_option(options: list[str], named: str) -> None:
    assert_refused(arena(*MATCH, *options), named)


def test_transcripts_pointing_at_a_file_is_refused_before_any_match(tmp_path: Path) -> None:
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me\n")
    result = arena(*MATCH, "--matches", "1", "--transcripts", str(existing))
    assert_refused(result, f"arena: --transcripts: {existing} exists and is not a directory")
    assert "match 1/1" not in result.stderr  # refused before the first match, not after the last
    assert existing.read_text() == "keep me\n"
    inside = existing / "sub"  # a directory that cannot be created: its parent is a file
    assert_refused(arena(*MATCH, "--transcripts", str(inside)), "arena: --transcripts: cannot create")


def test_rules_set_value_names_the_option() -> None:
    assert_refused(arena("rules", "santase", "--set", "match_target=[[1]]"), "arena: --set: the value of")


# --------------------------------------------------------------------------------------------- fuzzing


def run_main(argv: list[str]) -> tuple[int, str]:
    """``arena.cli.main(argv)`` in this process: (exit status, stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = cli.main(argv)
        except SystemExit as e:  # argparse's errors
            code = e.code if isinstance(e.code, int) else 1
    return code, err.getvalue()


def assert_one_clear_error(code: int, err: str, named: str) -> None:
    assert code == 2, (code, err)
    assert err.strip(), "nothing on stderr"
    assert "Traceback" not in err, err
    assert named in err, (named, err)


def yaml_string(text: str) -> str:
    """``text`` as a YAML double-quoted scalar (JSON's escapes are YAML's), so it is always a string."""
    return json.dumps(text)


_INT = re.compile(r"[-+]?[0-9]+")
_DURATION_LIKE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m)?\s*")

huge = st.integers(min_value=2**63, max_value=10**200)
long_text = st.integers(min_value=65, max_value=5000).map(lambda n: "x" * n)
odd_text = st.text(min_size=0, max_size=40)  # any unicode (hypothesis leaves out lone surrogates)
deep = st.integers(min_value=65, max_value=3000).map(lambda d: "[" * d + "]" * d)
# Values no scalar key accepts: nesting past the bound, lists, mappings, numbers past 1000 characters.
not_a_scalar = st.one_of(
    deep,
    st.lists(st.integers(), min_size=0, max_size=5).map(json.dumps),
    st.dictionaries(st.sampled_from("abc"), st.integers(), max_size=3).map(json.dumps),
    st.integers(min_value=1001, max_value=3000).map(lambda n: "1" * n),
)
not_an_int_text = st.one_of(odd_text, long_text).map(yaml_string)  # quoted: a string, never a number


def ints_outside(lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.one_of(st.integers(max_value=lo - 1), st.integers(min_value=hi + 1), huge, huge.map(lambda n: -n),
                     st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: f != int(f)).map(repr)
                     ).map(str)


def strings_except(*valid: str) -> st.SearchStrategy[str]:
    return st.one_of(odd_text, long_text).filter(lambda t: t not in valid).map(yaml_string)


# (key path named in the message, the YAML line(s) to add with one bad value in place of {})
BAD_CONFIG_VALUES: list[tuple[str, str, st.SearchStrategy[str]]] = [
    ("rounds", "rounds: {}", st.one_of(ints_outside(1, 100_000), not_an_int_text, not_a_scalar)),
    ("seed", "seed: {}", st.one_of(ints_outside(0, 2**63 - 1), not_an_int_text, not_a_scalar)),
    ("concurrency", "concurrency: {}", st.one_of(ints_outside(1, 256), strings_except("auto"), not_a_scalar)),
    ("workers", "workers: {}", st.one_of(ints_outside(1, 64), strings_except("auto"), not_a_scalar)),
    ("duplicate", "duplicate: {}", st.one_of(st.integers().map(str), not_an_int_text, not_a_scalar)),
    ("reuse_bots", "reuse_bots: {}", st.one_of(st.integers().map(str), not_an_int_text, not_a_scalar)),
    ("format", "format: {}", st.one_of(strings_except("round-robin", "gauntlet"), not_a_scalar)),
    ("on_violation", "on_violation: {}",
     st.one_of(strings_except("lose-match", "lose-deal", "random-move"), not_a_scalar)),
    ("sandbox", "sandbox: {}", st.one_of(strings_except("bwrap", "none"), st.just("null"), not_a_scalar)),
    ("challenger", "challenger: {}", st.one_of(st.just("b0"), odd_text.map(yaml_string))),  # round robin: none
    ("name", "name: {}", st.one_of(
        long_text, st.text(min_size=1, max_size=30).filter(lambda t: re.search(r"[^A-Za-z0-9_.-]", t) is not None)
    ).map(yaml_string)),
    ("variant", "variant: {}", st.one_of(strings_except(*PRESETS), st.integers().map(str), deep)),
    ("variant.match_target", "variant: {{match_target: {}}}",
     st.one_of(ints_outside(1, 100), not_an_int_text, deep)),
    ("time.move", "time: {{move: {}}}", st.one_of(
        st.integers(min_value=3_600_001).map(str), st.just("0"), st.integers(max_value=-1).map(str),
        odd_text.filter(lambda t: not _DURATION_LIKE.fullmatch(t)).map(yaml_string), not_a_scalar)),
    ("time.handshake", "time: {{handshake: {}}}",
     st.one_of(st.integers(min_value=600_001).map(str), st.just("0"), not_a_scalar)),
    ("time.bank", "time: {{bank: {}}}", st.one_of(st.integers(min_value=86_400_001).map(str), not_a_scalar)),
    ("time.grace", "time: {{grace: {}}}", st.one_of(st.integers(min_value=60_001).map(str), not_a_scalar)),
    ("limits.memory", "limits: {{memory: {}}}", st.one_of(
        st.integers(min_value=1, max_value=1024**2 - 1).map(str), st.integers(min_value=1024**4 + 1).map(str),
        st.integers(max_value=0).map(str), not_a_scalar)),
    ("limits.cpu", "limits: {{cpu: {}}}", st.one_of(st.integers(min_value=86_401).map(str), st.just("0"))),
    ("limits.processes", "limits: {{processes: {}}}", ints_outside(1, 4096)),
    ("limits.file_size", "limits: {{file_size: {}}}",
     st.one_of(st.integers(min_value=1024**4 + 1).map(str), st.just("0"))),
    ("output.database", "output: {{database: {}}}", st.one_of(
        st.tuples(odd_text, st.sampled_from(["\0", "\ud800"]), odd_text).map(lambda t: json.dumps("".join(t))),
        not_a_scalar)),
    ("bots[1].name", "bots: [{{name: b0, command: python x.py}}, {{name: {}, command: python x.py}}]",
     st.one_of(long_text, st.just("b0"), st.just("a-vs-b")).map(yaml_string)),
]


@settings(max_examples=100, deadline=5000, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=st.sampled_from(BAD_CONFIG_VALUES).flatmap(lambda c: st.tuples(st.just(c[0]), st.just(c[1]), c[2])))
def test_fuzz_bad_configs(tmp_path_factory: pytest.TempPathFactory, case: tuple[str, str, str]) -> None:
    key, line, value = case
    directory = tmp_path_factory.mktemp("fuzz", numbered=True)
    base = ["name: t", "bots:", f"  - {{name: b0, command: {BOT}}}", f"  - {{name: b1, command: {BOT}}}"]
    top = line.split(":", 1)[0]
    lines = [entry for entry in base if not (top == "name" and entry.startswith("name:"))]
    if top == "bots":
        lines = [entry for entry in lines if not entry.startswith(("bots:", "  - "))]
    path = directory / "t.yaml"
    path.write_text("\n".join(lines) + "\n" + line.format(value) + "\n")
    with pytest.raises(ConfigFileError):  # invalid by construction; checked, so no tournament ever starts
        load_config(path, cwd=directory)
    code, err = run_main(["run", str(path)])
    assert_one_clear_error(code, err, key)


MATCH_FUZZ = ["match", BOT, BOT]
_RULE_NAMES = {n.replace("-", "_") for n in PRESETS["santase"].to_dict()}
not_int_text = odd_text.filter(lambda t: not _INT.fullmatch(t.strip()))

BAD_MATCH_OPTIONS: list[tuple[str, st.SearchStrategy[list[str]]]] = [
    ("--matches", st.one_of(ints_outside(1, 1_000_000), not_int_text).map(lambda v: ["--matches", v])),
    ("--seed", st.one_of(ints_outside(0, 2**63 - 1), not_int_text).map(lambda v: ["--seed", v])),
    ("--concurrency", st.one_of(ints_outside(1, 256), not_int_text).map(lambda v: ["--concurrency", v])),
    ("--move-time", st.one_of(
        st.just("0"), st.integers(min_value=3_600_001).map(str),
        odd_text.filter(lambda t: not _DURATION_LIKE.fullmatch(t))).map(lambda v: ["--move-time", v])),
    ("--handshake-time", st.one_of(st.just("0"), st.integers(min_value=600_001).map(str))
     .map(lambda v: ["--handshake-time", v])),
    ("--bank", st.integers(min_value=86_400_001).map(lambda v: ["--bank", str(v)])),
    ("--names", st.one_of(
        st.tuples(st.text(min_size=1, max_size=20).filter(lambda t: re.search(r"[^A-Za-z0-9_.-]", t) is not None),
                  st.just("x")),
        st.tuples(long_text, st.just("x")),
        st.text(alphabet=string.ascii_letters, min_size=1, max_size=10).map(lambda t: (t, t)),
    ).map(lambda pair: ["--names", *pair])),
    ("--variant", odd_text.filter(lambda t: t not in PRESETS).map(lambda v: ["--variant", v])),
    ("--set", st.one_of(
        st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=12)
        .filter(lambda k: k not in _RULE_NAMES).map(lambda k: f"{k}=1"),
        ints_outside(1, 100).map(lambda v: f"match_target={v}"),
        deep.map(lambda d: f"match_target={d}"),
        odd_text.filter(lambda t: "=" not in t),
    ).map(lambda v: ["--set", v])),
    ("--sprt", st.one_of(
        st.tuples(st.integers(-1000, 1000), st.integers(-1000, 1000)).filter(lambda p: p[0] >= p[1])
        .map(lambda p: [f"elo0={p[0]}", f"elo1={p[1]}"]),
        st.floats(min_value=0.5, max_value=1e9).map(lambda a: ["elo0=0", "elo1=20", f"alpha={a}"]),
        st.integers(min_value=1001).map(lambda e: ["elo0=0", f"elo1={e}"]),
        st.just(["elo1=20"]),
    ).map(lambda v: ["--sprt", *v])),
    ("--sandbox", odd_text.filter(lambda t: t not in ("bwrap", "none")).map(lambda v: ["--sandbox", v])),
]


@settings(max_examples=100, deadline=5000, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=st.sampled_from(BAD_MATCH_OPTIONS).flatmap(lambda c: st.tuples(st.just(c[0]), c[1])))
def test_fuzz_bad_match_options(case: tuple[str, list[str]]) -> None:
    option, options = case
    # Invalid by construction; should one ever get through, the test fails here instead of playing.
    with mock.patch("arena.tournament.runner.run_matches", side_effect=AssertionError("a match started")):
        code, err = run_main([*MATCH_FUZZ, *options])
    assert_one_clear_error(code, err, option)


def test_a_config_that_is_a_list_or_binary_and_limits_below_zero(tmp_path: Path) -> None:
    listed = tmp_path / "list.yaml"
    listed.write_text("- name: t\n- bots: []\n")
    assert_refused(arena("run", str(listed)), "list.yaml:1: a list is not a mapping; expected a mapping with name")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(Path(sys.executable).resolve().read_bytes()[:4096])  # an ELF header and then some
    assert_refused(arena("run", str(binary)), "binary.yaml: is not UTF-8 text")
    assert_refused(arena("run", str(config(tmp_path, "limits: {memory: -1G}\n"))), "limits.memory: '-1G' is not")
    assert_refused(arena("run", str(config(tmp_path, "limits: {processes: -1}\n"))), "limits.processes: -1 is too")
    assert_refused(arena("run", str(config(tmp_path, "limits: {cpu: 1e400s}\n"))), "limits.cpu: '1e400s' is not")


def test_a_database_that_is_not_sqlite_is_one_line_and_left_as_it_was(tmp_path: Path) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("my notes, not a database\n")
    db = f"output: {{database: {notes}, report: {tmp_path / 'report'}}}\n"
    assert_refused(arena("run", str(config(tmp_path, db))), f"arena: {notes}: not a usable arena database")
    assert_refused(arena("report", str(notes), "-o", str(tmp_path / "r")), f"arena: {notes}: not a usable arena")
    assert_refused(arena(*MATCH, "--matches", "1", "--db", str(notes)), f"arena: {notes}: not a usable arena")
    assert notes.read_text() == "my notes, not a database\n"
    assert not (tmp_path / "r").exists()


def test_names_given_as_one_word() -> None:
    assert_refused(arena(*MATCH, "--names", "a b"), "arena: --names: expected 2 arguments")


def _as_nobody(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", sys.executable,
                           "-m", "arena", *args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)


def test_a_bot_in_a_folder_you_may_not_enter_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """(Found running arena as an ordinary user: pathlib's exists() raises PermissionError there.)"""
    import os
    import shutil

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root, to run arena as another user")
    if _as_nobody("--version", cwd=tmp_path).returncode != 0:
        pytest.skip("this Python cannot be run by user nobody")
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="arena-test-"))  # (pytest's own tmp folders are 0700 all the way up)
    try:
        base.chmod(0o755)
        locked = base / "locked"
        locked.mkdir(mode=0o700)
        (locked / "bot").write_text("#!/bin/sh\n")
        (locked / "bot").chmod(0o755)
        path = base / "t.yaml"
        path.write_text(f"name: t\nbots:\n  - {{name: a, command: {locked / 'bot'}}}\n  - {{name: b, command: sh x}}\n")
        path.chmod(0o644)
        assert_refused(_as_nobody("run", str(path), cwd=base),
                       f"'{locked / 'bot'}' cannot be reached: permission denied")
    finally:
        shutil.rmtree(base)


# --------------------------------------------------------------------------------------------- databases


@pytest.fixture(scope="module")
def played_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A real arena database of one match, and that match's id."""
    import sqlite3

    db = tmp_path_factory.mktemp("db") / "arena.db"
    made = arena(*MATCH, "--matches", "1", "--set", "match_target=1", "--seed", "1", "--sandbox", "none",
                 "--names", "a", "b", "--db", str(db))
    assert made.returncode == 0, made.stderr
    with contextlib.closing(sqlite3.connect(db)) as con:
        [(match,)] = con.execute("SELECT id FROM matches").fetchall()
    return db, match


@pytest.mark.parametrize("damage", [
    "UPDATE deals SET deck = x'00ff00ff', actions = 'zz zz'",  # a blob where text was, and the other way round
    "DROP TABLE deals; CREATE TABLE deals (x)",  # a table of arena's name with other columns
    "UPDATE matches SET score0 = 'abc', deals = -5",
    "UPDATE transcripts SET stderr = x'789c0300000000ff'",  # zlib data that fails its check
])
def test_a_damaged_or_crafted_database_is_one_line_for_every_reader(tmp_path: Path, played_db: tuple[Path, str],
                                                                    damage: str) -> None:
    """docs/SECURITY.md: a database handed to `arena report` (or transcript, export) is data from elsewhere;
    whatever is wrong in it ends in one line naming the file, not a traceback."""
    import shutil
    import sqlite3

    source, match = played_db
    db = tmp_path / "handed.db"
    shutil.copy(source, db)
    with contextlib.closing(sqlite3.connect(db)) as con:
        con.executescript(damage)
    outcomes = [arena("report", str(db), "-o", str(tmp_path / "report")), arena("transcript", str(db), match),
                arena("export", str(db), "-o", str(tmp_path / "out.jsonl"))]
    refused = [r for r in outcomes if r.returncode != 0]
    assert refused, [r.stderr for r in outcomes]  # each damage breaks at least the report
    for result in refused:
        assert_refused(result, f"arena: {db}: not a usable arena database: damaged, or not written by this arena (")


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["run"], "arena: the following arguments are required: config (`arena run --help` lists the arguments)"),
        (["match", "a"], "arena: the following arguments are required: BOT_B (`arena match --help`"),
        (["run", "x.yaml", "--bogus"], "arena: unrecognized arguments: --bogus (`arena run --help`"),
        (["--bogus", "report", "x.db"], "arena: unrecognized arguments: --bogus (`arena report --help`"),
        (["--bogus"], "arena: unrecognized arguments: --bogus (`arena --help`"),
        (["bogus"], "arena: argument COMMAND: invalid choice: 'bogus' (choose from 'new', "),
    ],
)
def test_a_malformed_command_line_is_one_line_naming_the_commands_help(argv: list[str], named: str) -> None:
    assert_refused(arena(*argv), named)  # not argparse's usage block above the error
