"""The GUI's "Judge prüfen" names the probe bound the battery has, as `judge-check --help` does
(issue 36; the CLI's part and the bound: `tests/unit/quality/test_probe_bound_in_words.py`)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from touchstone.limits import MAX_PROBES


def test_the_check_button_names_the_bound_the_battery_has(client: TestClient) -> None:
    page = client.get("/runs/tiny").text
    (button,) = re.findall(r'<button[^>]*data-testid="check-judge"[^>]*>', page)
    assert re.findall(r"(\d+) Proben", button) == [str(MAX_PROBES)], button
