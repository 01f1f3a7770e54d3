"""A spy bot that passes its hand to its twin through the page cache (tests/test_twins.py).

The two games of a duplicate pair (match ids ``...-g0`` and ``...-g1``) deal each seat the cards its
opponent held in the other game. In game 0 the spy writes the hand it was dealt as which pages of a file are
cached; in game 1 it reads them back: that is the hand its opponent holds now. Two files: ``pages.bin`` in
its own folder, and the system file (one every sandbox shows) whose path ``system.txt`` in its folder names.

Each card ``i`` has two pages of a region of the file, ``A_i`` and ``B_i``, 4 pages apart. The region is
chosen by the pair's name and the word in ``nonce.txt`` in its folder, so that tests running at once on one
machine (the system file is the same for all) rarely use the same one. A page is loaded, and timed, by
touching it in a mapping advised ``MADV_RANDOM``, so that the kernel reads that page alone (a ``read`` would
read ahead, up to megabytes). Game 0 marks ``A_i`` when the card is in its hand and ``B_i`` when not; game 1
reads the card as known where exactly one of the two is marked, and reports a hand only when all 24 cards
are known. So a cache that tells nothing (both pages cached, or neither) decodes to nothing, whatever state
the pages started in.

Modes (the first argument):

    load    mark = read the page (the region starts uncached): what a bot loaded outlives it
    evict   mark = drop the page (``posix_fadvise(DONTNEED)``; the region starts cached by someone else)

Game 1 asks whether a page is cached with ``preadv2(RWF_NOWAIT)`` (EAGAIN when it is not; it starts a
read-ahead from there, so the pages are asked about from the last one back), and where that is refused, by
timing a touch of the page (a cached page comes in microseconds, one from the disk in tens of them).

It reports as protocol ``info`` lines (and on stderr)::

    info spy pages <match id> hand=<cards>                     game 0: the hand it was dealt
    info spy pages <match id> probe=<nowait|timing>           how game 1 asked
    info spy pages <match id> marked-<own|system>=<ok|ERRNO>   game 0: whether marking worked
    info spy pages <match id> known-<own|system>=<n>           game 1: how many of the 24 cards it could read
    info spy pages <match id> learned-<own|system>=<cards>     game 1: the hand, when all 24 were read
"""

import errno
import mmap
import os
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ALL_CARDS, cards, first_legal, handshake, log, read_line, send  # noqa: E402

MODE = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = 4096
STRIDE = 4 * PAGE  # between two pages the spy uses
REGION = 2 * len(ALL_CARDS) * STRIDE
MATCH = "-"


def report(key: str, value: str) -> None:
    log(f"spy pages {MATCH} {key}={value}")
    send(f"info spy pages {MATCH} {key}={value}")


def targets() -> dict[str, str]:
    out = {"own": os.path.join(HERE, "pages.bin")}
    try:
        with open(os.path.join(HERE, "system.txt")) as f:
            out["system"] = f.read().strip()
    except OSError:
        pass
    return out


def nonce() -> str:
    try:
        with open(os.path.join(HERE, "nonce.txt")) as f:
            return f.read().strip()
    except OSError:
        return ""


def offsets(pair: str, card: int, size: int) -> tuple[int, int]:
    """The offsets of pages A and B of card ``card`` in the pair's region of a file of ``size`` bytes (never
    its first page)."""
    regions = max(1, (size - 2 * STRIDE) // REGION)
    base = STRIDE + (zlib.crc32(f"{pair} {nonce()}".encode()) % regions) * REGION
    return base + 2 * card * STRIDE, base + (2 * card + 1) * STRIDE


def mapped(fd: int) -> mmap.mmap:
    """The file mapped for reading, one page at a time (no read-ahead)."""
    m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
    m.madvise(mmap.MADV_RANDOM)
    return m


def mark(path: str, pair: str, hand: list[str]) -> str:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    try:
        m = mapped(fd)
        size = os.fstat(fd).st_size
        for i, card in enumerate(ALL_CARDS):
            a, b = offsets(pair, i, size)
            page = a if card in hand else b
            if MODE == "load":
                m[page]
            else:
                os.posix_fadvise(fd, page, PAGE, os.POSIX_FADV_DONTNEED)
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    finally:
        os.close(fd)


PROBE: list[str] = []  # how pages are asked about, once found: "nowait" or "timing"


def cached(fd: int, m: mmap.mmap, offset: int) -> bool:
    if not PROBE or PROBE[0] == "nowait":
        try:
            os.preadv(fd, [bytearray(1)], offset, os.RWF_NOWAIT)
            PROBE[:] = ["nowait"]
            return True
        except BlockingIOError:
            PROBE[:] = ["nowait"]
            return False
        except OSError:  # refused (EOPNOTSUPP): timing, from now on
            PROBE[:] = ["timing"]
    start = time.perf_counter_ns()
    m[offset]
    return time.perf_counter_ns() - start < 15_000


def look(path: str, pair: str) -> tuple[int, str | None]:
    """How many cards game 0 marked readably, and the hand when it is all of them."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return 0, None
    try:
        m = mapped(fd)
        # from the end back: an RWF_NOWAIT read that misses starts a read-ahead from that page on, which
        # reaches only pages already asked about
        size = os.fstat(fd).st_size
        every = sorted((offset for i in range(len(ALL_CARDS)) for offset in offsets(pair, i, size)), reverse=True)
        state = {offset: cached(fd, m, offset) for offset in every}
        hand, known = [], 0
        for i, card in enumerate(ALL_CARDS):
            a, b = (state[offset] for offset in offsets(pair, i, size))
            if a != b:
                known += 1
                if (a if MODE == "load" else b):  # load: A was read; evict: B was dropped, A kept
                    hand.append(card)
        return known, ",".join(hand) if known == len(ALL_CARDS) else None
    finally:
        os.close(fd)


def main() -> None:
    global MATCH
    handshake("pagespy", "1")
    pair = game = None
    first = True
    while True:
        line = read_line()
        if line is None or line == "quit":
            return
        word = line.split(" ", 1)[0]
        if word == "match":
            MATCH = line.split()[1]
            pair, _, game = MATCH.rpartition("-g")
            first = True
        elif word == "turn":
            turn = dict(t.partition("=")[::2] for t in line.split()[1:])
            if first:
                first = False
                assert pair is not None
                if game == "0":
                    report("hand", ",".join(cards(turn, "hand")))
                for where, path in targets().items():
                    if game == "0":
                        report(f"marked-{where}", mark(path, pair, cards(turn, "hand")))
                    else:
                        known, hand = look(path, pair)
                        report(f"known-{where}", str(known))
                        if hand:
                            report(f"learned-{where}", hand)
                if game != "0":
                    report("probe", PROBE[0] if PROBE else "-")
            send(first_legal(turn))


if __name__ == "__main__":
    main()
