"""A chosen seed a bot could guess is warned about, once, on stderr: `arena match --seed 106` and a config's
`seed: 42`; a random seed, or one of 63 random bits, is not. The deals stay those of the seed (a small seed
still replays). Real command lines, real bots."""

from __future__ import annotations

from pathlib import Path

from conftest import arena, arena_run

from arena.seeds import GUESSABLE_BELOW, guessable_seed_warning

MATCH = ["match", "python bots/greedy.py", "python bots/random.py", "--matches", "2", "--set", "match_target=1",
         "--sandbox", "none"]


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "is guessable" in line]


def test_arena_match_warns_about_a_small_seed_and_still_plays_its_deals() -> None:
    small = arena(*MATCH, "--seed", "106", "--json")
    assert small.returncode == 0, small.stderr
    said = warnings(small.stderr)
    assert said == [said[0]] and said[0].startswith("arena: WARNING: --seed 106 is guessable: "), small.stderr
    assert "leave the seed out" in said[0] and "secrets.randbits(63)" in said[0]
    again = arena(*MATCH, "--seed", "106", "--json")
    assert again.stdout == small.stdout  # a small seed still gives the same deals: it is for tests and replays
    for args in ([], ["--seed", str(GUESSABLE_BELOW + 12345)]):
        quiet = arena(*MATCH, *args)
        assert quiet.returncode == 0, quiet.stderr
        assert warnings(quiet.stderr) == [], (args, quiet.stderr)


def test_arena_run_warns_about_a_small_seed_in_the_config(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(
        "name: t\nrounds: 1\nseed: 42\nvariant: {preset: santase, match_target: 1}\n"
        f"output: {{database: {tmp_path / 'arena.db'}}}\n"
        "bots:\n  - {name: a, command: python bots/greedy.py}\n  - {name: b, command: python bots/random.py}\n"
        "sandbox: none\n".replace("python bots/", f"python {Path(__file__).parent.parent / 'bots'}/"))
    result = arena_run(str(config))
    assert result.returncode == 0, result.stderr
    said = warnings(result.stderr)
    assert len(said) == 1 and said[0].startswith(f"arena: WARNING: seed: 42 ({config}:3) is guessable: "), said


def test_only_small_seeds_are_guessable() -> None:
    assert guessable_seed_warning(None, "--seed") is None
    assert guessable_seed_warning(GUESSABLE_BELOW, "--seed") is None
    assert guessable_seed_warning(0, "--seed 0") is not None
    assert guessable_seed_warning(GUESSABLE_BELOW - 1, "--seed") is not None


def test_a_ladder_with_a_small_seed_is_warned_about(tmp_path: Path) -> None:
    small = arena("ladder", str(tmp_path / "small.db"), "init", "--variant", "santase", "--seed", "7")
    assert small.returncode == 0, small.stderr
    assert [w[:40] for w in warnings(small.stderr)] == ["arena: WARNING: --seed 7 is guessable: a"], small.stderr
    drawn = arena("ladder", str(tmp_path / "drawn.db"), "init", "--variant", "santase")
    assert drawn.returncode == 0 and warnings(drawn.stderr) == [], drawn.stderr
