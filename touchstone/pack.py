"""Task packs: YAML files with prompts, rubrics, system-prompt variants and dimensions (design.md
§2).

Ids (pack, category, prompt, variant, dimension) match ``ID_PATTERN`` in full: no slash, no
newline, no leading dot, so that a pack id can never place a run outside the runs dir.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from touchstone.errors import InputError
from touchstone.german import cut
from touchstone.regular import read_regular
from touchstone.yamlfile import load_yaml_model

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
ID_RULE = "erlaubt: Buchstaben, Ziffern, . _ -, am Anfang ein Buchstabe oder eine Ziffer"


def id_problem(value: str) -> str | None:
    """Why ``value`` is no valid id, or None."""
    if ID_PATTERN.fullmatch(value):
        return None
    return f"„{cut(value, 60)}“ ist keine gültige ID ({ID_RULE}, höchstens 128 Zeichen)"


def _valid_id(value: str) -> str:
    problem = id_problem(value)
    if problem:
        raise ValueError(problem)
    return value


Id = Annotated[str, AfterValidator(_valid_id)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)


class Scale(_Strict):
    min: int = 0
    max: int = 5

    @model_validator(mode="after")
    def _ordered(self) -> Scale:
        if self.min >= self.max:
            raise ValueError(f"scale: min ({self.min}) muss kleiner als max ({self.max}) sein")
        return self


class Dimension(_Strict):
    id: Id
    title: str
    description: str = ""


class Prompt(_Strict):
    id: Id
    text: str = Field(min_length=1)
    expectations: list[str] = Field(default_factory=list)
    red_flags: list[str] = Field(default_factory=list)
    safety_critical: bool = False
    # Probes for `judge-check` (design.md §14): a good answer, and one that does what a red flag
    # names. Never shown to the judge in a run: the rubric is expectations and red flags.
    # (Blank ones are refused by ``_not_blank``, with a German message.)
    reference: str | None = None
    counterexample: str | None = None
    # Filled in by the category so that every prompt knows where it belongs.
    category: str = ""

    @field_validator("reference", "counterexample")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("darf nicht leer sein (oder weglassen)")
        return value

    @model_validator(mode="after")
    def _counterexample_needs_red_flags(self) -> Prompt:
        if self.counterexample is not None and not self.red_flags:
            raise ValueError(
                f"Prompt „{self.id}“: „counterexample“ braucht „red_flags“ (das Gegenbeispiel "
                "tut, was ein Warnsignal nennt)"
            )
        return self

    @field_validator("category")
    @classmethod
    def _not_from_yaml(cls, value: str) -> str:
        # Set by the pack after loading; written in the YAML it would be silently overridden.
        if value:
            raise ValueError("„category“ ergibt sich aus der Kategorie, in der der Prompt steht")
        return value


class Category(_Strict):
    id: Id
    title: str
    prompts: list[Prompt]

    @model_validator(mode="after")
    def _not_empty(self) -> Category:
        if not self.prompts:
            raise ValueError(f"Kategorie „{self.id}“ enthält keine Prompts")
        return self


class Pack(_Strict):
    id: Id
    title: str
    language: str = "de"
    scale: Scale = Field(default_factory=Scale)
    judge_instructions: str = ""
    variants: dict[str, str] = Field(default_factory=lambda: {"none": ""})
    dimensions: list[Dimension] = Field(default_factory=list)
    categories: list[Category]
    _by_id: dict[str, Prompt] = PrivateAttr(default_factory=dict)

    @field_validator("variants")
    @classmethod
    def _variant_ids(cls, variants: dict[str, str]) -> dict[str, str]:
        for name in variants:
            problem = id_problem(name)
            if problem:
                raise ValueError(f"Variante {problem}")
        return variants

    @model_validator(mode="after")
    def _consistent(self) -> Pack:
        if not self.categories:
            raise ValueError("das Paket enthält keine Kategorien")
        if not self.variants:
            raise ValueError('„variants“ darf nicht leer sein (mindestens „none: ""“)')
        for seen_what, ids in (
            ("Kategorie-ID", (c.id for c in self.categories)),
            ("Prompt-ID", (p.id for c in self.categories for p in c.prompts)),
            ("Dimensions-ID", (d.id for d in self.dimensions)),
        ):
            dupes = _duplicates(ids)
            if dupes:
                raise ValueError(f"{seen_what} mehrfach vergeben: {', '.join(dupes)}")
        if "_error" in {d.id for d in self.dimensions}:
            raise ValueError("die Dimensions-ID „_error“ ist reserviert")
        return self

    def model_post_init(self, __context: object) -> None:
        # Prompts are frozen; object.__setattr__ stamps the category once, at load time.
        for category in self.categories:
            for prompt in category.prompts:
                object.__setattr__(prompt, "category", category.id)
        self._by_id = {p.id: p for c in self.categories for p in c.prompts}

    def all_prompts(self) -> Iterator[tuple[Category, Prompt]]:
        """Every ``(category, prompt)`` pair in file order."""
        for category in self.categories:
            for prompt in category.prompts:
                yield category, prompt

    def prompt(self, prompt_id: str) -> Prompt:
        """The prompt with ``prompt_id``; ``KeyError`` when the pack has none."""
        return self._by_id[prompt_id]

    def has_prompt(self, prompt_id: str) -> bool:
        return prompt_id in self._by_id

    @property
    def prompt_count(self) -> int:
        return len(self._by_id)

    def category_title(self, category_id: str) -> str:
        for category in self.categories:
            if category.id == category_id:
                return category.title
        return category_id


def _duplicates(ids: Iterable[str]) -> list[str]:
    """The ids that occur more than once (at most 10 named), in linear time."""
    return sorted(i for i, n in Counter(ids).items() if n > 1)[:10]


def load_pack(path: str | Path) -> Pack:
    """Load and validate a pack; any problem is an ``InputError`` naming the file and key."""
    return load_yaml_model(Path(path), Pack, "Paket")


def file_sha256(path: str | Path) -> str:
    try:
        return hashlib.sha256(read_regular(Path(path), follow_links=True)).hexdigest()
    except OSError as exc:
        raise InputError(f"{path} kann nicht gelesen werden: {exc}") from exc
