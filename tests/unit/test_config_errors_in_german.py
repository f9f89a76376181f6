"""Every problem pydantic finds in a config is told in German (issue 35): a jury of one judge
once read "'judges': List should have at least 2 items after validation, not 1".

The error types are pydantic's own (``pydantic_core.list_all_errors``), and the configs and
the pack are walked field by field from their models, so a new field or a new pydantic error
type cannot bring English back unnoticed.
"""

from __future__ import annotations

import copy
import math
import re
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError
from pydantic_core._pydantic_core import list_all_errors

from tests.conftest import TINY_PACK
from touchstone.errors import InputError
from touchstone.judge.config import JudgeConfig
from touchstone.jury.config import JuryConfig, load_config
from touchstone.pack import Pack, load_pack
from touchstone.validation_words import german_problem

ERRORS = list_all_errors()
# Our own validators raise these with German text; pydantic adds an English lead-in.
OWN_TEXT = {"value_error", "assertion_error"}


def english_fragments(template: str) -> list[str]:
    """The fixed words of a pydantic message template ("Input should be ", " item" …)."""
    parts = re.split(r"\{[^}]*\}", template)
    return [part.strip(" ,.'") for part in parts if len(part.strip(" ,.'")) >= 4]


FRAGMENTS = sorted({f for e in ERRORS for f in english_fragments(e["message_template_python"])})


def english_in(message: str) -> list[str]:
    return [fragment for fragment in FRAGMENTS if fragment in message]


def pydantic_error(kind: str, context: dict[str, Any] | None) -> dict[str, Any]:
    """One error of ``kind`` as pydantic reports it, with its example context."""
    line: dict[str, Any] = {"type": kind, "loc": ("feld",), "input": "wert"}
    if context is not None:
        line["ctx"] = {
            k: "ungültig" if k == "error" and v is None else v for k, v in context.items()
        }
    return dict(ValidationError.from_exception_data("Probe", [line]).errors()[0])  # type: ignore[list-item]


@pytest.mark.parametrize("info", ERRORS, ids=[e["type"] for e in ERRORS])
def test_every_error_type_pydantic_knows_is_told_in_german(info: dict[str, Any]) -> None:
    error = pydantic_error(info["type"], info["example_context"])
    message = german_problem(error)
    assert "feld" in message
    assert english_in(message) == [], message
    if info["type"] not in OWN_TEXT:
        assert error["msg"] not in message


# -- the configs, walked from their models --------------------------------------------------

MEMBER: dict[str, Any] = {
    "endpoint": {"base_url": "http://gpu-1:8000/v1", "api_key": "k", "api_key_env": ""},
    "model": "m",
    "price_per_million": {"input": 0.1, "output": 0.3, "cached_input": 0.05},
    "max_tokens": 500,
    "budget": 1.0,
}
JURY: dict[str, Any] = {
    "judges": [MEMBER, {**MEMBER, "model": "n"}],
    "aggregate": "median",
    "quorum": 2,
}
# Values of every kind and size a hand-written YAML can hold.
PROBES: list[Any] = [
    None,
    True,
    0,
    -1,
    0.5,
    10**30,
    math.inf,
    math.nan,
    "",
    "x",
    "x" * 5000,
    [],
    [1],
    {},
    {"k": 1},
]


def _fields(model: Any) -> dict[str, Any]:
    return dict(getattr(model, "__pydantic_fields__", {}))


def _nested(annotation: Any) -> tuple[Any, bool] | None:
    """The config model inside a field's type, and whether it is a list of them."""
    for arg in typing.get_args(annotation):
        found = _nested(arg)
        if found is not None:
            return found[0], found[1] or typing.get_origin(annotation) is list
    if _fields(annotation):
        return annotation, False
    return None


def _set(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    target: Any = out
    for part in path[:-1]:
        target = target[part]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


_DELETE = object()


def variants(model: Any, sample: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """``(path, value)`` for every field of ``model`` (and of the models inside it): each
    probe in its place, the field left out, and an unknown key beside it."""
    out: list[tuple[Any, ...]] = [((*path, "unbekannt"), 1)]
    for name, field in _fields(model).items():
        out += [((*path, name), probe) for probe in PROBES]
        if name in sample:
            out.append(((*path, name), _DELETE))
        nested = _nested(field.annotation)
        if nested is not None:
            inner, many = nested
            assert name in sample, f"the walk's sample lacks {'.'.join(map(str, path))}.{name}"
            sub_path = (*path, name, 0) if many else (*path, name)
            out += variants(inner, sample[name][0] if many else sample[name], sub_path)
    return out


Loader = Callable[[Path], object]


def problems(
    tmp_path: Path, model: Any, sample: dict[str, Any], load: Loader
) -> list[tuple[str, list[str]]]:
    """The message and pydantic's error types of every variant ``load`` refuses."""
    path = tmp_path / "probe.yaml"
    found = []
    for where, value in variants(model, sample):
        path.write_text(yaml.safe_dump(_set(sample, where, value)), encoding="utf-8")
        try:
            load(path)
        except InputError as exc:
            cause = exc.__cause__
            kinds = (
                [e["type"] for e in cause.errors()] if isinstance(cause, ValidationError) else []
            )
            found.append((str(exc), kinds))
    return found


@pytest.mark.parametrize(
    ("model", "sample", "load"),
    [
        (JudgeConfig, MEMBER, load_config),
        (JuryConfig, JURY, load_config),
        (Pack, yaml.safe_load(TINY_PACK), load_pack),
    ],
    ids=["judge", "jury", "pack"],
)
def test_every_problem_of_a_config_or_pack_is_told_in_german(
    tmp_path: Path, model: Any, sample: dict[str, Any], load: Loader
) -> None:
    good = tmp_path / "gut.yaml"
    good.write_text(yaml.safe_dump(sample), encoding="utf-8")
    assert isinstance(load(good), model)  # the walk starts from a good one
    found = problems(tmp_path, model, sample, load)
    english = [(message, kinds) for message, kinds in found if english_in(message)]
    assert english == []
    kinds = {kind for _, found_kinds in found for kind in found_kinds}
    # The walk reaches the kinds a config meets (a check on the walk, not on the words).
    assert {"missing", "int_from_float", "string_type", "value_error"} <= kinds
    assert kinds & {"extra_forbidden", "unexpected_keyword_argument"}
    if model is JuryConfig:
        assert {"too_short", "literal_error", "greater_than_equal", "finite_number"} <= kinds


def test_a_jury_of_one_says_in_german_that_it_needs_two_judges(tmp_path: Path) -> None:
    path = tmp_path / "jury.yaml"
    path.write_text(yaml.safe_dump({"judges": [MEMBER]}), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_config(path)
    message = str(caught.value)
    assert str(path) in message
    assert "„judges“ braucht mindestens 2 Einträge, hat aber 1" in message
