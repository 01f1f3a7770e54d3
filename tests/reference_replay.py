"""The reference replay: every step of a match with the whole visible table, built with the rules engine.

The report does not write this (it is some five times the bytes of its compact replay, and the viewer,
report.js, rebuilds the steps from that by bookkeeping); it is what tests compare the viewer's steps with
(tests/test_report_browser.py) and what tests of the replay data read. It lived in arena/report/context.py,
used by nothing but tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.game.cards import CARD_TEXT, SUITS, parse_cards
from arena.game.hand import Deal, DealEndReason, parse_seat_action
from arena.game.variants import RuleSet
from arena.report.context import hand_text
from arena.store import StoredDeal


def replay(
    rules: RuleSet,
    deal_rows: Sequence[StoredDeal],
    bots: tuple[str, str],
    match_note: str | None = None,
) -> dict[str, Any]:
    """Every step of a match's replay with the whole visible table, built with ``arena.game``: per deal its
    dealt hands, and one step per action (plus one per deal for the hands as dealt). Labels are lists of
    text pieces and ``[card]``. ``deal_rows`` are the match's deals, as the store reads them.

    The report does not write this (it is some five times the bytes of :func:`compact_deal`): it is the
    reference that the viewer's rebuilding of the steps from the compact replay is tested against.
    """
    deals_out: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    score = [0, 0]
    for row in deal_rows:
        d_index = len(deals_out)
        info: dict[str, Any] = {
            "idx": row.idx, "dealer": row.dealer, "trump": row.trump, "dealt": ["", ""],
            "result": None, "first": len(steps),
        }
        deals_out.append(info)
        try:
            # a corrupt row without a dealer raises TypeError here, and the page says so
            deal = Deal(rules, parse_cards(row.deck), int(row.dealer))  # type: ignore[arg-type]
        except (ValueError, TypeError) as e:
            steps.append(_broken_step(d_index, score, f"cannot replay this deal: {e}"))
            info["steps"] = 1
            continue
        info["trump"] = SUITS[deal.trump]
        info["dealt"] = [hand_text(deal.hands[0]), hand_text(deal.hands[1])]
        dealer = bots[deal.dealer]
        steps.append(_snapshot(deal, d_index, [f"Deal {row.idx + 1}: {dealer} deals; trump ",
                                                [str(deal.trump_card)], " turned."], [], None, score))
        table: list[list[Any]] = []
        seen = len(deal.events)
        tokens = row.actions
        broken = False
        for token in tokens:
            try:
                seat, action = parse_seat_action(token)
                deal.apply(action, seat)
            except ValueError as e:  # a corrupt row: show where, keep the table as it was
                steps.append(_snapshot(deal, d_index, [f"replay stopped at {token!r}: {e}"], [], None, score))
                broken = True
                break
            if len(table) == 2:
                table = []
            label, won = _describe(deal, deal.events[seen:], bots, table)
            seen = len(deal.events)
            steps.append(_snapshot(deal, d_index, label, table, won, score))
        last = steps[-1]
        winner, gp = row.winner, row.game_points
        if broken:
            pass
        elif row.forfeit or row.reason == DealEndReason.FORFEIT or deal.result is None:
            ending = ["Deal over: forfeited"]
            if winner in (0, 1):
                ending[0] += f"; {bots[winner]} gets {gp} game point{'s' if gp != 1 else ''}"
            if match_note:
                ending[0] += f" ({match_note})"
            last["label"] = [*last["label"], " ", *ending, "."]
        elif winner in (0, 1) and (deal.result.winner, deal.result.game_points) != (winner, gp):
            last["label"] = [*last["label"], f" (the database says {bots[winner]} won {gp}: it differs)"]
        if winner in (0, 1) and isinstance(gp, int):
            score[winner] += gp
            last["score"] = list(score)
            info["result"] = f"{bots[winner]} +{gp} ({row.reason})"
        last["end"] = True
        info["steps"] = len(steps) - info["first"]
    return {"bots": list(bots), "deals": deals_out, "steps": steps}


def _broken_step(d_index: int, score: list[int], message: str) -> dict[str, Any]:
    return {"deal": d_index, "label": [message], "hands": ["", ""], "talon": 0, "points": [0, 0],
            "tricks": [0, 0], "score": list(score)}


def _snapshot(
    deal: Deal, d_index: int, label: list[Any], table: list[list[Any]], won: int | None, score: list[int]
) -> dict[str, Any]:
    """The table after one step. Keys that are usually empty are left out (the viewer defaults them):
    ``turned`` (the trump card under the talon), ``table`` (the trick, [seat, card] each), ``won`` (the
    seat that took the trick on the table), ``pending`` (marriage points waiting for a trick),
    ``marriages`` ([seat, suit] each), ``closed`` (the seat that closed), ``move`` (the seat to move)."""
    talon = deal.talon
    won_points, marriage_points, tricks = deal.won_points, deal.marriage_points, deal.tricks
    step: dict[str, Any] = {
        "deal": d_index,
        "label": label,
        "hands": [hand_text(deal.hands[0]), hand_text(deal.hands[1])],
        "talon": len(talon),
        "points": [won_points[0] + marriage_points[0], won_points[1] + marriage_points[1]],
        "tricks": [tricks[0], tricks[1]],
        "score": score[:],
    }
    if talon and talon[-1] == deal.trump_card:
        step["turned"] = CARD_TEXT[deal.trump_card]
    if table:
        step["table"] = table[:]
    if won is not None:
        step["won"] = won
    pending = deal.pending_marriage
    if pending[0] or pending[1]:
        step["pending"] = pending[:]
    if deal.marriages:
        step["marriages"] = [[seat, SUITS[suit]] for seat, suit in deal.marriages]
    if deal.closed_by is not None:
        step["closed"] = deal.closed_by
    if deal.result is None:
        step["move"] = deal.to_move
    return step


def _describe(deal: Deal, events: Sequence[Any], bots: tuple[str, str], table: list[list[Any]]) -> tuple[
        list[Any], int | None]:
    """The label for one action's events; updates ``table`` (the trick on the table) in place."""
    out: list[Any] = []
    won = None
    draws: list[Any] = []
    for ev in events:
        who = bots[ev.seat]
        kind = ev.kind
        if kind == "play":
            card = str(ev.card)
            out += [f"{who} {'leads' if not table else 'plays'} ", [card], ". "]
            table.append([ev.seat, card])
        elif kind == "marriage":
            suit = SUITS[ev.card.suit]
            note = (f"{ev.points}" if deal.tricks[ev.seat] or not ev.points
                    else f"{ev.points}, counted with {who}'s first trick")
            if not ev.points:
                note = "no points before a trick"
            out += [f"{who} declares the marriage ", ["K" + suit], ["Q" + suit], f" ({note}). "]
        elif kind == "trick":
            won = ev.seat
            out += [f"{who} wins the trick (+{ev.points}). "]
        elif kind == "draw":
            draws += [f"{who} draws ", [str(ev.card)]]
            draws.append(", " if len(draws) < 4 else ". ")
        elif kind == "exchange":
            out += [f"{who} exchanges ", [str(deal.trump_card)], " for the turned ", [str(ev.card)], ". "]
        elif kind == "close":
            out += [f"{who} closes the talon. "]
        elif kind == "declare":
            out += [f"{who} declares 66 with {ev.points} points. "]
        elif kind == "deal-end":
            r = deal.result
            gp = ev.points
            out += draws
            draws = []
            out += [f"Deal over: {who} wins {gp} game point{'s' if gp != 1 else ''} ({r.reason if r else '?'}). "]
    out += draws
    if out and isinstance(out[-1], str):
        out[-1] = out[-1].rstrip()
    return out, won
