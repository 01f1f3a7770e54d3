#!/usr/bin/env python3
"""Crashes at once, before the handshake: an uncaught exception, so Python prints a real traceback to
stderr and exits with status 1. Never reads stdin."""


def start() -> None:
    raise RuntimeError("crash_start: deliberate crash before the handshake")


start()
