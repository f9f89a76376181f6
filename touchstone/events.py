"""Machine-readable progress: JSON lines appended to ``--events PATH`` (read by the GUI).

Each line is ``{"event": <start|progress|judge_error|aborted|done>, "ts": <ISO time>, ...}``.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from touchstone.errors import InputError
from touchstone.regular import read_regular

EventSink = Callable[[str, dict[str, Any]], None]


class EventLog:
    """Appends one event per line and flushes it, so a reader sees each as it happens."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._handle: IO[str] | None = path.open("a", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"Ereignisdatei {path} kann nicht geschrieben werden: {exc}") from exc

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if self._handle is None:
            return
        ts = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
        record = {"event": kind, "ts": ts, **data}
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def emit(sink: EventSink | None, kind: str, **data: Any) -> None:
    """Hand one event to ``sink`` when there is one."""
    if sink is not None:
        sink(kind, data)


def fan_out(*sinks: EventSink | None) -> EventSink:
    """One sink that hands every event to each of ``sinks``."""
    active = [s for s in sinks if s is not None]

    def emit(kind: str, data: dict[str, Any]) -> None:
        for sink in active:
            sink(kind, data)

    return emit


def read_events(path: Path) -> list[dict[str, Any]]:
    """Every complete event of ``path``; a line still being written is ignored."""
    try:
        text = read_regular(path).decode("utf-8")
    except FileNotFoundError:
        return []
    events = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            events.append(value)
    return events
