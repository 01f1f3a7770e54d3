#!/usr/bin/env python3
"""A cheating bot: plays legal moves (the first legal action) and, at its first turn, tries one attack.

    hostile.py ATTACK [ARG ...]

It reports what the attack found or did as `evidence <attack> <key>=<value>` lines on stderr, so a test
asserts the attack's own evidence (what it saw, what it changed), not just the match result. A value that
holds text from elsewhere (other processes' command lines) is JSON, so no character in it can split it or
end its line. Attacks:

    look [TEXT]          list the processes it can see that are not its own (with TEXT: those whose command
                         line holds it) as visible=JSON [[pid, cmdline]], at most 200, each cut at 200
                         characters (the referee keeps 64 KiB of a bot's stderr)
    kill-opponent        SIGKILL every process it can see that is not its own
    stop-opponent        SIGSTOP every such process
    inject-opponent      write `quit` into the stdin of every such process (/proc/PID/fd/0)
    steal-replies        read from the stdout of every such process (/proc/PID/fd/1)
    rewrite FILE...      append to each FILE (its own program, its opponent's)
    rewrite-db DB        open the results database and rewrite every result; a setsid child tries again
                         after the match, when the referee may be gone
    read PATH...         read each file, or list each folder (the config, ~/.ssh, the opponent's source)
    find-secret TEXT     look for TEXT in every /proc/*/cmdline and /proc/*/environ it can read
    connect PORT         connect to 127.0.0.1:PORT and send a line
    listen PORT          listen on 0.0.0.0:PORT for a while (the test tries to connect to it)
    escape MARK          fork a child that calls setsid() and sleeps with MARK in its command line
    fork-bomb            fork sleeping children until fork fails; reports how many it got
    userns               create a user namespace of its own (where it is root, and may mount a tmpfs)
    memory MB N          fork N children that each allocate and touch MB MiB; once each has its memory or is
                         dead, reports how many were killed and how many are alive (hold their memory)
"""

import json
import os
import signal
import socket
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import first_legal, handshake, log, send, turns  # noqa: E402

ATTACK = sys.argv[1]
ARGS = sys.argv[2:]


def evidence(key: str, value: object) -> None:
    log(f"evidence {ATTACK} {key}={value}")


def own_pids() -> set[int]:
    """This bot and its children (their parent is us)."""
    mine = {os.getpid(), os.getppid()}
    for pid in visible_pids():
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
            if int(stat[stat.rfind(b")") + 2:].split()[1]) == os.getpid():
                mine.add(pid)
        except OSError:
            pass
    return mine


def visible_pids() -> list[int]:
    return [int(e) for e in os.listdir("/proc") if e.isdigit()]


def others() -> list[int]:
    """Processes it can see that are not its own, nor the sandbox's init (pid 1)."""
    mine = own_pids()
    return [p for p in visible_pids() if p not in mine and p != 1]


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError as e:
        return f"<{e.__class__.__name__}>"


def attack() -> None:
    if ATTACK == "look":
        seen = [[p, cmd[:200]] for p in others() if (cmd := cmdline(p)) and (not ARGS or ARGS[0] in cmd)]
        evidence("visible", json.dumps(seen[:200]))
    elif ATTACK in ("kill-opponent", "stop-opponent"):
        sig = signal.SIGKILL if ATTACK == "kill-opponent" else signal.SIGSTOP
        targets = others()
        evidence("visible", json.dumps([[p, cmdline(p)[:200]] for p in targets[:200]]))
        hit = 0
        for pid in targets:
            try:
                os.kill(pid, sig)
                hit += 1
            except OSError:
                pass
        evidence("signalled", hit)
    elif ATTACK in ("inject-opponent", "steal-replies"):
        done = 0
        for pid in others():
            fd_path = f"/proc/{pid}/fd/{0 if ATTACK == 'inject-opponent' else 1}"
            try:
                if ATTACK == "inject-opponent":
                    with open(fd_path, "w") as f:
                        f.write("quit\n")
                else:
                    fd = os.open(fd_path, os.O_RDONLY | os.O_NONBLOCK)
                    os.close(fd)
                done += 1
            except OSError:
                pass
        evidence("opened", done)
    elif ATTACK == "rewrite":
        for path in ARGS:
            try:
                with open(path, "a") as f:
                    f.write("\n# rewritten by hostile.py\n")
                evidence("rewrote", path)
            except OSError as e:
                evidence("refused", f"{path}:{e.__class__.__name__}")
    elif ATTACK == "rewrite-db":
        path = ARGS[0]
        evidence("now", rewrite_db(path))
        if os.fork() == 0:  # a child that outlives the match and waits for the referee to be gone
            os.setsid()
            for _ in range(100):
                time.sleep(0.1)
                if not os.path.exists(path + "-wal"):
                    break
            rewrite_db(path)
            os._exit(0)
    elif ATTACK == "read":
        for path in ARGS:
            try:
                if os.path.isdir(path):
                    evidence("read", f"{path}:{len(os.listdir(path))} entries")
                    continue
                with open(path, "rb") as f:
                    data = f.read(64)
                evidence("read", f"{path}:{len(data)}")
            except OSError as e:
                evidence("refused", f"{path}:{e.__class__.__name__}")
    elif ATTACK == "find-secret":
        needle = ARGS[0].encode()
        found = []
        mine = own_pids()  # its own command line holds the needle: it was given it to look for
        for pid in visible_pids():
            if pid in mine:
                continue
            for part in ("cmdline", "environ"):
                try:
                    with open(f"/proc/{pid}/{part}", "rb") as f:
                        if needle in f.read():
                            found.append(f"{pid}/{part}")
                except OSError:
                    pass
        evidence("searched", len(visible_pids()))
        evidence("found", ",".join(found) or "none")
    elif ATTACK == "connect":
        try:
            with socket.create_connection(("127.0.0.1", int(ARGS[0])), timeout=2) as s:
                s.sendall(b"stolen\n")
            evidence("connected", "yes")
        except OSError as e:
            evidence("connected", f"no:{e.__class__.__name__}")
    elif ATTACK == "listen":
        try:
            server = socket.socket()
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(("0.0.0.0", int(ARGS[0])))
            server.listen()
            server.settimeout(3)
            evidence("listening", "yes")
            try:
                server.accept()
                evidence("accepted", "yes")
            except OSError:
                evidence("accepted", "no")
        except OSError as e:
            evidence("listening", f"no:{e.__class__.__name__}")
    elif ATTACK == "escape":
        if os.fork() == 0:
            os.setsid()
            os.execv("/bin/sh", ["sh", "-c", f"sleep 600; : {ARGS[0]}"])
        evidence("forked", "yes")
    elif ATTACK == "fork-bomb":
        children = 0
        while children < 5000:
            try:
                pid = os.fork()
            except OSError as e:
                evidence("stopped", e.__class__.__name__)
                break
            if pid == 0:
                time.sleep(600)
                os._exit(0)
            children += 1
        evidence("children", children)
    elif ATTACK == "userns":
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x10000000) == 0:  # CLONE_NEWUSER
            evidence("created", "yes")
        else:
            evidence("created", f"no:{os.strerror(ctypes.get_errno())}")
    elif ATTACK == "memory":
        megabytes, n = int(ARGS[0]), int(ARGS[1])
        ready_r, ready_w = os.pipe()  # each child writes one byte once all its memory is resident
        pids = []
        for i in range(n):
            pid = os.fork()
            if pid == 0:
                os.close(ready_r)
                try:
                    block = bytearray(megabytes * 1024 * 1024)
                    for j in range(0, len(block), 4096):  # touch every page: resident, not just reserved
                        block[j] = 1
                    log(f"evidence memory allocated={i}")
                    os.write(ready_w, b"+")
                    time.sleep(600)
                except MemoryError:
                    log(f"evidence memory failed={i}")
                    os.write(ready_w, b"-")
                os._exit(0)
            pids.append(pid)
        os.close(ready_w)
        # Settle: every child has either reported or died (the OOM killer acts asynchronously), so what is
        # counted is a steady state, not a moment in the middle of a kill.
        os.set_blocking(ready_r, False)
        reports, killed = 0, set()
        deadline = time.monotonic() + 15
        while reports + len(killed) < n and time.monotonic() < deadline:
            try:
                reports += len(os.read(ready_r, 64))
            except BlockingIOError:
                pass
            for pid in pids:
                if pid not in killed:
                    done, status = os.waitpid(pid, os.WNOHANG)
                    if done and os.WIFSIGNALED(status):
                        killed.add(pid)
            time.sleep(0.02)
        # a child killed after it reported counts once, as killed
        alive = 0
        for pid in pids:
            if pid not in killed:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done and os.WIFSIGNALED(status):
                    killed.add(pid)
                elif not done:
                    alive += 1
        evidence("children", len(pids))
        evidence("killed", len(killed))  # by the OOM killer: the bot's memory together was over its limit
        evidence("alive", alive)
    else:
        raise SystemExit(f"unknown attack {ATTACK}")


def rewrite_db(path: str) -> str:
    try:
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=1)
        db.execute("UPDATE matches SET winner = 'hostile'")
        db.commit()
        return "rewritten"
    except (sqlite3.Error, OSError) as e:
        return f"refused:{e.__class__.__name__}"


handshake("hostile")
attacked = False
for turn in turns():
    if not attacked:
        attacked = True
        attack()
    send(first_legal(turn))
