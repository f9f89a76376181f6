"""The command line: thin commands over the stages; ``ui.handled`` maps errors to exit codes.

app.py       the Typer app, ``--version``, ``main`` (SIGTERM -> Terminated)
ui.py        consoles, the error guard, progress bars, outcome printing
pipeline.py  run, judge, report
judge_check.py  judge-check
tools.py     gui, sim, demo, cache
versus.py    compare (a run against a baseline, the CI gate)
packs.py     pack check, pack import (the ``pack`` group)
rate.py      rate (the human spot check in the terminal)
show.py      show (a prompt's answers, verdicts and raw judge replies)
"""

from touchstone.cli import judge_check, pipeline, rate, show, tools, versus
from touchstone.cli.app import app, main

__all__ = ["app", "judge_check", "main", "pipeline", "rate", "show", "tools", "versus"]
