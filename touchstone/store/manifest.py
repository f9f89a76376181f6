"""``run.json``, the run's manifest: its typed record, how it is read and written.

A run dir may be someone else's (design.md §15): the file is checked against ``Manifest`` when
read, a damaged one is bad input named by file and key. Keys of newer versions pass and are
kept. What touchstone writes is the record's keys in their declared order (the order the run
stage always wrote them), so a file written, read and written again is the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from touchstone import jsontext
from touchstone.errors import InputError
from touchstone.regular import read_regular
from touchstone.store.files import atomic_write_text
from touchstone.yamlfile import validation_message

MANIFEST = "run.json"
ANSWER_INPUTS = "answer_inputs"


class Manifest(BaseModel):
    """What ``run.json`` records. A key the file lacks reads as its default here and is not
    written back (``as_json``); ``recorded`` tells a missing key from one written."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)

    name: str = ""
    pack_id: str = ""
    pack_path: str = ""
    pack_abspath: str = ""
    pack_sha256: str = ""
    # The prompts' and variants' fingerprints the answers were asked with (stages.extend).
    # Read leniently there: a malformed value counts as none recorded, as before.
    answer_inputs: Any = None
    base_urls: list[str] = Field(default_factory=list)
    # Which endpoint served which model (urls.recorded_url), added with a model's first answer
    # from that URL: a run extended by a model of another server tells them apart.
    model_base_urls: dict[str, list[str]] = Field(default_factory=dict)
    models: list[str] = Field(default_factory=list)
    asked_models: list[str] = Field(default_factory=list)
    variants: list[str] = Field(default_factory=list)
    repeats: int = Field(default=1, ge=1)
    created_at: str = ""
    updated_at: str = ""
    touchstone_version: str = ""
    # The answers' cap; ``None`` is "no cap", a run from before it was kept has no key.
    max_tokens: Any = None
    # A jury's settings (jury.verdicts reads them leniently: someone else's file).
    jury: Any = None

    def recorded(self, key: str) -> bool:
        """Whether the file holds ``key`` (or it was set since)."""
        return key in self.model_fields_set

    @property
    def empty(self) -> bool:
        """A manifest that records nothing (``{}``): no run to differ from."""
        return not self.model_fields_set

    def with_model(self, model: str) -> Manifest:
        """This manifest with ``model`` recorded as answered."""
        return self.model_copy(update={"models": [*self.models, model]})

    def with_answer(self, model: str, url: str) -> Manifest:
        """This manifest with ``model`` recorded as answered, by ``url`` among its endpoints
        (itself when both are recorded already)."""
        known = self.model_base_urls.get(model, [])
        if model in self.models and url in known:
            return self
        urls = {**self.model_base_urls, model: known if url in known else [*known, url]}
        models = self.models if model in self.models else [*self.models, model]
        return self.model_copy(update={"models": models, "model_base_urls": urls})

    def as_json(self) -> dict[str, Any]:
        """The keys recorded, as ``run.json`` holds them."""
        return self.model_dump(exclude_unset=True)


def load_manifest(path: Path) -> Manifest:
    """The manifest at ``path``, its types checked (a hand-edited file is bad input, named)."""
    try:
        data = jsontext.loads(read_regular(path))
    except FileNotFoundError:
        raise InputError(f"{path} fehlt.") from None
    except OSError as exc:
        raise InputError(f"{path}: nicht lesbar ({exc}).") from exc
    except ValueError as exc:  # jsontext.NotJson, UnicodeDecodeError
        raise InputError(f"{path}: kein gültiges JSON: {jsontext.problem(exc)}.") from exc
    if not isinstance(data, dict):
        raise InputError(f"{path}: erwartet ein JSON-Objekt.")
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        raise InputError(validation_message(path, exc, Manifest)) from exc


def write_manifest(path: Path, manifest: Manifest) -> None:
    text = json.dumps(manifest.as_json(), ensure_ascii=False, indent=2) + "\n"
    atomic_write_text(path, text)
