"""Where ``compare --json`` may write (design.md §19): never over what it did not write.

A target inside a run dir (``judgements.jsonl`` holds paid verdicts) or an existing file that
is not an earlier compare output is bad input unless the user forces it; a directory or
anything but a regular file is bad input always. The write itself is atomic
(``store.atomic_write_text``).
"""

from __future__ import annotations

import os
from pathlib import Path

from touchstone import jsontext
from touchstone.errors import InputError
from touchstone.regular import open_regular
from touchstone.store import MANIFEST

# The keys every compare output has (``RunComparison.as_dict`` and the gate's).
_COMPARE_KEYS = frozenset({"rows", "judges_differ", "new_run", "baseline_run", "gate"})
# An earlier output is a few KB per row; a file larger than this is none.
_MAX_EARLIER_BYTES = 64 * 2**20


def _run_dir_around(path: Path) -> Path | None:
    """The run dir ``path`` (symlinks resolved) lies in, if any."""
    for parent in path.parents:
        if (parent / MANIFEST).is_file():
            return parent
    return None


def _earlier_output(path: Path) -> bool:
    """Whether the regular file ``path`` is what an earlier ``compare --json`` wrote."""
    with open_regular(path, follow_links=True) as handle:
        if os.fstat(handle.fileno()).st_size > _MAX_EARLIER_BYTES:
            return False
        raw = handle.read()
    try:
        data = jsontext.loads(raw)
    except ValueError:  # malformed JSON, invalid UTF-8, an integer of 5,000 digits
        return False
    return isinstance(data, dict) and data.keys() >= _COMPARE_KEYS


def check_json_target(path: Path, *, force: bool) -> None:
    """Refuse ``path`` as the target of ``--json`` (an ``InputError`` naming it and the way
    out) unless it is new or an earlier compare output outside every run dir, or ``force``."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise InputError(f"--json {path}: der Pfad lässt sich nicht auflösen ({exc}).") from exc
    if resolved.is_dir():
        raise InputError(f"--json {path}: das ist ein Verzeichnis; erwartet wird eine Datei.")
    exists = resolved.exists()
    # A FIFO or device is refused here, forced or not (open_regular names it).
    earlier = exists and _earlier_output(resolved)
    if force:
        return
    run = _run_dir_around(resolved)
    if run is not None:
        raise InputError(
            f"--json {path}: liegt im Run-Verzeichnis {run}; compare schreibt nicht in einen "
            "Run (es könnte dessen Dateien ersetzen, etwa die Bewertungen). Wählen Sie eine "
            "Datei außerhalb, oder überschreiben Sie mit --force."
        )
    if exists and not earlier:
        raise InputError(
            f"--json {path}: die Datei gibt es schon, und sie ist keine frühere Ausgabe von "
            "compare; sie wird nicht überschrieben. Wählen Sie einen anderen Namen, oder "
            "überschreiben Sie mit --force."
        )
