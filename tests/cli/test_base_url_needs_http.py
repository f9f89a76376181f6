"""A base URL without ``http://``/``https://`` is bad input (issue 36): ``localhost:1234/v1``
once reached the SDK as a relative path, and ``run`` created a run dir and failed 130 calls
as "keine Verbindung". The check is ``urls.scheme_problem``, used by ``run`` (flag and
``OPENAI_BASE_URL``) and by the judge and jury config (``endpoint.base_url``)."""

from pathlib import Path

import pytest

from tests.conftest import run_args, run_cli
from touchstone.urls import scheme_problem


@pytest.mark.parametrize("url", ["localhost:1234/v1", "ftp://x/v1", "http:///v1", "127.0.0.1"])
def test_run_refuses_a_base_url_without_http_and_creates_no_run_dir(
    url: str, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    result = run_cli(*run_args(tiny_pack_path, url, out, "sim-gut"), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "--base-url braucht http:// oder https://" in " ".join(result.stderr.split())
    assert not out.exists()


@pytest.mark.parametrize("command", ["judge", "judge-check"])
def test_a_judge_config_without_http_names_the_file_and_the_field(
    command: str, answered_run: Path, tiny_pack_path: Path, tmp_path: Path
) -> None:
    config = tmp_path / "judge.yaml"
    config.write_text(
        "judges:\n"
        "  - {endpoint: {base_url: 'http://127.0.0.1:9/v1'}, model: a}\n"
        "  - {endpoint: {base_url: 'localhost:1234/v1'}, model: b}\n",
        encoding="utf-8",
    )
    target = [str(answered_run)] if command == "judge" else ["--pack", str(tiny_pack_path)]
    result = run_cli(command, *target, "--config", str(config), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    text = " ".join(result.stderr.split())
    assert "judge.yaml" in text and "judges[1].endpoint.base_url" in text
    assert "braucht http:// oder https://" in text and "„localhost:1234/v1“" in text


def test_http_and_https_in_any_case_are_endpoints_and_a_password_is_never_shown() -> None:
    for url in ("http://localhost:1234/v1", "HTTPS://api.example.com/v1", " http://[::1]:8/ "):
        assert scheme_problem(url) == ""
    problem = scheme_problem("ftp://nutzer:geheim@host/v1")
    assert "geheim" not in problem and "ftp://host/v1" in problem
