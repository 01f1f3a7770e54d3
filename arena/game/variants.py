"""RuleSet: every rule the three seed texts disagree on, as data.

A RuleSet is a frozen dataclass that round-trips through plain dicts (so YAML configs and the protocol's
match-start message can carry it). Presets cite their sources in docs/RULES.md; ``RuleSet.from_dict``
starts from a preset and applies overrides, checking each one.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_args, get_origin, get_type_hints

from arena.game.cards import RANKS


class RulesError(ValueError):
    """A rule name or value is wrong; the message names the parameter and what is allowed."""


FollowWhileOpen = Literal["free", "strict"]
MarriageLead = Literal["either", "queen", "king"]
MarriageNoTrick = Literal["pending", "void"]
MarriageCredit = Literal["immediate", "next-trick"]
CloseScoring = Literal["at-close", "at-end"]
Declare66 = Literal["automatic", "manual"]
No66Winner = Literal["last-trick", "more-points"]
Schwarz = Literal["no-tricks", "no-points"]
NextDealer = Literal["loser", "winner", "alternate"]
TrumpCard = Literal["after-deal", "bottom"]
Deck = Literal["24", "20"]


@dataclass(frozen=True)
class RuleSet:
    """One complete rule set. Field docs (``metadata['doc']``) are shown by ``arena rules``."""

    name: str = field(default="custom", metadata={"doc": "variant name shown to bots and in reports"})
    # --- cards and dealing
    deck: Deck = field(default="24", metadata={"doc": "24 cards 9-A, or 20 cards J-A"})
    hand_size: int = field(default=6, metadata={"doc": "cards in each hand", "range": (3, 8)})
    deal_batches: tuple[int, ...] = field(
        default=(3, 3), metadata={"doc": "sizes of the dealing batches (sum = hand size)"}
    )
    trump_card: TrumpCard = field(
        default="after-deal",
        metadata={"doc": "after-deal: the card after both hands is turned; bottom: the talon's last card"},
    )
    # --- exchanging the trump card
    exchange_rank: Literal["9", "J", "none"] = field(
        default="9", metadata={"doc": "which trump may be exchanged for the turned trump card"}
    )
    exchange_leader_only: bool = field(default=True, metadata={"doc": "only the player on lead may exchange"})
    exchange_min_talon: int = field(
        default=3, metadata={"doc": "talon size (with the turned card) needed to exchange", "range": (1, 24)}
    )
    # --- following
    follow_while_open: FollowWhileOpen = field(
        default="free", metadata={"doc": "free: any card while the talon is open; strict: follow rules always"}
    )
    must_follow_suit: bool = field(default=True, metadata={"doc": "strict phase: follow the led suit if able"})
    must_head: bool = field(default=True, metadata={"doc": "strict phase: beat the led card in its suit if able"})
    must_trump: bool = field(default=True, metadata={"doc": "strict phase: trump when void in the led suit"})
    # --- marriages
    marriage_points: int = field(default=20, metadata={"doc": "plain-suit marriage", "range": (0, 100)})
    trump_marriage_points: int = field(default=40, metadata={"doc": "trump-suit marriage", "range": (0, 100)})
    marriage_lead: MarriageLead = field(default="either", metadata={"doc": "which card of the pair is led"})
    marriage_without_trick: MarriageNoTrick = field(
        default="pending",
        metadata={"doc": "pending: points count once a trick is won; void: no points before a won trick"},
    )
    marriage_credit: MarriageCredit = field(
        default="immediate",
        metadata={"doc": "immediate: a declarer with a trick scores at once; next-trick: at its next won trick"},
    )
    # --- closing
    close_min_talon: int | Literal["none"] = field(
        default=3,
        metadata={"doc": "talon size (with the turned card) needed to close; none: closing is never legal",
                  "range": (1, 24)},
    )
    failed_close_points: int = field(
        default=2, metadata={"doc": "game points to the opponent when the closer fails", "range": (0, 6)}
    )
    failed_close_points_no_tricks: int = field(
        default=3, metadata={"doc": "the same when the closer took no trick at all", "range": (0, 6)}
    )
    close_scoring: CloseScoring = field(
        default="at-end",
        metadata={"doc": "which opponent points decide the closer's game points: at the close, or at the end"},
    )
    # --- declaring 66
    declare_66: Declare66 = field(
        default="automatic", metadata={"doc": "automatic: the deal ends at 66; manual: the player declares"}
    )
    wrong_declaration_points: int = field(
        default=2, metadata={"doc": "manual: game points to the opponent for a wrong 66", "range": (0, 6)}
    )
    # --- end of the deal
    last_trick_bonus: int = field(
        default=10, metadata={"doc": "card points for the last trick when the talon ran out (not after a close)",
                              "range": (0, 50)}
    )
    no_66_winner: No66Winner = field(
        default="last-trick", metadata={"doc": "who wins a deal in which nobody reached 66"}
    )
    no_66_game_points: int = field(default=1, metadata={"doc": "game points for that win", "range": (0, 6)})
    # --- game points
    schneider_below: int = field(
        default=33, metadata={"doc": "loser below this many points: 2 game points", "range": (0, 66)}
    )
    schwarz: Schwarz = field(default="no-tricks", metadata={"doc": "3 game points when the loser took ..."})
    # --- the match
    match_target: int = field(default=11, metadata={"doc": "game points that win the match", "range": (1, 100)})
    next_dealer: NextDealer = field(default="loser", metadata={"doc": "who deals the next deal"})

    def __post_init__(self) -> None:
        for f in fields(self):
            _check_value(f, getattr(self, f.name))
        if sum(self.deal_batches) != self.hand_size:
            raise RulesError(
                f"deal_batches {list(self.deal_batches)} must add up to hand_size {self.hand_size}"
            )
        if 2 * self.hand_size >= self.deck_size:
            raise RulesError(f"hand_size {self.hand_size} leaves no talon in a {self.deck} card deck")
        if self.exchange_rank == "9" and self.deck == "20":
            raise RulesError("exchange_rank '9' needs the 24 card deck (a 20 card deck has no nines)")

    # --- derived values used by the engine
    @property
    def deck_size(self) -> int:
        return int(self.deck)

    @property
    def lowest_rank(self) -> int:
        return 0 if self.deck == "24" else 1

    @property
    def close_min(self) -> int | None:
        """Talon size needed to close (at least 1), or None where closing is never legal."""
        limit = self.close_min_talon
        return None if limit == "none" else max(1, limit)

    def marriage_value(self, suit: int, trump: int) -> int:
        """What a marriage in ``suit`` is worth when ``trump`` is the trump suit (before the rules on when it
        counts: `Deal` decides whether it counts now, waits, or is void)."""
        return self.trump_marriage_points if suit == trump else self.marriage_points

    @property
    def exchange_rank_index(self) -> int:
        return -1 if self.exchange_rank == "none" else RANKS.index(self.exchange_rank)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["deal_batches"] = list(self.deal_batches)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any] | str) -> RuleSet:
        """A preset name, or ``{"preset": name, **overrides}``, or a complete dict.

        Without ``preset`` a dict starts from the santase preset.
        """
        if isinstance(data, str):
            return preset(data)
        if not isinstance(data, dict):
            raise RulesError(f"rules must be a preset name or a mapping, not {type(data).__name__}")
        data = dict(data)
        base_name = data.pop("preset", "santase")
        base = preset(str(base_name))
        return base.with_overrides(data)

    def with_overrides(self, overrides: dict[str, Any]) -> RuleSet:
        known = {f.name: f for f in fields(self)}
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            name = str(key).replace("-", "_")
            if name not in known:
                raise RulesError(
                    f"unknown rule parameter {key!r}; known parameters: {', '.join(sorted(known))}"
                )
            changes[name] = _coerce(known[name], value)
        if changes and "name" not in changes:
            changes["name"] = self.name
        return dataclasses.replace(self, **changes)


_HINTS: dict[str, Any] = {}


def _hint(f: dataclasses.Field[Any]) -> Any:
    if not _HINTS:
        _HINTS.update(get_type_hints(RuleSet))
    return _HINTS[f.name]


def allowed_values(f: dataclasses.Field[Any]) -> str:
    hint = _hint(f)
    if f.name == "close_min_talon":
        lo, hi = f.metadata["range"]
        return f"integer {lo}..{hi} | none"
    if get_origin(hint) is Literal:
        return " | ".join(str(a) for a in get_args(hint))
    if hint is bool:
        return "true | false"
    if hint is int:
        lo, hi = f.metadata.get("range", (0, 10**9))
        return f"integer {lo}..{hi}"
    if f.name == "deal_batches":
        return "a list of positive integers, written [3, 3]"
    return "text"


def _coerce(f: dataclasses.Field[Any], value: Any) -> Any:
    hint = _hint(f)
    if f.name == "deal_batches" and isinstance(value, list | tuple):
        return tuple(value)
    if get_origin(hint) is Literal and isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # YAML reads `deck: 24` as an int
    if f.name == "close_min_talon" and isinstance(value, str) and re.fullmatch(r"[0-9]{1,9}", value.strip()):
        return int(value)  # the protocol's match line carries every value as text
    return value


def _check_value(f: dataclasses.Field[Any], value: Any) -> None:
    hint = _hint(f)
    ok: bool
    if f.name == "close_min_talon":  # an integer, or the word none
        lo, hi = f.metadata["range"]
        ok = value == "none" or (isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi)
    elif get_origin(hint) is Literal:
        ok = value in get_args(hint)
    elif hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        lo, hi = f.metadata.get("range", (0, 10**9))
        ok = isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
    elif f.name == "deal_batches":
        ok = (
            isinstance(value, tuple)
            and len(value) > 0
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
        )
    else:
        ok = isinstance(value, str) and value != ""
    if not ok:
        raise RulesError(f"rule {f.name}: {_shown(value)} is not allowed; expected {allowed_values(f)}")


def _shown(value: object) -> str:
    """A rule's value as a config or --set writes it: [3, 'x'], true; not Python's (3, 'x'), True."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(map(_shown, value)) + "]"
    return repr(value)


# Presets. Each value's source is cited in docs/RULES.md (seed 000 = santase site, 002 = santase rules
# text, 003 = Sixty-Six rules with the Schnapsen variation).
SANTASE = RuleSet(
    name="santase",
    deck="24",
    hand_size=6,
    deal_batches=(3, 3),
    exchange_rank="9",
    exchange_min_talon=3,
    follow_while_open="free",
    marriage_lead="queen",
    marriage_without_trick="pending",
    close_min_talon=3,
    failed_close_points=2,
    failed_close_points_no_tricks=3,
    close_scoring="at-end",
    declare_66="automatic",
    last_trick_bonus=10,
    schneider_below=33,
    schwarz="no-tricks",
    match_target=11,
    next_dealer="loser",
)

# Sixty-Six differs from santase where seed 003 says so (see docs/RULES.md for each line's source).
SIXTY_SIX = dataclasses.replace(
    SANTASE,
    name="sixty-six",
    marriage_lead="either",
    marriage_without_trick="void",
    failed_close_points_no_tricks=2,
    close_scoring="at-close",
    declare_66="manual",
    wrong_declaration_points=2,
    match_target=7,
    next_dealer="alternate",
)

SCHNAPSEN = dataclasses.replace(
    SIXTY_SIX,
    name="schnapsen",
    deck="20",
    hand_size=5,
    deal_batches=(3, 2),
    exchange_rank="J",
    follow_while_open="strict",
    last_trick_bonus=0,
)

PRESETS: dict[str, RuleSet] = {r.name: r for r in (SANTASE, SIXTY_SIX, SCHNAPSEN)}


def preset(name: str) -> RuleSet:
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown variant {name!r}; known variants: {', '.join(PRESETS)}") from None
