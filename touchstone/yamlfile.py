"""Loading a YAML file into a pydantic model, with German messages that name file and key.

Packs and judge configs share this so that a typo gets the same kind of message everywhere.
Every YAML file is someone's mistake or someone's attack (design.md §15), so reading is bounded:

- files over ``MAX_BYTES`` are refused before they are read;
- a duplicate key is an error (a second ``prompts:`` would silently drop the first list);
- nesting deeper than ``MAX_DEPTH`` is an error (20,000 brackets would blow Python's stack);
- alias expansion is bounded: a document whose aliases expand to more than ``MAX_NODES``
  nodes (a "billion laughs" file) is an error before anything walks the expansion;
- messages quote at most ``QUOTE_CHARS`` characters of a value and name at most a few
  problems.
"""

from __future__ import annotations

import difflib
import sys
import typing
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.dataclasses import is_pydantic_dataclass
from pydantic.fields import FieldInfo
from yaml.composer import Composer, ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from touchstone.errors import InputError
from touchstone.regular import read_regular

# The GUI, the JSONL reader and pack import word pydantic's errors through here too.
from touchstone.validation_words import QUOTE_CHARS as QUOTE_CHARS
from touchstone.validation_words import german_problem as german_problem
from touchstone.validation_words import quoted

M = TypeVar("M")

MAX_BYTES = 20 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 1_000_000
MAX_PROBLEMS = 5

_Parser: Any
try:  # libyaml's event parser (in PyYAML's wheels): three times faster than pure Python
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - a PyYAML built without libyaml
    from yaml.parser import Parser as _Parser


class _BoundedLoader(_Parser, Composer, SafeConstructor, Resolver):  # type: ignore[misc]
    """A safe loader with a depth limit, an expansion limit and no duplicate keys.

    Events come from libyaml (a state machine, fast, no recursion); composing them into
    nodes and constructing Python values is PyYAML's own Python code, which these limits
    guard (libyaml's own composer would recurse in C, unguarded).
    """

    get_single_node = Composer.get_single_node
    get_node = Composer.get_node
    check_node = Composer.check_node

    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self._depth = 0
        # Expanded size of each composed node (an alias reuses its anchor's node).
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            event: Any = self.peek_event()
            raise ComposerError(
                None,
                None,
                f"zu tief verschachtelt (mehr als {MAX_DEPTH} Ebenen)",
                event.start_mark,
            )
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node is None:
            return None
        size = 1
        if isinstance(node, SequenceNode):
            size += sum(self._sizes.get(id(child), 1) for child in node.value)
        elif isinstance(node, MappingNode):
            size += sum(
                self._sizes.get(id(key), 1) + self._sizes.get(id(value), 1)
                for key, value in node.value
            )
        if size > MAX_NODES:
            raise ComposerError(
                None,
                None,
                f"Aliase erweitern sich auf mehr als {MAX_NODES:,} Knoten (ein "
                "„Billion Laughs“-Angriff?)".replace(",", "."),
                node.start_mark,
            )
        self._sizes[id(node)] = size
        return node

    def construct_yaml_int(self, node: ScalarNode) -> int:
        """An integer; one of more digits than Python converts (4,300) is an error here, as
        in JSON (``jsontext``), not a ``ValueError`` nobody expects of a parser."""
        try:
            return int(super().construct_yaml_int(node))
        except ValueError:
            raise ConstructorError(
                None,
                None,
                f"eine Zahl mit mehr als {sys.get_int_max_str_digits()} Ziffern",
                node.start_mark,
            ) from None

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:
                continue  # an unhashable key: PyYAML's own message follows
            if first is not None:
                raise ConstructorError(
                    None,
                    None,
                    f"doppelter Schlüssel „{quoted(key)}“ (zuerst in Zeile {first + 1}); "
                    "der zweite würde den ersten stillschweigend ersetzen",
                    key_node.start_mark,
                )
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_yaml_int)


def _fields(model: object) -> dict[str, FieldInfo] | None:
    """The fields of a pydantic model or pydantic dataclass; None for anything else."""
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model.model_fields
    if isinstance(model, type) and is_pydantic_dataclass(model):
        return model.__pydantic_fields__
    return None


def _keys(model: object, loc: tuple[int | str, ...]) -> list[str]:
    """The keys the (pydantic model or dataclass) ``model`` knows at ``loc``; [] if unknown."""
    for part in (*loc, None):
        fields = _fields(model)
        if fields is None:
            return []
        if part is None:
            return list(fields)
        field = fields.get(str(part))
        if field is None:
            return []
        # ``Endpoint | None`` and the like: the one member with fields of its own.
        members = [field.annotation, *typing.get_args(field.annotation)]
        model = next((m for m in members if _fields(m) is not None), None)
    return []


def _problem(error: dict[str, Any], model: object) -> str:
    """``german_problem``, and for an unknown key the closest known one ("Meinten Sie …?")."""
    text = german_problem(error)
    loc = tuple(error.get("loc", ()))
    unknown = error.get("type") in ("extra_forbidden", "unexpected_keyword_argument")
    if unknown and loc and isinstance(loc[-1], str):
        close = difflib.get_close_matches(loc[-1], _keys(model, loc[:-1]), n=1)
        if close:
            text += f" – Meinten Sie „{close[0]}“?"
    return text


def validation_message(path: Path, exc: ValidationError, model: object = None) -> str:
    """One German paragraph naming the file and the (first few) problems pydantic found;
    with ``model``, an unknown key is told with the known one closest to it."""
    errors = exc.errors()
    problems = "; ".join(_problem(dict(err), model) for err in errors[:MAX_PROBLEMS])
    if len(errors) > MAX_PROBLEMS:
        problems += f" (und {len(errors) - MAX_PROBLEMS} weitere)"
    return f"{path}: ungültig: {problems}"


def read_yaml(path: Path, what: str) -> Any:
    """The parsed YAML of ``path``; any problem with the file is an ``InputError``."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise InputError(
                f"{what} {path} ist {size / 1024 / 1024:.0f} MB groß; mehr als "
                f"{MAX_BYTES // 1024 // 1024} MB werden nicht gelesen."
            )
        text = read_regular(path, follow_links=True).decode("utf-8")
    except FileNotFoundError:
        raise InputError(f"{what} nicht gefunden: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{what} {path} ist ein Verzeichnis, keine Datei.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{what} {path} kann nicht gelesen werden: {exc}") from exc
    try:
        loader = _BoundedLoader(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark, problem = None, None
        if isinstance(exc, yaml.MarkedYAMLError):
            mark, problem = exc.problem_mark, exc.problem
        line = f" (Zeile {mark.line + 1})" if mark is not None else ""
        problem = problem or str(exc)
        if "nesting depth" in problem:  # libyaml's own limit, hit before ours
            problem = f"zu tief verschachtelt (mehr als {MAX_DEPTH} Ebenen)"
        raise InputError(f"{path}{line}: kein gültiges YAML: {quoted(problem)}") from exc


def load_yaml_model(path: Path, model: type[M], what: str) -> M:
    """Read ``path`` and validate it as ``model`` (pydantic model or dataclass).

    Every problem is a German ``InputError`` naming the file and key.
    """
    data = read_yaml(path, what)
    if not isinstance(data, dict):
        raise InputError(f"{path}: {what} muss eine YAML-Zuordnung (Schlüssel: Wert) sein.")
    try:
        return TypeAdapter(model).validate_python(data)
    except ValidationError as exc:
        raise InputError(validation_message(path, exc, model)) from exc
