"""One judge cannot sit in a jury twice by writing its URL differently (issue 35): three
spellings of one server made one judge decide every median. Endpoints are compared
normalised (scheme, host case, loopback names, trailing slash, default port); other servers,
ports, paths and models stay separate judges. The verdict cache already took a trailing slash
as the same judge; its key is not changed (existing caches keep their verdicts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from touchstone.errors import InputError
from touchstone.judge.backend import OpenAIJudgeBackend, judge_identity
from touchstone.jury.config import JuryConfig, load_config


def jury(tmp_path: Path, *members: tuple[str, str]) -> Path:
    path = tmp_path / "jury.yaml"
    lines = ["judges:"]
    lines += [
        f"  - {{endpoint: {{base_url: '{url}'}}, model: '{model}'}}" for url, model in members
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/"),
        ("http://localhost:8000/v1", "http://127.0.0.1:8000/v1"),
        ("http://[::1]:8000/v1", "http://localhost:8000/v1"),
        ("http://GPU-1:8000/v1", "http://gpu-1:8000/v1"),
        ("HTTP://gpu-1:8000/v1", "http://gpu-1:8000/v1"),
        ("http://gpu-1:80/v1", "http://gpu-1/v1"),
        ("https://api.example.com:443/v1", "https://api.example.com/v1//"),
        ("https://user:geheim@api.example.com/v1", "https://api.example.com/v1"),
    ],
)
def test_one_server_written_twice_is_one_judge_twice(
    tmp_path: Path, first: str, second: str
) -> None:
    path = jury(tmp_path, (first, "qwen"), ("http://other:9000/v1", "qwen"), (second, "qwen"))
    with pytest.raises(InputError) as caught:
        load_config(path)
    message = str(caught.value)
    assert str(path) in message and "zweimal in der Jury" in message
    # Both members named, by their place and as written (never with credentials).
    assert "judges[0]" in message and "judges[2]" in message
    assert second in message and "geheim" not in message
    assert "(oberste Ebene)" not in message


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"),
        ("http://gpu-1:8000/v1", "http://gpu-2:8000/v1"),
        ("http://gpu-1/v1", "https://gpu-1/v1"),
        ("http://gpu-1:8000/v1", "http://gpu-1:8000/v2"),
        ("http://127.0.0.2:8000/v1", "http://127.0.0.1:8000/v1"),
    ],
)
def test_other_servers_ports_and_paths_are_other_judges(
    tmp_path: Path, first: str, second: str
) -> None:
    assert isinstance(load_config(jury(tmp_path, (first, "qwen"), (second, "qwen"))), JuryConfig)


def test_another_model_on_the_same_server_is_another_judge(tmp_path: Path) -> None:
    path = jury(tmp_path, ("http://localhost:8000/v1", "qwen"), ("http://127.0.0.1:8000/v1/", "g"))
    assert isinstance(load_config(path), JuryConfig)


def test_a_trailing_slash_makes_no_new_judge_for_the_verdict_cache() -> None:
    def identity(url: str) -> str:
        return judge_identity(OpenAIJudgeBackend(url, "", "qwen"))

    assert identity("http://127.0.0.1:8000/v1/") == identity("http://127.0.0.1:8000/v1")
