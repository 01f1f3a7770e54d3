"""`arena ladder`: a standing competition in one database (docs/LADDER.md).

Bot versions are added at any time; each is admitted (arena check's compliance run and one validation pair
against itself, in the sandbox) before it is rated. `run_ladder` plays rated duplicate pairs chosen by
`arena.stats.ladder.next_pair` through the same runner, executors and store as `arena run`.

Resuming is exact. Pair ``k`` is chosen from the results of pairs ``0 .. k - W`` only (``W``, the pairs in
flight, is fixed when the ladder is made) with a generator seeded by the ladder's seed and ``k``, and recorded
before it plays; results are applied to the ratings in pair order. So whichever pairs finished first, and
however often the run was killed and resumed, the same seed gives the same pairs, results and standings.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import random
import re
import secrets
import shlex
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from arena.botspec import BotSpecError, OutsideError, confine_command, fingerprint, resolve_command, split_command
from arena.errors import ConfigError
from arena.game.variants import RuleSet
from arena.levels import BOTS as LEVELS_BOTS
from arena.levels import BY_NAME as LEVELS_BY_NAME
from arena.levels import LEVELS
from arena.referee.clock import TimeControl
from arena.referee.match import Player
from arena.referee.policy import ViolationPolicy
from arena.referee.process import Limits
from arena.referee.record import MatchRecord, MatchSpec
from arena.referee.sandbox import process_gone
from arena.seeds import derive_seed
from arena.stats.ladder import (
    Belief,
    Entrant,
    LadderRating,
    LadderState,
    PairResult,
    choose_pair,
    prior,
    ratings_from,
)
from arena.stats.ratings import ELO_PER_NAT
from arena.stats.results import Z95
from arena.store.ladder import LADDER, LadderPair, LadderStore, LadderVersion, data_folder
from arena.store.store import _now
from arena.tournament.build import BuildLimits, run_builds
from arena.tournament.config import (
    BotConfig,
    ConfigFileError,
    ExecutorConfig,
    Problem,
    TournamentConfig,
    name_problem,
)
from arena.tournament.executors import Executor, open_executor
from arena.tournament.runner import player_for, run_matches
from arena.units import printable

#: A timeout is the bot's fault only if the referee itself was not later than this past a deadline (its
#: worst measured lag in the match, MatchRecord.max_lag_ms); otherwise the pair is voided and played again.
LATE_MS = 25.0
#: A pair voided this many times for the referee's lag counts as played the next time.
MAX_ATTEMPTS = 3
#: A host whose share of matches ending in a termination is this many times the others' (and at least
#: FLAG_MIN_MATCHES matches) is flagged in the standings.
FLAG_RATIO = 3.0
FLAG_MIN_MATCHES = 10
#: Characters of a bot's name on the ladder (its versions are named ``NAME.FINGERPRINT8``).
MAX_PROGRAM_NAME = 55
Log = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


@dataclass(frozen=True)
class LadderSettings:
    """What `init` fixes: the clocks, the violation policy and the pairs in flight (W)."""

    time: TimeControl
    policy: str = ViolationPolicy.LOSE_MATCH.value
    pairs_in_flight: int = 2
    # what rating 0 is on the pages: "mean" (the mean of the rated versions in play) or a bot's name (its
    # current version); the model's ratings float, and an anchor makes a number mean the same all semester
    anchor: str = "mean"

    def to_dict(self) -> dict[str, Any]:
        return {"time": self.time.to_dict(), "policy": self.policy, "pairs_in_flight": self.pairs_in_flight,
                "anchor": self.anchor}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LadderSettings:
        return cls(TimeControl(**d["time"]), d["policy"], d["pairs_in_flight"], d.get("anchor", "mean"))


@dataclass(frozen=True)
class Ladder:
    """An open ladder's fixed parts."""

    path: Path
    rules: RuleSet
    settings: LadderSettings
    seed: int


def open_ladder(store: LadderStore) -> Ladder:
    rules, settings, seed = store.ladder_settings()
    return Ladder(store.path, RuleSet.from_dict(rules), LadderSettings.from_dict(settings), seed)


def init_ladder(path: Path, rules: RuleSet, settings: LadderSettings, seed: int | None = None) -> int:
    """Make a new ladder at ``path``; its seed (drawn when not given)."""
    seed = secrets.randbits(63) if seed is None else seed
    with LadderStore(path) as store:
        store.init_ladder(rules.to_dict(), settings.to_dict(), seed)
    return seed


# ---------------------------------------------------------------------------------------------- versions
def version_key(name: str, fp: str) -> str:
    return f"{name}.{fp[:8]}"


#: The anchor that puts the house levels at their measured Elo (`anchored`), as `init --anchor levels` sets it.
LEVELS_ANCHOR = "levels"


@dataclass(frozen=True)
class Added:
    """What `add_version` did: ``status`` admitted, refused or same (an identical program: nothing added)."""

    key: str
    status: str
    reason: str = ""
    detail: str = ""  # what the bot or its build did, behind a refusal (for its author and the organiser)


class Refusal(ConfigError):
    """A version refused before it could play: ``reason`` is for everyone (the leaderboard), ``detail`` for
    its author alone (what its build or check printed, which may quote its own files)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail


def register_version(store: LadderStore, name: str, command: str, author: str = "", build: str | None = None,
                     base_dir: Path | None = None, sandbox: str | None = None, cwd: Path | None = None, *,
                     confined: bool = False, organiser: bool = True,
                     build_limits: BuildLimits | None = None) -> LadderVersion | Added:
    """Check and record a new version as 'pending' (after its build, if any); `Added` with status ``same``
    when this exact program is on the ladder already. ConfigError for a bad name or command, or a failing
    build (a `Refusal` when ``confined``). The command's paths are relative to ``base_dir`` (default: the
    current folder); the bot runs in ``cwd`` (read-only in the sandbox, as a tournament bot's `cwd`), or in a
    fresh folder of its own.

    ``confined``: the command is a stranger's (an upload), and ``cwd`` holds its files: it is resolved
    there and may name nothing outside it (arena.botspec.confine_command), and its build writes ``cwd``
    alone. Unless ``organiser``, a name that belongs to another author (`LadderStore.name_owner`) is refused."""
    wrong = name_problem(name)
    if wrong is not None or len(name) > MAX_PROGRAM_NAME:
        raise Refusal(f"NAME: {wrong[0]}; expected {wrong[1]}" if wrong else
                      f"NAME: {name[:20]}... is too long; expected at most {MAX_PROGRAM_NAME} characters")
    if not organiser:
        owner = store.name_owner(name)
        if owner is not None and owner != author:
            raise Refusal(f"the name {name} belongs to another author; choose a name of your own")
    if confined and cwd is None:
        raise ValueError("a confined version needs its folder (cwd)")
    base = cwd if confined and cwd is not None else base_dir or Path.cwd()
    build_output = None
    if confined:
        _confine(command, base, check=False)  # before its build runs: a path outside is refused at once
    if build is not None:
        try:
            build_output = _build(store, name, command, build, base, sandbox, confined, build_limits)
        except ConfigFileError as e:
            if not confined:
                raise
            raise Refusal("its build failed", printable(str(e))) from None
    argv = tuple(_confine(command, base) if confined else resolve_command(command, base))
    fp = fingerprint(argv)
    for v in store.versions():
        if v.fingerprint != fp:
            continue
        resumed = claim_abandoned(store, v)
        if resumed is not None:  # its admission died with its process: this add checks it again
            return resumed
        if v.status != "refused":
            return Added(v.key, "same", f"this program is already on the ladder as {v.key} ({v.status})")
    key = version_key(name, fp)
    if store.version(key) is not None:  # refused before: this same program is checked again
        store.forget_version(key)
    version = LadderVersion(key, name, author, command, argv, None if cwd is None else str(cwd), build, fp, "pending",
                            _admitting(), _now(), None, None)
    store.add_version(version, build_output)
    return version


def _confine(command: str, folder: Path, check: bool = True) -> list[str]:
    """`confine_command`, its errors a `Refusal` (the word at fault for the author alone)."""
    try:
        return confine_command(command, folder, check)
    except BotSpecError as e:
        why = "its command names a path outside its own folder" if isinstance(e, OutsideError) else \
            "its command cannot be started"
        raise Refusal(why, str(e)) from None


_ADMITTING = re.compile(r"being admitted by pid (\d+) on (\S+)")


def _admitting() -> str:
    """A pending version's reason while this process admits it: who does, so that a later add can tell an
    admission still running from one whose process died (Ctrl-C in `add`, a server stopped mid-upload)."""
    return f"being admitted by pid {os.getpid()} on {socket.gethostname()}"


def abandoned(version: LadderVersion) -> bool:
    """A pending version whose admitting process is gone. Only a process on this machine can be looked at;
    one elsewhere (a database on a shared disk) is taken to be running."""
    m = _ADMITTING.fullmatch(version.reason) if version.status == "pending" else None
    return m is not None and m[2] == socket.gethostname() and process_gone(int(m[1]))


def claim_abandoned(store: LadderStore, version: LadderVersion) -> LadderVersion | None:
    """The version, now marked as this process's to admit, if it was abandoned; None if it was not, or if
    another process claimed it first (the mark is swapped only where it is still the dead one)."""
    if not abandoned(version):
        return None
    mine = dataclasses.replace(version, reason=_admitting())
    return mine if store.swap_pending_reason(version.key, version.reason, mine.reason) else None


def _cwd(version: LadderVersion) -> Path | None:
    return None if version.cwd is None else Path(version.cwd)


def _build(store: LadderStore, name: str, command: str, build: str, base: Path, sandbox: str | None,
           confined: bool = False, limits: BuildLimits | None = None) -> str:
    """Run a version's build as a tournament's (in the sandbox the version will play in); its output. Its
    command's paths are taken in ``base``, never in the current folder: they say which folders it writes."""
    ladder = open_ladder(store)
    config = ladder_config(ladder, [], sandbox or "auto", ExecutorConfig(), 1)
    try:
        argv = tuple(split_command(command, base))
    except BotSpecError as e:
        raise ConfigFileError([Problem(str(base), None, "command", str(e), "a command line")]) from None
    bot = BotConfig(name, argv, command, cwd=base, build=build, confined=confined)
    config = dataclasses.replace(config, bots=(bot,), source=base / "arena-ladder-add")
    return run_builds(config, limits=limits, check=not confined)[name].output


def ladder_secrets(path: Path) -> list[Path]:
    """What of a ladder no bot or build may see, even where it lies in a folder shown to one: the database
    (with its WAL, shared-memory and lock files), its report and the uploaded bots' folder (each upload
    sees its own folder inside it, and nothing else there)."""
    db = str(path)
    return [*(Path(db + suffix) for suffix in ("", "-wal", "-shm", ".lock")), Path(f"{db}.report"),
            data_folder(path)]


def admit(store: LadderStore, version: LadderVersion, sandbox: str | None = None) -> Added:
    """Admission: arena check's compliance run in the ladder's variant, then one validation duplicate pair
    against itself; the version is admitted, or refused with the reason (stored: a short one for everyone,
    and what the bot did, for its author). Costs no rating. The check sees none of the ladder's files and
    plays deals of its own (never derived from the ladder's seed as the rated pairs' are)."""
    from arena.compliance import Status, check_bot

    ladder = open_ladder(store)
    detail = ""
    try:
        report = check_bot(shlex.join(version.argv), variants=[ladder.rules],
                           seed=derive_seed(ladder.seed, "admission", version.key) % 2**31,
                           time_control=ladder.settings.time, sandbox=sandbox, matches=1, cwd=_cwd(version),
                           secrets=ladder_secrets(ladder.path))
        failed = [c for c in report.checks if c.status is Status.FAIL] or [
            c for c in report.checks if c.status is Status.NOT_REACHED]
        # the first failure says what to fix; the rest (a bot that crashes fails them all alike) would bury it
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        # the terminations' kinds are arena's own words (crash, timeout, ...): public; what the bot said is not
        kinds = sorted({str(t.kind) for rec in report.records for t in rec.terminations})
        ended = f"; the bot ended in {', '.join(kinds)}" if kinds else ""
        reason = "" if report.passed else f"arena check: {failed[0].status}: {failed[0].title}{more}{ended}"
        detail = "\n".join(f"{c.status}: {c.title}" + (f": {c.detail}" if c.detail else "") for c in failed)
    except ConfigError as e:
        reason, detail = "arena check: the bot could not be started", str(e)
    if not reason:
        reason, detail = _validation_pair(ladder, version, sandbox)
    store.decide_version(version.key, not reason, " ".join(reason.split())[:500], detail=private_text(detail))
    return Added(version.key, "refused" if reason else "admitted", reason, private_text(detail))


#: An upload's command is confined to its folder, and its build writes that folder alone (tests switch it off
#: to show what it closes: a command naming another author's folder, the database's or /etc made its build
#: write there, and its check show it).
CONFINE_UPLOADS = True
#: Characters of a refusal's detail kept for its author.
MAX_DETAIL = 8000


def private_text(text: str) -> str:
    """A refusal's detail as kept for its author and shown on their page: control characters and bidi
    overrides shown as ``?`` (`arena.units.printable`), its last MAX_DETAIL characters (a build's errors
    come last)."""
    text = printable(text)
    return text if len(text) <= MAX_DETAIL else "…" + text[-MAX_DETAIL:]


def _relative(text: str, folder: Path) -> str:
    """``text`` with the upload's folder written as the author knows it, relative."""
    return text.replace(f"{folder}/", "").replace(str(folder), ".")


def admit_upload(store: LadderStore, name: str, command: str, build: str | None, author: str, folder: Path,
                 sandbox: str | None = None, build_limits: BuildLimits | None = None) -> Added:
    """An upload's whole admission, as `arena serve --ladder` runs it: its command confined to ``folder`` (the
    upload's files), its build (writing ``folder`` alone), the name's owner, registration, `admit`. A
    refusal is recorded (a public reason, and the detail for its author); ``same`` when this program is on
    the ladder already."""
    try:
        got = register_version(store, name, command, author, build, base_dir=folder, sandbox=sandbox, cwd=folder,
                               confined=CONFINE_UPLOADS, organiser=False, build_limits=build_limits)
    except ConfigError as e:
        reason, detail = (e.reason, private_text(_relative(e.detail, folder))) if isinstance(e, Refusal) else \
            (str(e), "")
        return Added(store.record_refusal(name, author, command, reason, detail), "refused", reason, detail)
    if isinstance(got, LadderVersion):
        added = admit(store, got, sandbox)
        if added.detail:  # its folder's path is the server's business: the author knows it as "."
            added = dataclasses.replace(added, detail=_relative(added.detail, folder))
            store.set_detail(added.key, added.detail)
        return added
    store.record_refusal(name, author, command, got.reason)  # say so where its author looks
    return got


def _validation_pair(ladder: Ladder, version: LadderVersion, sandbox: str | None) -> tuple[str, str]:
    """Why the version fails a duplicate pair against itself, and the detail (("", "") when it plays both
    matches cleanly)."""
    twin = f"{version.key}-twin"
    config = ladder_config(ladder, [version, dataclasses.replace(version, key=twin)], sandbox or "auto",
                           ExecutorConfig(), 1)
    players = {b.name: player_for(config, b.name, ladder_secrets(ladder.path)) for b in config.bots}
    specs = pair_specs(ladder.seed, "validation", 0, 0, version.key, twin)
    records: list[MatchRecord] = []

    async def play() -> None:
        async with open_executor(players, ladder.rules, config.on_violation, False, 1, 1) as executor:
            await run_matches(specs, executor, 1, None, lambda spec, rec: records.append(rec))

    trio.run(play)
    for rec in records:
        for t in rec.terminations:
            return f"validation pair against itself: {t.kind}", f"{t.kind} in {rec.match_id}: {t.detail}"
    return "", ""


# ---------------------------------------------------------------------------------------------- the schedule
def pair_specs(seed: int, kind: str, number: int, attempt: int, first: str, second: str,
               order: int = 0) -> list[MatchSpec]:
    """The two matches of a duplicate pair: same deals, seats swapped."""
    prefix = {"rated": "L", "challenge": "C", "validation": "V"}[kind]
    deal_seed = derive_seed(seed, "ladder", kind, number, attempt, "deals")
    return [MatchSpec(
        match_id=f"{prefix}{number}-{first}-vs-{second}-a{attempt}-g{game}", pairing=(first, second),
        pair_index=number, game=game, seat0=seats[0], seat1=seats[1], deal_seed=deal_seed,
        match_seed=derive_seed(seed, "ladder", kind, number, attempt, "match", game), order=order + game,
    ) for game, seats in enumerate(((first, second), (second, first)))]


def entrants_at(versions: Sequence[LadderVersion], seq: int) -> list[Entrant]:
    """The versions rated pair ``seq`` may see: placed before it, active unless retired by then."""
    return [Entrant(v.key, v.program, v.until_pair is None or v.until_pair > seq) for v in versions
            if v.since_pair is not None and v.since_pair <= seq]


def rated_results(pairs: Sequence[LadderPair], upto: int) -> list[PairResult]:
    """The finished rated pairs with seq < ``upto``, in seq order."""
    return [PairResult(p.first, p.second, p.score) for p in pairs
            if p.seq is not None and p.seq < upto and p.status == "done" and p.score is not None]


def standings(store: LadderStore) -> list[LadderRating]:
    """The ladder's ratings now (every applied pair), best first.

    Read from each version's last history point, not by replaying every pair (seconds on a long ladder, for
    every page of the leaderboard): a rating moves only at its own pairs, so its last point is its belief
    now; the ranks, which depend on everyone's, are computed afresh from those beliefs."""
    latest = store.latest_ratings()
    entrants = [Entrant(v.key, v.program, v.status == "admitted") for v in store.versions() if v.since_pair is not None]
    return ratings_from(entrants, {e.key: _belief(latest.get(e.key)) for e in entrants})


@dataclass(frozen=True)
class Board:
    """The leaderboard as `ladder standings` and `arena serve --ladder` show it."""

    rows: list[dict[str, Any]]  # the placed versions, best first, each retired one below its name's current one
    waiting: list[dict[str, str]]  # the versions not rated yet: being checked, refused, or waiting for a pair
    flagged: list[str]  # hosts that end matches in terminations far more often than the rest
    anchor: str = "mean"  # what rating 0 is: "mean", or a bot's name
    offset: float = 0.0  # what was taken off the model's ratings to put the anchor at 0


#: A version's state, in the one vocabulary of the pages and the CLI (arena.serve.i18n has the words).
STATES = {"pending": "checking", "refused": "refused", "admitted": "rated", "retired": "retired"}


def state_of(version: LadderVersion) -> str:
    """``checking`` (its admission runs), ``refused``, ``waiting`` (admitted, placed by the next rated pair),
    ``rated`` or ``retired``."""
    if version.status == "admitted" and version.since_pair is None:
        return "waiting"
    return STATES.get(version.status, version.status)


def anchored(store: LadderStore, ratings: Sequence[LadderRating] | None = None,
             anchor: str | None = None) -> tuple[list[LadderRating], float]:
    """The ratings (default: `standings`) with the ladder's anchor at 0, and the offset taken off: the
    anchor's current version's rating, or the mean of the versions in play (also when the anchor's name
    has no version in play yet). Anchor ``levels``: the offset puts the house levels in play (`add_levels`) at
    their measured Elo on average (Level 1 = 0), so every rating reads on the levels' scale; the levels whose
    strength depends on the machine (a think time) are rated, and do not anchor. Only what is
    shown moves: the model, its choices and ranks do not."""
    ratings = list(standings(store) if ratings is None else ratings)
    anchor = open_ladder(store).settings.anchor if anchor is None else anchor
    versions = {v.key: v for v in store.versions()}
    playing = [r for r in ratings if versions[r.key].status == "admitted"]
    if anchor == LEVELS_ANCHOR:  # the house levels in play at their measured Elo, on average (arena/levels.py)
        house = {r.key: LEVELS_BY_NAME.get(versions[r.key].program) for r in playing}
        fixed = [r.rating - level.elo for r in playing if (level := house[r.key]) is not None and level.deterministic]
        fixed = [sum(fixed) / len(fixed)] if fixed else []
    else:
        fixed = [r.rating for r in playing if versions[r.key].program == anchor]
    offset = fixed[-1] if fixed else (sum(r.rating for r in playing) / len(playing) if playing else 0.0)
    return [dataclasses.replace(r, rating=r.rating - offset, low=r.low - offset, high=r.high - offset)
            for r in ratings], offset


def board(store: LadderStore, flagged: list[str] | None = None) -> Board:
    """The leaderboard; ``flagged``: the flagged hosts, when the caller keeps them (None: counted now)."""
    versions = {v.key: v for v in store.versions()}
    anchor = open_ladder(store).settings.anchor
    ratings, offset = anchored(store, anchor=anchor)
    rows = [{"key": r.key, "name": versions[r.key].program, "version": r.key.rsplit(".", 1)[-1],
             "author": versions[r.key].author, "active": versions[r.key].status == "admitted",
             "rating": r.rating, "low": r.low, "high": r.high, "rank": r.rank, "rank_low": r.rank_low,
             "rank_high": r.rank_high, "provisional": r.provisional, "pairs": r.pairs} for r in ratings]
    # a retired version goes below its name's current one (or, its name gone, to the end), newest first
    current = [r for r in rows if r["active"]]
    retired = [r for r in rows if not r["active"]]
    added = {key: n for n, key in enumerate(versions)}
    order = sorted(retired, key=lambda r: -added[str(r["key"])])
    placed = []
    for row in current:
        placed.append(row)
        placed += [r for r in order if r["name"] == row["name"]]
    placed += [r for r in order if r not in placed]
    waiting = [{"key": v.key, "state": state_of(v), "status": v.status, "reason": v.reason}
               for v in versions.values() if state_of(v) in ("checking", "refused", "waiting")]
    return Board(placed, waiting, flagged_hosts(store) if flagged is None else flagged, anchor, offset)


def _belief(rating: LadderRating | None) -> Belief:
    """The belief a stored rating was made from (a version without a pair yet holds the prior)."""
    if rating is None:
        return prior()
    sd = (rating.high - rating.rating) / (Z95 * ELO_PER_NAT)
    return Belief(rating.rating / ELO_PER_NAT, sd * sd, rating.pairs)


class Cursor:
    """The ratings' state over the rated results in seq order, moved forward only: a run keeps one for the
    choices and one for the history, so each pair costs one update, not a replay of the ladder's past."""

    def __init__(self) -> None:
        self.state = LadderState()
        self.applied = 0  # results applied: those of seqs 0 .. applied - 1

    def upto(self, pairs: Sequence[LadderPair], seq: int, entrants: Sequence[Entrant]) -> LadderState:
        """The state after the results of seqs below ``seq`` (all finished), with every entrant in it."""
        results = rated_results(pairs, seq)
        assert len(results) >= self.applied, "a cursor only moves forward"
        for r in results[self.applied:]:
            self.state.apply(r)
        self.applied = len(results)
        for e in entrants:
            self.state.add(e.key)
        return self.state


def apply_ready(store: LadderStore, cursor: Cursor | None = None) -> list[int]:
    """Apply, in seq order, every finished rated pair whose predecessors are all applied: its two versions'
    ratings join the history. The seqs applied. ``cursor``: the run's, at the history's end."""
    pairs = store.pairs("rated")
    versions = store.versions()
    cursor = cursor or Cursor()
    done: list[int] = []
    points: list[tuple[int, LadderRating]] = []
    for i, p in enumerate(pairs):
        assert p.seq is not None
        if p.applied:
            continue
        if p.status != "done" or any(q.status != "done" for q in pairs[:i]):
            break
        entrants = entrants_at(versions, p.seq + 1)
        ratings = ratings_from(entrants, cursor.upto(pairs, p.seq + 1, entrants).beliefs)
        points += [(p.seq, r) for r in ratings if r.key in (p.first, p.second)]
        done.append(p.id)
    if done:
        store.apply(done, points)
    return [p.seq for p in pairs if p.id in done and p.seq is not None]


def flagged_hosts(store: LadderStore) -> list[str]:
    """Hosts whose termination rate stands out: FLAG_RATIO times the rest's (with enough matches)."""
    rates = store.host_rates()
    out = []
    for h in rates:
        others = [r for r in rates if r.host != h.host]
        rest_m = sum(r.matches for r in others)
        rest_t = sum(r.terminations for r in others)
        if not others or h.matches < FLAG_MIN_MATCHES or h.terminations == 0:
            continue
        rest_rate = (rest_t + 1) / (rest_m + 2)  # one termination in two matches' worth of prior: never zero
        if h.terminations / h.matches >= FLAG_RATIO * rest_rate:
            out.append(h.host)
    return out


# ---------------------------------------------------------------------------------------------- playing
def ladder_config(ladder: Ladder, versions: Sequence[LadderVersion], sandbox: str, executor: ExecutorConfig,
                  workers: int) -> TournamentConfig:
    """The ladder as the runner and executors see a tournament: its rules, clocks and these versions."""
    tc = ladder.settings.time
    return TournamentConfig(
        name=LADDER, rules=ladder.rules, format="round-robin", challenger=None, rounds=1, duplicate=True,
        seed=ladder.seed, concurrency=ladder.settings.pairs_in_flight, workers=workers, time=tc,
        on_violation=ViolationPolicy(ladder.settings.policy), limits=Limits(), reuse_bots=False,
        bots=tuple(BotConfig(v.key, v.argv, v.command, time=tc, cwd=_cwd(v)) for v in versions),
        database=ladder.path, report_dir=Path(f"{ladder.path}.report"), source=ladder.path, text="", hash="",
        sandbox=None if sandbox == "auto" else sandbox,  # type: ignore[arg-type]
        executor=executor,
    )


def _players(config: TournamentConfig, versions: Sequence[LadderVersion]) -> dict[str, Player]:
    """Each version as the referee runs it, held to the fingerprint it was added with: a program changed
    since on disk ends its seat in ``tampered`` instead of playing under the old version's name."""
    out = {}
    for v in versions:
        p = player_for(config, v.key, ladder_secrets(config.database))
        out[v.key] = dataclasses.replace(p, spec=dataclasses.replace(p.spec, fingerprint=v.fingerprint))
    return out


def host_name(executor: ExecutorConfig) -> str:
    """What a match's row says played it: this machine, or the Dask cluster."""
    return socket.gethostname() if executor.kind == "local" else f"dask:{executor.address or 'local'}"


@dataclass
class RunOptions:
    pairs: int | None = None  # stop once the ladder holds this many rated pairs
    seconds: float | None = None  # stop choosing new pairs after this long
    sandbox: str = "auto"
    executor: ExecutorConfig = ExecutorConfig()
    workers: int = 1
    poll_s: float = 0.5  # how often an idle run looks for new versions


class _Run:
    """One `run_ladder`: W slots, each playing one pair at a time; one chooser at a time, in seq order."""

    def __init__(self, store: LadderStore, ladder: Ladder, options: RunOptions, log: Log) -> None:
        self.store, self.ladder, self.options, self.log = store, ladder, options, log
        self.window = ladder.settings.pairs_in_flight
        self.deadline = None if options.seconds is None else time.monotonic() + options.seconds
        self.choosing = trio.Lock()
        self.changed = trio.Event()  # set (and replaced) when a pair finishes
        self.host = host_name(options.executor)
        self.reopen = False
        self.said_waiting = False
        self.played = 0
        self.for_choices = Cursor()  # results of pairs 0 .. k - W, for choosing pair k
        self.for_history: Cursor | None = None  # the applied results, from the first application on

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def finished(self) -> bool:
        return self.options.pairs is not None and self.store.count_done_rated() >= self.options.pairs

    async def epoch(self) -> bool:
        """Play with the versions placed now until done, out of time or a new version waits. True: go on."""
        store = self.store
        store.place_new_versions(store.next_seq())
        versions = [v for v in store.versions() if v.since_pair is not None]
        replays = store.pairs("rated", "chosen")  # chosen by a run that stopped, or voided since
        self.reopen = False
        config = ladder_config(self.ladder, versions, self.options.sandbox, self.options.executor,
                               self.options.workers)
        dask = None
        if config.executor.kind == "dask":
            from arena.tournament.dask_executor import plan_dask

            dask = plan_dask(config)
        players = _players(config, versions)
        async with open_executor(players, self.ladder.rules, config.on_violation, False, config.workers,
                                 self.window, dask) as executor:
            async with trio.open_nursery() as nursery:
                for _ in range(self.window):
                    nursery.start_soon(self.slot, executor, replays)
        if self.reopen:
            return True
        if self.finished() or self.out_of_time():
            return False
        return True

    async def slot(self, executor: Executor, replays: list[LadderPair]) -> None:
        while True:
            if replays:
                pair = replays.pop(0)
            else:
                chosen = await self.choose()
                if chosen is None:
                    return
                pair = chosen
            await self.play(executor, pair)

    async def choose(self) -> LadderPair | None:
        """The next rated pair, chosen and recorded; None when this epoch is to end."""
        async with self.choosing:
            while True:
                if self.reopen or self.out_of_time():
                    return None
                seq = self.store.next_seq()
                if self.options.pairs is not None and seq >= self.options.pairs:
                    return None
                if self.store.versions("admitted") and any(
                        v.since_pair is None for v in self.store.versions("admitted")):
                    self.reopen = True  # a new version: the executor is opened again with it
                    return None
                pairs = self.store.pairs("rated")
                if all(p.status == "done" for p in pairs if p.seq is not None and p.seq <= seq - self.window):
                    versions = self.store.versions()
                    rng = random.Random(derive_seed(self.ladder.seed, "ladder", "choose", seq))
                    entrants = entrants_at(versions, seq)
                    state = self.for_choices.upto(pairs, max(0, seq - self.window + 1), entrants)
                    # every pairing chosen before, recorded before it played; those after seq - W are in flight
                    recent = [(p.first, p.second) for p in pairs if p.seq is not None and p.seq < seq]
                    in_flight = sum(1 for p in pairs if p.seq is not None and seq - self.window < p.seq < seq)
                    pick = choose_pair(entrants, state.beliefs, state.played, rng, recent=recent,
                                       in_flight=in_flight)
                    if pick is not None:
                        pair_id = self.store.choose_pair(seq, "rated", *pick)
                        return self.store.pair(pair_id)
                    if not self.said_waiting:
                        self.log("waiting for a second admitted bot (arena ladder DB add ...)")
                        self.said_waiting = True
                    with trio.move_on_after(self.options.poll_s):  # new versions arrive from other processes
                        await self.changed.wait()
                else:
                    await self.changed.wait()

    async def play(self, executor: Executor, pair: LadderPair) -> None:
        """Play a pair's missing matches; void and replay an attempt whose timeout the referee's lag caused."""
        store = self.store
        while True:
            number = pair.seq if pair.seq is not None else pair.id
            specs = pair_specs(self.ladder.seed, pair.kind, number, pair.attempt, pair.first, pair.second,
                               store.next_order(LADDER))
            todo = []
            for spec in specs:
                if store.match_done(spec.match_id) is None:
                    store.schedule_match(pair.id, spec, self.host)
                    todo.append(spec)
            await run_matches(todo, executor, 1, None, lambda spec, rec: store.save(rec))
            outcomes = [store.match_done(spec.match_id) for spec in specs]
            # the lag of a match in which a bot timed out (each match's own: the other may have been late)
            lag = max((o[2] for spec, o in zip(specs, outcomes, strict=True) if o is not None and any(
                t.kind == "timeout" for t in store.match_terminations(spec.match_id))), default=0.0)
            if lag > LATE_MS and pair.attempt + 1 < MAX_ATTEMPTS:
                store.void_attempt(pair.id, f"timeout while the referee was {lag:.0f} ms late")
                self.log(f"pair {number}: a timeout while the referee was {lag:.0f} ms late; played again")
                pair = store.pair(pair.id)
                continue
            score = sum(1.0 if o[0] == pair.first else 0.5 if o[0] is None else 0.0
                        for o in outcomes if o is not None)
            store.finish_pair(pair.id, score)
            self.played += 1
            self.log(f"{pair.kind} pair {number}: {pair.first} {score:g}-{2 - score:g} {pair.second}")
            if pair.kind == "rated":
                if self.for_history is None:  # the pairs applied before this run, once
                    self.for_history = Cursor()
                    applied = [p for p in store.pairs("rated") if p.applied]
                    self.for_history.upto(applied, len(applied), [])
                for seq in apply_ready(store, self.for_history):
                    self.log(f"pair {seq} applied")
            self.changed.set()
            self.changed = trio.Event()
            return


def run_ladder(path: Path, options: RunOptions, log: Log = _quiet) -> int:
    """Play rated pairs until ``options`` say stop (or forever); the pairs played. Resumable after any kill."""
    from arena.store import RunLock

    with RunLock(path), LadderStore(path) as store:
        ladder = open_ladder(store)
        apply_ready(store)  # pairs a killed run finished but did not apply
        run = _Run(store, ladder, options, log)
        while trio.run(run.epoch):
            pass
        return run.played


def challenge(path: Path, first: str, second: str, pairs: int, options: RunOptions, log: Log = _quiet) -> list[float]:
    """Unranked pairs between two versions (or the latest versions of two names): stored, never rated.
    ``first``'s score in each."""
    with LadderStore(path) as store:  # no RunLock: authors challenge while the ladder runs
        ladder = open_ladder(store)
        a, b = (find_version(store, name) for name in (first, second))
        ids = [store.choose_pair(None, "challenge", a.key, b.key) for _ in range(pairs)]
        config = ladder_config(ladder, [a, b], options.sandbox, options.executor, options.workers)
        players = _players(config, [a, b])
        run = _Run(store, ladder, options, log)

        async def play_all() -> None:
            async with open_executor(players, ladder.rules, config.on_violation, False, 1, 1) as executor:
                for pair_id in ids:
                    await run.play(executor, store.pair(pair_id))

        trio.run(play_all)
        return [store.pair(i).score or 0.0 for i in ids]


def add_levels(store: LadderStore, sandbox: str | None = None, log: Log = _quiet) -> list[Added]:
    """Register and admit the deterministic house levels (arena/levels.py: Level 1 to 5, the fixed points of the
    scale; not Level 6, whose think time makes it the machine's) as the organiser's bots, author ``arena``:
    built from arena's own bots/ folder, named ``level-N-KEY``. A level already on the ladder is left as it is
    (`Added` with status ``same``); a level whose program changed (a rebuilt bot) becomes its next version."""
    if not (LEVELS_BOTS / "greedy.py").is_file():
        raise ConfigError("add-levels needs arena's checkout: its bots/ folder holds the levels' programs")
    added = []
    for level in [lv for lv in LEVELS if lv.deterministic]:
        got = register_version(store, level.name, level.bot_command, "arena", level.build, base_dir=LEVELS_BOTS,
                               sandbox=sandbox)
        if isinstance(got, LadderVersion):
            log(f"{got.key}: {level.label()}: checking ...")
            got = admit(store, got, sandbox)
        log(f"{got.key}: {got.status}{': ' + got.reason if got.reason else ''}")
        added.append(got)
    return added


def find_version(store: LadderStore, name: str) -> LadderVersion:
    """A version by its key, or a name's latest admitted version. ConfigError names what exists."""
    versions = [v for v in store.versions() if v.status in ("admitted", "retired")]
    for v in versions:
        if v.key == name:
            return v
    latest = [v for v in versions if v.program == name and v.status == "admitted"]
    if latest:
        return latest[-1]
    known = ", ".join(sorted({v.program for v in versions})) or "none yet"
    raise ConfigError(f"{name!r} is no admitted bot or version of the ladder; expected one of: {known}")


def new_token(store: LadderStore, author: str) -> str:
    """A new upload token for ``author``; only its hash is stored."""
    token = secrets.token_urlsafe(24)
    store.add_token(token_hash(token), author)
    return token


def token_hash(token: str) -> str:
    return hashlib.sha256(token.strip().encode()).hexdigest()


__all__ = [
    "LEVELS_ANCHOR", "Added", "Ladder", "LadderSettings", "Refusal", "RunOptions", "add_levels", "admit",
    "admit_upload", "apply_ready",
    "anchored", "challenge", "ladder_secrets", "private_text", "state_of",
    "find_version", "flagged_hosts", "init_ladder", "ladder_config", "new_token", "open_ladder", "register_version",
    "run_ladder", "standings", "token_hash", "version_key",
]
