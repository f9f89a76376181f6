"""The stages as the CLI, the demo and the GUI drive them: run, judge, report.

    run.py       execute_run: answers of the evaluated models -> responses.jsonl
    answering.py the cells a run plans, asked under the failure policy (run_cells)
    judge.py     execute_judge: verdicts -> judgements.jsonl, reports.json
    jury.py      a jury's judge run (DESIGN §18): the members' lines, the card, the events
    view.py      load_run, report_html, write_report: the run read back -> report.html
    check.py     execute_judge_check: the probe battery -> the judge's fitness card
    manifest.py  run.json and the pack a run was made with

Each stage owns its run-dir bookkeeping (manifest, append streams, clean rewrite) and reports
what happens through an ``on_event(kind, data)`` callback; it never prints. Errors leave as
the exceptions of ``errors``; ``cli`` turns them into messages and exit codes.
"""

from touchstone.stages.check import check_pack, execute_judge_check
from touchstone.stages.judge import execute_judge
from touchstone.stages.judge_outcome import JudgeOutcome
from touchstone.stages.manifest import default_run_name, now_iso
from touchstone.stages.run import RunOutcome, execute_run
from touchstone.stages.view import RunView, load_run, report_html, write_report

__all__ = [
    "JudgeOutcome",
    "RunOutcome",
    "RunView",
    "check_pack",
    "default_run_name",
    "execute_judge",
    "execute_judge_check",
    "execute_run",
    "load_run",
    "now_iso",
    "report_html",
    "write_report",
]
