"""A jury of judges (design.md §18): several judges, a quorum, each member under its own guard.

config.py    JuryConfig (``judges: [...]``, ``aggregate``, ``quorum``), ``load_config``
members.py   who a member is (``MemberId``), marking a verdict as one member's
aggregate.py a cell's verdict from its members' verdicts (median, mean, majority; quorum)
verdicts.py  a run's cells as readers count them (``run_cells``), the members' lines by cell
summary.py   the jury in scorecard.json

The jury's judge stage and its judge-check are stages/jury/ (they drive sessions and the store).
"""
