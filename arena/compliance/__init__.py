"""`arena check`: a compliance run of one bot through the real referee, like fastchess's compliance mode.

    report = check_bot("python mybot/bot.py")
    for c in report.checks:
        print(c.status, c.title, c.detail)

It checks the handshake, that output is flushed, the time limits, seeded matches in every variant against the
random bot, several matches in one process, `quit`, and the situations bots get wrong (a forced follow, head
or trump after a close, a marriage, an exchange, a close, a declaration of 66), each set up by a deal searched
with the rules engine so that it arises at the bot's first decision. docs/CHECK.md lists every check.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.compliance.checks import SECTIONS, Check, Status, anchor, section_ref
from arena.game.variants import PRESETS, RuleSet
from arena.referee.clock import TimeControl
from arena.referee.record import MatchRecord

__all__ = ["SECTIONS", "Check", "CheckReport", "Status", "anchor", "check_bot", "section_ref"]


@dataclass(frozen=True)
class CheckReport:
    command: str
    name: str
    variants: tuple[str, ...]
    seed: int
    sandbox: str
    time: TimeControl
    checks: tuple[Check, ...]
    records: tuple[MatchRecord, ...]

    @property
    def passed(self) -> bool:
        """Every check passed (or does not apply to the variants checked)."""
        return all(c.status in (Status.PASS, Status.NOT_APPLICABLE) for c in self.checks)


def check_bot(
    command: str,
    *,
    variants: Sequence[str | RuleSet] = tuple(PRESETS),
    seed: int = 0,
    time_control: TimeControl | None = None,
    sandbox: str | None = None,
    matches: int = 2,
    cwd: Path | None = None,
    secrets: Sequence[Path] = (),
) -> CheckReport:
    """Run the checks on the bot ``command`` (a command line, as for `arena match`), run in ``cwd`` (its
    paths relative to it) or in a fresh folder of its own; ``secrets`` are hidden from its sandbox wherever
    they lie in a folder it is shown (a ladder's database, beside a bot it admits). Raises ConfigError (or
    BotSpecError) for a command that cannot be started or a sandbox that cannot be had."""
    from arena.api import default_names
    from arena.botspec import resolve_command
    from arena.compliance.checks import evaluate
    from arena.compliance.run import make_plans, run_session
    from arena.referee.process import BotSpec
    from arena.referee.sandbox import bot_files, check_bot_files, resolve_sandbox

    rules = [PRESETS[v] if isinstance(v, str) else v for v in variants]
    argv = tuple(resolve_command(command, cwd or Path.cwd()))
    name = _name(argv, default_names(command, "random")[0])
    kind = resolve_sandbox(sandbox)
    files = bot_files(argv, cwd, secrets=secrets)
    if kind == "bwrap":
        check_bot_files(name, files)
    tc = time_control or TimeControl()
    spec = BotSpec(name, argv, cwd=cwd, sandbox=kind, files=files)
    evidence = run_session(spec, tc, make_plans(rules, seed, matches))
    checks = evaluate(evidence, rules, tc)
    records = tuple(p.record for p in evidence.played if p.record is not None)
    return CheckReport(command, name, tuple(r.name for r in rules), seed, kind, tc, tuple(checks), records)


def _name(argv: Sequence[str], default: str) -> str:
    """A name for the transcripts: the script's or program's name, or its folder's for a generic one
    (``mybot/bot.py`` is mybot)."""
    if default in ("bot", "main", "index", "run") or default.startswith("bot-"):
        from arena.botspec import script_argument

        main = script_argument(argv) or argv[0]
        folder = re.sub(r"[^A-Za-z0-9_.-]", "-", Path(main).parent.name)[:64].strip(".")
        if folder:
            return folder
    return default
