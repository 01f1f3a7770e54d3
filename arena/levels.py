"""The house levels: named opponents of graded strength, made from the reference bots (issue 36).

One source of truth for everything that offers them: `arena serve` (its default registry and the names a
player sees), `arena ladder DB add-levels` (house bots that anchor a ladder's scale), bench/levels_bench.py
(which measures each level against the one below) and bots/README.md (which shows the figures).

Every level but the top one (the full bot, which thinks for a time) is deterministic and machine-independent:
greedy with seeded blunders (a random legal action with probability P at a turn) or ismcts with a fixed number
of iterations (`--iters N`), so its strength does not depend on how fast the machine is. Pure data: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

BOTS = Path(__file__).resolve().parent.parent / "bots"  # arena's checkout; absent from an installed wheel


@dataclass(frozen=True)
class Level:
    number: int  # 1 = the weakest
    key: str  # a short English word, lower case: the level's name in its bot name ("level-3-intermediate")
    bot_command: str  # the command line from bots/, as a config beside bots/ writes it
    build: str  # the make that builds it, from bots/
    elo: int  # measured, on the levels' scale: Level 1 is 0, each level = the one below + its step
    step: tuple[int, int, int] | None  # (Elo over the level below, 95% interval low, high); None for Level 1
    title: dict[str, str]  # "Beginner", by language
    description: dict[str, str]  # one short line, by language
    # the time a move this level is given (a config's time.move), where the default 1 s is too short: ismcts
    # takes at most 30% of a move's time, so thinking 1 s needs at least 3.4 s
    move_time: str | None = None

    @property
    def name(self) -> str:
        """The bot name (a protocol name: no spaces), e.g. ``level-3-intermediate``."""
        return f"level-{self.number}-{self.key}"

    @property
    def deterministic(self) -> bool:
        """Plays the same on any machine (no think time): a fixed point a ladder's scale may anchor on."""
        return "--ms" not in self.bot_command.split()

    @property
    def command(self) -> str:
        """The command line from the repository root, as `arena match` takes it."""
        return f"bots/{self.bot_command}"

    def label(self, lang: str = "en") -> str:
        """What a player sees: ``Level 3 · Intermediate`` (``Ниво 3 · Среден`` in Bulgarian)."""
        word = {"bg": "Ниво"}.get(lang, "Level")
        return f"{word} {self.number} · {self.title.get(lang, self.title['en'])}"


# The figures are bench/levels_bench.py's (docs/PERFORMANCE.md, "The house levels"): each level against the one
# below in duplicate santase matches. Change a level's settings and measure again before changing a figure.
LEVELS: tuple[Level, ...] = (
    Level(1, "beginner", "c/greedy --blunder 0.3 --seed 1", "make -s -C c", 0, None,
          {"en": "Beginner", "bg": "Начинаещ"},
          {"en": "knows the rules of thumb, but plays a random card about one turn in three",
           "bg": "знае основните хватки, но горе-долу всеки трети ход играе случайна карта"}),
    Level(2, "casual", "c/greedy --blunder 0.15 --seed 1", "make -s -C c", 172, (172, 117, 224),
          {"en": "Casual", "bg": "Любител"},
          {"en": "rules of thumb, with a random card about one turn in seven",
           "bg": "основните хватки, със случайна карта горе-долу на всеки седми ход"}),
    Level(3, "intermediate", "c/greedy", "make -s -C c", 396, (224, 179, 271),
          {"en": "Intermediate", "bg": "Среден"},
          {"en": "greedy: marriages, the trump exchange, cheap captures, closing; never looks ahead",
           "bg": "алчен: обяви, смяна на козовата карта, евтини взятки, затваряне; не мисли напред"}),
    Level(4, "advanced", "ismcts/ismcts --iters 450", "make -s -C ismcts", 653, (257, 199, 326),
          {"en": "Advanced", "bg": "Напреднал"},
          {"en": "a short search: 450 sampled deals a move, exact endgames",
           "bg": "кратко търсене: 450 разигравания на ход, точни разигравания в края"}),
    Level(5, "expert", "ismcts/ismcts --iters 3000", "make -s -C ismcts", 933, (280, 223, 337),
          {"en": "Expert", "bg": "Експерт"},
          {"en": "the house bot, ismcts, with a short fixed search: 3,000 sampled deals a move",
           "bg": "ботът на сайта, ismcts, с кратко търсене: 3000 разигравания на ход"}),
    # The full bot thinks for a time, not a number of iterations: the one level whose strength depends on the
    # machine (its figure is this machine's), and no anchor of a ladder. It thinks a second: since issue 36's
    # ismcts, 100 ms a move was no stronger than Level 5's 3,000 iterations (+17 Elo, -58 to +94), and 1 s is.
    Level(6, "master", "ismcts/ismcts --ms 1000", "make -s -C ismcts", 1052, (119, 48, 210),
          {"en": "Master", "bg": "Майстор"},
          {"en": "the full house bot, ismcts, thinking up to a second a move",
           "bg": "пълният бот на сайта, ismcts, мисли до секунда на ход"}, move_time="4s"),
)

BY_NAME = {level.name: level for level in LEVELS}


def level_named(name: str) -> Level | None:
    """The level a bot name stands for: ``level-3-intermediate``, ``level-3`` or ``3``; else None."""
    if name in BY_NAME:
        return BY_NAME[name]
    number = name.removeprefix("level-")
    return next((level for level in LEVELS if str(level.number) == number), None)


def registry_yaml(name: str = "serve") -> str:
    """A config whose bots: are the levels (commands from bots/): the default registry of `arena serve`."""
    lines = [f"name: {name}", "bots:"]
    for level in LEVELS:
        lines += [f"  - name: {level.name}", f"    command: {level.bot_command}", f"    build: {level.build}"]
        if level.move_time:
            lines.append(f"    time: {{move: {level.move_time}}}")
    return "\n".join(lines) + "\n"
