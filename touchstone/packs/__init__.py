"""Working on packs (design.md §20); ``touchstone/pack.py`` stays the loader.

check.py     ``pack check``: lint findings (errors and warnings) and the power section
power.py     the smallest difference a pack or a run can tell apart (80 % power, 95 %)
importer.py  ``pack import``: CSV and JSONL into a pack's YAML, hostile input refused
"""
