"""`arena play` as a person (or a script) uses it: real arena processes, the real random bot (sandboxed as
in a tournament), the referee's own match loop, and what the screen shows."""

from __future__ import annotations

import os
import re
import select
import shlex
import subprocess
import sys
import time

from conftest import ROOT

ARENA = [sys.executable, "-m", "arena", "play"]
RANDOM = "python bots/random.py"
ENV = {**os.environ, "PYTHONIOENCODING": "utf-8"}  # the screen's encoding, whatever the test's locale
TIMEOUT = 300  # stops a hang; every match here takes a second or two


def play(*args: str, entries: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], input=entries, cwd=ROOT, env=ENV, capture_output=True, text=True,
                          timeout=TIMEOUT)


def result_line(stdout: str) -> re.Match[str]:
    found = list(re.finditer(r"^Result: you (\d+) - (\d+) (\S+): (.*)$", stdout, re.M))
    assert len(found) == 1, stdout[-2000:]
    return found[0]


def test_a_script_plays_a_whole_match_against_random_and_it_replays():
    entries = "1\n" * 1000  # always the first choice; more lines than any match needs
    first = play(RANDOM, "--seed", "5", entries=entries)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr
    out = first.stdout
    # the final score: someone reached santase's 11 game points, and it is the score the last deal showed
    result = result_line(out)
    mine, theirs = int(result[1]), int(result[2])
    assert result[3] == "random"
    assert max(mine, theirs) >= 11 and min(mine, theirs) < 11
    assert result[4] == ("you win the match." if mine > theirs else "random wins the match.")
    deal_ends = re.findall(r"^    points: you \d+, random \d+; match: you (\d+) - (\d+) random", out, re.M)
    assert deal_ends and deal_ends[-1] == (str(mine), str(theirs))
    assert len(re.findall(r"^--- deal \d+: (?:you win|random wins) \d+ game points?: ", out, re.M)) == len(deal_ends)
    # what the screen shows at each decision, with suit symbols
    assert re.search(r"^hand:   (?:(?:9|J|Q|K|10|A)[♣♦♥♠] ?)+$", out, re.M)
    assert re.search(r"^trump:  [♣♦♥♠] \((?:9|J|Q|K|10|A)[♣♦♥♠] turned up\), talon 12 cards$", out, re.M)
    assert re.search(r"^table:  random led (?:9|J|Q|K|10|A)[♣♦♥♠], you answer$", out, re.M)
    assert re.search(r"^points: you \d+ \(\d+ tricks?(?:, \+\d+ pending)?\), random \d+ ", out, re.M)
    assert re.search(r"^match:  you \d+ - \d+ random$", out, re.M)
    # numbered choices; a script's entries are echoed after the prompt
    assert re.search(r"^   1  (?:close the talon|play \S+)$", out, re.M)
    assert out.count("your move (1-") == out.count("q leaves): 1\n") > 20
    # the same seed and the same entries play the same match again
    again = play(RANDOM, "--seed", "5", entries=entries)
    assert again.stdout == out


def test_ascii_and_the_other_seat():
    result = play(RANDOM, "--seed", "3", "--as", "1", "--variant", "schnapsen", "--ascii", entries="2\n1\n" * 500)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    out = result.stdout
    assert out.startswith("arena play: you (seat 1) against random, schnapsen to 7 game points, seed 3 ")
    assert not re.search("[♣♦♥♠]", out)
    assert re.search(r"^hand:   (?:(?:9|J|Q|K|10|A)[cdhs] ?)+$", out, re.M)
    mine, theirs = map(int, result_line(out).group(1, 2))
    assert max(mine, theirs) >= 7


def test_end_of_input_mid_match_is_a_disconnect_and_exit_1():
    result = play(RANDOM, "--seed", "5", entries="1\n1\n1\n")
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr
    out = result.stdout
    assert out.count("q leaves): 1\n") == 3  # three decisions made, then the fourth found no entry
    assert out.count("your move (1-") == 4
    assert "end of input: you leave the match." in out
    assert re.search(r"^Result: you 0 - 0 random: random wins the match \(disconnect\): you left it\.$", out, re.M)


def test_wrong_entries_in_a_script_are_refused_and_counted():
    result = play(RANDOM, "--seed", "5", entries="x\n0\n99\n" + "1\n" * 1000)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    out = result.stdout
    for wrong in ("x", "0", "99"):
        assert f"q leaves): {wrong}\n'{wrong}' is not one of the choices: type a number from 1 to " in out
    assert "(3 wrong entries refused) ===" in out
    result_line(out)  # and the match was played to its end


def test_a_script_of_garbage_leaves_instead_of_spinning():
    result = play(RANDOM, "--seed", "5", entries="1\n" + "yes\n" * 1000)
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr
    out = result.stdout
    assert out.count("is not one of the choices") == 5
    assert "5 wrong entries in a row: you leave the match." in out
    assert "random wins the match (disconnect): you left it." in out


def test_the_person_has_a_clock_too():
    silent, never = os.pipe()  # standard input that stays open and silent: nobody answers
    try:
        proc = subprocess.Popen([*ARENA, RANDOM, "--seed", "5", "--move-time", "300ms"], cwd=ROOT, env=ENV,
                                stdin=silent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(silent)
    try:
        with proc:
            out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        os.close(never)
    assert proc.returncode == 1, out[-2000:] + err
    assert "random wins the match (timeout): your time for a move (300ms) ran out." in out


def test_a_bot_that_breaks_the_rules_forfeits_to_the_person():
    result = play("tests/bots/illegal_card.py", "--seed", "5", entries="1\n" * 1000)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert re.search(r"^Result: you 0 - 0 illegal_card: you win the match; illegal_card forfeited it \(illegal: "
                     r".+ is not legal now; legal: .+\)\.$", result.stdout, re.M), result.stdout[-2000:]


def test_bad_options_are_one_line_and_exit_2():
    cases = [
        (["./nope"], "'./nope' not found"),
        ([RANDOM, "--variant", "bridge"], "unknown variant"),
        ([RANDOM, "--move-time", "forever"], "--move-time"),
        ([RANDOM, "--set", "match_target=0"], "match_target"),
        ([RANDOM, "--as", "2"], "--as"),
    ]
    for args, expected in cases:
        result = play(*args, entries="")
        assert result.returncode == 2, (args, result.stderr)
        assert expected in result.stderr and len(result.stderr.strip().splitlines()) <= 2, result.stderr
        assert "Result:" not in result.stdout


class Terminal:
    """A pseudo-terminal as `arena play`'s standard input and output: what a person at a terminal meets."""

    def __init__(self, args: list[str]) -> None:
        self.master, slave = os.openpty()
        try:
            self.proc = subprocess.Popen(args, cwd=ROOT, env=ENV, stdin=slave, stdout=slave, stderr=subprocess.PIPE,
                                         start_new_session=True)
        finally:
            os.close(slave)
        self.seen = b""

    def read_until(self, text: str) -> str:
        """Everything up to and including ``text``; fails (never hangs) if it does not come."""
        token = text.encode()
        deadline = time.monotonic() + TIMEOUT
        while token not in self.seen:
            ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"no {text!r} on the screen; it shows {self.seen[-1500:].decode(errors='replace')!r}"
            try:
                data = os.read(self.master, 4096)
            except OSError:  # EIO: the terminal's other side is closed
                data = b""
            assert data, f"the screen closed before {text!r}: {self.seen[-1500:].decode(errors='replace')!r}"
            self.seen += data
        cut = self.seen.index(token) + len(token)
        shown, self.seen = self.seen[:cut], self.seen[cut:]
        return shown.decode().replace("\r\n", "\n")

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> tuple[int, str]:
        rest = b""
        try:
            while True:
                data = os.read(self.master, 4096)
                if not data:
                    break
                rest += data
        except OSError:
            pass
        code = self.proc.wait(timeout=TIMEOUT)
        assert self.proc.stderr is not None
        self.proc.stderr.close()
        os.close(self.master)
        return code, (self.seen + rest).decode().replace("\r\n", "\n")


def test_at_a_terminal_a_wrong_entry_asks_again_and_ctrl_d_leaves():
    term = Terminal([*ARENA, RANDOM, "--seed", "5"])
    try:
        first = term.read_until("q leaves): ")
        assert "type the number of your move and Enter, q leaves." in first
        assert "hand:   " in first and "trump:  " in first
        for _ in range(6):  # a person may get it wrong any number of times: each time the question comes again
            term.type("seven\n")
            assert "'seven' is not one of the choices" in term.read_until("q leaves): ")
        term.type("1\n")
        assert re.search(r"^  you (?:play \S+|close the talon)$", term.read_until("q leaves): "), re.M)
        term.type("\x04")  # Ctrl-D: end of input
        code, rest = term.close()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
            term.close()
    assert code == 1
    assert "end of input: you leave the match." in rest
    assert "random wins the match (disconnect): you left it." in rest


def test_the_screen_in_docs_play_is_what_arena_play_shows():
    doc = (ROOT / "docs/PLAY.md").read_text()
    block = doc.split("<!-- play:start -->")[1].split("<!-- play:end -->")[0].strip().strip("`").strip("\n")
    command, *shown = block.splitlines()
    m = re.fullmatch(r"\$ printf '(.*)' \| arena play (.*)", command)
    assert m, command
    entries = m[1].replace("\\n", "\n")
    args = shlex.split(m[2])
    result = play(*args, entries=entries)
    assert result.stdout.splitlines() == shown
