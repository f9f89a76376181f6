"""FIFOs in a run dir: making one, and running what might block on it with a bound.

A reader that opens a FIFO without a writer blocks for ever. ``within`` runs the code under
test in a daemon thread; if it is still blocked after the bound, each FIFO gets a writer
that closes at once, so the reader sees the end of the file and the thread ends.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")


def make_fifo(path: Path) -> Path:
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    return path


def release(path: Path) -> None:
    """Let a reader blocked in opening ``path`` go on: a writer that closes at once."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


def within(seconds: float, call: Callable[[], T], *fifos: Path) -> T:
    """``call()``, or AssertionError when it is still blocked after ``seconds``."""
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the test thread below
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for _ in range(50):
            for fifo in fifos:
                release(fifo)
            thread.join(0.1)
            if not thread.is_alive():
                break
        raise AssertionError(f"blocked for more than {seconds} s (on a FIFO?)")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
