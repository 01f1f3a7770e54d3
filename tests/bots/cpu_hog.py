#!/usr/bin/env python3
"""A bot that keeps every CPU busy: after its first reply, one child of it forks N processes that spin
forever; it plays the first legal action at once, every turn. It reports `hog started=<N>` on stderr, with
the number of spinning processes it got.

    cpu_hog.py [N]      (default 32)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import first_legal, handshake, log, send, turns  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 32


def spin() -> None:
    while True:
        pass


def main() -> None:
    handshake("cpu_hog")
    started = False
    for turn in turns():
        send(first_legal(turn))
        if not started:
            started = True
            read, write = os.pipe()
            if os.fork() == 0:  # the forker, so that the bot itself stays free to answer
                os.close(read)
                count = 0
                for _ in range(N):
                    try:
                        if os.fork() == 0:
                            spin()
                    except OSError:
                        break
                    count += 1
                os.write(write, f"{count}\n".encode())
                spin()
            os.close(write)
            with os.fdopen(read) as f:
                log(f"hog started={f.readline().strip()}")


if __name__ == "__main__":
    main()
