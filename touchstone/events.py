"""Machine-readable progress: JSON lines appended to ``--events PATH`` (read by the GUI).

Each line is ``{"event": <start|progress|judge_error|in_flight|aborted|done>, "ts": <ISO time>,
...}``. ``in_flight`` comes every few seconds while calls run: ``calls``, ``oldest_s`` (the
oldest call's age) and ``deadline_s`` (``null`` without one); ``in_flight_text`` says it in
German for the terminal and the GUI alike. With a cost cap (``budget``), ``done`` of ``run``
and ``judge`` and the ``aborted`` of ``judge`` and ``judge-check`` carry ``budget``:
``limit``, ``spent``, ``reached``, ``measured_calls``, ``estimated_calls``,
``misreported_calls`` (usage implausibly low: counted at the estimate) and the German line
``summary`` (absent without a cap). The ``start`` of ``run`` names the run dir as given or
made up (``run_dir``): the CLI's hint after Ctrl-C names it.

The last ``aborted`` event of a failed command has ``message`` (the CLI's text) and
``exit_code``, and the facts a reader words its own message from: ``ending`` (``input``,
``judge_stopped``, ``run_incomplete``, ``judge_unfit``, ``budget_reached``, ``system``,
``cancelled``). A judge
stop adds ``cause`` (the error kind, or ``unparseable``), ``model``, ``base_url``,
``suggestions`` (close names the endpoint lists), ``server_busy``, ``unknown_host`` (the base
URL's host name does not resolve), what the calls measured for a deadline stop
(``reasoning_seen``, ``silent_calls``, ``blind_calls``, ``first_chars_s``, ``tokens_per_s``,
``deadline_s``: ``judge.session.slow_facts``), and of a judge run
``open_cells``, ``kept``, ``unreadable``, ``refused``. An incomplete run adds ``open_cells``,
``base_url``, ``run_models`` (those run.json records), ``stopped`` (``[{model, cause,
suggestions, recorded}]``) and ``left`` (``[{cause, calls, server_busy, unknown_host}]``).
The ``done`` of ``judge-check`` has ``fitness`` (``suitable``, ``unfit``, ``unassessable``,
``aborted``) and ``stop`` (a stop's facts, as above). A budget stop adds ``budget_message``,
a drift stop ``drift_message`` (in the GUI's words). Fields are only ever added: a reader
takes what it knows.

A jury (design.md §18) adds ``judge_dropped`` (``judge_model``, ``judge_base_url``,
``error_kind``, ``message``: "Judge X ausgeschieden: … – Rat: …", ``left``: its cells that
will not come, ``health``), ``jury`` in ``start`` (the members) and in ``done``/``aborted``
(each member's ``dropped`` reason or null, ``health``, and ``budget`` if it has one); its
``progress`` and ``judge_error`` events name the member in ``judge_model`` and
``judge_base_url``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from touchstone import jsontext
from touchstone.errors import InputError
from touchstone.german import counted, seconds
from touchstone.regular import read_regular

if TYPE_CHECKING:
    from touchstone.transport.engine import InFlight

EventSink = Callable[[str, dict[str, Any]], None]


class EventLog:
    """Appends one event per line and flushes it, so a reader sees each as it happens.

    A write that fails (a full disk) raises ``OSError`` naming the file, and so does every
    later one: the log is ``broken`` then, and its failure was said once already.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.broken: OSError | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._handle: IO[str] | None = path.open("a", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"Ereignisdatei {path} kann nicht geschrieben werden: {exc}") from exc

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if self.broken is not None:
            raise self.broken
        if self._handle is None:
            return
        ts = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
        record = {"event": kind, "ts": ts, **data}
        try:
            self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._handle.flush()
        except OSError as exc:
            self.broken = self._named(exc)
            # What stays in the buffer could never be written: closing must not try again.
            with contextlib.suppress(OSError):
                self._handle.close()
            self._handle = None
            raise self.broken from exc

    def close(self) -> None:
        """Close the file; ``OSError`` naming it if the system reports a failed write now."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        try:
            handle.close()
        except OSError as exc:
            self.broken = self._named(exc)
            raise self.broken from exc

    def _named(self, exc: OSError) -> OSError:
        # A failed write on an open file names no path: the message must name this one.
        return OSError(exc.errno, exc.strerror, str(self.path))


def emit(sink: EventSink | None, kind: str, **data: Any) -> None:
    """Hand one event to ``sink`` when there is one."""
    if sink is not None:
        sink(kind, data)


def in_flight_events(sink: EventSink | None, stage: str) -> Callable[[InFlight], None] | None:
    """The engine's ``on_waiting`` that writes each report as an ``in_flight`` event."""
    if sink is None:
        return None

    def report(flight: InFlight) -> None:
        emit(
            sink,
            "in_flight",
            stage=stage,
            calls=flight.calls,
            oldest_s=round(flight.oldest_s, 1),
            deadline_s=flight.deadline_s,
        )

    return report


def in_flight_text(calls: int, oldest_s: float, deadline_s: float | None) -> str:
    """``2 Aufrufe laufen, ältester seit 45 s (Frist 120 s)``; one call: ``1 Aufruf läuft
    seit 45 s (Frist 120 s)`` (each number bound to its unit by a no-break space)."""
    if calls == 1:
        text = f"1 Aufruf läuft seit {seconds(oldest_s)}"
    else:
        text = f"{counted(calls, 'Aufruf', 'Aufrufe')} laufen, ältester seit {seconds(oldest_s)}"
    return text if deadline_s is None else f"{text} (Frist {seconds(deadline_s)})"


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
        # A bad byte spoils its line only (which then is no JSON, or no event).
        text = read_regular(path).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    events = []
    for line in text.splitlines():
        try:
            value = jsontext.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            events.append(value)
    return events
