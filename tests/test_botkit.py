"""The bot kit: rules decoded from the match line, hooks, info lines, and a round trip through a real
subprocess driven by the test harness."""

from __future__ import annotations

import dataclasses
import io
import shlex
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from harness import BotProcess, run_session

from arena.game import PRESETS, Action, preset
from arena.protocol import botkit
from arena.protocol.codec import rules_to_wire

TURN = ("turn seat=0 hand=9c,Th trump=h turned=Ah talon=12 closed=- led=- leader=0 dealer=1 points=0 "
        "opp_points=0 pending=0 tricks=0 opp_tricks=0 marriages=- played=- known=- score=0 opp_score=0 "
        "time=1000 bank=- legal=play:9c,play:Th,close")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_rules_from_wire_round_trips_the_presets(name: str) -> None:
    assert botkit.rules_from_wire(rules_to_wire(preset(name))) == preset(name)


def test_rules_from_wire_reads_custom_rules_and_ignores_unknown_keys() -> None:
    rules = dataclasses.replace(preset("schnapsen"), name="house", match_target=3, must_head=False)
    wire = rules_to_wire(rules) | {"new_rule_from_1_9": "maybe"}
    assert botkit.rules_from_wire(wire) == rules


def run_kit(lines: list[str], choose=lambda view, legal: legal[0], **hooks) -> list[str]:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    botkit.run(choose, name="kit", author="ada", stdin=io.StringIO("".join(x + "\n" for x in lines)),
               stdout=out, **hooks)
    return out.getvalue().splitlines()


def test_run_answers_turns_calls_hooks_and_ignores_what_it_does_not_know() -> None:
    seen: list[str] = []
    wire = " ".join(f"{k}={v}" for k, v in rules_to_wire(preset("santase")).items())

    def choose(view, legal):  # type: ignore[no-untyped-def]
        botkit.info(f"hand {len(view.hand)}")
        return legal[-1]

    out = run_kit(
        ["arena 1 2", f"match m1 seat=1 opponent=x {wire} shiny_new_key=1", "deal 0 dealer=1",
         "play 0 Ah", "teleport 0 Ah", "draw 0 ?", TURN, "deal-end 1 3 reached-66 70,0 0,3",
         "match-end 1 0,11 target", "quit", TURN],
        choose,
        on_match_start=lambda msg, rules: seen.append(f"match {msg.seat} {rules == preset('santase')}"),
        on_deal_start=lambda msg: seen.append(f"deal {msg.index}"),
        on_event=lambda msg: seen.append(type(msg).__name__),
        on_deal_end=lambda msg: seen.append(f"deal-end {msg.reason}"),
        on_match_end=lambda msg: seen.append(f"match-end {msg.winner}"),
    )
    assert out == ["bot 1 kit author=ada", "info hand 2", "close"]  # nothing after quit
    assert seen == ["match 1 True", "deal 0", "Played", "Drew", "deal-end reached-66", "match-end 1"]


def test_run_returns_at_end_of_input_and_accepts_text_replies() -> None:
    assert run_kit(["arena 1", TURN], lambda view, legal: "play Th") == ["bot 1 kit author=ada", "play Th"]


def test_run_refuses_an_illegal_choice_and_an_unknown_version() -> None:
    with pytest.raises(ValueError, match="not legal"):
        run_kit(["arena 1", TURN], lambda view, legal: Action.parse("play As"))
    with pytest.raises(SystemExit):
        run_kit(["arena 2"])


KIT_BOT = '''
import sys
sys.path.insert(0, {root!r})
from arena.game import preset
from arena.protocol.botkit import info, run

counts = {{"deal": 0, "event": 0}}

def on_match_start(msg, rules):
    info(f"match {{msg.match_id}} {{rules.name}} same-as-preset={{rules == preset(rules.name)}}")

def on_deal_start(msg):
    counts["deal"] += 1

def on_event(msg):
    counts["event"] += 1

def on_match_end(msg):
    info(f"end deals={{counts['deal']}} events={{counts['event'] > 0}} winner={{msg.winner}}")
    counts["deal"] = counts["event"] = 0

run(lambda view, legal: legal[0], name="kit", author="ada", on_match_start=on_match_start,
    on_deal_start=on_deal_start, on_event=on_event, on_match_end=on_match_end)
'''


def test_kit_bot_round_trip_through_a_subprocess(tmp_path: Path) -> None:
    script = tmp_path / "kit_bot.py"
    script.write_text(KIT_BOT.format(root=str(ROOT)))
    bots: list[BotProcess] = []
    commands = [shlex.join([sys.executable, str(script)]), shlex.join([sys.executable, "bots/random.py"])]
    results = run_session(commands, [("santase", 4), ("schnapsen", 5)], bots=bots)
    assert results[0].names == ("kit", "random")
    assert bots[0].infos == [
        "match m1 santase same-as-preset=True",
        f"end deals={results[0].deals} events=True winner={results[0].winner}",
        "match m2 schnapsen same-as-preset=True",
        f"end deals={results[1].deals} events=True winner={results[1].winner}",
    ]
