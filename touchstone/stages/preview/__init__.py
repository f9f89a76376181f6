"""``--dry-run``: what a run or a judge run would ask and cost, before it starts. Reads the run
dir without its lock, writes and calls nothing.

preview.py      the run's and the judge run's calls, tokens, cost and time
judge_calls.py  what one judge would ask
jury_calls.py   a jury's, per member and in total
estimate.py     the figures in German
"""
