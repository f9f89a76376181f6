"""The verdict table's yes/no filters read German (issue 36): ``?red_flag=ja`` and
``?unscored=nein`` select as true/false do, on the API and on the run page; any other value is
a 422 naming the filter and the values it takes, never a filter silently dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.gui.test_gui_phone import judged_workspace
from touchstone.sim import SimServer


@pytest.fixture
def workspace(tmp_path: Path, sim: SimServer) -> Path:
    return judged_workspace(tmp_path, sim)


def total(client: TestClient, **params: str) -> int:
    response = client.get("/api/runs/tiny/verdicts", params=params)
    assert response.status_code == 200, response.text
    return int(response.json()["total"])


@pytest.mark.parametrize("name", ["red_flag", "unscored"])
def test_ja_and_nein_select_as_true_and_false(client: TestClient, name: str) -> None:
    yes, no = total(client, **{name: "ja"}), total(client, **{name: "nein"})
    assert (yes, no) == (total(client, **{name: "true"}), total(client, **{name: "false"}))
    assert yes + no == total(client)
    assert total(client, **{name: "Ja"}) == yes


@pytest.mark.parametrize("path", ["/api/runs/tiny/verdicts", "/runs/tiny"])
@pytest.mark.parametrize("name", ["red_flag", "unscored"])
def test_another_value_is_refused_naming_filter_and_values(
    client: TestClient, path: str, name: str
) -> None:
    response = client.get(path, params={name: "vielleicht"})
    assert response.status_code == 422, response.text
    assert name in response.text and "vielleicht" in response.text
    assert "„ja“" in response.text and "„nein“" in response.text


def test_the_run_page_offers_the_words_its_url_takes(client: TestClient) -> None:
    html = client.get("/runs/tiny", params={"red_flag": "ja"}).text
    assert '<option value="ja">ja</option>' in html and '<option value="nein">nein</option>' in html
    assert 'value="true"' not in html
