"""From what the check's matches left (arena.compliance.run.Evidence) to the checklist `arena check` prints.

Each check passes, fails, is not reached (reported honestly, with why: a situation counts only when the bot
was really offered it and answered legally), or does not apply to the variants checked. A failure carries the
transcript lines that show it, the bot's last stderr lines, a hint, and the section of docs/PROTOCOL.md that
says what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from arena.compliance import situations as s
from arena.compliance.run import Evidence, Played
from arena.game.actions import DECLARE
from arena.game.variants import RuleSet
from arena.protocol.messages import VERSIONS
from arena.referee.clock import TimeControl
from arena.referee.record import Termination
from arena.referee.session import ONLY_INFO


class Status(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    NOT_REACHED = "NOT REACHED"
    NOT_APPLICABLE = "N/A"


# The headings of docs/PROTOCOL.md that failures point to (a test keeps them in step with the document).
SECTIONS = {
    "lines": "## Lines",
    "session": "## A session",
    "hello": "### `bot <version> <name> [<key>=<value> ...]`",
    "turn": "### `turn <key>=<value> ...`",
    "replies": "### Replies",
    "time": "## Time",
    "terminations": "## Terminations",
    "quit": "### `quit`",
}


def anchor(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a heading: ``### Replies`` -> ``replies``."""
    text = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def section_ref(key: str) -> str:
    heading = SECTIONS[key]
    return f'docs/PROTOCOL.md#{anchor(heading)} ("{heading.lstrip("#").strip().replace("`", "")}")'


@dataclass
class Check:
    key: str
    title: str
    status: Status
    detail: str = ""
    evidence: list[str] = field(default_factory=list)
    section: str | None = None  # a key of SECTIONS, for a failure
    notes: list[str] = field(default_factory=list)  # worth knowing, but not a failure


# What to tell the author for each way the bot's part can end, and where the protocol says it.
_HINTS: dict[Termination, tuple[str, str]] = {
    Termination.TIMEOUT: ("time", "no answer in time: did you flush stdout after each line? (a reply left in "
                                  "the output buffer never reaches the referee) If it did, the bot is too slow"),
    Termination.MALFORMED: ("replies", "answer a turn with one entry of its legal= list, ':' written as a space "
                                       "(play:Th -> play Th)"),
    Termination.ILLEGAL: ("replies", "answer with an action from the turn's legal= list exactly: the list already "
                                     "applies the follow rules, the marriages and the talon's state"),
    Termination.UNEXPECTED: ("replies", "write exactly one line for each turn line, and nothing else but info lines"),
    Termination.CRASH: ("session", "the bot's process ended (its stderr above may say why); a bot keeps reading "
                                   "lines until quit, and a new match may follow match-end"),
    Termination.DISCONNECT: ("terminations", "keep stdout open until the bot exits"),
    Termination.OVERLONG: ("lines", "a line may be at most 4096 bytes, ended by a newline"),
    Termination.ENCODING: ("lines", "write UTF-8"),
    Termination.HANDSHAKE: ("hello", "answer the `arena <versions>` line with `bot <version> <name>`, choosing a "
                                     f"version it offers ({' or '.join(map(str, VERSIONS))})"),
    Termination.TAMPERED: ("terminations", "do not change the bot's files while it runs"),
}
FLUSH_HINT = "did you flush stdout after each line?"


_TURN_KEYS = ("seat", "hand", "trump", "talon", "closed", "led", "points", "tricks", "legal")


def _clip(text: str, width: int = 160) -> str:
    """A transcript line short enough to read; a turn line keeps the keys that explain a decision."""
    if text.startswith("turn ") and len(text) > width:
        kept = [t for t in text.split(" ")[1:] if t.partition("=")[0] in _TURN_KEYS]
        return " ".join(["turn", *kept[:-1], "...", *kept[-1:]])[:2 * width]
    return text if len(text) <= width else text[:width] + " ..."


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def excerpt(entries: Sequence[tuple[float, str, str]]) -> list[str]:
    """The transcript lines that show a failure: the last request before the termination note, what the bot
    wrote after it, and the note (``>`` referee, ``<`` bot, ``!`` the referee's verdict)."""
    if not entries:
        return []
    end = next((i for i, e in enumerate(entries) if e[1] == "!"), len(entries) - 1)
    start = end - 1
    while start > 0 and entries[start][1] == "<":
        start -= 1
    start = max(start, 0, end - 6)
    return [f"{d} {_clip(text)}" for _, d, text in entries[start:end + 1]]


def stderr_tail(text: str, lines: int = 5) -> list[str]:
    tail = [line for line in text.splitlines() if line.strip()][-lines:]
    return [f"stderr: {_clip(line)}" for line in tail]


class _Shown:
    """Evidence is printed once: a later check failing for the same reason points back to the first."""

    def __init__(self, time: TimeControl) -> None:
        self.where: dict[str, str] = {}
        self.time = time

    def evidence(self, key: str, title: str, lines: list[str]) -> list[str]:
        if key in self.where:
            return [f"(the transcript is shown under \"{self.where[key]}\" above)"]
        self.where[key] = title
        return lines


def _failure(p: Played, title: str, shown: _Shown, hint: str | None = None) -> Check:
    t = p.termination
    assert t is not None and p.record is not None
    section, default_hint = _HINTS.get(t.kind, ("terminations", ""))
    where = f"{p.plan.match_id}" + ("" if t.deal is None else f", deal {t.deal}")
    detail = f"{t.kind}: {t.detail} ({where})"
    lines = excerpt(p.record.transcripts[p.plan.bot_seat]) + stderr_tail(p.record.stderr[p.plan.bot_seat])
    if t.kind is Termination.TIMEOUT:
        tc = shown.time
        limit = f"{tc.move_ms} ms a move" + (f" and a bank of {tc.bank_ms} ms" if tc.bank_ms else "")
        detail += f"; the limit is {limit}, plus {tc.grace_ms} ms of grace"
    check = Check("", title, Status.FAIL, detail, shown.evidence(p.plan.match_id, title, lines), section)
    check.notes.append(hint or default_hint)
    return check


def evaluate(evidence: Evidence, variants: Sequence[RuleSet], time: TimeControl) -> list[Check]:
    """The checklist, in the order it is printed."""
    shown = _Shown(time)
    hello = evidence.hello
    checks = [_handshake(evidence, time), _flush(evidence, shown)]
    later = [
        ("follow", "forced follow: must follow suit (strict phase)"),
        ("head", "forced head: must beat the led card (strict phase)"),
        ("trump", "forced trump: must trump (strict phase)"),
        ("marriage", "a marriage offered"),
        ("exchange", "an exchange offered"),
        ("close", "a close offered"),
        ("declare", "a declaration of 66 offered (declare_66=manual)"),
        ("reuse", "several matches in one process (match-end, then a new match)"),
        *((f"variant:{r.name}", f"plays {r.name} against the random bot") for r in variants),
        ("time", "answers within the time limits"),
        ("quit", "exits after quit"),
    ]
    if hello.kind is not None:
        reason = "the handshake failed" if hello.kind is not Termination.CRASH else "the bot exited at the handshake"
        checks += [Check(key, title, Status.NOT_REACHED, reason) for key, title in later]
        return checks
    analysis = _Situations(evidence.played)
    for key, title in later:
        if key in (s.FOLLOW, s.HEAD, s.TRUMP, s.MARRIAGE, s.EXCHANGE, s.CLOSE_TALON, s.DECLARE):
            check = _situation(key, title, analysis, variants, evidence.played, shown)
        elif key == "reuse":
            check = _reuse(title, evidence.played, shown)
        elif key.startswith("variant:"):
            check = _variant(key.split(":", 1)[1], title, evidence.played, shown)
        elif key == "time":
            check = _time(title, evidence.played, time, shown)
        else:
            check = _quit(title, evidence)
        check.key = key
        checks.append(check)
    return checks


# ----------------------------------------------------------------------------- the handshake and flushing
def _handshake(ev: Evidence, time: TimeControl) -> Check:
    h = ev.hello
    title = "handshake: answers `arena <versions>` with `bot <version> <name>`"
    if h.kind is None:
        return Check("handshake", title, Status.PASS, f"answered `{h.line}`")
    section, hint = _HINTS.get(h.kind, ("hello", ""))
    if h.kind is Termination.HANDSHAKE and not _answered(h.transcript):
        hint = FLUSH_HINT
        section = "lines"
    detail = f"{h.kind}: {h.detail}"
    if hint == FLUSH_HINT:
        detail += f" (the limit is {time.handshake_ms} ms)"
    check = Check("handshake", title, Status.FAIL, detail, excerpt(h.transcript) + stderr_tail(h.stderr), section)
    check.notes.append(hint)
    return check


def _answered(entries: Iterable[tuple[float, str, str]]) -> bool:
    return any(d == "<" for _, d, _ in entries)


def _flush(ev: Evidence, shown: _Shown) -> Check:
    h = ev.hello
    title = "flushes stdout after each line"
    if h.kind is not None:
        if h.kind is Termination.HANDSHAKE and not _answered(h.transcript):
            if h.late:
                detail = ("the bot wrote its answer only when its input ended, so its output is buffered: "
                          + FLUSH_HINT)
                lines = ["lines that came only after the referee closed the bot's input:"]
                lines += [f"< {_clip(x)}" for x in h.late]
            else:
                detail = f"no answer at all to the handshake in time: {FLUSH_HINT}"
                lines = []
            return Check("flush", title, Status.FAIL, detail, lines, "lines")
        if h.kind is Termination.CRASH:
            return Check("flush", title, Status.NOT_REACHED, "the bot exited before it answered")
        return Check("flush", title, Status.PASS, "the bot's first line arrived at once")
    for p in ev.played:
        t = p.termination
        if t is not None and t.kind is Termination.TIMEOUT and not p.reused and p.record is not None \
                and not p.record.think_ms[p.plan.bot_seat] and not t.detail.endswith(ONLY_INFO):  # (lines came)
            check = _failure(p, title, shown)
            check.detail = f"no answer to the bot's first turn in time ({p.plan.match_id}): {FLUSH_HINT}"
            check.section = "lines"
            check.notes = []
            return check
    return Check("flush", title, Status.PASS, "the handshake answer and the replies arrived at once")


# ----------------------------------------------------------------------------- situations
@dataclass
class _Tally:
    offered: int = 0
    answered: int = 0
    taken: int = 0
    right: int = 0  # declarations: rightly made
    wrong: int = 0  # declarations: made without 66
    failed: Played | None = None


class _Situations:
    """Every decision of the bot in every match, replayed with the rules engine."""

    def __init__(self, played: Sequence[Played]) -> None:
        self.tally: dict[str, _Tally] = {k: _Tally() for k in (*s.FORCED, s.MARRIAGE, s.EXCHANGE, s.CLOSE_TALON,
                                                                 s.DECLARE)}
        for p in played:
            if p.record is None:
                continue
            t = p.termination
            decisions = list(s.decisions(p.plan.rules, p.record.deals, p.plan.bot_seat,
                                         None if t is None else t.deal))
            boundary = _at_boundary(p, decisions)
            for d in decisions:
                for key in d.situations:
                    tally = self.tally[key]
                    if d.answer is None:
                        if not boundary and tally.failed is None:
                            tally.failed = p
                        continue
                    tally.offered += 1
                    tally.answered += 1
                    if key == s.DECLARE:
                        if d.answer is DECLARE:
                            tally.taken += 1
                            if d.could_declare:
                                tally.right += 1
                            else:
                                tally.wrong += 1
                    elif key in (s.MARRIAGE, s.EXCHANGE, s.CLOSE_TALON) and d.answer.kind == key:
                        tally.taken += 1


def _at_boundary(p: Played, decisions: Sequence[s.Decision]) -> bool:
    """The bot's part ended at the start of a match its process entered after another one: it exited (or broke
    its pipes) after match-end, which is the several-matches check's failure, not the situation's."""
    t = p.termination
    return (t is not None and p.reused and t.kind in (Termination.CRASH, Termination.DISCONNECT)
            and not any(d.answer is not None for d in decisions))


def _situation(key: str, title: str, analysis: _Situations, variants: Sequence[RuleSet], played: Sequence[Played],
               shown: _Shown) -> Check:
    tally = analysis.tally[key]
    never = [(r.name, s.never_arises(r, key)) for r in variants]
    if all(why is not None for _, why in never):
        if key == s.DECLARE:
            return Check(key, title, Status.NOT_APPLICABLE, "no variant checked has declare_66=manual "
                                                            "(sixty-six and schnapsen have it)")
        reasons = sorted({f"{why}" if len(variants) == 1 else f"{name}: {why}" for name, why in never})
        return Check(key, title, Status.NOT_APPLICABLE, "the rules checked never offer it: " + "; ".join(reasons))
    if tally.failed is not None:
        return _failure(tally.failed, title, shown)
    if not tally.offered:
        setup = key if key in s.FORCED else s.LEAD
        skipped = next((p.skipped for p in played if p.skipped and p.plan.setup is not None
                        and p.plan.setup.kind == setup), "")
        steered = [p for p in played if p.plan.setup is not None and p.plan.setup.steered
                   and p.plan.setup.kind == key and p.record is not None]
        if skipped:
            detail = f"the set-up deal was {skipped}"
        elif steered:
            detail = (f"the bot was never offered it: in {len(steered)} steered "
                      f"deal{'s' if len(steered) > 1 else ''} (the follow rules bind only once the talon has run "
                      "out) and its matches, every deal ended first")
        else:
            detail = "the bot was never offered it: its matches ended first"
        return Check(key, title, Status.NOT_REACHED, detail)
    detail = f"offered {_times(tally.offered)}, answered legally every time"
    check = Check(key, title, Status.PASS, detail)
    if key == s.DECLARE:
        check.detail += f"; declared rightly {_times(tally.right)}"
        if tally.wrong:
            check.notes.append(f"declared 66 without 66 points {_times(tally.wrong)}: legal, but each one loses the "
                               "deal (declare only with a won trick and 66 points)")
    elif key in (s.MARRIAGE, s.EXCHANGE, s.CLOSE_TALON):
        check.detail += f"; taken {_times(tally.taken)}"
        if not tally.taken:
            check.notes.append(f"never taken: the bot's own {key} (and the turn that follows it) was not exercised")
    return check


# ----------------------------------------------------------------------------- matches
def _reuse(title: str, played: Sequence[Played], shown: _Shown) -> Check:
    for p in played:
        if p.record is not None and p.reused and _at_boundary(
                p, list(s.decisions(p.plan.rules, p.record.deals, p.plan.bot_seat,
                                    p.termination.deal if p.termination else None))):
            check = _failure(p, title, shown)
            check.detail = f"the process that played the previous match failed at the start of {p.plan.match_id}: " \
                           + check.detail
            check.notes = ["after match-end, keep reading: another match may follow, and only quit ends the session"]
            return check
    runs: list[list[Played]] = []
    for p in played:
        if p.record is None:
            continue
        if not p.reused or not runs:
            runs.append([])
        runs[-1].append(p)
    longest = max(runs, key=len, default=[])
    clean = [p for p in longest if p.ended is None]
    if len(longest) < 2 or len(clean) < 2:
        return Check("reuse", title, Status.NOT_REACHED, "no process of the bot lived to play a second match")
    variants = sorted({p.plan.variant for p in longest})
    return Check("reuse", title, Status.PASS, f"{len(longest)} matches in one process ({', '.join(variants)})")


def _variant(name: str, title: str, played: Sequence[Played], shown: _Shown) -> Check:
    mine = [p for p in played if p.plan.variant == name]
    done = [p for p in mine if p.record is not None]
    if not done:
        why = next((p.skipped for p in mine if p.skipped), "no match was played")
        return Check(f"variant:{name}", title, Status.NOT_REACHED, why)
    failed = [p for p in done if p.ended is not None]
    if failed:
        check = _failure(failed[0], title, shown)
        if len(failed) > 1:
            check.detail += f"; the bot's part ended early in {len(failed)} of its {len(done)} matches"
        return check
    setups = [p for p in done if p.plan.setup is not None]
    full = [p for p in done if p.plan.setup is None]
    won = sum(1 for p in full if p.record is not None and p.record.winner == p.plan.bot_seat)
    detail = f"{len(setups)} set-up deals and {len(full)} matches played to the end; won {won} of {len(full)} matches"
    check = Check(f"variant:{name}", title, Status.PASS, detail)
    skipped = [p for p in mine if p.record is None]
    if skipped:
        check.status = Status.NOT_REACHED
        check.detail += f"; {len(skipped)} skipped ({skipped[0].skipped})"
    return check


def _time(title: str, played: Sequence[Played], time: TimeControl, shown: _Shown) -> Check:
    for p in played:
        if p.ended is Termination.TIMEOUT:
            return _failure(p, title, shown)
    thinks = [ms for p in played if p.record is not None for ms in p.record.think_ms[p.plan.bot_seat]]
    if not thinks:
        return Check("time", title, Status.NOT_REACHED, "the bot answered no turn")
    return Check("time", title, Status.PASS, f"{len(thinks)} answers, the slowest in {max(thinks):.0f} ms "
                                              f"(the limit is {time.move_ms} ms a move)")


def _quit(title: str, ev: Evidence) -> Check:
    q = ev.quit
    if not q.reached:
        return Check("quit", title, Status.NOT_REACHED, "no process of the bot was running at the end")
    lines = excerpt(q.transcript) + stderr_tail(q.stderr)
    if q.already_exited:
        return Check("quit", title, Status.FAIL, f"the bot had already exited ({q.already_exited}) when quit was "
                                                  "sent after its last match-end", lines, "session")
    if not q.exited:
        return Check("quit", title, Status.FAIL, q.description, lines, "quit")
    if q.description != "exited with status 0":
        return Check("quit", title, Status.FAIL, f"{q.description} after quit; expected status 0", lines, "quit")
    return Check("quit", title, Status.PASS, f"exited with status 0, {q.ms:.0f} ms after quit")
