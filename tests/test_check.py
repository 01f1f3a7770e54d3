"""`arena check` as a bot author runs it: the real CLI, the real referee and sandbox, real (mis)behaving bots.

Each misbehaving bot of tests/bots must fail with the message that tells its author what to fix; a correct bot
must pass every check; situations must really be offered to the bot (replayed here independently of the
check's own bookkeeping), and what was not reached must be reported as such.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BOTS, ROOT

from arena.compliance import SECTIONS, anchor
from arena.compliance.situations import FOLLOW, HEAD, LEAD, SETUPS, TRUMP, find_setup
from arena.game import CLOSE, PRESETS, Deal
from arena.game.match import first_dealer, shuffled_deck

CHECKS = 15  # lines of the checklist with all three variants
_STATUS = r"\s+(PASS|FAIL|NOT REACHED|N/A)\s+"


def check(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", "check", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def line(out: str, title: str) -> str:
    """The checklist line of the check whose title starts with ``title`` (status first)."""
    found = [ln.strip() for ln in out.splitlines() if re.match(rf"{_STATUS}{re.escape(title)}", ln)]
    assert len(found) == 1, (title, out)
    return found[0]


def block(out: str, title: str) -> str:
    """The check's line with its hint, transcript lines and section reference."""
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if re.match(rf"{_STATUS}{re.escape(title)}", ln))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" " * 8)), len(lines))
    return "\n".join(lines[start:end])


def test_a_correct_bot_passes_every_check():
    result = check("python bots/greedy.py")
    assert result.returncode == 0, result.stdout + result.stderr
    statuses = re.findall(r"^\s+(PASS|FAIL|NOT REACHED|N/A)\s", result.stdout, re.M)
    assert statuses == ["PASS"] * CHECKS, result.stdout
    for title in ("forced follow", "forced head", "forced trump", "a marriage", "an exchange", "a close",
                  "a declaration of 66"):
        assert re.search(r"offered (once|twice|\d+ times), answered legally every time", line(result.stdout, title))
    assert "exited with status 0" in line(result.stdout, "exits after quit")
    assert "answered `bot 1 greedy author=arena`" in line(result.stdout, "handshake")
    assert f"{CHECKS} pass: the bot passes every check" in result.stdout


def test_a_bot_that_never_flushes_is_told_to_flush():
    result = check(str(BOTS / "no_flush.py"), "--handshake-time", "2s")
    assert result.returncode == 1
    flush = block(result.stdout, "flushes stdout after each line")
    assert flush.split()[0] == "FAIL"
    assert "only when its input ended, so its output is buffered: did you flush stdout after each line?" in flush
    assert "< bot 1 no_flush" in flush  # the answer was there all along, in the buffer
    assert "docs/PROTOCOL.md#lines" in flush
    assert "did you flush stdout after each line?" in block(result.stdout, "handshake")
    assert line(result.stdout, "plays santase").startswith("NOT REACHED")


def test_a_wrong_answer_is_not_taken_for_a_missing_one():
    result = check(str(BOTS / "garbage.py"))
    assert result.returncode == 1
    assert "did you flush" not in result.stdout
    assert line(result.stdout, "flushes stdout").startswith("PASS")
    follow = block(result.stdout, "forced follow")
    assert follow.split()[0] == "FAIL"
    assert "malformed: 'hello world ~~~' is not an action" in follow
    assert "< hello world ~~~" in follow and "> turn seat=" in follow and "legal=" in follow
    assert 'docs/PROTOCOL.md#replies ("Replies")' in follow
    assert "one entry of its legal= list" in follow
    # its every match ended at its first answer: no process lived to a second match, and the check says so
    assert line(result.stdout, "several matches in one process").startswith("NOT REACHED")


def test_a_wrong_version_fails_the_handshake():
    result = check(str(BOTS / "bad_version.py"))
    assert result.returncode == 1
    handshake = block(result.stdout, "handshake")
    assert handshake.split()[0] == "FAIL"
    assert "version 99 is not offered" in handshake
    assert "> arena 1" in handshake and "< bot 99 badver" in handshake
    assert f"docs/PROTOCOL.md#{anchor(SECTIONS['hello'])}" in handshake
    assert line(result.stdout, "plays santase").startswith("NOT REACHED")
    assert line(result.stdout, "flushes stdout").startswith("PASS")  # it did answer at once


def test_an_illegal_move_shows_the_legal_list():
    result = check(str(BOTS / "illegal_card.py"), "--variant", "santase")
    assert result.returncode == 1
    follow = block(result.stdout, "forced follow")
    assert follow.split()[0] == "FAIL"
    m = re.search(r"illegal: play (\w\w) is not legal now; legal: (.*?) \(check-santase-follow, deal 0\)", follow)
    assert m, follow
    turn = next(ln for ln in follow.splitlines() if "> turn" in ln)
    legal = re.search(r"legal=(\S+)", turn).group(1).split(",")
    assert f"play:{m.group(1)}" not in legal and legal == [a.replace(" ", ":") for a in m.group(2).split(", ")]
    assert f"< play {m.group(1)}" in follow


def test_a_crash_shows_the_bots_stderr():
    result = check(str(BOTS / "crash_start.py"))
    assert result.returncode == 1
    handshake = block(result.stdout, "handshake")
    assert "crash: the bot exited with status 1" in handshake
    assert "stderr: RuntimeError: crash_start: deliberate crash before the handshake" in handshake
    later = check(str(BOTS / "exit_mid_deal.py"), "--variant", "santase")
    assert later.returncode == 1
    failed = [ln for ln in later.stdout.splitlines() if ln.strip().startswith("FAIL")]
    assert failed and all("crash: the bot exited with status 3 while the referee waited for the turn" in ln
                          for ln in failed), later.stdout
    assert "stderr: exit_mid_deal: exiting with status 3 after 3 turns" in later.stdout


def test_a_bot_that_exits_after_match_end_fails_the_several_matches_check():
    result = check(str(BOTS / "one_match.py"), "--variant", "schnapsen")
    assert result.returncode == 1
    reuse = block(result.stdout, "several matches in one process")
    assert reuse.split()[0] == "FAIL"
    assert "failed at the start of" in reuse and "the bot exited with status 0" in reuse
    assert "docs/PROTOCOL.md#a-session" in reuse
    # an exit between matches is not blamed on the situation the next match opened with
    for title in ("a marriage", "an exchange", "a close"):
        assert not line(result.stdout, title).startswith("FAIL"), result.stdout


def test_a_bot_that_ignores_quit_fails_the_quit_check():
    result = check(str(BOTS / "ignore_quit.py"), "--variant", "schnapsen", "--matches", "1")
    assert result.returncode == 1
    quit_ = block(result.stdout, "exits after quit")
    assert quit_.split()[0] == "FAIL" and "still running 2 s after quit" in quit_ and "> quit" in quit_
    assert [ln.split()[0] for ln in result.stdout.splitlines() if ln.strip().startswith("FAIL")] == ["FAIL"]
    # a first-legal bot declares 66 at every turn of a manual-66 variant: legal, so a pass, with a warning
    assert "declared 66 without 66 points" in block(result.stdout, "a declaration of 66")


def test_what_does_not_apply_is_said_and_does_not_fail():
    result = check("python bots/greedy.py", "--variant", "santase", "--matches", "1")
    assert result.returncode == 0, result.stdout
    assert line(result.stdout, "a declaration of 66").startswith("N/A")
    assert "no variant checked has declare_66=manual" in result.stdout
    assert "plays sixty-six" not in result.stdout


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    cases = [
        (["./nope"], "'./nope' not found"),
        (["python bots/greedy.py", "--variant", "bridge"], "--variant"),
        (["python bots/greedy.py", "--move-time", "fast"], "--move-time"),
        (["python bots/greedy.py", "--matches", "0"], "--matches: '0' is too small; expected an integer from 1 to 20"),
        (["python bots/greedy.py", "--matches", "21"], "--matches: '21' is too large; expected an integer from 1 "),
        (["python bots/greedy.py", "--sandbox", "jail"], "--sandbox"),
        ([str(tmp_path)], "is a directory"),
    ]
    for args, expected in cases:
        result = check(*args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert expected in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_transcripts_are_written_when_asked(tmp_path):
    result = check(str(BOTS / "garbage.py"), "--variant", "santase", "--transcripts", str(tmp_path / "t"))
    assert result.returncode == 1
    log = (tmp_path / "t" / "check-santase-follow-seat0-garbage.log").read_text()
    assert "< hello world ~~~" in log


def test_every_section_a_failure_names_is_a_heading_of_protocol_md():
    headings = [ln.strip() for ln in (ROOT / "docs/PROTOCOL.md").read_text().splitlines() if ln.startswith("#")]
    for key, heading in SECTIONS.items():
        assert heading in headings, (key, heading)
    assert anchor("### Replies") == "replies" and anchor("## A session") == "a-session"
    assert anchor("### `quit`") == "quit"


@pytest.mark.parametrize("variant", list(PRESETS))
@pytest.mark.parametrize("kind", SETUPS)
def test_each_setup_deal_offers_its_situation_at_the_bots_first_decision(variant, kind):
    """Checked from the bot's hand and legal list, without arena.compliance's own classification."""
    rules = PRESETS[variant].with_overrides({"match_target": 1})
    setup = find_setup(rules, kind, seed=0)
    assert setup is not None
    dealer = first_dealer(setup.deal_seed)
    deal = Deal(rules, shuffled_deck(rules, setup.deal_seed, 0), dealer)
    bot = setup.bot_seat
    if kind == LEAD:
        assert bot == 1 - dealer and setup.script == ()
        kinds = {a.kind for a in deal.legal_actions(bot)}
        assert {"close", "marriage", "exchange"} <= kinds
        return
    assert bot == dealer and setup.script[0] == "close"
    opponent = 1 - bot
    deal.apply(CLOSE, opponent)
    led = next(a for a in deal.legal_actions(opponent) if a.token() == setup.script[1])
    deal.apply(led, opponent)
    card = led.card
    hand = deal.hand(bot)
    plays = [a.card for a in deal.legal_actions(bot) if a.kind == "play"]
    same = [c for c in hand if c.suit == card.suit]
    assert deal.closed_by == opponent and len(plays) < len(hand)
    if kind == FOLLOW:
        assert same and set(plays) <= set(same)
    elif kind == HEAD:
        assert all(c.rank > card.rank for c in plays) and any(c.rank < card.rank for c in same)
    elif kind == TRUMP:
        assert not same and all(c.suit == deal.trump for c in plays)
        assert any(c.suit != deal.trump for c in hand)
