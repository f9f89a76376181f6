"""The GUI's words for an interrupted "alle neu" judge (issue 36): "Fortsetzen" replays
``--rejudge all``, which now continues where it stopped (``stages/judge/rejudging.py``); the
notice said it "bewertet die offenen Zellen" while it re-judged every cell again."""

from touchstone.gui.job_notice import for_browser

RECORD = {"command": ["-m", "touchstone", "judge", "r", "--config", "/w/j.yaml"]}


def test_a_cancelled_rejudge_all_says_fortsetzen_goes_on_where_it_stopped() -> None:
    record = {**RECORD, "command": [*RECORD["command"], "--rejudge", "all"], "state": "cancelled"}
    shown = for_browser(record, {"end": {}, "health": {}})
    assert "setzt die Neubewertung fort" in shown["notice"], shown
    assert "noch nicht erreicht" in shown["notice"] and shown["actions"] == ["resume"]
    plain = for_browser({**RECORD, "state": "cancelled"}, {"end": {}, "health": {}})
    assert "bewertet die offenen Zellen" in plain["notice"]


def test_a_stopped_rejudge_all_says_fortsetzen_continues_it() -> None:
    end = {"ending": "judge_stopped", "cause": "server", "model": "j", "base_url": "http://h/v1"}
    end |= {"open_cells": 0, "kept": 5, "rejudge_left": 7}
    health = {"calls": 8, "successes": 5, "failures": {"server": 3}}
    shown = for_browser({**RECORD, "state": "failed"}, {"end": end, "health": health})
    assert "„Fortsetzen“ setzt die Neubewertung fort" in shown["notice"], shown
    assert "resume" in shown["actions"]
