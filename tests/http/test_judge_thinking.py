"""Thinking switched off on purpose (design.md §26): the switch each server kind takes, sent,
recorded in the judge identity, and checked by judge-check against a judge that ignores it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from touchstone.bundled import bundled_pack
from touchstone.errors import InputError
from touchstone.judge.backend import judge_identity
from touchstone.judge.config import JudgeConfig, JudgeEndpoint, load_judge_config
from touchstone.pack import load_pack
from touchstone.sim import SimServer
from touchstone.stages.judge_check import execute_judge_check

NO_THINKING = {"enable_thinking": False}


@pytest.fixture
def server() -> Any:
    with SimServer() as fresh:
        yield fresh


@pytest.mark.parametrize(
    ("url", "server", "sent"),
    [
        (
            "http://127.0.0.1:8080/v1",
            "llamacpp",
            {"chat_template_kwargs": {"enable_thinking": False}},
        ),
        ("http://127.0.0.1:8000/v1", "vllm", {"chat_template_kwargs": {"enable_thinking": False}}),
        ("http://127.0.0.1:11434/v1", None, {"think": False}),
        ("https://openrouter.ai/api/v1", None, {"reasoning": {"enabled": False}}),
        ("https://api.openai.com/v1", None, {"reasoning_effort": "low"}),
    ],
)
def test_thinking_off_sends_the_switch_of_the_server_kind(
    url: str, server: str | None, sent: dict[str, Any]
) -> None:
    config = JudgeConfig(JudgeEndpoint(url), "j", thinking="off", server=server)
    assert config.request_fields() == sent
    plain = JudgeConfig(JudgeEndpoint(url), "j", server=server)
    # The switch is part of who judges: verdicts without it are not served from the cache.
    assert judge_identity(config.backend()) != judge_identity(plain.backend())
    assert config.thinking_text().startswith("Thinking aus: gesendet ")


def test_thinking_off_on_an_unknown_server_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "judge.yaml"
    path.write_text(
        "endpoint: {base_url: 'http://127.0.0.1:8080/v1'}\nmodel: j\nthinking: off\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as refused:
        load_judge_config(path)
    assert str(path) in str(refused.value) and "server:" in str(refused.value)
    # As YAML writes it: a bare off (YAML 1.1: false) is the setting "off".
    path.write_text(path.read_text(encoding="utf-8") + "server: llamacpp\nschema: off\n")
    loaded = load_judge_config(path)
    assert (loaded.thinking, loaded.schema) == ("off", "off")


def check(server: SimServer, model: str, **keys: Any) -> Any:
    config = JudgeConfig(JudgeEndpoint(server.base_url), model, server="llamacpp", **keys)
    return execute_judge_check(load_pack(bundled_pack("buero")), config=config)


def test_judge_check_finds_a_judge_that_obeys_the_switch(server: SimServer) -> None:
    card = check(server, "sim-denkt", thinking="off")
    sent = [r.get("chat_template_kwargs") for r in server.history]
    assert sent and all(s == {"enable_thinking": False} for s in sent)
    assert card.suitable and "enable_thinking: false" in card.as_dict()["thinking"]


def test_judge_check_finds_a_judge_that_thinks_although_switched_off(server: SimServer) -> None:
    card = check(server, "sim-denkt-stur", thinking="off")
    assert not card.suitable
    assert any("Thinking ist trotz `thinking: off` an" in r for r in card.reasons)


def test_without_the_setting_nothing_is_sent_and_nothing_checked(server: SimServer) -> None:
    card = check(server, "sim-denkt-stur")
    assert all("chat_template_kwargs" not in r for r in server.history)
    assert card.suitable and card.as_dict()["thinking"] == ""
