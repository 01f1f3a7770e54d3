"""Bot processes for a stream of matches: kept across matches when reuse is on, else one per match."""

from __future__ import annotations

from collections.abc import Mapping

import trio

from arena.game.variants import RuleSet
from arena.referee.match import BotHandle, Player, play_match
from arena.referee.policy import ViolationPolicy
from arena.referee.record import MatchRecord, MatchSpec


class MatchPool:
    """Bot processes kept across matches when reuse is on (else each match starts its own).

    A kept process is never handed a match whose deals it has seen: in the other game of a duplicate pair
    it would hold the cards it saw its opponent play. Nor is it alive while such a match plays: it would be
    a live twin of its own, which could pass the hand on through what two sandboxes share at once (the pages
    it loads, docs/SECURITY.md). Before a match starts, every kept process that has seen its deals is ended
    (waited for first, when it is playing another match), and its cgroup reclaimed with it."""

    def __init__(self, nursery: trio.Nursery, reuse: bool) -> None:
        self.nursery = nursery
        self.reuse = reuse
        self.idle: dict[str, list[BotHandle]] = {}
        self.busy: list[BotHandle] = []  # kept processes playing now (reuse only)
        self._given_back = trio.Event()  # set (and replaced) whenever a handle is given back

    def take(self, player: Player, deal_seed: int) -> BotHandle:
        idle = self.idle.get(player.spec.name, [])
        for i in reversed(range(len(idle))):
            if deal_seed not in idle[i].deal_seeds:
                handle = idle.pop(i)
                break
        else:
            handle = BotHandle(player, self.nursery)
        handle.deal_seeds.add(deal_seed)
        return handle

    async def give_back(self, handle: BotHandle) -> None:
        if handle in self.busy:
            self.busy.remove(handle)
        if self.reuse and handle.bot is not None and handle.bot.alive:
            self.idle.setdefault(handle.name, []).append(handle)
        else:
            await handle.quit()
        self._given_back.set()
        self._given_back = trio.Event()

    async def retire(self, deal_seed: int) -> None:
        """End every kept process that has seen ``deal_seed``'s deals, waiting for those playing now."""
        while True:
            seen = [h for handles in self.idle.values() for h in handles if deal_seed in h.deal_seeds]
            for name, handles in self.idle.items():
                self.idle[name] = [h for h in handles if deal_seed not in h.deal_seeds]
            for h in seen:  # (its cgroup reclaimed: bot.stop)
                await h.quit()
            if not any(deal_seed in h.deal_seeds for h in self.busy):
                return
            await self._given_back.wait()

    async def close(self) -> None:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as n:
                for handles in self.idle.values():
                    for h in handles:
                        n.start_soon(h.quit)
            self.idle.clear()

    async def play(self, spec: MatchSpec, players: Mapping[str, Player], rules: RuleSet,
                   policy: ViolationPolicy) -> MatchRecord:
        if self.reuse:
            await self.retire(spec.deal_seed)
        handles = (self.take(players[spec.seat0], spec.deal_seed), self.take(players[spec.seat1], spec.deal_seed))
        if self.reuse:
            self.busy.extend(handles)
        try:
            return await play_match(spec.match_id, (handles[0].player, handles[1].player), rules,
                                    spec.deal_seed, spec.match_seed, policy, handles=handles,
                                    keep=self.reuse)
        finally:
            with trio.CancelScope(shield=True):
                for h in handles:
                    await self.give_back(h)
