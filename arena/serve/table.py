"""The table as one page sees it, asked of the engine at the moment the page is sent.

The referee calls a room back after every change of its match (arena.referee.match, ``on_change``), and each
page of the room is then sent `picture(match, viewer)`: the game as seat ``viewer`` may know it, read from
the engine's own view of that seat (`Deal.view`, the very SeatView a bot's turn line is built from) and
its public events, with what a seat sees of a drawn card decided by the engine's rule (`drawn_card_seen`).
A spectator (``viewer`` None) gets the public part only: no hand, no known card, no drawn card. Nothing
here derives a rule: points, pending marriages, who leads and who is to move are the engine's figures.

Every page (both players' and a spectator's, in a room or in Quick Play) is drawn from this one picture,
so a move shows on every page as soon as the referee has applied it, not at a seat's next turn.
"""

from __future__ import annotations

from typing import Any

from arena.game.hand import Deal
from arena.game.match import Match
from arena.game.views import drawn_card_seen

SPECTATOR = -1  # a viewer who is neither seat: sees a drawn card only when it lay face up


def picture(match: Match | None, viewer: int | None) -> dict[str, Any]:
    """The game fields of a page's state (seats in table order, 0 and 1, whoever the viewer is)."""
    if match is None or not match.deals:
        return {"deal": 0, "dealer": None, "leader": None, "to_move": None, "score": [0, 0],
                "points": [0, 0], "pending": [0, 0], "tricks": [0, 0], "trump": "", "trump_card": None,
                "talon": None, "closed_by": None, "table": [], "last_trick": None, "hand": [], "known": [],
                "cards_held": [0, 0], "log": [], "deals": []}
    deal = match.deals[-1]
    who = SPECTATOR if viewer is None else viewer
    view = deal.view(0 if viewer is None else viewer)
    me = view.seat
    other = 1 - me

    def both(pair: tuple[int, int]) -> list[int]:  # a view's (mine, opponent's) in seat order
        out = [0, 0]
        out[me], out[other] = pair
        return out

    pending = [0, 0]
    pending[me] = view.pending_marriage
    pending[other] = view.opponent_pending or 0
    to_move = deal.to_move if deal.result is None and not match.over else None
    return {
        "deal": len(match.deals),
        "dealer": deal.dealer,
        "leader": view.leader,
        "to_move": to_move,
        "score": list(match.score),
        "points": both(view.points),
        "pending": pending,
        "tricks": both(view.tricks),
        "trump": view.trump_char,
        "trump_card": None if view.trump_card is None else str(view.trump_card),
        "talon": view.talon_size,
        "closed_by": view.closed_by,
        "table": [] if view.led is None else [[view.leader, str(view.led)]],
        "led_marriage": bool(view.led_marriage),
        "last_trick": _last_trick(deal),
        "hand": [] if viewer is None else [str(c) for c in view.hand],
        "known": [] if viewer is None else [str(c) for c in view.opponent_known],
        "cards_held": [len(deal.hand(0)), len(deal.hand(1))],  # how many, never which: a hand's size is public
        "log": _events(deal, who),
        "deals": _summaries(match),
    }


def _events(deal: Deal, viewer: int) -> list[dict[str, Any]]:
    """The deal's events as ``viewer`` may know them, numbered (a page announces the ones it has not shown)."""
    face_up = deal.trump_card
    out = []
    for n, ev in enumerate(deal.events):
        card = ev.card
        if ev.kind == "draw" and card is not None:
            card = drawn_card_seen(card, ev.seat, viewer, face_up)
        out.append({"n": n, "kind": ev.kind, "seat": ev.seat, "card": None if card is None else str(card),
                    "points": ev.points})
    return out


def _last_trick(deal: Deal) -> dict[str, Any] | None:
    """The last completed trick: its two cards in the order played, its winner and its card points."""
    plays: list[list[Any]] = []
    last = None
    for ev in deal.events:
        if ev.kind == "play":
            plays.append([ev.seat, str(ev.card)])
        elif ev.kind == "trick":
            last = {"cards": plays[-2:], "winner": ev.seat, "points": ev.points}
    return last


def _summaries(match: Match) -> list[dict[str, Any]]:
    """Each finished deal: its winner, game points and reason (the engine's DealResult), why the game points
    are more than 1 (the engine's `Deal.game_points_why`), who closed, the event that ended it when that was a
    declaration or a marriage, the last trick, and the match score after it."""
    out = []
    score = [0, 0]
    for i, deal in enumerate(match.deals):
        r = deal.result
        if r is None:
            continue
        score[r.winner] += r.game_points
        ending = deal.events[-2] if len(deal.events) > 1 and deal.events[-1].kind == "deal-end" else None
        ended_by = None  # a declaration, or a marriage that reached 66: a page that missed it announces it
        if ending is not None and ending.kind in ("declare", "marriage"):  # (both public, the marriage's card too)
            ended_by = {"kind": ending.kind, "seat": ending.seat, "points": ending.points,
                        "card": None if ending.card is None else str(ending.card)}
        out.append({"deal": i + 1, "winner": r.winner, "game_points": r.game_points,
                    "reason": str(r.reason).replace(" ", "-"), "points": list(r.points), "tricks": list(r.tricks),
                    "last_trick": _last_trick(deal), "closed_by": deal.closed_by, "score": list(score),
                    "why_points": deal.game_points_why, "schneider_below": deal.rules.schneider_below,
                    "ended_by": ended_by})
    return out
