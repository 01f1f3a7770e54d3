"""Rooms: one match each, between a person and a registry bot (quick play) or two people (a room).

The RoomHall owns every room and the tasks that play them (one nursery, the server's), the caps (rooms in
all, games and connections per client address), the leave timeouts and the expiry of idle rooms. A room
plays its match with arena.referee.match.play_match, the loop every tournament match goes through: a person
is a WebSeat behind a ChannelBot, a bot is started from the registry exactly as `arena run` starts it
(sandboxed, its own limits and time control). Every game is recorded as it starts and saved when it ends.

Codes come from `secrets`: 10 characters of a 32-letter alphabet without look-alikes, 50 bits.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from arena.botspec import BotProvenance
from arena.game.cards import Card
from arena.game.match import Match
from arena.game.variants import RuleSet
from arena.levels import BY_NAME
from arena.protocol.session import Termination, Violation
from arena.referee.clock import TimeControl
from arena.referee.match import Forfeit, Player, play_match
from arena.referee.process import BotSpec
from arena.referee.record import MatchRecord, MatchSpec
from arena.seeds import derive_seed
from arena.serve.seat import Watched, WebSeat
from arena.serve.table import picture
from arena.store import Store
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import player_for

log = logging.getLogger("arena.serve")

CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # 32 signs, 5 bits each: no 0/O or 1/I to mix up
CODE_LENGTH = 10  # 50 bits
HUMAN_HANDSHAKE_MS = 5000
NICK_MAX = 20  # characters of a player's chosen name


def clean_nick(text: str | None) -> str | None:
    """A name a player chose (the start page's field, or its cookie), as the table and the database show it:
    no control, format or bidi characters, spaces collapsed, at most NICK_MAX characters; None when nothing
    is left (the seat keeps its default name)."""
    if not text:
        return None
    kept = "".join(" " if c.isspace() else c for c in text[:200] if not unicodedata.category(c).startswith("C"))
    name = " ".join(kept.split())[:NICK_MAX].strip()
    return name or None


@dataclass(frozen=True)
class Limits:
    """What one server allows (every one an `arena serve` option)."""

    human_ms: int = 120_000  # a person's time for one move
    leave_s: float = 60.0  # a seat with no connection for this long forfeits (disconnect)
    idle_s: float = 1800.0  # a room nobody joins, or a finished one nobody watches, is dropped after this
    max_rooms: int = 200
    games_per_client: int = 4  # rooms a client address has open (waiting or playing) at a time
    connections_per_client: int = 16  # WebSockets from one client address at a time


def heartbeat(leave_s: float) -> tuple[float, float]:
    """How often a room's socket is sent a ``ping`` (which a live page answers at once, even a hidden page:
    an answer to a message is not held back like a timer), and how long a socket may stay silent before it
    counts as gone: a dropped network sends no close, so without this a player whose connection died would
    never start the leave timeout. A fraction of the leave timeout, so that noticing takes a small part of it."""
    every = min(5.0, max(0.5, leave_s / 10))
    return every, max(2.0, 3 * every)


class Refused(Exception):
    """A request the server will not serve (a cap, an unknown name). The page words it in its language from
    ``code`` and ``params`` (arena.serve.i18n, ``refused_<code>``); ``detail`` is the English of it."""

    def __init__(self, code: str, detail: str, **params: object) -> None:
        super().__init__(detail)
        self.code = code
        self.params = params


@dataclass
class Slot:
    """One seat of a room: a person (with the token that gives the seat back) or a registry bot."""

    name: str
    bot: str | None = None  # the registry bot's name; None for a person
    nick: bool = False  # the name is one the person chose (else the default: human, host or guest)
    token: str | None = None
    web: WebSeat | None = None
    sockets: int = 0
    left_at: float | None = None  # trio clock: when the last socket closed (or the seat was taken)


@dataclass
class Room:
    code: str
    variant: str
    rules: RuleSet
    slots: list[Slot]
    client: str  # the address that created it
    quick: bool
    watched: Watched = field(default_factory=Watched)
    phase: str = "waiting"  # waiting -> playing -> over
    created: float = field(default_factory=time.monotonic)
    touched: float = field(default_factory=time.monotonic)
    match_id: str | None = None
    record: MatchRecord | None = None
    spectators: int = 0
    failure: str | None = None
    match: Match | None = None  # the referee's game, once it has begun (read at each page's update)
    replay: str | None = None  # the replay page, once the match is recorded
    rematch: str | None = None  # the code of the room a player opened for a rematch
    leave_s: float = 60.0  # the server's leave timeout (Limits.leave_s)
    forfeit: Forfeit = field(default_factory=Forfeit)  # how the hall ends the match when a person is gone
    left: dict[str, Any] | None = None  # the seat that left and forfeited, and after how long: the pages say so

    def seat_of(self, token: str | None) -> int | None:
        if not token:
            return None
        for i, slot in enumerate(self.slots):
            if slot.token is not None and secrets.compare_digest(slot.token, token):
                return i
        return None

    def free_seat(self) -> int | None:
        if self.phase != "waiting":
            return None
        return next((i for i, s in enumerate(self.slots) if s.bot is None and s.token is None), None)

    def viewer(self) -> WebSeat | None:
        """The first person's seat (a spectator is told the end of the match as that seat was)."""
        return next((s.web for s in self.slots if s.web is not None), None)

    def changed(self, match: Match) -> None:
        """The referee's call after each change of the match (``on_change``): every page is sent the news."""
        self.match = match
        self.watched.bump()

    def state(self, seat: int | None, lang: str = "en") -> dict[str, Any]:
        """What one page is sent: the table as ``seat`` (None: a spectator) may see it, and the room. A house
        level is named by its label in ``lang`` ("Level 3 · Intermediate"), the player's name for it."""
        web = self.slots[seat].web if seat is not None else None
        names = [BY_NAME[s.bot].label(lang) if s.bot is not None and s.bot in BY_NAME else s.name
                 for s in self.slots]
        out: dict[str, Any] = {"type": "state", "phase": self.phase, "seat": seat, "names": names,
                               "bots": [s.bot is not None for s in self.slots],
                               "named": [s.nick for s in self.slots],
                               "variant": self.variant, "target": self.rules.match_target,
                               "stakes": stakes(self.rules)}
        out.update(picture(self.match, seat))
        out.update(legal=[], clock_ms=None, note=None, values={})
        if web is not None:
            out.update(web.turn())
            deal = self.match.deals[-1] if self.match is not None and self.match.deals else None
            if deal is not None and seat is not None:  # what each marriage on offer would score now, for its
                # button: the engine's figure (0 before a first trick where such a marriage is void)
                out["values"] = {t: deal.marriage_worth(seat, Card.parse(t[6:]).suit)
                                 for t in out["legal"] if t.startswith("marry:")}
        shown = web or self.viewer()
        out.update(result=shown.result if shown is not None else None, replay=self.replay, rematch=self.rematch,
                   code=self.code, quick=self.quick, failure=self.failure,
                   waiting=[s.token is None and s.bot is None for s in self.slots],
                   present=[s.bot is not None or s.sockets > 0 for s in self.slots])
        out.update(self.absence())
        return out

    def away_until(self, seat: int) -> float | None:
        """The trio time at which ``seat`` forfeits for having no page open, or None when it does not stand to
        (a bot, a page open, a match not being played, a forfeit already decided)."""
        slot = self.slots[seat]
        if (self.phase != "playing" or slot.web is None or slot.sockets or slot.left_at is None
                or self.left is not None or slot.web.result is not None
                or (self.match is not None and self.match.over)):
            return None
        return slot.left_at + self.leave_s

    def absence(self) -> dict[str, Any]:
        """What every page (both players' and a spectator's) is told of absence and time: each seat's forfeit
        countdown while it has no page open, each person's move clock while it is to move (milliseconds, as
        at the moment the state is sent), the leave timeout, and who forfeited by leaving."""
        now = trio.current_time()
        away, clocks = [], []
        for i, slot in enumerate(self.slots):
            due = self.away_until(i)
            away.append(None if due is None else max(0, round((due - now) * 1000)))
            deadline = slot.web.deadline if slot.web is not None else None
            clocks.append(None if deadline is None else max(0, round((deadline - now) * 1000)))
        return {"away_ms": away, "clocks": clocks, "leave_s": self.leave_s, "left": self.left,
                "silent_s": heartbeat(self.leave_s)[1]}


def stakes(r: RuleSet) -> dict[str, Any]:
    """What the table's buttons say an action risks or does (the rule set's figures; the engine decides)."""
    return {"declare": r.declare_66, "wrong_declaration": r.wrong_declaration_points,
            "failed_close": r.failed_close_points, "failed_close_no_tricks": r.failed_close_points_no_tricks,
            "exchange_rank": r.exchange_rank, "marriage_lead": r.marriage_lead,
            "marriage_points": r.marriage_points, "trump_marriage_points": r.trump_marriage_points}


class RoomHall:
    """Every room of one server, and the tasks that play them."""

    def __init__(self, registry: TournamentConfig, variants: dict[str, RuleSet], db: Path, limits: Limits,
                 nursery: trio.Nursery, replay_url: Any = None, seed: int | None = None) -> None:
        self.seed = seed  # None: each game's deals from `secrets`; else derived from it and the game's number
        self.registry = registry
        self.variants = variants
        self.db = db
        self.limits = limits
        self.nursery = nursery
        self.rooms: dict[str, Room] = {}
        self.connections: Counter[str] = Counter()
        self.players = {b.name: player_for(registry, b.name, [*self.database_files()]) for b in registry.bots}
        self.stores: dict[str, Store] = {}
        self.replay_url = replay_url  # (variant, match id) -> the URL of the match's replay page
        self.changed: dict[str, int] = Counter()  # variant -> games saved (the replays' renderer watches it)

    # ------------------------------------------------------------------ databases
    def database(self, variant: str) -> Path:
        """A database holds one tournament with one rule set: the first variant's games go to --db itself,
        another's to the same name with the variant before the suffix (arena-serve.schnapsen.db)."""
        if variant == next(iter(self.variants)):
            return self.db
        return self.db.with_name(f"{self.db.stem}.{variant}{self.db.suffix or '.db'}")

    def database_files(self) -> list[Path]:
        out = []
        for v in self.variants:
            db = str(self.database(v))
            out += [Path(db + s) for s in ("", "-wal", "-shm")]
        return out

    def store(self, variant: str) -> Store:
        store = self.stores.get(variant)
        if store is None:
            store = Store(self.database(variant))
            store.open_games(f"serve-{variant}", self.variants[variant].to_dict(), str(self.registry.source),
                             self.registry.text)
            self.stores[variant] = store
        return store

    def close(self) -> None:
        for store in self.stores.values():
            store.close()

    # ------------------------------------------------------------------ rooms
    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.rooms:
                return code

    def _check_caps(self, client: str) -> None:
        if len(self.rooms) >= self.limits.max_rooms:
            raise Refused("full", "the server has as many rooms as it allows; try again later")
        open_rooms = sum(1 for r in self.rooms.values() if r.client == client and r.phase != "over")
        if open_rooms >= self.limits.games_per_client:
            raise Refused("too-many-games", f"at most {self.limits.games_per_client} open games per player",
                          n=self.limits.games_per_client)

    def variant(self, name: str | None) -> str:
        if not name:
            return next(iter(self.variants))
        if name not in self.variants:
            raise Refused("unknown-variant", f"no variant {name!r}", name=name[:30])
        return name

    def seat_name(self, nick: str | None, default: str, taken: tuple[str, ...] = ()) -> tuple[str, bool]:
        """A person's name in the room and the database: the chosen one (cleaned), made distinct from every
        registry bot's and the other seat's ("Ivan 2"), else ``default``; and whether it was chosen."""
        name = clean_nick(nick)
        if name is None:
            return default, False
        used = {n.casefold() for n in (*self.players, *taken, "human", "host", "guest", "person")}
        base, n = name, 1
        while name.casefold() in used:
            n += 1
            name = f"{base[:NICK_MAX - 1 - len(str(n))]} {n}"
        return name, True

    def quick_play(self, opponent: str | None, variant: str | None, client: str,
                   nick: str | None = None) -> tuple[Room, str]:
        """A room of a person (seat 0) against a registry bot, started at once; returns it and the token."""
        bot = opponent or self.registry.bots[0].name
        if bot not in self.players:
            raise Refused("unknown-opponent", f"no opponent {bot!r}", name=bot[:30])
        v = self.variant(variant)
        self._check_caps(client)
        token = secrets.token_urlsafe(24)
        person, named = self.seat_name(nick, "human" if bot != "human" else "person", (bot,))
        room = Room(self._new_code(), v, self.variants[v],
                    [Slot(person, token=token, nick=named), Slot(bot, bot=bot)], client, quick=True,
                    leave_s=self.limits.leave_s)
        room.slots[0].left_at = trio.current_time()
        self.rooms[room.code] = room
        self._start(room)
        return room, token

    def create_room(self, variant: str | None, client: str, nick: str | None = None) -> tuple[Room, str]:
        """A room for two people; the creator takes seat 0, the first to open its link seat 1."""
        v = self.variant(variant)
        self._check_caps(client)
        token = secrets.token_urlsafe(24)
        host, named = self.seat_name(nick, "host")
        room = Room(self._new_code(), v, self.variants[v], [Slot(host, token=token, nick=named), Slot("guest")],
                    client, quick=False, leave_s=self.limits.leave_s)
        room.slots[0].left_at = trio.current_time()
        self.rooms[room.code] = room
        return room, token

    def rematch(self, room: Room, client: str, nick: str | None = None) -> tuple[Room, str | None]:
        """A player of ``room`` asks for another match: Quick Play seats them against the same bot at once; in a
        room the first to ask opens a new room (the other player's page offers its link), the second joins it."""
        if room.quick:
            return self.quick_play(room.slots[1].bot, room.variant, client, nick)
        again = self.rooms.get(room.rematch) if room.rematch else None
        if again is not None:
            return again, self.join(again, nick)
        again, token = self.create_room(room.variant, client, nick)
        room.rematch = again.code
        room.watched.bump()
        return again, token

    def join(self, room: Room, nick: str | None = None) -> str | None:
        """Take the room's free seat (a new token) under the name the visitor chose, or None when there is no
        free seat (the visitor watches)."""
        seat = room.free_seat()
        if seat is None:
            return None
        token = secrets.token_urlsafe(24)
        others = tuple(s.name for i, s in enumerate(room.slots) if i != seat)
        room.slots[seat].name, room.slots[seat].nick = self.seat_name(nick, room.slots[seat].name, others)
        room.slots[seat].token = token
        room.slots[seat].left_at = trio.current_time()
        room.touched = time.monotonic()
        if all(s.token is not None or s.bot is not None for s in room.slots):
            self._start(room)
        room.watched.bump()
        return token

    # ------------------------------------------------------------------ connections
    def connect(self, client: str) -> None:
        if self.connections[client] >= self.limits.connections_per_client:
            raise Refused("too-many-connections", "too many connections from your address")
        self.connections[client] += 1

    def disconnect(self, client: str) -> None:
        self.connections[client] -= 1
        if self.connections[client] <= 0:
            del self.connections[client]

    def attach(self, room: Room, seat: int | None) -> None:
        room.touched = time.monotonic()
        if seat is None:
            room.spectators += 1
            return
        slot = room.slots[seat]
        slot.sockets += 1
        slot.left_at = None
        room.watched.bump()

    def detach(self, room: Room, seat: int | None) -> None:
        room.touched = time.monotonic()
        if seat is None:
            room.spectators -= 1
            return
        slot = room.slots[seat]
        slot.sockets -= 1
        if slot.sockets == 0:
            slot.left_at = trio.current_time()
        room.watched.bump()

    # ------------------------------------------------------------------ playing
    def _start(self, room: Room) -> None:
        room.phase = "playing"
        for i, slot in enumerate(room.slots):
            if slot.bot is None:
                slot.web = WebSeat(slot.name, i, room.watched)
        self.nursery.start_soon(self._play, room)

    def _player(self, slot: Slot) -> Player:
        if slot.bot is not None:
            return self.players[slot.bot]
        web = slot.web
        assert web is not None
        spec = BotSpec(name=slot.name, argv=("browser",), sandbox="none")
        return Player(spec, TimeControl(move_ms=self.limits.human_ms, handshake_ms=HUMAN_HANDSHAKE_MS),
                      connect=web.connect)

    async def _play(self, room: Room) -> None:
        store = self.store(room.variant)
        tournament = f"serve-{room.variant}"
        order = store.next_order(tournament)
        seed = secrets.randbits(63) if self.seed is None else derive_seed(self.seed, room.variant, order)
        room.match_id = f"{'quick' if room.quick else 'room'}-{room.code.lower()}"
        names = (room.slots[0].name, room.slots[1].name)
        spec = MatchSpec(room.match_id, names, order, 0, names[0], names[1], seed, seed, order)
        bots = []
        for slot in room.slots:
            if slot.bot is None:
                bots.append((BotProvenance(slot.name, "", (), ""), "human"))
            else:
                conf = self.registry.bot(slot.bot)
                player = self.players[slot.bot]
                bots.append((BotProvenance(slot.name, conf.command_text, tuple(conf.command),
                                           player.spec.fingerprint or ""), "bot"))
        try:
            store.add_game(tournament, spec, bots)
            players = (self._player(room.slots[0]), self._player(room.slots[1]))
            async with trio.open_nursery() as watch:
                watch.start_soon(self._watch_leaves, room)
                rec = await play_match(room.match_id, players, room.rules, seed, seed, on_change=room.changed,
                                       forfeit=room.forfeit)
                watch.cancel_scope.cancel()
            store.save(rec)
            room.record = rec
            for slot in room.slots:  # a seat ended by a termination is not sent match-end: tell its page
                if slot.web is not None and slot.web.result is None:
                    slot.web.result = {"winner": rec.winner, "score": list(rec.score), "reason": str(rec.reason)}
                    slot.web.legal, slot.web.deadline = [], None
            self.changed[room.variant] += 1
            if self.replay_url is not None:
                room.replay = self.replay_url(room.variant, room.match_id)
        except Exception as e:  # a broken game must not take the server down; say so on the page
            log.exception("room %s failed", room.code)
            room.failure = str(e) or type(e).__name__
        finally:
            room.phase = "over"
            room.touched = time.monotonic()
            room.watched.bump()

    async def _watch_leaves(self, room: Room) -> None:
        """A seat whose person has had no page open for the leave timeout forfeits the match at that moment
        (a ``disconnect``), whoever is to move: the referee is not left waiting for the other person's move
        to find out, and every page is told at once. A page that comes back before then stops the count."""
        while True:
            version = room.watched.version
            due = math.inf
            for i in range(len(room.slots)):
                at = room.away_until(i)
                if at is None:
                    continue
                if trio.current_time() >= at:
                    self._forfeit_leaver(room, i)
                    return
                due = min(due, at)
            with trio.move_on_at(due):
                await room.watched.wait_past(version)  # a page opened or closed, a move: look again

    def _forfeit_leaver(self, room: Room, seat: int) -> None:
        slot = room.slots[seat]
        assert slot.web is not None
        detail = f"the player left the table and did not come back within {self.limits.leave_s:g} s"
        room.left = {"seat": seat, "seconds": self.limits.leave_s}
        room.forfeit.now(seat, Violation(Termination.DISCONNECT, detail))
        slot.web.leave(detail)
        score = list(room.match.score) if room.match is not None else [0, 0]
        for other in room.slots:  # every page says so now, not after the referee's last lines and the save
            if other.web is not None and other.web.result is None:
                other.web.result = {"winner": 1 - seat, "score": score, "reason": str(Termination.DISCONNECT)}
                other.web.legal, other.web.deadline = [], None
        room.watched.bump()

    # ------------------------------------------------------------------ expiry
    async def expire(self) -> None:
        """Drop rooms nobody joined and finished rooms nobody watches, after the idle time."""
        while True:
            await trio.sleep(min(10.0, max(0.2, self.limits.idle_s / 4)))
            now = time.monotonic()
            for code, room in list(self.rooms.items()):
                watched = room.spectators + sum(s.sockets for s in room.slots)
                if room.phase != "playing" and now - room.touched >= self.limits.idle_s and not watched:
                    del self.rooms[code]
