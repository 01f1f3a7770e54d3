"""Game records (issue 13): `arena export DB` writes one record per finished match, `arena replay FILE`
re-checks each against the rules engine.

Real databases, written by `arena match --db` with real bot processes (tests/bots for the misbehaving ones),
so every kind of ending a user meets is exported: a match to the target in each variant, deals forfeited under
lose-deal (after legal actions), a match forfeited mid-deal, random moves the referee played, a bot that
crashed before the first deal. Bots run without the sandbox: the sandbox is not what is tested here.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, arena

from arena.cli.export import stored_records
from arena.records import (
    check_record,
    format_jsonl,
    format_pgn,
    from_json,
    parse_jsonl,
    parse_pgn,
    to_json,
)
from arena.store import Store

pytestmark = pytest.mark.usefixtures("c_bots")  # the C reference bots, built by their Makefile


DOCS = ROOT / "docs" / "RECORDS.md"

# name -> `arena match` arguments: each series is its own database (a database holds one tournament)
SERIES = {
    "santase": ["bots/c/greedy", "bots/c/random 3", "--names", "greedy", "random", "--matches", "2", "--seed", "11"],
    "sixty-six": ["bots/c/greedy", "bots/c/random 3", "--names", "greedy", "random", "--matches", "2", "--seed", "12",
                  "--variant", "sixty-six"],
    "schnapsen": ["bots/c/random 3", "bots/c/greedy", "--names", "random", "greedy", "--matches", "2", "--seed", "13",
                  "--variant", "schnapsen"],
    "lose-deal": ["tests/bots/exit_mid_deal.py", "bots/c/random 3", "--matches", "2", "--seed", "14",
                  "--policy", "lose-deal"],
    "lose-match": ["tests/bots/illegal_card.py", "bots/c/random 3", "--matches", "2", "--seed", "15"],
    "random-move": ["tests/bots/illegal_card.py", "bots/c/greedy", "--matches", "2", "--seed", "16",
                    "--policy", "random-move"],
    # it passes the start-up check of `arena match` (MARKER), then crashes at every start: no deals
    "crash": ["tests/bots/crash_start.py {folder}/crash.marker", "bots/c/random 3", "--matches", "2", "--seed",
              "17"],
}


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("records")
    out = {}
    for name, args in SERIES.items():
        db = folder / f"{name}.db"
        result = arena("match", *(a.format(folder=folder) for a in args), "--db", str(db), "--sandbox", "none")
        assert result.returncode == 0, (name, result.stderr)
        out[name] = db
    return out


def records_of(db: Path) -> list:
    store = Store.open_existing(db)
    try:
        return list(stored_records(store, db))
    finally:
        store.close()


def export(db: Path, path: Path, fmt: str) -> None:
    result = arena("export", str(db), "--format", fmt, "-o", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"export: 2 records ({fmt}) to {path}"


# ----------------------------------------------------------------------------------- export, then replay
@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["jsonl", "pgn-like"])
@pytest.mark.parametrize("series", list(SERIES))
def test_an_exported_database_replays_ok(databases, tmp_path, series, fmt):
    path = tmp_path / f"{series}.records"
    export(databases[series], path, fmt)
    result = arena("replay", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3, result.stdout  # one per match, then the summary
    for line in lines[:2]:
        assert re.fullmatch(rf"{re.escape(str(path))}:\d+: \S+-p0-g[01]: OK \(\d+ deals?, \d+-\d+\)", line), line
    assert lines[2] == "replay: 2 records, all OK"


def test_the_records_hold_what_the_database_holds(databases):
    store = Store.open_existing(databases["lose-deal"])
    try:
        tournament = store.tournament_info()
        matches = [m for m in store.matches(tournament.name) if m.done]
        records = records_of(databases["lose-deal"])
        assert [r.match for r in records] == [m.match_id for m in matches]
        for record, match in zip(records, matches, strict=True):
            assert record.bots == match.seats
            assert (record.deal_seed, record.match_seed) == (match.spec.deal_seed, match.spec.match_seed)
            assert record.result.score == match.score and record.result.winner == match.winner_seat
            assert record.rules.to_dict() == tournament.rules
            deals = store.deals(match.match_id)
            assert [" ".join(map(str, d.deck)) for d in record.deals] == [d.deck for d in deals]
            assert [tuple(f"{s}:{a.token()}" for s, a in d.actions) for d in record.deals] == \
                [d.actions for d in deals]
            # lose-deal: the crashing bot forfeits deals after legal actions, each with a termination
            forfeits = [i for i, d in enumerate(record.deals) if d.forfeit]
            assert forfeits and all(record.deals[i].actions for i in forfeits)
            assert {t.deal for t in record.result.terminations} == set(forfeits)
            assert {t.kind for t in record.result.terminations} == {"crash"}
    finally:
        store.close()


def test_a_match_forfeited_mid_deal_and_one_forfeited_before_it_are_recorded(databases):
    conceded = records_of(databases["lose-match"])[0]
    assert conceded.result.reason == "illegal" and conceded.result.winner == 1
    assert conceded.deals[-1].forfeit and conceded.deals[-1].winner is None
    assert conceded.result.terminations[-1].kind == "illegal" and conceded.result.terminations[-1].line
    assert conceded.result.deciding == conceded.result.terminations[-1]  # one shape with the referee's result
    crashed = records_of(databases["crash"])[0]
    assert crashed.deals == () and crashed.result.reason == "crash" and crashed.result.terminations[0].deal is None


@pytest.mark.parametrize("series", list(SERIES))
def test_both_formats_round_trip(databases, series):
    records = records_of(databases[series])
    jsonl = "".join(format_jsonl(r) for r in records)
    pgn = "".join(format_pgn(r) for r in records)
    assert [r for _, r in parse_jsonl(jsonl.split("\n"))] == records
    assert [r for _, r in parse_pgn(pgn.split("\n"))] == records
    # and from one format into the other: the same text again
    assert "".join(format_jsonl(r) for _, r in parse_pgn(pgn.split("\n"))) == jsonl


def test_the_exported_files_are_the_records(databases, tmp_path):
    records = records_of(databases["random-move"])
    for fmt, parse in (("jsonl", parse_jsonl), ("pgn-like", parse_pgn)):
        path = tmp_path / f"out.{fmt}"
        export(databases["random-move"], path, fmt)
        assert [r for _, r in parse(path.read_text().split("\n"))] == records


def test_export_to_standard_output_pipes_into_replay_from_standard_input(databases):
    exported = arena("export", str(databases["schnapsen"]), "--format", "pgn-like")
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.startswith('[Event "random-vs-greedy"]\n')
    replayed = arena("replay", "-", input=exported.stdout)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.endswith("replay: 2 records, all OK\n")


def test_the_format_follows_the_output_file_suffix(databases, tmp_path):
    result = arena("export", str(databases["santase"]), "-o", str(tmp_path / "games.pgn"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "games.pgn").read_text().startswith("[Event ")
    result = arena("export", str(databases["santase"]), "-o", str(tmp_path / "games.jsonl"))
    assert json.loads((tmp_path / "games.jsonl").read_text().splitlines()[0])["format"] == "arena-record 1"


def test_export_through_a_link_replaces_its_file_and_into_a_fifo_writes_into_it(databases, tmp_path):
    """-o replaces a file through a rename; what it names is never replaced by a plain file: a symbolic link
    stays a link (the file it names gets the records), a FIFO (or a device) is written into."""
    (tmp_path / "target.jsonl").write_text("old\n")
    (tmp_path / "link.jsonl").symlink_to("target.jsonl")
    export(databases["santase"], tmp_path / "link.jsonl", "jsonl")
    assert (tmp_path / "link.jsonl").is_symlink()
    assert json.loads((tmp_path / "target.jsonl").read_text().splitlines()[0])["format"] == "arena-record 1"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)  # opens it, then reads to its end
    export(databases["santase"], fifo, "jsonl")
    out, _ = reader.communicate(timeout=60)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert out.decode() == (tmp_path / "target.jsonl").read_text()


def test_output_to_a_full_disk_is_one_line_and_exit_2(databases):
    """`arena export DB > file` and `arena transcript DB MATCH > file` where the disk is full."""
    store = Store.open_existing(databases["santase"])
    try:
        match = store.matches(store.tournament_info().name)[0].match_id
    finally:
        store.close()
    for args in (["export", str(databases["santase"])], ["transcript", str(databases["santase"]), match]):
        with open("/dev/full", "w") as full:
            result = subprocess.run([sys.executable, "-m", "arena", *args], cwd=ROOT, stdout=full,
                                    stderr=subprocess.PIPE, text=True, timeout=600)
        assert result.returncode == 2, result.stderr
        assert result.stderr == "arena: cannot write the output: No space left on device\n"


# ----------------------------------------------------------------------------------------- tampering
def _jsonl_objects(databases, series):
    return [to_json(r) for r in records_of(databases[series])]


def test_tampered_records_are_reported_at_their_deal_and_step(databases, tmp_path):
    base = _jsonl_objects(databases, "santase")[0]
    assert len(base["deals"]) >= 3

    def tampered(change):
        obj = json.loads(json.dumps(base))
        change(obj)
        return obj

    def illegal_action(obj):  # step 1 of deal 2 plays the turned trump card, which nobody holds yet
        deal = obj["deals"][1]
        seat = deal["actions"][0][0]
        deal["actions"][0] = f"{seat}:play:{deal['trump']}"

    def swap_deck(obj):
        deck = obj["deals"][2]["deck"]
        deck[0], deck[1] = deck[1], deck[0]

    def change_score(obj):
        obj["result"]["score"][1] += 1

    def change_deal_points(obj):
        obj["deals"][0]["result"]["points"][0] += 5

    def one_more_action(obj):
        deal = obj["deals"][0]
        deal["actions"].append(deal["actions"][-1])

    def one_action_less(obj):
        obj["deals"][0]["actions"].pop()

    def out_of_turn(obj):
        deal = obj["deals"][1]
        seat, rest = deal["actions"][0].split(":", 1)
        deal["actions"][0] = f"{1 - int(seat)}:{rest}"

    cases = [base, tampered(illegal_action), tampered(swap_deck), tampered(change_score),
             tampered(change_deal_points), tampered(one_more_action), tampered(one_action_less),
             tampered(out_of_turn)]
    path = tmp_path / "tampered.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    result = arena("replay", str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(cases) + 1
    prefix = [f"{path}:{i}: {base['match']}: " for i in range(1, len(cases) + 1)]
    d2 = base["deals"][1]
    seat = d2["actions"][0][0]
    d3 = base["deals"][2]["deck"]
    score = base["result"]["score"]
    points = base["deals"][0]["result"]["points"]
    n_actions = len(base["deals"][0]["actions"])
    expected = [
        "OK (",
        f"deal 2 step 1: {seat}:play:{d2['trump']} is illegal: {d2['trump']} is not in seat {seat}'s hand",
        f"deal 3: the deck differs from the one deal seed {base['deal_seed']} deals: card 1 is {d3[1]}, "
        f"expected {d3[0]}",
        f"match: recorded score {score[0]}-{score[1] + 1}, the replay gives {score[0]}-{score[1]}",
        f"deal 1: recorded card points {points[0] + 5}-{points[1]}, the replay gives {points[0]}-{points[1]}",
        f"deal 1 step {n_actions + 1}: {base['deals'][0]['actions'][-1]} comes after the deal ended at step "
        f"{n_actions}",
        f"deal 1 step {n_actions}: the actions end before the deal does",
        f"deal 2 step 1: {1 - int(seat)}:",
    ]
    for line, start, want in zip(lines[:-1], prefix, expected, strict=True):
        assert line.startswith(start + want), (line, want)
    assert "is illegal: it is seat" in lines[7]
    assert lines[-1] == f"replay: {len(cases)} records, {len(cases) - 1} differ from the rules"


def test_a_record_dealt_before_the_twin_rule_still_checks_out(databases):
    # Before a deal dealt by the second dealer got the twin of its shuffled deck (arena.game.dealt_deck),
    # every deal was dealt as shuffled: such records, exported by an older arena, still replay.
    import dataclasses
    import random

    from arena.game import Match, shuffled_deck
    from arena.game.hand import Deal
    from arena.referee.record import DealRecord, MatchResult

    base = records_of(databases["santase"])[0]
    rules, seed = base.rules, base.deal_seed
    rng = random.Random(13)
    match = Match(rules, seed)
    twinned = 0
    while not match.over:  # the old rule: shuffled_deck whoever deals
        twinned += match.next_dealer != match.deals[0].dealer if match.deals else 0
        deal = Deal(rules, shuffled_deck(rules, seed, len(match.deals)), match.next_dealer)
        match.deals.append(deal)
        while not deal.over:
            deal.apply(rng.choice(deal.legal_actions()))
        match.finish_deal()
    assert twinned, "a deal the new rule would have twinned"
    old = dataclasses.replace(base, deals=tuple(DealRecord.of_deal(d) for d in match.deals),
                              result=MatchResult(match.winner, (match.score[0], match.score[1]), "target"))
    assert check_record(old) is None
    tampered = dataclasses.replace(old, deals=(old.deals[0], dataclasses.replace(old.deals[1], deck=tuple(
        reversed(old.deals[1].deck)))) + old.deals[2:])
    assert "the deck differs from the one deal seed" in str(check_record(tampered))


def test_a_tampered_pgn_like_record_is_reported_at_its_deal(databases, tmp_path):
    path = tmp_path / "games.pgn"
    export(databases["sixty-six"], path, "pgn-like")
    text = path.read_text()
    deck_line = re.search(r'^\[Deck "(\S+) (\S+) (.*)"\]$', text.split('[Deal "2"]', 1)[1], re.M)
    first, second, rest = deck_line.groups()
    text = text.replace(deck_line.group(0), f'[Deck "{second} {first} {rest}"]', 1)
    path.write_text(text)
    result = arena("replay", str(path))
    assert result.returncode == 1
    line = result.stdout.splitlines()[0]
    assert line.startswith(f"{path}:1: greedy-vs-random-p0-g0: deal 2: the deck differs from the one deal seed")
    assert line.endswith(f"card 1 is {second}, expected {first}")
    assert ": greedy-vs-random-p0-g1: OK (" in result.stdout.splitlines()[1]  # the other record is untouched


def test_a_forfeit_without_its_termination_or_with_a_wrong_winner_is_reported(databases):
    record = _jsonl_objects(databases, "lose-deal")[0]
    first = next(n for n, d in enumerate(record["deals"], 1) if d["result"]["reason"] == "forfeit")
    steps = len(record["deals"][first - 1]["actions"])
    offender = record["result"]["terminations"][0]["seat"]
    no_termination = json.loads(json.dumps(record))
    no_termination["result"]["terminations"] = []
    problem = check_record(from_json(no_termination))
    assert (problem.deal, problem.step) == (first, steps + 1)
    assert f"forfeited by seat {offender} (the seat to move), but no termination" in str(problem)
    wrong_winner = json.loads(json.dumps(record))
    wrong_winner["deals"][first - 1]["result"]["winner"] = offender
    assert "the forfeit is given to seat" in str(check_record(from_json(wrong_winner)))
    conceded = _jsonl_objects(databases, "lose-match")[0]
    conceded["result"]["winner"] = 1 - conceded["result"]["winner"]
    assert str(check_record(from_json(conceded))).startswith("match: recorded winner seat")


# ------------------------------------------------------------------------------------- bad files, exit 2
def _bad_files(databases) -> list[tuple[str, bytes, str]]:
    good = format_jsonl(records_of(databases["santase"])[0])
    obj = json.loads(good)
    no_deals = dict(obj)
    del no_deals["deals"]
    bad_card = json.loads(good)
    bad_card["deals"][0]["deck"][3] = "Zz"
    bad_rules = json.loads(good)
    bad_rules["rules"]["colour"] = "red"
    pgn = format_pgn(records_of(databases["santase"])[0]).split("\n")
    move_line = next(i for i, line in enumerate(pgn) if line.startswith("1. "))
    bad_move = pgn.copy()
    bad_move[move_line] = "1. 0:play:Th 1:jump"
    bad_tag = pgn.copy()
    bad_tag[2] = "[Date 2024]"
    return [
        ("broken.jsonl", (good + '{"format": "arena-record 1", \n').encode(), ":2: not a JSON record"),
        ("nodeals.jsonl", (json.dumps(no_deals) + "\n").encode(), ":1: deals: missing"),
        ("badcard.jsonl", (json.dumps(bad_card) + "\n").encode(), ":1: deals[0]: 'Zz' is not a card"),
        ("badrules.jsonl", (json.dumps(bad_rules) + "\n").encode(), ":1: rules: unknown rule parameter 'colour'"),
        ("badmove.pgn", "\n".join(bad_move).encode(), f":{move_line + 1}: '1:jump' is not an action token"),
        ("badtag.pgn", "\n".join(bad_tag).encode(), ":3: not a tag: expected [Name \"value\"]"),
        ("latin1.jsonl", good.encode() + good.encode() + b'{"event": "caf\xe9"}\n', ":3: not UTF-8 text"),
        ("empty.jsonl", b"\n\n", ": holds no records"),
        ("hello.txt", b"hello\n", ":1: not a game record"),
        ("missing.jsonl", None, ": cannot read it (No such file or directory)"),
    ]


def test_a_file_that_cannot_be_read_as_records_is_one_line_and_exit_2(databases, tmp_path):
    for name, content, expected in _bad_files(databases):
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        result = arena("replay", str(path))
        assert result.returncode == 2, (name, result.stdout, result.stderr)
        assert result.stdout == "", name  # nothing is checked until the whole file is read
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, (name, result.stderr)
        assert result.stderr.startswith(f"arena: {path}{expected}"), (name, result.stderr)


def test_export_of_something_that_is_not_a_database_is_one_line_and_exit_2(databases, tmp_path):
    (tmp_path / "notes.db").write_text("not a database\n")
    for args, expected in [
        ([str(tmp_path / "none.db")], "no such database"),
        ([str(tmp_path / "notes.db")], "not a usable arena database"),
        ([str(databases["santase"]), "-o", str(tmp_path)], "is a directory"),
        ([str(databases["santase"]), "-o", str(tmp_path / "no" / "such" / "dir" / "x.jsonl")], "cannot write"),
    ]:
        result = arena("export", *args)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and expected in result.stderr, (args, result.stderr)
    assert not list((tmp_path).glob(".*.partial"))


# ------------------------------------------------------------------------------------ docs and purity
def _doc_block(marker: str) -> str:
    text = DOCS.read_text()
    return text.split(f"<!-- {marker}:start -->")[1].split(f"<!-- {marker}:end -->")[0].strip().strip("`").strip()


def test_the_examples_in_records_md_are_records_that_check_out():
    pgn = _doc_block("pgn-example").removeprefix("text").strip("\n")
    jsonl = _doc_block("jsonl-example").removeprefix("json").strip("\n")
    [(_, from_pgn)] = list(parse_pgn(pgn.split("\n")))
    [(_, from_jsonl)] = list(parse_jsonl([json.dumps(json.loads(jsonl))]))
    assert from_pgn == from_jsonl
    assert check_record(from_pgn) is None
    assert format_pgn(from_pgn).strip() == pgn  # the example is exactly what arena export writes


def test_the_record_module_is_pure():
    code = "import sys, arena.records; print(' '.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.split())
    assert "arena.records" in loaded
    assert not {"trio", "sqlite3", "sqlite_utils", "subprocess", "socket", "yaml"} & loaded
