"""The power table of a pack for README.md ("Writing a pack"), from the code that computes it.

    uv run python -m touchstone.packs.readme packs/buero.yaml README.md

rewrites the block between ``<!-- power-table -->`` and ``<!-- /power-table -->`` in place
(README is English: decimal points there, not the terminal's German commas).
``tests/unit/packs/test_pack_check.py`` fails when the README's table is not the pack's.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

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
        f"`{pack.id}`: {result.prompts} prompts, scale {pack.scale.min}..{pack.scale.max}, "
        f"assumed spread (SD of a paired per-prompt difference {ASSUMED_SD_SHARE * span:.2f} "
        f"points, {ASSUMED_REPEAT_SHARE:.0%} of its variance from repeats):",
        "",
        f"| repeats | smallest difference told apart | prompts needed for {result.target:.1f} |",
        "| ---: | ---: | ---: |",
    ]
    for row in result.rows:
        difference = "–" if row.difference is None else f"{row.difference:.2f}"
        needed = "–" if row.needed is None else f"about {about(row.needed)}"
        lines.append(f"| {row.repeats} | {difference} | {needed} |")
    lines.append(END)
    return "\n".join(lines)


def refresh(pack_path: Path, readme: Path) -> bool:
    """Rewrite the table in ``readme``; whether it changed."""
    text = readme.read_text(encoding="utf-8")
    if not _BLOCK.search(text):
        raise SystemExit(f"{readme}: no {START} … {END} block")
    new = _BLOCK.sub(lambda _: power_table(pack_path), text, count=1)
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


def readme_table(readme: Path) -> str | None:
    """The table block as ``readme`` has it, or None."""
    found = _BLOCK.search(readme.read_text(encoding="utf-8"))
    return found.group(0) if found else None


if __name__ == "__main__":
    changed = refresh(Path(sys.argv[1]), Path(sys.argv[2]))
    print("updated" if changed else "unchanged")
