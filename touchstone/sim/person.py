"""A simulated person for the spot check: ratings of known character (demo, tests).

It reads a simulated answer's stated quality ("Qualitätsstufe N/5", as ``sim-judge`` does)
and rates it on the scale, with a little deterministic disagreement of its own; with the
answers of ``STRICT_WITH`` it is stricter (it finds them wordy), so the simulator's judge is
in effect lenient to that model: the agreement card must say "Judge weicht ab".
"""

from __future__ import annotations

import hashlib
import re

STRICT_WITH = "sim-gut"
# How many points stricter: enough that 5 ratings a row show it through a jury's noise when
# "rows differ" holds for the whole card (Holm over buero's 15 pairs of rows).
STRICTER_BY = 3
_STATED = re.compile(r"Simulierte Antwort \(([^,]+), Qualitätsstufe (\d)/5\)")


def simulated_rating(answer: str, low: int, high: int) -> tuple[int, bool] | None:
    """(score, red flag) for ``answer`` on ``low..high``; None for an answer that states no
    simulated quality (the person skips it)."""
    found = _STATED.search(answer)
    if not found:
        return None
    model, quality = found.group(1), int(found.group(2))
    seed = int(hashlib.sha256(answer.encode("utf-8")).hexdigest()[:8], 16)
    raw = low + round(quality * (high - low) / 5)
    if seed % 4 == 0:
        raw += 1 if seed % 8 == 0 else -1
    if model == STRICT_WITH:
        raw -= STRICTER_BY
    score = max(low, min(high, raw))
    return score, quality <= 1
