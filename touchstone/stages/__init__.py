"""The application layer: one sub-folder per step, as the CLI, the demo and the GUI drive them.

    run/          execute_run: answers of the evaluated models -> responses.jsonl
    judge/        execute_judge: verdicts -> judgements.jsonl, reports.json, scorecard.json
    jury/         the judge step with a jury, and judge-check per member
    preview/      --dry-run: calls, tokens, cost and time, before anything starts
    judge_check.py  execute_judge_check: the probe battery -> the judge's fitness card
    spot_check.py   the human spot check against a run: its sample, ratings and card
    view.py       load_run, report_html, write_report: the run read back -> report.html

A step's stage sits here, above its core (``judge/``, ``jury/``, ``spot/``, ...), because it
ties that core to the store, the scorecard and the report, which all sit above the core (the
scorecard reads judge quality, which reads the judge). Each stage owns its run-dir
bookkeeping and reports what happens through an ``on_event(kind, data)`` callback; it never
prints. Errors leave as the exceptions of ``errors``; ``cli`` turns them into messages and exit
codes.

The package re-exports nothing: import from the module that defines a name, so that a
command loads only what it uses (a settled resume imports no call machinery).
"""
