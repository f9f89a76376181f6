"""Loading a YAML file into a pydantic model, with German messages that name file and key.

Packs and judge configs share this so that a typo gets the same kind of message everywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import TypeAdapter, ValidationError

from touchstone.errors import InputError

M = TypeVar("M")

_TYPE_WORDS = {
    "int_type": "eine ganze Zahl",
    "int_parsing": "eine ganze Zahl",
    "int_from_float": "eine ganze Zahl",
    "float_type": "eine Zahl",
    "float_parsing": "eine Zahl",
    "bool_type": "true oder false",
    "bool_parsing": "true oder false",
    "string_type": "einen Text",
    "list_type": "eine Liste",
    "dict_type": "eine Zuordnung (Schlüssel: Wert)",
    "model_type": "eine Zuordnung (Schlüssel: Wert)",
}
_BOUNDS = {
    "greater_than": "größer als",
    "greater_than_equal": "mindestens",
    "less_than": "kleiner als",
    "less_than_equal": "höchstens",
}


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "(oberste Ebene)"


def german_problem(error: dict[str, Any]) -> str:
    """One pydantic error in German, naming the key it is about."""
    loc = tuple(error.get("loc", ()))
    kind = str(error.get("type", ""))
    where = _where(loc)
    got = error.get("input")
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return f"unbekannter Schlüssel '{where}' (Tippfehler?)"
    if kind == "missing":
        return f"Pflichtfeld '{where}' fehlt"
    if kind in _TYPE_WORDS:
        return f"'{where}' muss {_TYPE_WORDS[kind]} sein, ist aber {got!r}"
    if kind in _BOUNDS:
        limit = next(iter((error.get("ctx") or {}).values()), "?")
        return f"'{where}' muss {_BOUNDS[kind]} {limit} sein, ist aber {got!r}"
    msg = str(error.get("msg", "")).removeprefix("Value error, ")
    return f"'{where}': {msg}"


def validation_message(path: Path, exc: ValidationError) -> str:
    """One German paragraph naming the file and every problem pydantic found."""
    problems = "; ".join(german_problem(dict(err)) for err in exc.errors())
    return f"{path}: ungültig: {problems}"


def read_yaml(path: Path, what: str) -> Any:
    """The parsed YAML of ``path``; a missing file or a syntax error is an ``InputError``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{what} nicht gefunden: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{what} {path} ist ein Verzeichnis, keine Datei.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{what} {path} kann nicht gelesen werden: {exc}") from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (Zeile {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"{path}{line}: kein gültiges YAML: {problem}") from exc


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
        raise InputError(validation_message(path, exc)) from exc
