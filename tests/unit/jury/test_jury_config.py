"""The jury's configuration (design.md §18): judges, aggregate, quorum; the old form unchanged."""

from pathlib import Path

import pytest

from touchstone.errors import InputError
from touchstone.judge.config import JudgeConfig
from touchstone.jury.config import JuryConfig, load_config
from touchstone.jury.members import MemberId

JURY = """\
judges:
  - {endpoint: {base_url: http://gpu-1:8000/v1}, model: qwen2.5-14b-instruct, call_timeout_s: 60}
  - {endpoint: {base_url: "http://127.0.0.1:11434/v1"}, model: "gemma2:9b",
     extra_body: {think: false}}
  - endpoint: {base_url: "https://user:secret@openrouter.ai/api/v1"}
    model: mistralai/mistral-small
    concurrency: 4
    price_per_million: {input: 0.1, output: 0.3}
aggregate: mean
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "judge.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_jury_loads_each_member_as_a_full_judge_config(tmp_path: Path) -> None:
    jury = load_config(write(tmp_path, JURY))
    assert isinstance(jury, JuryConfig)
    assert [j.model for j in jury.judges] == [
        "qwen2.5-14b-instruct",
        "gemma2:9b",
        "mistralai/mistral-small",
    ]
    assert jury.judges[0].call_timeout_s == 60 and jury.judges[1].extra_body == {"think": False}
    assert jury.judges[2].concurrency == 4 and jury.judges[2].price_per_million is not None
    assert jury.aggregate == "mean"
    assert jury.required == 2  # more than half of three
    # Members are named without credentials.
    assert jury.members[2] == MemberId("mistralai/mistral-small", "https://openrouter.ai/api/v1")


def test_single_judge_form_loads_unchanged(tmp_path: Path) -> None:
    one = load_config(write(tmp_path, "endpoint: {base_url: http://x/v1}\nmodel: m\n"))
    assert isinstance(one, JudgeConfig) and one.model == "m"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (JURY + "quorum: 4\n", "quorum"),
        (JURY + "aggregate: modus\n", "aggregate"),
        ("judges:\n  - {endpoint: {base_url: http://x/v1}, model: m}\n", "judges"),
        (
            "judges:\n  - {endpoint: {base_url: http://x/v1}, model: m}\n"
            "  - {endpoint: {base_url: http://x/v1}, model: m, temperature: 1}\n",
            "zweimal",
        ),
        ("judges:\n  - {endpoint: {base_url: http://x/v1}}\n  - {model: m}\n", "judges"),
        (JURY.replace("call_timeout_s: 60", "call_timeout_s: -1"), "call_timeout_s"),
    ],
)
def test_bad_jury_is_bad_input_naming_file_and_key(tmp_path: Path, text: str, problem: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_config(path)
    assert str(path) in str(caught.value) and problem in str(caught.value)
