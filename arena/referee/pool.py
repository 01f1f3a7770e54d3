"""Bot processes for a stream of matches: kept across matches when reuse is on, else one per match."""

from __future__ import annotations

from collections.abc import Mapping

import trio

from arena.game.variants import RuleSet
from arena.referee.match import BotHandle, Player, play_match
from arena.referee.policy import ViolationPolicy
from arena.referee.record import MatchRecord, MatchSpec


class MatchPool:
    """Bot processes kept across matches when reuse is on (else each match starts its own)."""

    def __init__(self, nursery: trio.Nursery, reuse: bool) -> None:
        self.nursery = nursery
        self.reuse = reuse
        self.idle: dict[str, list[BotHandle]] = {}

    def take(self, player: Player) -> BotHandle:
        idle = self.idle.get(player.spec.name)
        return idle.pop() if idle else BotHandle(player, self.nursery)

    async def give_back(self, handle: BotHandle) -> None:
        if self.reuse and handle.bot is not None and handle.bot.alive:
            self.idle.setdefault(handle.name, []).append(handle)
        else:
            await handle.quit()

    async def close(self) -> None:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as n:
                for handles in self.idle.values():
                    for h in handles:
                        n.start_soon(h.quit)
            self.idle.clear()

    async def play(self, spec: MatchSpec, players: Mapping[str, Player], rules: RuleSet,
                   policy: ViolationPolicy) -> MatchRecord:
        handles = (self.take(players[spec.seat0]), self.take(players[spec.seat1]))
        try:
            return await play_match(spec.match_id, (handles[0].player, handles[1].player), rules,
                                    spec.deal_seed, spec.match_seed, policy, handles=handles,
                                    keep=self.reuse)
        finally:
            with trio.CancelScope(shield=True):
                for h in handles:
                    await self.give_back(h)
