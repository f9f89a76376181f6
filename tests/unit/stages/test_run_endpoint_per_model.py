"""Which endpoint served which model (issue 37, "Smaller"): a run extended by a model from a
second server records both URLs in ``base_urls`` and, per model, the URL its answers came from
(``model_base_urls`` in run.json), without credentials or query."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import PackRun
from touchstone.sim import SimServer
from touchstone.stages.run.run import execute_run
from touchstone.store import MANIFEST
from touchstone.urls import recorded_url


def _manifest(out: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((out / MANIFEST).read_text(encoding="utf-8"))


def test_a_run_served_by_two_endpoints_records_which_model_each_served(
    sim: SimServer, tiny_run: PackRun
) -> None:
    tiny_run("sim-gut", variants=["none"])
    assert _manifest(tiny_run.out)["model_base_urls"] == {"sim-gut": [sim.base_url]}
    with SimServer() as other:
        secret = other.base_url.replace("http://", "http://nutzer:GEHEIM-4711@")
        execute_run(
            **tiny_run.options("sim-schwach", variants=["none"], extend=True, base_url=secret)
        )
    manifest = _manifest(tiny_run.out)
    assert manifest["base_urls"] == [sim.base_url, other.base_url]
    assert manifest["model_base_urls"] == {
        "sim-gut": [sim.base_url],
        "sim-schwach": [other.base_url],
    }
    assert "GEHEIM" not in (tiny_run.out / MANIFEST).read_text(encoding="utf-8")
    # The record is read back as the run's own: the next resume keeps it as it is.
    again = tiny_run("sim-gut", variants=["none"])
    assert again.summary.recorded == 0
    assert _manifest(tiny_run.out)["model_base_urls"] == manifest["model_base_urls"]


def test_the_url_recorded_for_a_model_has_no_credentials_query_or_fragment() -> None:
    # A proxy may take its key as a query parameter: run.json never gets it.
    url = "https://nutzer:GEHEIM-4711@proxy.example/v1?key=GEHEIM-4711#x"
    assert recorded_url(url) == "https://proxy.example/v1"
    assert recorded_url("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080/v1/"
