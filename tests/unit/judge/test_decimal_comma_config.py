"""A judge config written the German way (issue 36): YAML reads ``temperature: 0,3`` as the
text "0,3"; every float field takes it as 0.3, and an ambiguous form is refused in German."""

from __future__ import annotations

from pathlib import Path

import pytest

from touchstone.errors import InputError
from touchstone.judge.config import load_judge_config

HEAD = "endpoint: {base_url: 'http://127.0.0.1:9/v1'}\nmodel: m\n"


def _config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "judge.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    return path


def test_decimal_commas_in_every_float_field_are_read_as_numbers(tmp_path: Path) -> None:
    body = (
        "temperature: 0,3\ncall_timeout_s: 12,5\nmax_failure_ratio: 0,25\nmax_reply_mb: 1,5\n"
        "max_tokens: 100\nprice_per_million: {input: '0,15', output: 0.6, cached_input: '0,075'}\n"
        "budget: 2,5\n"
    )
    config = load_judge_config(_config(tmp_path, body))
    assert (config.temperature, config.call_timeout_s, config.max_failure_ratio) == (
        0.3,
        12.5,
        0.25,
    )
    assert (config.max_reply_mb, config.budget) == (1.5, 2.5)
    price = config.price_per_million
    assert (price.input, price.output, price.cached_input) == (0.15, 0.6, 0.075)


@pytest.mark.parametrize("text", ["1.000,5", "0,3,4", "drei"])
def test_an_ambiguous_or_wrong_number_is_refused_naming_the_field(
    tmp_path: Path, text: str
) -> None:
    with pytest.raises(InputError) as caught:
        load_judge_config(_config(tmp_path, f"temperature: '{text}'\n"))
    message = str(caught.value)
    assert "judge.yaml" in message and "„temperature“" in message
    assert f"„{text}“ ist keine Zahl" in message and "0,3 oder 0.3" in message
    assert ("Tausenderpunkte" in message) == (text != "drei")


def test_a_text_field_keeps_its_comma(tmp_path: Path) -> None:
    path = _config(tmp_path, "")
    path.write_text(path.read_text(encoding="utf-8").replace("model: m", "model: 0,3"))
    assert load_judge_config(path).model == "0,3"
