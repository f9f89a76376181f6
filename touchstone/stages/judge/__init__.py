"""The judge step: a run's answers judged under the guard, verdicts and the scorecard written.

judge.py    execute_judge: verdicts -> judgements.jsonl, reports.json, scorecard.json
outcome.py  what a judge run did (``JudgeOutcome``) and how its events say it
stop.py     a stopped judge run: what stands, the stop told with its figures
drift.py    before a run served from the verdict cache: three cached cells asked again
"""
