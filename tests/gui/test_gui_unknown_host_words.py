"""An unknown host in the GUI's words (issue 36): the page names the host and offers no
"Fortsetzen", which would fail the same way; the CLI's facts carry ``unknown_host``
(``tests/unit/stages/test_unknown_host.py`` checks the CLI's words)."""

from touchstone.gui.job_notice import for_browser

BASE = "http://localhots:1234/v1"


def test_a_run_against_an_unknown_host_names_it_and_asks_for_the_endpoint_field() -> None:
    record = {"command": ["-m", "touchstone", "run"], "state": "failed"}
    end = {
        "ending": "run_incomplete",
        "open_cells": 12,
        "base_url": BASE,
        "left": [{"cause": "connection", "calls": 1, "unknown_host": True}],
    }
    shown = for_browser(record, {"end": end, "health": {}})
    assert "Rechnername „localhots“ nicht gefunden" in shown["notice"], shown
    assert "Fortsetzen" not in shown["notice"] and "resume" not in shown["actions"]
    assert shown["fix"]["field"] == "base_url"


def test_a_judge_against_an_unknown_host_names_it_without_fortsetzen() -> None:
    record = {"command": ["-m", "touchstone", "judge", "r", "--config", "/w/j.yaml"]}
    end = {
        "ending": "judge_stopped",
        "cause": "connection",
        "unknown_host": True,
        "model": "j",
        "base_url": BASE,
        "open_cells": 4,
    }
    health = {"calls": 3, "successes": 0, "failures": {"connection": 3}}
    shown = for_browser({**record, "state": "failed"}, {"end": end, "health": health})
    assert "Rechnername „localhots“ nicht gefunden" in shown["notice"], shown
    assert shown["actions"] == ["other_model"]
