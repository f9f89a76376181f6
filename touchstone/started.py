"""The command a hint names, as this process was started (issue 36).

A hint ("Als Nächstes: … `touchstone judge RUN`") is only help if the user can type it.
Under the README's setup (``uv run touchstone …``) a bare ``touchstone`` is "command not
found"; started as a module it may name another Python's package. So every hint builds its
command with ``command``: ``uv run touchstone`` when uv started this process (uv sets ``UV``,
the path of its binary, in the environment of what it runs, and so of everything below it),
``python -m touchstone`` when Python ran the package as a module, else ``touchstone`` (the
console script). ``TOUCHSTONE_COMMAND`` overrides all three: the GUI starts its jobs as
``python -m touchstone`` and sets it to its own way of being started, so that a job's hint
names the command the GUI's user would type.
"""

from __future__ import annotations

import os
import sys

ENV = "TOUCHSTONE_COMMAND"
_MODULES = frozenset({"touchstone", "touchstone.__main__"})


def prefix() -> str:
    """How to start touchstone again from the terminal this process was started in."""
    given = os.environ.get(ENV, "").strip()
    if given:
        return given
    if os.environ.get("UV"):
        return "uv run touchstone"
    main = sys.modules.get("__main__")
    spec = main.__spec__ if main is not None else None
    if spec is not None and spec.name in _MODULES:
        return "python -m touchstone"
    return "touchstone"


def command(args: str = "") -> str:
    """``touchstone ARGS`` as this process was started: ``command("judge runs/x")``."""
    return f"{prefix()} {args}".rstrip()
