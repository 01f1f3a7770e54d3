"""The luck-adjusted score (issue 28; docs/STATISTICS.md "The luck-adjusted score"): its control variate has
mean zero over shuffled decks, whatever the weights (the dealt cards' part) and whatever the play (each draw's
correction, over the cards that could have been drawn), and the adjusted score is unbiased: two copies of one
bot score 1/2 within the interval, unequal bots the raw mean within the intervals. Pure-engine simulations
with in-process policies, seeded so that a failure replays; one real `arena match` run through the CLI."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import arena
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game import Action, Match, dealt_deck, full_deck, preset, shuffled_deck, twin_deck
from arena.game.cards import Card
from arena.game.hand import Deal
from arena.game.luck import DRAW_FEATURES, DRAW_WEIGHTS, FEATURES, WEIGHTS, deal_draw_features, deal_luck, draw_features
from arena.game.match import first_dealer
from arena.stats.luck import BETA, adjusted, leverage, luck_adjusted, match_luck, win_chance
from arena.stats.sprt import MeanSprt

RULE_SETS = ("santase", "sixty-six", "schnapsen")


def exchanged(rules_name: str, deck: list[Card], dealer: int) -> list[Card]:
    """The deck's twin: the two hands exchanged, and each pair of talon cards (2i, 2i+1) too."""
    rules = preset(rules_name)
    seat_of: list[int] = []  # by deck position: the seat dealt it, or -1 for the talon
    for batch in rules.deal_batches:
        seat_of += [1 - dealer] * batch + [dealer] * batch
    positions = [[i for i, s in enumerate(seat_of) if s == seat] for seat in (0, 1)]
    twin = list(deck)
    for a, b in zip(*positions, strict=True):
        twin[a], twin[b] = deck[b], deck[a]
    talon_at = list(Deal(rules, deck, dealer).talon)  # what the engine makes the talon, drawn from index 0
    pos = {c: i for i, c in enumerate(deck)}
    talon_positions = [pos[c] for c in talon_at]
    for i in range((len(talon_at) - 1) // 2):
        a, b = talon_positions[2 * i], talon_positions[2 * i + 1]
        twin[a], twin[b] = deck[b], deck[a]
    return twin


@settings(max_examples=150, deadline=None, derandomize=True)
@given(rules_name=st.sampled_from(RULE_SETS), seed=st.integers(0, 2**63 - 1), dealer=st.integers(0, 1),
       weights=st.lists(st.floats(-5, 5), min_size=len(FEATURES), max_size=len(FEATURES)))
def test_a_deck_and_its_twin_have_opposite_luck_whatever_the_weights(rules_name: str, seed: int, dealer: int,
                                                                     weights: list[float]) -> None:
    # The twin map is one-to-one on decks (it is its own inverse) and keeps the shuffle's uniform measure,
    # so a luck that flips sign under it has mean exactly zero, for either dealer.
    deck = shuffled_deck(preset(rules_name), seed, 0)
    twin = exchanged(rules_name, deck, dealer)
    assert sorted(twin) == sorted(full_deck(preset(rules_name)))
    assert exchanged(rules_name, twin, dealer) == deck
    assert deal_luck(preset(rules_name), twin, dealer, weights=weights) == pytest.approx(
        -deal_luck(preset(rules_name), deck, dealer, weights=weights), abs=1e-9)


@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_the_engines_twin_deck_is_the_lucks_twin(rules_name: str) -> None:
    rules = preset(rules_name)
    for seed in range(20):
        deck = shuffled_deck(rules, seed, 3)
        for dealer in (0, 1):
            assert twin_deck(rules, deck) == exchanged(rules_name, deck, dealer)


@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_seat_0_holds_the_same_cards_in_deal_n_whoever_deals(rules_name: str) -> None:
    # The two matches of a duplicate pair share the seed and swap the seats: when their dealers part ways
    # (their results differ), each bot still holds, deal by deal, the hand the other held in its twin.
    rules = preset(rules_name)
    for seed in range(20):
        for n in (0, 1, 5):
            a, b = (Deal(rules, dealt_deck(rules, seed, n, dealer), dealer) for dealer in (0, 1))
            assert a.hands == b.hands and a.turned_card == b.turned_card
            # the talon's pairs: what seat 0 would draw were it to win every trick, or to lose every one
            assert {a.talon[0], a.talon[1]} == {b.talon[0], b.talon[1]} and a.talon[0] == b.talon[1]
            same = [Deal(rules, shuffled_deck(rules, seed, n), dealer) for dealer in (0, 1)]
            assert same[0].hands != same[1].hands, "dealt as shuffled, the dealer's seat decides the hands"
    assert first_dealer(1) in (0, 1) and dealt_deck(preset("santase"), 1, 4, first_dealer(1)) == shuffled_deck(
        preset("santase"), 1, 4)


def test_the_luck_over_random_decks_averages_zero() -> None:
    rules = preset("santase")
    rng = random.Random(28)
    lucks = []
    for _ in range(3000):
        deck = full_deck(rules)
        rng.shuffle(deck)
        lucks.append(deal_luck(rules, deck, rng.randrange(2)))
    mean = sum(lucks) / len(lucks)
    sd = (sum((x - mean) ** 2 for x in lucks) / (len(lucks) - 1)) ** 0.5
    assert sd > 0.3, "the fitted weights tell hands apart"
    assert abs(mean) < 3 * sd / len(lucks) ** 0.5


@settings(max_examples=200, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**63 - 1), face_down=st.integers(2, 11), trump=st.integers(0, 3))
def test_a_draw_correction_averages_zero_over_the_cards_that_could_have_been_drawn(seed: int, face_down: int,
                                                                                   trump: int) -> None:
    # Given the past, the drawn card is any face-down card, each as likely (the loser's too, taken alone), so
    # the features of a draw, each less its mean over the face-down cards, average exactly zero over them.
    deck = full_deck(preset("santase"))
    random.Random(seed).shuffle(deck)
    hand = sum(1 << c for c in deck[:6])
    talon = deck[6:6 + face_down]
    mask = sum(1 << c for c in talon)
    k = len(DRAW_FEATURES)
    total = [0.0] * k
    outcomes = set()
    for card in talon:
        one = [0.0] * k
        draw_features(one, 0, hand, card, mask, trump, 1.0)
        outcomes.add(tuple(round(x, 9) for x in one))
        total = [a + b for a, b in zip(total, one, strict=True)]
    assert total == pytest.approx([0.0] * k, abs=1e-9)
    if len({(c.suit == trump, c.rank) for c in talon}) > 1:
        assert len(outcomes) > 1, "the drawn card shows in the features"


def test_the_draw_corrections_average_zero_for_a_fixed_policy() -> None:
    # Thrifty's choices depend on its cards, and so on the draws, and it wins more tricks (so draws first)
    # than random; the corrections still average zero over random decks, because each is taken against the
    # cards that could have been drawn, given the past.
    rules = preset("santase")
    rng = random.Random(2803)
    policies = [thrifty(1, 0.1), random_policy(2)]
    lucks, with_draws = [], 0
    for _ in range(1500):
        deck = full_deck(rules)
        rng.shuffle(deck)
        deal = Deal(rules, deck, rng.randrange(2))
        while not deal.over:
            seat = deal.to_move
            deal.apply(policies[seat](deal, seat, deal.legal_actions()), seat)
        draws = deal_draw_features(rules, deck, deal.dealer, deal.actions)
        with_draws += any(draws)
        lucks.append(sum(w * x for w, x in zip(DRAW_WEIGHTS, draws, strict=True)))
    mean = sum(lucks) / len(lucks)
    sd = (sum((x - mean) ** 2 for x in lucks) / (len(lucks) - 1)) ** 0.5
    assert with_draws > 1200 and sd > 0.3, "most deals draw, and the draws tell cards apart"
    assert abs(mean) < 3 * sd / len(lucks) ** 0.5


def test_a_deals_luck_counts_its_draws() -> None:
    rules = preset("santase")
    deal = Match(rules, 2804).new_deal()
    while not deal.over:  # the first card it may play: no closing, so the talon is drawn to the end
        deal.apply(next(a for a in deal.legal_actions() if a.kind == "play"))
    dealt = deal_luck(rules, deal.deck, deal.dealer)
    drawn = sum(w * x for w, x in zip(DRAW_WEIGHTS, deal_draw_features(rules, deal.deck, deal.dealer,
                                                                        deal.actions), strict=True))
    assert drawn != 0
    assert deal_luck(rules, deal.deck, deal.dealer, deal.actions) == pytest.approx(dealt + drawn)


def test_leverage_is_largest_when_one_deal_decides() -> None:
    assert win_chance(11, 11) == pytest.approx(0.5)
    assert leverage(1, 1) == pytest.approx(0.5)  # whoever wins the deal wins the match
    assert leverage(11, 11) < leverage(3, 3) < leverage(1, 1)
    assert leverage(1, 11) < leverage(1, 1)  # far ahead: a lost deal changes little


# ------------------------------------------------------------------ the adjusted score, by simulation
# In-process policies that read the deal directly (a seat's view is most of a simulated move's cost). They
# only look at what their seat may know: its hand, the card led, the trump suit.
Policy = Callable[[Deal, int, list[Action]], Action]


def thrifty(seed: int, noise: float) -> Policy:
    """Marriages and the exchange when it may; takes a ten or an ace led with its cheapest winner; else plays
    its cheapest card, trumps last; a random legal action in a share ``noise`` of its decisions."""
    rng = random.Random(seed)

    def cost(card: Card, trump: int) -> tuple[bool, int]:
        return card.suit == trump, card.points

    def choose(deal: Deal, seat: int, legal: list[Action]) -> Action:
        if rng.random() < noise:
            return rng.choice(legal)
        special = [a for a in legal if a.kind in ("declare", "exchange", "marriage")]
        if special:
            return special[0]
        plays = [a for a in legal if a.kind == "play" and a.card is not None]
        trump, led = deal.trump, deal.led
        if led is not None and led.points >= 10:
            winners = [a for a in plays if a.card is not None and (
                (a.card.suit == led.suit and a.card.rank > led.rank) or (a.card.suit == trump != led.suit))]
            if winners:
                return min(winners, key=lambda a: cost(a.card, trump) if a.card is not None else (True, 0))
        return min(plays, key=lambda a: cost(a.card, trump) if a.card is not None else (True, 0))

    return choose


def random_policy(seed: int) -> Policy:
    rng = random.Random(seed)
    return lambda deal, seat, legal: rng.choice(legal)


def play_pairs(a: Callable[[int], Policy], b: Callable[[int], Policy], pairs: int, seed: int,
               rules_name: str = "santase") -> list[tuple[float, float]]:
    """Duplicate pairs between ``a`` and ``b`` (each a seed -> policy), in process: per match, a's (score,
    luck), a in seat 0 in the pair's first match and in seat 1 in its second, on the same deals."""
    rules = preset(rules_name)
    out = []
    for p in range(pairs):
        match_seed = f"{seed}/{p}"
        for a_seat in (0, 1):
            policies = [a(2 * p + a_seat), b(10**6 + 2 * p + a_seat)]
            if a_seat == 1:
                policies.reverse()
            m = Match(rules, match_seed)
            while not m.over:
                deal = m.new_deal()
                while not deal.over:
                    seat = deal.to_move
                    deal.apply(policies[seat](deal, seat, deal.legal_actions()), seat)
                m.finish_deal()
            lucks = [deal_luck(rules, d.deck, d.dealer, d.actions) for d in m.deals]
            results = [(d.result.winner, d.result.game_points) for d in m.deals if d.result]
            luck0 = match_luck(lucks, results, rules.match_target)
            out.append((1.0 if m.winner == a_seat else 0.0, luck0 if a_seat == 0 else -luck0))
    return out


def by_pair(matches: list[tuple[float, float]]) -> list[tuple[float, float]]:
    return [((s0 + s1) / 2, (l0 + l1) / 2) for (s0, l0), (s1, l1) in zip(matches[::2], matches[1::2], strict=True)]


@pytest.fixture(scope="module")
def same_bot() -> list[tuple[float, float]]:
    # two copies of one bot (thrifty with 10% random moves), each with its own seeds
    return play_pairs(lambda s: thrifty(s, 0.1), lambda s: thrifty(s, 0.1), pairs=300, seed=2801)


def test_two_copies_of_one_bot_score_one_half_adjusted(same_bot: list[tuple[float, float]]) -> None:
    for units, paired in ((same_bot, False), (by_pair(same_bot), True)):
        fig = luck_adjusted(units, paired)
        assert fig is not None
        assert fig.lo < 0.5 < fig.hi, fig
        assert fig.variance_ratio is not None and fig.variance_ratio < 0.9, fig  # the luck it removes


def test_the_luck_itself_averages_zero_over_matches(same_bot: list[tuple[float, float]]) -> None:
    lucks = [luck for _, luck in same_bot]
    mean = sum(lucks) / len(lucks)
    sd = (sum((x - mean) ** 2 for x in lucks) / (len(lucks) - 1)) ** 0.5
    assert abs(mean) < 2.5 * sd / len(lucks) ** 0.5


def test_unequal_bots_adjusted_agrees_with_raw() -> None:
    matches = play_pairs(lambda s: thrifty(s, 0.5), random_policy, pairs=200, seed=2802)
    fig = luck_adjusted(by_pair(matches), paired=True)
    assert fig is not None
    assert fig.raw > 0.6, "half-thrifty beats random"
    assert fig.raw_lo < fig.score < fig.raw_hi and fig.lo < fig.raw < fig.hi, fig


def test_mean_sprt_accepts_h0_for_equal_bots_and_counts_matches(same_bot: list[tuple[float, float]]) -> None:
    sprt = MeanSprt(0, 60, per_unit=2)
    for score, luck in by_pair(same_bot):
        if sprt.update(adjusted(score, luck, BETA)):
            break
    assert sprt.verdict == "H0"
    assert sprt.matches == 2 * sprt.units < len(same_bot)


def test_weights_are_fitted() -> None:
    assert any(WEIGHTS) and any(DRAW_WEIGHTS) and BETA > 0
    assert len(DRAW_WEIGHTS) == 2 * len(DRAW_FEATURES) and len(WEIGHTS) == len(FEATURES)


# ------------------------------------------------------------------ through the CLI
def test_arena_match_shows_the_luck_adjusted_score_and_sprt_uses_it() -> None:
    out = arena("match", "bots/c/greedy", "bots/c/random 3", "--matches", "8", "--seed", "28", "--concurrency", "2",
                "--json")
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)
    luck = s["luck_adjusted"]
    assert luck["unit"] == "pair" and luck["units"] == 4
    assert luck["raw"] == pytest.approx(s["wins"][s["bots"][0]] / 8)
    assert luck["interval"][0] <= luck["adjusted"] <= luck["interval"][1]
    assert luck["adjusted"] != luck["raw"], "the cards' luck moved the score"
    text = arena("match", "bots/c/greedy", "bots/c/random 3", "--matches", "40", "--seed", "28", "--sprt",
                 "elo0=0", "elo1=200", "--luck-adjusted", "--concurrency", "2")
    assert text.returncode == 0, text.stderr
    assert "Score of greedy-c:" in text.stdout and "luck-adjusted" in text.stdout
    verdict = next(line for line in text.stdout.splitlines() if "SPRT" in line)
    assert "SPRT (luck-adjusted score): H1 accepted after" in verdict and "duplicate pairs" in verdict


def test_the_store_reads_back_the_luck_of_the_records_deals_and_draws(tmp_path: Path) -> None:
    from arena.stats.luck import match_luck as luck_of_match
    from arena.store import Store

    db = tmp_path / "m.db"
    out = arena("match", "bots/c/greedy", "bots/c/random 3", "--matches", "2", "--seed", "28", "--db", str(db))
    assert out.returncode == 0, out.stderr
    with Store.open_existing(db, read_only=True) as store:
        name = store.tournament_info().name
        rules = preset("santase")
        lucks = store.match_luck(name)
        assert len(lucks) == 2
        for m in store.matches(name):
            deals = [d.record() for d in store.deals(m.match_id)]
            want = luck_of_match([deal_luck(rules, d.deck, d.dealer, d.actions) for d in deals],
                                 [(d.winner, d.game_points or 0) for d in deals], rules.match_target)
            dealt_only = luck_of_match([deal_luck(rules, d.deck, d.dealer) for d in deals],
                                       [(d.winner, d.game_points or 0) for d in deals], rules.match_target)
            assert lucks[m.match_id] == pytest.approx(want) and want != pytest.approx(dealt_only)


def test_a_luck_cache_kept_between_stores_computes_a_finished_match_once(tmp_path: Path, monkeypatch) -> None:
    """`serve --watch` opens the database anew for each render; with the cache it keeps, a finished match's
    luck is not replayed again (for 20,000 matches that is half a minute a render)."""
    from arena.store import Store
    from arena.store import store as store_module

    db = tmp_path / "m.db"
    out = arena("match", "bots/c/greedy", "bots/c/random 3", "--matches", "2", "--seed", "28", "--db", str(db))
    assert out.returncode == 0, out.stderr
    cache: dict = {}
    with Store.open_existing(db, read_only=True, luck_cache=cache) as store:
        first = store.match_luck(store.tournament_info().name)

    def replayed(*args):
        raise AssertionError("a finished match's luck was computed again")

    monkeypatch.setattr(store_module, "_match_luck", replayed)
    with Store.open_existing(db, read_only=True, luck_cache=cache) as store:
        assert store.match_luck(store.tournament_info().name) == first
    with Store.open_existing(db, read_only=True) as store, pytest.raises(AssertionError, match="computed again"):
        store.match_luck(store.tournament_info().name)  # (a store of its own computes them: the test can fail)


def test_luck_adjusted_without_sprt_is_one_clear_message() -> None:
    out = arena("match", "bots/c/greedy", "bots/c/random 3", "--luck-adjusted")
    assert out.returncode == 2
    assert "--luck-adjusted" in out.stderr and "--sprt" in out.stderr and "Traceback" not in out.stderr


def test_mean_sprt_keeps_its_error_rates() -> None:
    # pair scores 0, 1/2, 1 with a spread like duplicate pairs', mean E(0) = 0.5 or E(30); 200 runs each
    from arena.stats import expected_score

    rng = random.Random(28)
    for truth, want_h1 in ((0.0, False), (30.0, True)):
        mean = expected_score(truth)
        ends = mean - 0.5 + 0.2  # P(1); P(0) = 0.4 - P(1): the mean is P(1/2)/2 + P(1)
        h1 = 0
        for _ in range(200):
            sprt = MeanSprt(0, 30, per_unit=2)
            while sprt.verdict is None:
                u = rng.random()
                sprt.update(1.0 if u < ends else 0.0 if u < 0.4 else 0.5)
            h1 += sprt.verdict == "H1"
        rate = h1 / 200 if not want_h1 else 1 - h1 / 200
        assert rate <= 0.09, (truth, rate)


@pytest.mark.parametrize(("elo1", "per_unit"), [(50, 1), (200, 1), (200, 2)])
def test_mean_sprt_keeps_alpha_when_its_first_units_look_alike(elo1: int, per_unit: int) -> None:
    # Matches that are fair coin tosses (the truth is elo0 = 0; an adjusted score with beta = 0): a short run
    # of wins has almost no spread, and a test that takes the variance estimated from it as known accepted
    # H1 in 10% (elo1 = 50) to 27% (elo1 = 200, one match a unit) of runs, alpha being 5%.
    rng = random.Random(elo1 * 10 + per_unit)
    runs, h1 = 1000, 0
    for _ in range(runs):
        sprt = MeanSprt(0, elo1, per_unit=per_unit)
        while sprt.verdict is None:
            sprt.update(sum(rng.random() < 0.5 for _ in range(per_unit)) / per_unit)
        h1 += sprt.verdict == "H1"
    assert h1 / runs <= 0.07, h1 / runs


def test_the_luck_intervals_do_not_shrink_to_a_point_when_the_first_units_agree() -> None:
    # a bot that wins 90% of its matches wins all of its first 5 in 59% of series; an interval from their
    # spread alone is then [100%, 100%] and misses the truth: a "95% interval" that covered it 41% of the time
    rng = random.Random(5)
    covered, runs = 0, 1000
    for _ in range(runs):
        fig = luck_adjusted([(float(rng.random() < 0.9), 0.0) for _ in range(5)], paired=False)
        assert fig is not None
        covered += fig.raw_lo <= 0.9 <= fig.raw_hi and fig.lo <= 0.9 <= fig.hi
    assert covered / runs >= 0.93, covered / runs
    one = luck_adjusted([(1.0, 0.1)], paired=True)
    assert one is not None and one.lo < one.score < one.hi and one.raw_lo < 1.0 == one.raw_hi
    # the raw score's interval is of a share of matches won: within [0, 1]
    lost = luck_adjusted([(0.0, 0.1)], paired=False)
    assert lost is not None and lost.score < 0 and lost.lo < lost.raw_lo == 0.0 < lost.raw_hi < 1.0


def test_the_luck_figure_counts_matches_when_a_series_ends_with_a_match_without_its_twin() -> None:
    # arena match --matches 5: two duplicate pairs and a fifth match. The raw score is the share of matches
    # won, as the standings say (2 of 5, not the mean of the three units' means, 1/2), and the summary
    # names the units as they are
    from arena.api import summarize
    from arena.cli.match import format_summary
    from arena.stats import MatchFacts

    winners = ["A", "B", "B", "B", "A"]  # matches 0-1 and 2-3 are pairs, seats swapped
    facts = [MatchFacts(f"m{k}", ("A", "B") if k % 2 == 0 else ("B", "A"), 0 if w == ("A" if k % 2 == 0 else "B")
                        else 1, (11, 0)) for k, w in enumerate(winners)]
    pair_of = {f"m{k}": (f"p{k // 2}" if k < 4 else None) for k in range(5)}
    summary = summarize(("A", "B"), facts, preset("santase"), 1, {f"m{k}": 0.0 for k in range(5)}, pair_of)
    fig = summary["luck_adjusted"]
    assert fig["raw"] == pytest.approx(2 / 5) and fig["adjusted"] == pytest.approx(2 / 5) and fig["matches"] == 5
    line = next(x for x in format_summary(summary).splitlines() if "luck-adjusted" in x)
    assert line.endswith("over 2 duplicate pairs and 1 match"), line
    assert "Score of A: 40.0%" in line
