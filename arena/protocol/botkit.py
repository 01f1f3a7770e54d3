"""The bot kit: write one function, get a complete protocol 1.x bot.

    from arena.protocol.botkit import run

    def choose(view, legal):          # view: SeatView, legal: list[Action]
        return legal[0]               # one of the legal actions

    run(choose, name="first", author="ada")

``run`` does the handshake, reads the referee's lines from stdin, calls ``choose`` for every ``turn`` and
writes (and flushes) the reply. It plays any number of matches in a row and returns on
``quit`` or at end of input, so the script then exits with status 0. Optional hooks see everything else:

    on_match_start(msg: MatchStart, rules: RuleSet | None)   rules decoded from the match line
    on_deal_start(msg: DealStart)
    on_event(msg)        Played, MarriageShown, Exchanged, Closed, TrickWon, Drew (card None if hidden), Declared
    on_deal_end(msg: DealEnd)
    on_match_end(msg: MatchEnd)

``info(text)`` writes an ``info`` line (commentary kept in the transcript). Use stderr for debug output.
docs/PROTOCOL.md is the contract this module implements.

Versions: ``run(choose, version="1.1")`` asks for protocol 1.1, whose turn line also gives ``choose`` the
cards each seat has taken (``view.taken``: mine, the opponent's), the opponent's pending marriage points
(``view.opponent_pending``) and whether the led card came with a marriage (``view.led_marriage``). The kit
answers with the newest version up to ``version`` that the referee offers (so a 1.1 kit bot still plays
against a referee that offers only 1), and under 1.0 those three are None. The default is ``"1"``: a bot
written before 1.1 keeps getting exactly the lines it always got.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TextIO

from arena.game.actions import Action
from arena.game.variants import PRESETS, RulesError, RuleSet
from arena.game.views import SeatView
from arena.protocol.codec import decode_referee_line, encode
from arena.protocol.messages import (
    V1_0,
    BotHello,
    DealEnd,
    DealStart,
    Error,
    Hello,
    MatchEnd,
    MatchStart,
    Quit,
    Turn,
    Version,
)

VERSION = V1_0  # the default of run(version=...): what a kit bot written before 1.1 speaks
# Message names the kit knows; any other line is an event added in a later 1.x and is ignored.
KNOWN = {"arena", "match", "deal", "turn", "deal-end", "match-end", "error", "quit",
         "play", "marriage", "exchange", "close", "trick", "draw", "declare"}

Choose = Callable[[SeatView, list[Action]], Action]
_out: TextIO = sys.stdout


def send(line: str) -> None:
    """Write one line to the referee and flush it (an unflushed reply is a timeout)."""
    _out.write(line + "\n")
    _out.flush()


def info(text: str) -> None:
    """Commentary for the transcript; never taken as a reply."""
    send("info " + " ".join(text.split()))


def rules_from_wire(wire: dict[str, str]) -> RuleSet:
    """The RuleSet of a ``match`` line's key=value pairs (``variant`` is the RuleSet's ``name``).

    Keys this version of arena does not know are ignored, as the protocol asks."""
    values: dict[str, Any] = {}
    for f in fields(RuleSet):
        key = "variant" if f.name == "name" else f.name
        if key not in wire:
            continue
        text = wire[key]
        if isinstance(f.default, bool):
            values[f.name] = text == "true"
        elif isinstance(f.default, int):
            values[f.name] = int(text) if text.isdigit() else text  # close_min_talon may be `none`
        elif isinstance(f.default, tuple):
            values[f.name] = tuple(int(x) for x in text.split(","))
        else:
            values[f.name] = text
    base = values.get("name") if values.get("name") in PRESETS else "santase"
    return RuleSet.from_dict({"preset": base, **values})


def run(
    choose: Choose,
    name: str = "bot",
    author: str | None = None,
    *,
    on_match_start: Callable[[MatchStart, RuleSet | None], None] | None = None,
    on_deal_start: Callable[[DealStart], None] | None = None,
    on_event: Callable[[Any], None] | None = None,
    on_deal_end: Callable[[DealEnd], None] | None = None,
    on_match_end: Callable[[MatchEnd], None] | None = None,
    extras: dict[str, str] | None = None,
    version: str | Version = VERSION,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> None:
    """Play until ``quit`` or end of input. ``stdin``/``stdout`` default to the process's own.

    ``version``: the newest protocol version the bot wants ("1" or "1.1"); the kit chooses the newest one
    up to it that the referee offers, of the same major version."""
    global _out
    wanted = version if isinstance(version, Version) else Version.parse(version)
    inp = stdin or sys.stdin
    _out = stdout or sys.stdout
    for stream in (inp, _out):  # the protocol is UTF-8 whatever the locale says
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")
    hello_extras = ({"author": author} if author else {}) | (extras or {})

    for line in iter(inp.readline, ""):
        if line.split(" ", 1)[0].strip() not in KNOWN:
            continue
        msg = decode_referee_line(line)
        match msg:
            case Hello(versions):
                usable = [v for v in versions if v.major == wanted.major and v <= wanted]
                if not usable:
                    offered = " ".join(map(str, versions))
                    speaks = str(wanted) if wanted.minor == 0 else f"{wanted.major} to {wanted}"
                    sys.exit(f"{name}: the referee offers versions {offered}; this bot speaks {speaks}")
                send(encode(BotHello(max(usable), name, hello_extras)))
            case Turn(view, legal):
                action = choose(view, list(legal))
                if isinstance(action, str):
                    action = Action.parse(action)
                if action not in legal:
                    raise ValueError(f"choose() returned {action}, which is not legal: "
                                     + ", ".join(map(str, legal)))
                send(str(action))
            case MatchStart():
                if on_match_start:
                    on_match_start(msg, _rules_or_none(msg.rules))
            case DealStart():
                if on_deal_start:
                    on_deal_start(msg)
            case DealEnd():
                if on_deal_end:
                    on_deal_end(msg)
            case MatchEnd():
                if on_match_end:
                    on_match_end(msg)
            case Error(code, text):
                print(f"{name}: referee error {code}: {text}", file=sys.stderr)
            case Quit():
                return
            case _:
                if on_event:
                    on_event(msg)


def _rules_or_none(wire: dict[str, str]) -> RuleSet | None:
    try:
        return rules_from_wire(wire)
    except (RulesError, ValueError) as e:  # a rule value newer than this kit: play on without RuleSet
        print(f"botkit: cannot read the rules ({e}); on_match_start gets None", file=sys.stderr)
        return None
