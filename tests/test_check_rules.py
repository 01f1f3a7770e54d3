"""Admission follows the ladder's rules (issue 34): `arena check` under one rule set offers only situations
those rules can produce (what they cannot is N/A), still reaches every one they can (by steering where no
first decision can offer it), admits every reference bot under every preset and every rule switch, and still
refuses a bot that breaks the rule that applies.

Cost (2 CPUs): a check with ``matches=1``, as the ladder runs it, takes 0.3 s for a C bot without the sandbox;
greedy is checked under every switch, random in C under the presets, the course platform's rules and the
hardest switches, the Python, sh and JS bots (slower to start) under the presets in the sandbox as the ladder
runs them, and Python greedy under the course platform's rules too.
"""

from __future__ import annotations

import random
import shutil
import sys
from dataclasses import fields
from pathlib import Path
from typing import Literal, get_args, get_origin, get_type_hints

import pytest
from conftest import BOTS, ROOT

from arena.compliance import Status, check_bot
from arena.compliance.situations import (
    CLOSE_TALON,
    DECLARE,
    EXCHANGE,
    FOLLOW,
    FORCED,
    HEAD,
    LEAD,
    MARRIAGE,
    TRUMP,
    find_setup,
    lead_wants,
    never_arises,
    offered,
    steered_setups,
)
from arena.game import Deal
from arena.game.match import first_dealer, shuffled_deck
from arena.game.variants import PRESETS, RulesError, RuleSet

# The course platform (docs/RULES.md: the PyPI `schnapsen` package of the TU Delft / VU Amsterdam course):
# a 20-card Schnapsen with free play while the talon lasts, marriages credited at the next won trick, and no
# closing; and the repository's "course conventions" (tests/test_game_properties.py): santase with the same two.
COURSE = {
    "course": PRESETS["schnapsen"].with_overrides({"name": "course", "follow_while_open": "free",
                                                    "declare_66": "automatic", "marriage_credit": "next-trick",
                                                    "close_min_talon": "none"}),
    "course-conventions": PRESETS["santase"].with_overrides({"name": "course-conventions",
                                                              "marriage_credit": "next-trick",
                                                              "close_min_talon": "none"}),
}


def switch_values(name: str) -> tuple[object, ...]:
    """The values of a rule parameter that is a switch (a boolean or a choice), from RuleSet itself; () for a
    number (close_min_talon's switch is `none`)."""
    hint = get_type_hints(RuleSet)[name]
    if name == "close_min_talon":
        return ("none",)
    if hint is bool:
        return (True, False)
    if get_origin(hint) is Literal:
        return get_args(hint)
    return ()


def switches() -> dict[str, RuleSet]:
    """Every switch value that is not a base preset's own, on santase and on schnapsen (a free and a strict
    preset, 24 and 20 cards), where the preset allows it."""
    out: dict[str, RuleSet] = {}
    for base in ("santase", "schnapsen"):
        for f in fields(RuleSet):
            for value in switch_values(f.name):
                if getattr(PRESETS[base], f.name) == value:
                    continue
                try:
                    out[f"{base}+{f.name}={value}"] = PRESETS[base].with_overrides({f.name: value})
                except RulesError:  # e.g. deck=20 with santase's exchange of the 9
                    continue
    return out


SWITCHES = switches()
ALL_RULES = {**{n: r for n, r in PRESETS.items()}, **COURSE, **SWITCHES}
NODE = shutil.which("node")
# Free play, no close and a manual 66: the follow rules bind only once the talon has run out, and a random bot
# ends many deals before that by declaring (the hardest case for the steered deals).
HARD = {
    "sixty-six+close_min_talon=none": PRESETS["sixty-six"].with_overrides({"close_min_talon": "none"}),
    "schnapsen+follow_while_open=free+close_min_talon=none":
        PRESETS["schnapsen"].with_overrides({"follow_while_open": "free", "close_min_talon": "none"}),
}
ALL_RULES = {**ALL_RULES, **HARD}
# ismcts (slower per decision): the presets, the course platform, and the switches that change which
# situations arise or how the check reaches them.
_REACH = ("follow_while_open", "must_follow_suit", "must_head", "must_trump", "close_min_talon", "exchange_rank",
          "declare_66", "deck")
ISMCTS_RULES = [n for n in ALL_RULES if "+" not in n or n in HARD or n.split("+")[1].split("=")[0] in _REACH]
SITUATIONS = (FOLLOW, HEAD, TRUMP, MARRIAGE, EXCHANGE, CLOSE_TALON, DECLARE)


def admitted(command: str, rules: RuleSet, *, sandbox: str | None = "none") -> None:
    """Admitted as the ladder admits (check_bot with its one rule set, matches=1), and what the rules cannot
    produce, and only that, is N/A."""
    report = check_bot(command, variants=[rules], matches=1, sandbox=sandbox)
    shown = "\n".join(f"{c.status} {c.title}: {c.detail}" for c in report.checks)
    assert report.passed, shown
    not_applicable = {c.key for c in report.checks if c.status is Status.NOT_APPLICABLE}
    assert not_applicable == {k for k in SITUATIONS if never_arises(rules, k)}, shown


# greedy under every switch; random (whose moves are the referee's own legal= list, whatever the rules) under
# the presets, the course platform's rules and the hardest cases for the steered deals.
C_BOT_RULES = [("greedy", name) for name in ALL_RULES] + [("random 3", name) for name in ALL_RULES
                                                          if "+" not in name or name in HARD]


@pytest.mark.parametrize(("bot", "name"), C_BOT_RULES)
def test_the_c_bots_are_admitted_under_every_preset_and_switch(bot: str, name: str, c_bots: Path) -> None:
    admitted(str(c_bots / bot), ALL_RULES[name])


@pytest.mark.parametrize("name", ISMCTS_RULES)
def test_ismcts_is_admitted_under_the_presets_and_the_switches_that_change_the_situations(name: str,
                                                                                         ismcts_bot: Path) -> None:
    admitted(f"{ismcts_bot} --iters 30", ALL_RULES[name])


# Every script bot under the presets; the course platform's rules (whose situations greedy in C meets above)
# with the Python greedy bot.
SCRIPT_BOT_RULES = [(bot, name) for bot in ("python bots/greedy.py", "python bots/random.py",
                                            "sh bots/sh/random.sh 5", "node bots/js/random.js 5")
                    for name in PRESETS] + [("python bots/greedy.py", name) for name in COURSE]


@pytest.mark.parametrize(("bot", "name"), SCRIPT_BOT_RULES)
def test_the_script_bots_are_admitted_under_the_presets_in_the_sandbox(bot: str, name: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    if bot.startswith("node") and NODE is None:
        pytest.skip("node is not installed: the JS reference bot cannot run")
    monkeypatch.chdir(ROOT)
    admitted(bot, ALL_RULES[name], sandbox=None)


def test_what_the_rules_cannot_produce_never_arises_and_the_rest_has_a_deal() -> None:
    """never_arises against the engine: under each rule set, random play never offers what it names; what it
    does not name has a set-up deal (at the bot's first decision, or steered)."""
    for name, rules in ALL_RULES.items():
        one_deal = rules.with_overrides({"match_target": 1})
        seen: set[str] = set()
        for seed in range(15):
            rng = random.Random(seed)
            deal = Deal(one_deal, shuffled_deck(one_deal, seed, 0), first_dealer(seed), check_deck=False)
            while not deal.over:
                seen |= offered(deal, deal.to_move)
                deal.apply(rng.choice([a for a in deal.legal_actions() if a.kind != "declare"] or
                                      deal.legal_actions()))
        never = {k for k in SITUATIONS if never_arises(one_deal, k)}
        assert not seen & never, (name, seen & never)
        for kind in FORCED:
            if kind not in never:
                assert find_setup(one_deal, kind, 0) or next(steered_setups(one_deal, kind, 0), None), (name, kind)
        wants = lead_wants(one_deal)
        assert wants == {MARRIAGE, CLOSE_TALON, EXCHANGE} - never and find_setup(one_deal, LEAD, 0), name


RULELESS = PRESETS["santase"].with_overrides({"must_follow_suit": False, "must_trump": False})


@pytest.mark.parametrize("name", ["course", "santase+close_min_talon=none", "schnapsen", "santase"])
def test_a_bot_that_ignores_the_follow_rules_is_refused_where_they_apply(name: str) -> None:
    """Under free play with no close (course, close_min_talon=none) the follow rules bind only once the talon
    has run out: the steered deals reach them, and the bot's illegal answer fails the check."""
    report = check_bot(f"{sys.executable} {BOTS / 'no_follow.py'}", variants=[ALL_RULES[name]], matches=1,
                       sandbox="none")
    assert not report.passed
    failed = [c for c in report.checks if c.status is Status.FAIL]
    assert failed and failed[0].key in FORCED, [(c.status, c.key, c.detail) for c in report.checks]
    assert "illegal: play" in failed[0].detail and "is not legal now" in failed[0].detail


def test_the_same_bot_is_admitted_where_no_follow_rule_binds() -> None:
    report = check_bot(f"{sys.executable} {BOTS / 'no_follow.py'}", variants=[RULELESS], matches=1, sandbox="none")
    assert report.passed, [(c.status, c.key, c.detail) for c in report.checks]
    assert {c.key for c in report.checks if c.status is Status.NOT_APPLICABLE} >= set(FORCED)
