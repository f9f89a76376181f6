"""Every set-level claim of the card, in one run (issue 33; design.md §23): the four benchmarks
that measure them, each printing its figures under the null and under a known effect.

- ``card_spot.py``: the spot check's "rows differ" (Holm over the pairs of rows) at 2, 3, 6,
  10 and 25 rows, and its power for a judge lenient to one row of 6;
- ``card_gate.py``: ``compare``'s gate (Bonferroni over the rows) at 1, 2 and 6 rows, its power
  for a loss of 0.5 on one row of 6, ``--margin 0.3``, and flagged categories of unchanged rows;
- ``card_ranks.py``: split ranks of equal rows at 2, 6 and 12 rows, and the power kept;
- ``ci_coverage.py``: the rows' and categories' coverage at 3 and 5 prompts (normal, ceiling,
  skewed and bimodal data) and from 10 prompts up, and the false "better" of equal models.

Run: uv run python benchmarks/whole_card.py  (about 10 minutes on a busy 2-core machine)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import card_gate
import card_ranks
import card_spot
import ci_coverage


def main() -> None:
    for name, module in (
        ("spot check", card_spot),
        ("gate and categories", card_gate),
        ("ranks", card_ranks),
        ("coverage", ci_coverage),
    ):
        print(f"\n=== {name} ({module.__name__}.py) ===", flush=True)
        started = time.monotonic()
        module.main()
        print(f"({time.monotonic() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
