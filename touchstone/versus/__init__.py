"""Comparing two runs (design.md §19): rows matched, paired intervals, and the CI gate.

cells.py     which rows and prompts are compared, each row's cells on them
build.py     ``compare_runs``: the differences with their intervals, ``RunComparison``
gate.py      ``--fail-on worse`` and ``--margin``: the exit code and its sentence
family.py    the gate's rows widened for their number (Bonferroni), the power it keeps
notes.py     what a reader must know beside the numbers (judges, left-out prompts)
terminal.py  the table at 80 columns and up
"""

from touchstone.versus.build import RowComparison, RunComparison, compare_runs
from touchstone.versus.gate import GateResult, gate

__all__ = ["GateResult", "RowComparison", "RunComparison", "compare_runs", "gate"]
