"""The referee builds each `turn` line from the deal itself (`codec.turn_line`), without a SeatView: its text
must stay exactly what `encode(Turn(view, ...))` writes, the form docs/PROTOCOL.md describes, in both
protocol versions, at every decision of random deals of every preset."""

from __future__ import annotations

import random

import pytest

from arena.game import Deal, preset, shuffled_deck
from arena.protocol.codec import decode_referee_line, encode, turn_line
from arena.protocol.messages import V1_0, V1_1, Turn


@pytest.mark.parametrize("variant", ["santase", "sixty-six", "schnapsen"])
def test_turn_line_is_the_encoded_view_at_every_decision(variant: str) -> None:
    rules = preset(variant)
    lines = 0
    for seed in range(40):
        rng = random.Random(seed)
        deal = Deal(rules, shuffled_deck(rules, seed, 0), seed % 2)
        while not deal.over:
            legal = deal.legal_actions()
            seat = deal.to_move
            score = (seed % 5, seed % 7)
            bank = None if seed % 3 else 1234
            for version in (V1_0, V1_1):
                line = turn_line(deal, seat, score, legal, 1000, bank, version)
                assert line == encode(Turn(deal.view(seat, score), tuple(legal), 1000, bank), version), (seed, line)
            assert isinstance(decode_referee_line(line), Turn)
            lines += 1
            deal.apply(rng.choice(legal))
    assert lines > 40 * 3  # (deals of the presets that declare 66 by hand end sooner)
