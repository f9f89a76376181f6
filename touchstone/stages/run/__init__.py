"""The run step: every evaluated model asked every prompt of a pack, each answer persisted.

run.py         execute_run: answers -> responses.jsonl; run.json records a model once it answered
answering.py   the cells a plan has, asked under the failure policy
unfinished.py  why a run left cells, and what to do, by cause
extend.py      an existing run's settings against those asked: resume, ``--extend``, or refuse
manifest.py    run.json's contents and the pack a run was made with (the format: store/manifest.py)
"""
