"""The local web GUI (``touchstone gui``): pages and a JSON API over CLI subprocesses."""
