"""A jury of judges (DESIGN §18): several judges, a quorum, each member under its own guard.

config.py    JuryConfig (``judges: [...]``, ``aggregate``, ``quorum``), ``load_config``
members.py   who a member is (``MemberId``), marking a verdict as one member's
aggregate.py a cell's verdict from its members' verdicts (median, mean, majority; quorum)
verdicts.py  a run's cells as readers count them (``run_cells``), the members' lines by cell
stage.py     the jury's judge stage: members in parallel, dropped members, the quorum
check.py     judge-check with a jury: one card per member and the jury's verdict
"""
