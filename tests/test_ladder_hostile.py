"""A hostile uploader on a public ladder: each test makes an upload try one attack a student with a token
could, asserts the attack's own evidence is absent, then switches the closing measure off and asserts the
evidence is there (so the test can fail). Uploads go through `admit_upload`, the very call the server's
queue makes, with real builds and checks in the real sandbox; tests/test_ladder_serve.py drives the server.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
import stat
import sys
import uuid
from pathlib import Path

import pytest
from test_ladder import lad_init

from arena.game import PRESETS
from arena.referee import sandbox
from arena.referee.clock import TimeControl
from arena.referee.sandbox import UID_BASE, bwrap_problem
from arena.store.ladder import LadderStore, data_folder
from arena.tournament import ladder
from arena.tournament.ladder import Added, LadderSettings, admit_upload, init_ladder, register_version

pytestmark = pytest.mark.skipif(bwrap_problem() is not None, reason=f"no sandbox here: {bwrap_problem()}")
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="builds and bots run as uids of their own only as root")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    tmp_path.chmod(0o755)  # the uploads lie below it, and run as uids of their own
    return lad_init(tmp_path / "l.db")


def upload(db: Path, name: str, author: str, files: dict[str, bytes | str], command: str,
           build: str | None = None) -> Added:
    """What the server does with an upload: its files in a folder of their own under DB.files, then
    admit_upload."""
    folder = data_folder(db) / f"{name}-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    for file, content in files.items():
        (folder / file).write_bytes(content.encode() if isinstance(content, str) else content)
        (folder / file).chmod(0o755)
    with LadderStore(db) as store:
        return admit_upload(store, name, command, build, author, folder)


def stored(db: Path, name: str) -> list[tuple[str, str, str]]:
    """(status, public reason, private detail) of every version of ``name``."""
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT status, reason, coalesce(detail, '') FROM ladder_versions WHERE program = ? "
                            "ORDER BY rowid", [name]).fetchall()


def folder_of(db: Path, name: str) -> Path:
    with LadderStore(db) as store:
        cwd = [v.cwd for v in store.versions() if v.program == name and v.status == "admitted"]
    assert cwd and cwd[0]
    return Path(cwd[0])


@pytest.fixture
def program(c_bots: Path) -> bytes:
    """A bot's program an upload brings (the reference random bot)."""
    return (c_bots / "random").read_bytes()


def test_a_command_naming_a_host_folder_does_not_make_its_build_write_there(
        db: Path, program: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build's writable folders came from the raw command: naming /etc/none/bot made /etc writable."""
    host = db.parent / "host"  # a root-owned folder of the host, as /etc is
    host.mkdir(mode=0o755)
    evil = f"echo pwned > {host}/pwned; cp random bot"

    got = upload(db, "evil", "Eve", {"random": program}, f"{host}/none/bot 3", evil)
    assert got.status == "refused" and "outside its own folder" in got.reason
    assert not (host / "pwned").exists()

    monkeypatch.setattr(ladder, "CONFINE_UPLOADS", False)
    monkeypatch.setattr(sandbox, "BUILDS_AS_OWN_UID", False)
    upload(db, "evil2", "Eve", {"random": program}, f"{host}/none/bot 3", evil)
    assert (host / "pwned").read_text() == "pwned\n"  # the attack, without the measures


@as_root
def test_a_build_runs_as_a_uid_of_its_own_and_leaves_root_files(
        db: Path, program: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root without capabilities still owns every root-owned file; the build is not root at all, and what it
    made is given back to the folder's owner without a set-user-ID bit."""
    build = "id -u > who; cp random bot; chmod 4755 bot"
    got = upload(db, "quiet", "Ana", {"random": program}, "./bot 3", build)
    assert got.status == "admitted", got
    folder = folder_of(db, "quiet")
    assert int((folder / "who").read_text()) >= UID_BASE
    assert (folder / "who").stat().st_uid == 0 and (folder / "bot").stat().st_uid == 0
    assert not (folder / "bot").stat().st_mode & stat.S_ISUID

    monkeypatch.setattr(sandbox, "BUILDS_AS_OWN_UID", False)
    upload(db, "loud", "Ana", {"random": program}, "./bot 4", build)
    assert (folder_of(db, "loud") / "who").read_text() == "0\n"


def test_an_upload_cannot_read_or_rewrite_another_authors_bot(
        db: Path, program: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    run = "#!/bin/sh\n# ANA-SECRET-SOURCE\nexec ./random 3\n"
    assert upload(db, "alpha", "Ana", {"run.sh": run, "random": program}, "sh run.sh").status == "admitted"
    theirs = folder_of(db, "alpha")
    steal = f"cat {theirs}/run.sh; echo evil >> {theirs}/run.sh; false"  # its output in the refusal

    # naming their folder in the command, or only in the build
    upload(db, "beta", "Eve", {"random": program}, f"{theirs}/random 4", steal)
    upload(db, "gamma", "Eve", {"random": program}, "./bot 4", steal)
    assert (theirs / "run.sh").read_text() == run
    said = " ".join(" ".join(row) for name in ("beta", "gamma") for row in stored(db, name))
    assert "ANA-SECRET" not in said

    monkeypatch.setattr(ladder, "CONFINE_UPLOADS", False)
    upload(db, "delta", "Eve", {"random": program}, f"{theirs}/random 4", steal)
    assert "evil" in (theirs / "run.sh").read_text()
    assert "ANA-SECRET-SOURCE" in " ".join(" ".join(row) for row in stored(db, "delta"))


def test_the_ladder_seed_stays_hidden_from_an_upload(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot whose command names the database was shown its folder during admission: it read the seed and
    said it in a malformed reply, which the refusal quoted."""
    leak = ("import shutil, sqlite3, sys\n"
            "for suffix in ('', '-wal'):\n"
            "    try:\n"
            "        shutil.copy(sys.argv[1] + suffix, '/tmp/l.db' + suffix)\n"
            "    except OSError:\n"
            "        pass\n"
            "try:\n"
            "    conn = sqlite3.connect('file:/tmp/l.db?vfs=unix-none', uri=True)  # (file locks are refused)\n"
            "    conn.execute('PRAGMA locking_mode=EXCLUSIVE')\n"
            "    seed = conn.execute('SELECT seed FROM tournaments').fetchone()[0]\n"
            "except Exception as e:\n"
            "    seed = 'none-' + type(e).__name__\n"
            "sys.stdin.readline()\n"
            "print('seed', seed, flush=True)  # a malformed answer to the handshake, quoted by the check\n")
    db = db.with_name("seeded.db")
    seed = str(init_ladder(db, PRESETS["santase"], LadderSettings(TimeControl(move_ms=5000))))
    command = f"sh -c 'exec {sys.executable} ./leak.py \"$0\"' {db}"

    def said(name: str) -> str:
        return " ".join(" ".join(row) for row in stored(db, name))

    assert upload(db, "spy", "Eve", {"leak.py": leak}, command).status == "refused"
    assert seed not in said("spy")
    monkeypatch.setattr(ladder, "CONFINE_UPLOADS", False)  # the check still hides the database
    upload(db, "spy2", "Eve", {"leak.py": leak}, command)
    assert seed not in said("spy2")
    monkeypatch.setattr(ladder, "ladder_secrets", lambda path: [])
    upload(db, "spy3", "Eve", {"leak.py": leak}, command)
    assert f"seed {seed}" in said("spy3")


def test_a_name_belongs_to_its_author(db: Path, program: bytes, c_bots: Path) -> None:
    assert upload(db, "alpha", "Ana", {"random": program}, "./random 3").status == "admitted"
    got = upload(db, "alpha", "Eve", {"random": program}, "./random 4")
    assert got.status == "refused" and "belongs to another author" in got.reason
    assert [s for s, _, _ in stored(db, "alpha")] == ["admitted", "refused"]
    # its author's next version, and the organiser's (arena ladder DB add), are taken
    assert upload(db, "alpha", "Ana", {"random": program}, "./random 5").status == "admitted"
    with LadderStore(db) as store:  # (the measure off: the organiser may add any name's versions)
        assert not isinstance(register_version(store, "alpha", f"{c_bots}/random 6", "Eve"), Added)


def test_a_refusal_says_little_in_public_and_all_to_its_author(db: Path) -> None:
    """The leaderboard shows a short reason; what the bot printed is its author's only."""
    chatty = "#!/bin/sh\necho 'MY-OWN-OUTPUT' >&2\necho 'hello MY-OWN-LINE'\nexit 1\n"
    got = upload(db, "chatty", "Ana", {"bot.sh": chatty}, "sh bot.sh")
    assert got.status == "refused"
    [(status, reason, detail)] = stored(db, "chatty")
    assert "MY-OWN" not in reason and "MY-OWN-LINE" in detail
    with LadderStore(db) as store:
        shown = ladder.board(store).waiting
    assert shown and all("MY-OWN" not in w["reason"] for w in shown)


def test_a_relative_command_and_build_work_from_any_folder(
        db: Path, program: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command was resolved against the server's working folder, and the build's folders with it."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    got = upload(db, "built", "Ana", {"random": program}, "./bot 3", "cp random bot && chmod 755 bot")
    assert got.status == "admitted", got
    assert list(elsewhere.iterdir()) == []


def test_an_organisers_bot_beside_the_database_does_not_see_it(db: Path) -> None:
    """`arena ladder DB add --cwd DIR` where DIR holds the database: admission and play hide it."""
    (db.parent / "peek.sh").write_text("#!/bin/sh\nhead -c 16 l.db >&2; exit 1\n")
    with LadderStore(db) as store:
        version = register_version(store, "peek", f"sh {shlex.quote(str(db.parent / 'peek.sh'))}", cwd=db.parent)
        assert not isinstance(version, Added)
        got = ladder.admit(store, version)
    assert got.status == "refused" and "SQLite format" not in got.detail
