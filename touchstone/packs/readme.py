"""The power table of a pack for the manual's page on packs, from the code that computes it.

    uv run python -m touchstone.packs.readme packs/buero.yaml docs/packs.md

rewrites the block between ``<!-- power-table -->`` and ``<!-- /power-table -->`` in place, in
the German of the page it stands in (decimal commas, as the terminal prints them).
``tests/unit/packs/test_pack_check.py`` fails when the page's table is not the pack's.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from touchstone import german
from touchstone.pack import load_pack
from touchstone.packs.power import ASSUMED_REPEAT_SHARE, ASSUMED_SD_SHARE, about
from touchstone.packs.power_table import power

START, END = "<!-- power-table -->", "<!-- /power-table -->"
_BLOCK = re.compile(re.escape(START) + r".*?" + re.escape(END), re.DOTALL)


def power_table(pack_path: Path) -> str:
    """The Markdown table for the pack at ``pack_path`` (assumed spread), markers included."""
    pack = load_pack(pack_path)
    result = power(pack)
    span = pack.scale.max - pack.scale.min
    lines = [
        START,
        f"`{pack.id}`: {result.prompts} Prompts, Skala {pack.scale.min}–{pack.scale.max}, "
        "angenommene Streuung (Standardabweichung des Unterschieds je Prompt "
        f"{german.number(ASSUMED_SD_SHARE * span)} Punkte, "
        f"{german.percent(ASSUMED_REPEAT_SHARE)} ihrer Varianz aus Wiederholungen):",
        "",
        "| Wiederholungen | kleinster trennbarer Unterschied "
        f"| Prompts für {german.number(result.target, 1)} Punkte |",
        "| ---: | ---: | ---: |",
    ]
    for row in result.rows:
        difference = german.DASH if row.difference is None else german.number(row.difference)
        needed = german.DASH if row.needed is None else f"etwa {german.count(about(row.needed))}"
        lines.append(f"| {row.repeats} | {difference} | {needed} |")
    lines.append(END)
    return "\n".join(lines)


def refresh(pack_path: Path, page: Path) -> bool:
    """Rewrite the table in ``page``; whether it changed."""
    text = page.read_text(encoding="utf-8")
    if not _BLOCK.search(text):
        raise SystemExit(f"{page}: no {START} … {END} block")
    new = _BLOCK.sub(lambda _: power_table(pack_path), text, count=1)
    if new != text:
        page.write_text(new, encoding="utf-8")
    return new != text


def page_table(page: Path) -> str | None:
    """The table block as ``page`` has it, or None."""
    found = _BLOCK.search(page.read_text(encoding="utf-8"))
    return found.group(0) if found else None


if __name__ == "__main__":
    changed = refresh(Path(sys.argv[1]), Path(sys.argv[2]))
    print("updated" if changed else "unchanged")
