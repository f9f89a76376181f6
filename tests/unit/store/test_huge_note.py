"""A note.txt of any size in a shared run dir is read only as far as a note may go."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from touchstone.store import shelf
from touchstone.store.shelf import MAX_NOTE, NOTE, read_note


def test_a_huge_note_is_cut_and_read_no_further(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / NOTE).write_bytes(b"x" * (MAX_NOTE * 50))
    handed: list[int] = []
    opened = shelf.open_regular

    def counting(path: Path, *args: Any, **kwargs: Any) -> Any:
        handle = opened(path, *args, **kwargs)
        read = handle.read

        def counted_read(size: int = -1) -> bytes:
            data = read(size)
            handed.append(len(data))
            return data

        handle.read = counted_read  # type: ignore[method-assign]
        return handle

    monkeypatch.setattr(shelf, "open_regular", counting)
    assert read_note(tmp_path) == "x" * MAX_NOTE
    assert sum(handed) <= MAX_NOTE * 4  # not the 100.000 bytes on disk


def test_a_note_cut_inside_a_character_stays_text(tmp_path: Path) -> None:
    (tmp_path / NOTE).write_text("ä" * (MAX_NOTE * 3), encoding="utf-8")
    assert read_note(tmp_path) == "ä" * MAX_NOTE
