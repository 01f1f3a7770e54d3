"""`arena match BOT_A BOT_B`: a series of matches between two bots (arena.play_match)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

from arena.cli.options import (
    add_rules_options,
    add_sandbox_option,
    duration_option,
    int_option,
    names_option,
    rules_option,
    termination_note,
    transcripts_option,
)
from arena.errors import ConfigError
from arena.referee.policy import ViolationPolicy
from arena.units import stderr_tail


def add_parser(sub: Any, commands: dict[str, Any]) -> None:
    p = sub.add_parser(
        "match",
        help="play a series of matches between two bots",
        description="Play N matches between two bots (seats alternate; duplicate deals by default) and "
        "print a summary. A bot is a command line, e.g. \"python bots/random.py\" or ./bots/c/random.",
    )
    p.add_argument("bot_a", metavar="BOT_A", help="command line of the first bot")
    p.add_argument("bot_b", metavar="BOT_B", help="command line of the second bot")
    add_rules_options(p)
    p.add_argument("--matches", type=int_option("--matches"), default=2,
                   help="number of matches (default 2; at most 1000000)")
    p.add_argument("--seed", type=int_option("--seed"), default=None,
                   help="seed of the deals, 0 to 2**63 - 1 (default: a random one, printed)")
    p.add_argument("--move-time", default="1000", help="limit per decision: 500, 500ms, 2s (default 1000 ms)")
    p.add_argument("--bank", default=None, help="time bank per match (default none)")
    p.add_argument("--handshake-time", default="5s", help="limit for the handshake (default 5s)")
    # the text forms: argparse shows the choices' repr() in its error message
    p.add_argument("--policy", default=ViolationPolicy.LOSE_MATCH.value, choices=[v.value for v in ViolationPolicy],
                   help=f"what a violation costs (default {ViolationPolicy.LOSE_MATCH})")
    p.add_argument("--no-duplicate", action="store_true", help="give every match its own deals")
    p.add_argument("--concurrency", type=int_option("--concurrency"), default=None,
                   help="matches at once, 1 to 256 (default: CPU count)")
    p.add_argument("--names", nargs=2, metavar=("NAME_A", "NAME_B"),
                   help="names shown for the two bots (letters, digits, _ . -; they must differ); default: the "
                   "names the bots give in their handshake, else names from their command lines")
    p.add_argument("--sprt", metavar="KEY=VALUE ...",
                   help="stop early by SPRT, e.g. --sprt elo0=0 elo1=20 alpha=0.05 beta=0.05: the KEY=VALUE "
                   "words after it (anywhere on the line; or one word, elo0=0,elo1=20)")
    p.add_argument("--luck-adjusted", action="store_true",
                   help="with --sprt: decide on the luck-adjusted score (a duplicate pair's mean, or a match's "
                   "with --no-duplicate) instead of the raw one (docs/STATISTICS.md)")
    p.add_argument("--transcripts", type=Path, metavar="DIR",
                   help="write every match's transcript (both bots' lines and stderr) into DIR")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--db", type=Path, metavar="FILE",
                   help="keep the results in this database (the schema of arena run; arena report renders it)")
    add_sandbox_option(p)
    commands["match"] = cmd_match


def cmd_match(args: argparse.Namespace) -> int:
    from arena.api import log_to_stderr, play_match
    from arena.referee.clock import TimeControl
    from arena.store import OtherResults

    # Every option is checked before any bot starts (argparse already bounded the integers): a mistake
    # costs one line and exit 2, never a match played in vain or a result that cannot be written.
    rules = rules_option(args.variant, args.set)
    tc = TimeControl(
        move_ms=duration_option(args.move_time, "--move-time", "move"),
        bank_ms=None if args.bank is None else duration_option(args.bank, "--bank", "bank"),
        handshake_ms=duration_option(args.handshake_time, "--handshake-time", "handshake"),
    )
    names = names_option(args.names) if args.names else None  # None: the names the bots give in the handshake
    sprt = None
    if args.sprt:
        from arena.stats import parse_sprt_args

        try:
            sprt = parse_sprt_args(args.sprt)
        except (ValueError, TypeError) as e:
            raise ConfigError(f"--sprt: {e}") from None
    if args.luck_adjusted and not args.sprt:
        raise ConfigError("--luck-adjusted: it says what the SPRT decides on; give --sprt too (e.g. --sprt elo0=0 "
                          "elo1=20 --luck-adjusted); the summary shows the luck-adjusted score without it")
    if args.transcripts:  # last: it creates the directory, which only a run that goes ahead should do
        transcripts_option(args.transcripts)

    firsts: dict[str, tuple[int, dict[str, Any]]] = {}  # bot -> (order, its first termination)

    def on_record(spec: Any, rec: Any) -> None:
        for t in rec.terminations:
            if t.bot not in firsts or spec.order < firsts[t.bot][0]:  # the schedule's first, not the fastest
                firsts[t.bot] = (spec.order, {"match": rec.match_id, "kind": str(t.kind), "detail": t.detail,
                                              "stderr_tail": stderr_tail(rec.stderr[t.seat])})
        if not args.json:
            result, why = rec.result, ""
            if rec.reason != "target":
                t = result.deciding
                why = f" ({rec.reason}" + (f" by {t.bot}: {' '.join(t.detail.split())[:200]}" if t else "") + ")"
            print(f"  match {spec.order + 1}/{args.matches}: {result.line(rec.bots)}{why}", file=sys.stderr)
        if args.transcripts:
            write_transcripts(rec, args.transcripts)

    # A random seed by default, so nobody (a bot author included) can know the deals in advance; printed so
    # that the same matches can be played again.
    try:
        outcome = play_match(
            args.bot_a, args.bot_b, matches=args.matches, seed=args.seed, rules=rules, time_control=tc,
            policy=args.policy, duplicate=not args.no_duplicate, concurrency=args.concurrency, names=names,
            sandbox=args.sandbox, db=args.db, sprt=sprt, luck_adjusted=args.luck_adjusted,
            secrets=[args.transcripts] if args.transcripts else [],
            on_record=on_record, log=log_to_stderr,
        )
    except OtherResults as e:  # (the store's own words offer arena run's --fresh and --force)
        raise ConfigError(f"--db: {e.path} holds the results of other matches (other bots or programs, or "
                          "another seed, number of matches, rules or time control); give another --db file, "
                          f"or delete {e.path} to start over") from None
    # each bot's first termination (in schedule order) among the matches this command played, with the end
    # of its stderr there: why a bot that crashed at start-up crashed
    summary = {**outcome.summary, "first_termination": {n: firsts[n][1] if n in firsts else None
                                                       for n in outcome.names}}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(format_summary(summary))
    if outcome.interrupted:
        print(f"arena: interrupted after {summary['matches']} of {args.matches} matches", file=sys.stderr)
    return 130 if outcome.interrupted else 0


_KEY_VALUE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")


def join_sprt_words(argv: list[str]) -> list[str]:
    """``--sprt elo0=0 elo1=20 ...`` as one option value, wherever it stands on the command line.

    The KEY=VALUE words right after ``--sprt`` become its value, joined by spaces, so that in
    ``arena match --sprt elo0=0 elo1=20 "python a.py" "python b.py"`` the bots stay BOT_A and BOT_B (a bot's
    command is never one KEY=VALUE word). ``--sprt "elo0=0 elo1=20"`` and ``--sprt elo0=0,elo1=20`` are one
    word already. Words after ``--`` are left alone.
    """
    out: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "--":
            out.extend(argv[i - 1:])
            break
        if word == "--sprt" or word.startswith("--sprt="):
            values = [word[len("--sprt="):]] if word.startswith("--sprt=") else []
            while i < len(argv) and _KEY_VALUE.fullmatch(argv[i]):
                values.append(argv[i])
                i += 1
            if word.startswith("--sprt="):
                out.append("--sprt=" + " ".join(values))
            else:
                out.append(word)
                if values:
                    out.append(" ".join(values))
            continue
        out.append(word)
    return out


def write_transcripts(rec: Any, directory: Path) -> None:
    """One text file per seat: ``<ms> <direction> <line>``, then the bot's stderr."""
    directory.mkdir(parents=True, exist_ok=True)
    for seat in (0, 1):
        lines = [f"{ms:10.3f} {d} {text}" for ms, d, text in rec.transcripts[seat]]
        if rec.stderr[seat]:
            lines += ["", "--- stderr ---", rec.stderr[seat]]
        (directory / f"{rec.match_id}-seat{seat}-{rec.bots[seat]}.log").write_text("\n".join(lines) + "\n")


def format_summary(s: dict[str, Any]) -> str:
    a, b = s["bots"]
    n = s["matches"]
    lines = [f"{a} vs {b}: {n} matches of {s['variant']}, seed {s['seed']}, {s['deals']['played']} deals"]
    width = max(len(a), len(b))
    for name in (a, b):
        w = s["wins"][name]
        term = ", ".join(f"{k} {v}" for k, v in sorted(s["terminations"][name].items())) or "none"
        lines.append(
            f"  {name:<{width}}  {w:>4} wins ({100 * w / max(n, 1):5.1f}%)  {s['game_points'][name]:>5} game points"
            f"  {s['deals']['won'][name]:>5} deals won  terminations: {term}"
        )
    if s.get("elo_difference"):
        e = s["elo_difference"]
        if e["interval"] is None or e["interval"][0] == e["interval"][1]:
            interval = " (one bot won every match: the prior alone bounds it, no interval)"
        else:
            from arena.stats.ratings import APPROXIMATE_BELOW

            few = f", approximate with fewer than {APPROXIMATE_BELOW} duplicate pairs" if e.get("approximate") else ""
            interval = f" (95% interval {e['interval'][0]:+.0f} to {e['interval'][1]:+.0f}{few})"
        lines.append(f"  Elo of {a} relative to {b}: {e['elo']:+.0f}{interval}")
    luck = s.get("luck_adjusted")
    if luck:
        lo, hi = luck["interval"]
        raw_lo, raw_hi = luck["raw_interval"]
        pairs = luck["matches"] - luck["units"]  # (a unit holds one match or a pair's two)
        single = luck["units"] - pairs
        units = " and ".join(f"{k} {word}{'' if k == 1 else plural}" for k, word, plural in (
            (pairs, "duplicate pair", "s"), (single, "match", "es")) if k)
        lines.append(f"  Score of {a}: {100 * luck['raw']:.1f}% (95% interval {100 * raw_lo:.1f} to "
                     f"{100 * raw_hi:.1f}); luck-adjusted {100 * luck['adjusted']:.1f}% ({100 * lo:.1f} to "
                     f"{100 * hi:.1f}), over {units}")
    if "sprt" in s:
        from arena.stats.sprt import verdict_text

        sp = s["sprt"]
        first, *rest = verdict_text(a, b, sp["elo0"], sp["elo1"], sp["alpha"], sp["beta"], sp["verdict"], sp["llr"],
                                    (sp["bounds"][0], sp["bounds"][1]), sp.get("matches", sp["games"]),
                                    pairs=sp.get("unit") == "pair")
        lines.append(f"  SPRT{' (luck-adjusted score)' if sp.get('luck_adjusted') else ''}: {first}")
        lines.extend(textwrap.wrap(" ".join(rest), 108, initial_indent=" " * 8, subsequent_indent=" " * 8))
    for name in (a, b):
        t = (s.get("first_termination") or {}).get(name)
        if t:
            count = sum(s["terminations"][name].values())
            lines.extend(termination_note(name, t["kind"], t["match"], t["detail"], "\n".join(t["stderr_tail"]),
                                          count=count))
    return "\n".join(lines)
