#!/usr/bin/env python3
"""A spy: plays the first legal action, and tries to learn its opponent's cards through one kernel channel.

    spy.py CHANNEL

The two games of a duplicate pair (match ids ``...-pN-g0`` and ``...-pN-g1``) deal each seat the cards its
opponent held in the other game. In each game the spy publishes the hand it was dealt under the pair's
name, and looks for what its twin (the same program in the other game, or the same process) published:
that is the hand its opponent holds now. It reports as protocol `info` lines, which the referee keeps in
the match's transcript in order with its replies, and the same on stderr, one line each:

    info spy <channel> <match id> published=<ok|ERRNO>   whether publishing worked
    info spy <channel> <match id> learned=<cards>        the hand it found for its opponent (when it found one)

Channels:

    keyring    a key in its user keyring that anyone may read (``add_key``); the twin finds it in /proc/keys
    locks      self-play in one game: seat 0 reads seat 1's hand from POSIX locks on byte ranges of the shared
               read-only file /etc/ld.so.cache, which seat 1 takes, one byte per card (``fcntl(F_SETLK)``;
               seat 0 asks with ``F_GETLK``)
    pipe       self-play in one game: a named pipe shipped in the spy's own folder (``pipe``), shown read-only to
               both seats; seat 1 writes its hand into it, seat 0 reads it
    ipc        self-play in one game: seat 1 publishes its hand through three objects of the kernel's that have a
               name, a SysV shared memory segment (its key), a POSIX message queue and an abstract UNIX socket
               (named after the match) that seat 0 binds; seat 0 looks in each, and reports
               ``learned=<object>:<cards>`` for each it found the hand in
    futex      self-play in one game: seat 0 keeps a thread waiting (FUTEX_WAIT, shared) on each of the first 24
               words of libc's first page, a page every program maps from the same file; seat 1, at each of
               its turns, wakes the words of the cards it was dealt (reported as ``woke=<how many>``); seat 0
               reports ``listening=<ok|ERRNO>`` (whether its waits sleep) and ``learned=<cards>`` as threads wake
    memory     its own memory: a process kept for a second match (``reuse_bots``) remembers its hand
"""

import ctypes
import errno
import fcntl
import os
import socket
import struct
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ALL_CARDS, cards, first_legal, handshake, log, read_line, send  # noqa: E402

CHANNEL = sys.argv[1]
LIBC = ctypes.CDLL(None, use_errno=True)
KEY_SPEC_USER_KEYRING = -4
KEYCTL_READ = 11
KEYCTL_SETPERM = 5
SYS_ADD_KEY, SYS_KEYCTL = 248, 250  # x86-64
REMEMBERED: dict[str, str] = {}  # pair -> hand, for the memory channel
SEEN: set[str] = set()  # the ipc objects seat 0 found a hand in
SENT: list[str] = []  # what seat 1's sends to seat 0's socket came to
SENT_HAND: list[str] = []  # the hand seat 1 was dealt, which it sends


MATCH = "-"


def report(key: str, value: str) -> None:
    log(f"spy {CHANNEL} {MATCH} {key}={value}")  # (stderr too: each match's record must hold its own lines)
    send(f"info spy {CHANNEL} {MATCH} {key}={value}")


def error_name() -> str:
    return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


# ------------------------------------------------------------------------------------------------- keyring

def keyring_publish(pair: str, hand: str) -> None:
    payload = hand.encode()
    key = LIBC.syscall(SYS_ADD_KEY, b"user", f"arena-spy-{pair}".encode(), payload, len(payload),
                       ctypes.c_long(KEY_SPEC_USER_KEYRING))
    if key < 0:
        report("published", error_name())
        return
    # possessor, user, group and other: view, read, write, search, link, setattr
    LIBC.syscall(SYS_KEYCTL, KEYCTL_SETPERM, key, 0x3F3F3F3F)
    report("published", "ok")


def keyring_look(pair: str) -> str | None:
    try:
        with open("/proc/keys") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        if f"arena-spy-{pair}:" in line:
            key = int(line.split()[0], 16)
            buf = ctypes.create_string_buffer(256)
            n = LIBC.syscall(SYS_KEYCTL, KEYCTL_READ, key, buf, 256)
            if n > 0:
                return buf.raw[:n].decode()
    return None


# ------------------------------------------------------------------------------------------------- locks

LOCKED = "/etc/ld.so.cache"


def lock_publish(hand: str) -> None:
    """Seat 1: a read lock on byte 1000 + i for each card i of its hand, held for the rest of the deal."""
    global HELD
    HELD = open(LOCKED, "rb")
    for card in hand.split(","):
        try:
            fcntl.lockf(HELD, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 1000 + ALL_CARDS.index(card))
        except OSError as e:
            report("published", errno.errorcode.get(e.errno, str(e.errno)))
            return
    try:  # a byte to say "done"
        fcntl.lockf(HELD, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 999)
    except OSError as e:
        report("published", errno.errorcode.get(e.errno, str(e.errno)))
        return
    report("published", "ok")


def lock_look() -> str | None:
    """Seat 0: which of the bytes another process holds (F_GETLK for a write lock names the holder)."""
    with open(LOCKED, "rb") as f:
        def held(offset: int) -> bool:
            query = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)
            try:
                answer = fcntl.fcntl(f, fcntl.F_GETLK, query)
            except OSError:
                return False
            return struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK

        if not held(999):  # seat 1 publishes at its first turn, which may come after this one
            return None
        return ",".join(card for i, card in enumerate(ALL_CARDS) if held(1000 + i))


HELD = None

# ------------------------------------------------------------------------------------------------- ipc

SYS_MQ_OPEN, SYS_MQ_UNLINK, SYS_MQ_TIMEDSEND, SYS_MQ_TIMEDRECEIVE = 240, 241, 242, 243  # x86-64
IPC_CREAT, IPC_RMID = 0o1000, 0
LIBC.shmat.restype = ctypes.c_void_p
LIBC.shmat.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
SOCKET: "socket.socket | None" = None


def ipc_names(match_id: str) -> tuple[int, bytes, bytes]:
    """The SysV key, the message queue's name and the abstract socket's name of a match."""
    import zlib

    return 0x53500000 | (zlib.crc32(match_id.encode()) & 0xFFFFF), f"arena-spy-{match_id}".encode(), \
        f"\0arena-spy-{match_id}".encode()


def ipc_publish(match_id: str, hand: str) -> list[str]:
    """Seat 1: the hand in a segment and a queue, and sent to seat 0's socket; what worked, what did not."""
    key, queue, address = ipc_names(match_id)
    out = []
    segment = LIBC.shmget(key, 4096, IPC_CREAT | 0o666)
    if segment >= 0 and LIBC.shmat(segment, None, 0) not in (None, ctypes.c_void_p(-1).value):
        ctypes.memmove(LIBC.shmat(segment, None, 0), hand.encode() + b"\0", len(hand) + 1)
        out.append("shm:ok")
    else:
        out.append(f"shm:{error_name()}")
    mq = LIBC.syscall(SYS_MQ_OPEN, queue, os.O_CREAT | os.O_WRONLY | os.O_NONBLOCK, 0o666, None)
    sent = mq >= 0 and LIBC.syscall(SYS_MQ_TIMEDSEND, mq, hand.encode(), len(hand), 0, None) == 0
    out.append("mq:ok" if sent else f"mq:{error_name()}")
    return out


def ipc_send(match_id: str, hand: str) -> str:
    try:
        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(hand.encode(), ipc_names(match_id)[2])
        return "sock:ok"
    except OSError as e:
        return f"sock:{errno.errorcode.get(e.errno, str(e.errno))}"


def ipc_look(match_id: str) -> list[str]:
    """Seat 0: what each object holds (its socket bound on the first call)."""
    global SOCKET
    key, queue, address = ipc_names(match_id)
    found = []
    segment = LIBC.shmget(key, 0, 0)
    if segment >= 0:
        at = LIBC.shmat(segment, None, 0)
        if at not in (None, ctypes.c_void_p(-1).value):
            text = ctypes.string_at(at).decode()
            if text:
                found.append(f"shm:{text}")
    mq = LIBC.syscall(SYS_MQ_OPEN, queue, os.O_RDONLY | os.O_NONBLOCK, 0, None)
    if mq >= 0:
        buf = ctypes.create_string_buffer(1 << 16)
        n = LIBC.syscall(SYS_MQ_TIMEDRECEIVE, mq, buf, len(buf), None, None)
        if n > 0:
            found.append(f"mq:{buf.raw[:n].decode()}")
    if SOCKET is None:
        SOCKET = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        SOCKET.bind(address)
        SOCKET.setblocking(False)
    try:
        found.append(f"sock:{SOCKET.recv(256).decode()}")
    except BlockingIOError:
        pass
    return found


# ------------------------------------------------------------------------------------------------- futex

SYS_FUTEX, FUTEX_WAIT, FUTEX_WAKE = 202, 0, 1  # x86-64; without FUTEX_PRIVATE_FLAG: keyed by file and offset
WOKEN: list[str] = []  # seat 0: the cards whose word a wake reached


def libc_page() -> int:
    """Where the first page of libc's file is mapped in this process."""
    with open("/proc/self/maps") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 6 and os.path.basename(fields[5]).startswith("libc.so") and int(fields[2], 16) == 0:
                return int(fields[0].split("-")[0], 16)
    raise RuntimeError("libc is not mapped")


def futex_listen() -> str:
    """Seat 0: a thread waiting on each card's word, for as long as the process lives; whether a wait sleeps
    ("ok": a probe's 1 ms wait timed out) or the errno it answered at once."""
    base = libc_page()
    probe = base + 4 * len(ALL_CARDS)  # a word no card uses
    timeout = (ctypes.c_long * 2)(0, 1_000_000)
    value = ctypes.c_uint32.from_address(probe).value
    slept = LIBC.syscall(SYS_FUTEX, ctypes.c_void_p(probe), FUTEX_WAIT, value, timeout, None, 0) < 0 \
        and ctypes.get_errno() == errno.ETIMEDOUT
    listening = "ok" if slept else error_name()

    def wait(i: int) -> None:
        word = base + 4 * i
        value = ctypes.c_uint32.from_address(word).value  # (the page is never written: it stays this value)
        if LIBC.syscall(SYS_FUTEX, ctypes.c_void_p(word), FUTEX_WAIT, value, None, None, 0) == 0:
            WOKEN.append(ALL_CARDS[i])

    for i in range(len(ALL_CARDS)):
        threading.Thread(target=wait, args=(i,), daemon=True).start()
    return listening


def futex_wake(hand: str) -> int:
    """Seat 1: wake each card's word of its hand; how many waiters that woke."""
    base = libc_page()
    return sum(max(0, LIBC.syscall(SYS_FUTEX, ctypes.c_void_p(base + 4 * ALL_CARDS.index(card)), FUTEX_WAKE, 1,
                                   None, None, 0)) for card in hand.split(","))


PIPE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pipe")
PIPE_FD: int | None = None


def pipe_open() -> int | None:
    """The pipe, open for reading and writing (which never blocks, and keeps what is written until read)."""
    global PIPE_FD
    if PIPE_FD is None:
        try:
            PIPE_FD = os.open(PIPE, os.O_RDWR | os.O_NONBLOCK)
        except OSError as e:
            report("published", errno.errorcode.get(e.errno, str(e.errno)))
            PIPE_FD = -1
    return None if PIPE_FD < 0 else PIPE_FD


def pipe_look() -> str | None:
    fd = pipe_open()
    try:
        return None if fd is None else os.read(fd, 256).decode().strip() or None
    except BlockingIOError:
        return None


def main() -> None:
    global MATCH
    handshake("spy", "1")
    pair = seat = learned = dealt_hand = None
    first = True
    while True:
        line = read_line()
        if line is None or line == "quit":
            return
        word = line.split(" ", 1)[0]
        if word == "match":
            match_id = MATCH = line.split()[1]
            pair = match_id.rsplit("-g", 1)[0]
            seat = line.split()[2].split("=")[1]
            first = True
            if CHANNEL == "futex" and seat == "0":
                report("listening", futex_listen())
        elif word == "turn":
            turn = dict(t.partition("=")[::2] for t in line.split()[1:])
            hand = ",".join(cards(turn, "hand"))
            if CHANNEL in ("locks", "pipe") and seat == "0" and not learned:
                learned = lock_look() if CHANNEL == "locks" else pipe_look()
                if learned:
                    report("learned", learned)
            if CHANNEL == "futex" and seat == "1":  # at every turn: seat 0's threads may not wait yet at the first
                dealt_hand = dealt_hand or hand
                report("woke", str(futex_wake(dealt_hand)))
            if CHANNEL == "futex" and seat == "0":
                now = ",".join(c for c in ALL_CARDS if c in WOKEN)
                if now and now != learned:
                    learned = now
                    report("learned", learned)
            if CHANNEL == "ipc" and seat == "0":
                for found in ipc_look(MATCH):
                    if found.split(":")[0] not in SEEN:
                        SEEN.add(found.split(":")[0])
                        report("learned", found)
            if CHANNEL == "ipc" and seat == "1" and "sock:ok" not in SENT:  # (until seat 0 has bound its socket)
                if not SENT_HAND:
                    SENT_HAND.append(hand)
                outcome = ipc_send(MATCH, SENT_HAND[0])
                if outcome not in SENT:
                    SENT.append(outcome)
                    report("published", outcome)
            if first:
                first = False
                if CHANNEL == "keyring":
                    found = keyring_look(pair)
                    keyring_publish(pair, hand)
                elif CHANNEL == "ipc":
                    found = None
                    if seat == "1":
                        for outcome in ipc_publish(MATCH, hand):
                            report("published", outcome)
                elif CHANNEL == "pipe":
                    found = None
                    fd = pipe_open()
                    if seat == "1" and fd is not None:
                        os.write(fd, hand.encode() + b"\n")
                        report("published", "ok")
                elif CHANNEL == "futex":
                    found = None  # (above, at every turn)
                elif CHANNEL == "locks":
                    found = None
                    if seat == "1":
                        lock_publish(hand)
                    else:
                        report("published", "reader")
                else:  # memory
                    found = REMEMBERED.get(pair)
                    REMEMBERED[pair] = hand
                    report("published", "ok")
                if found:
                    report("learned", found)
            send(first_legal(turn))


if __name__ == "__main__":
    main()
