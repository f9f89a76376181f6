"""The judge step with a jury: members in parallel, each a single-judge session under its own
guard; the stage's bookkeeping; judge-check for every member.

jury.py          a jury's judge run: the members' lines, the card, the events
sessions.py      the members as parallel sessions, dropped members, the quorum, their drift check
member_check.py  judge-check with a jury: one card per member and the jury's verdict
"""
