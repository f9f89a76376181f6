"""pydantic's validation errors in German, naming the key: one sentence per error.

Every error type pydantic-core knows (``pydantic_core.list_all_errors()``; a test walks them
all, and the configs field by field) has its words here; a type a later pydantic adds is
still told in German, without pydantic's English message. Values are quoted to at most
``QUOTE_CHARS`` characters. Used for YAML files (``yamlfile``), JSONL records and the GUI's
requests.
"""

from __future__ import annotations

import re
from typing import Any

from touchstone import german

QUOTE_CHARS = 200


def quoted(value: object, limit: int = QUOTE_CHARS) -> str:
    """``value`` as text, cut to ``limit`` characters."""
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"


# What a value must be: "„x“ muss eine ganze Zahl sein, ist aber „a“".
_MAP = "eine Zuordnung (Schlüssel: Wert)"
_LIST = "eine Liste"
_DATE = "ein Datum (JJJJ-MM-TT)"
_MOMENT = "ein Zeitpunkt (JJJJ-MM-TTTHH:MM:SS)"
_TYPE_WORDS = {
    "int_type": "eine ganze Zahl",
    "int_parsing": "eine ganze Zahl",
    "int_from_float": "eine ganze Zahl",
    "float_type": "eine Zahl",
    "float_parsing": "eine Zahl",
    "finite_number": "eine endliche Zahl",
    "bool_type": "true oder false",
    "bool_parsing": "true oder false",
    "string_type": "ein Text",
    "string_unicode": "ein gültiger Text (UTF-8)",
    "json_type": "ein JSON-Text",
    "bytes_type": "eine Bytefolge",
    "none_required": "leer (null)",
    "list_type": _LIST,
    "tuple_type": _LIST,
    "set_type": _LIST,
    "frozen_set_type": _LIST,
    "deque_type": _LIST,
    "iterable_type": _LIST,
    "arguments_type": f"{_LIST} oder {_MAP}",
    "named_tuple_type": f"{_LIST} oder {_MAP}",
    "dict_type": _MAP,
    "frozen_dict_type": _MAP,
    "ordered_dict_type": _MAP,
    "counter_type": _MAP,
    "mapping_type": _MAP,
    "model_type": _MAP,
    "model_attributes_type": _MAP,
    "dataclass_type": _MAP,
    "dataclass_exact_type": _MAP,
    "callable_type": "eine Funktion",
    "date_type": _DATE,
    "date_parsing": _DATE,
    "date_from_datetime_parsing": _DATE,
    "date_from_datetime_inexact": "ein Datum ohne Uhrzeit",
    "time_type": "eine Uhrzeit (HH:MM:SS)",
    "time_parsing": "eine Uhrzeit (HH:MM:SS)",
    "datetime_type": _MOMENT,
    "datetime_parsing": _MOMENT,
    "datetime_object_invalid": _MOMENT,
    "datetime_from_date_parsing": _MOMENT,
    "time_delta_type": "eine Dauer",
    "time_delta_parsing": "eine Dauer",
    "url_type": "eine URL",
    "url_parsing": "eine gültige URL",
    "url_syntax_violation": "eine gültige URL",
    "uuid_type": "eine UUID",
    "uuid_parsing": "eine UUID",
    "decimal_type": "eine Dezimalzahl",
    "decimal_parsing": "eine Dezimalzahl",
    "fraction_type": "ein Bruch",
    "fraction_parsing": "ein Bruch",
    "complex_type": "eine komplexe Zahl",
    "complex_str_parsing": "eine komplexe Zahl",
    "missing_sentinel_error": "weggelassen",
    "ellipsis_error": "„...“",
}
_BOUNDS = {
    "greater_than": "größer als",
    "greater_than_equal": "mindestens",
    "less_than": "kleiner als",
    "less_than_equal": "höchstens",
}
# The rest, as a sentence about ``{where}`` (the key), ``{got}`` (the value) and the error's
# context (numbers through ``_shown``; pydantic's own English reasons are left out).
_SENTENCES = {
    "missing": "Pflichtfeld „{where}“ fehlt",
    "missing_argument": "Pflichtfeld „{where}“ fehlt",
    "missing_keyword_only_argument": "Pflichtfeld „{where}“ fehlt",
    "missing_positional_only_argument": "Pflichtfeld „{where}“ fehlt",
    "extra_forbidden": "unbekannter Schlüssel „{where}“ (Tippfehler?)",
    "unexpected_keyword_argument": "unbekannter Schlüssel „{where}“ (Tippfehler?)",
    "unexpected_positional_argument": "„{where}“: ein Wert zu viel",
    "multiple_argument_values": "„{where}“ ist mehrfach angegeben",
    "no_such_attribute": "„{where}“: das Attribut „{attribute}“ gibt es nicht",
    "get_attribute_error": "„{where}“ kann nicht gelesen werden",
    "json_invalid": "„{where}“ ist kein gültiges JSON",
    "needs_python_object": "„{where}“ kann in JSON nicht geprüft werden",
    "recursion_loop": "„{where}“ verweist auf sich selbst",
    "recursion_depth_exceeded": "„{where}“ ist zu tief verschachtelt",
    "frozen_field": "„{where}“ darf nicht geändert werden",
    "frozen_instance": "„{where}“ darf nicht geändert werden",
    "invalid_key": "„{where}“: jeder Schlüssel muss ein Text sein, einer ist aber {got}",
    "default_factory_not_called": (
        "„{where}“ ergibt sich erst, wenn die anderen Fehler behoben sind"
    ),
    "multiple_of": "„{where}“ muss ein Vielfaches von {multiple_of} sein, ist aber {got}",
    "iteration_error": "„{where}“ kann nicht durchlaufen werden",
    "set_item_not_hashable": "„{where}“: jeder Eintrag muss ein einfacher Wert sein",
    "int_parsing_size": "„{where}“ hat zu viele Ziffern für eine ganze Zahl",
    "string_pattern_mismatch": "„{where}“ hat nicht die verlangte Form ({pattern}), ist aber {got}",
    "string_not_ascii": "„{where}“ darf nur ASCII-Zeichen enthalten, ist aber {got}",
    "string_too_long": "„{where}“ darf höchstens {max_length} Zeichen lang sein",
    "url_too_long": "„{where}“ darf höchstens {max_length} Zeichen lang sein",
    "bytes_too_short": "„{where}“ muss mindestens {min_length} Bytes lang sein",
    "bytes_too_long": "„{where}“ darf höchstens {max_length} Bytes lang sein",
    "bytes_invalid_encoding": "„{where}“ ist kein gültiges {encoding}",
    "enum": "„{where}“ muss {expected} sein, ist aber {got}",
    "literal_error": "„{where}“ muss {expected} sein, ist aber {got}",
    "url_scheme": "„{where}“ muss mit {expected_schemes} beginnen, ist aber {got}",
    "date_past": "„{where}“ muss in der Vergangenheit liegen, ist aber {got}",
    "datetime_past": "„{where}“ muss in der Vergangenheit liegen, ist aber {got}",
    "date_future": "„{where}“ muss in der Zukunft liegen, ist aber {got}",
    "datetime_future": "„{where}“ muss in der Zukunft liegen, ist aber {got}",
    "timezone_naive": "„{where}“ darf keine Zeitzone haben, ist aber {got}",
    "timezone_aware": "„{where}“ braucht eine Zeitzone, ist aber {got}",
    "timezone_offset": (
        "„{where}“ muss {tz_expected} s von UTC abweichen, weicht aber {tz_actual} s ab"
    ),
    "is_instance_of": "„{where}“ hat nicht den verlangten Typ {class}, ist aber {got}",
    "is_subclass_of": "„{where}“ hat nicht den verlangten Typ {class}, ist aber {got}",
    "union_tag_invalid": (
        "„{where}“: {discriminator} „{tag}“ ist keiner der erlaubten Werte ({expected_tags})"
    ),
    "union_tag_not_found": "„{where}“: der Schlüssel {discriminator} fehlt",
    "uuid_version": "„{where}“ muss eine UUID der Version {expected_version} sein",
    "decimal_max_digits": "„{where}“ darf höchstens {max_digits} Ziffern haben",
    "decimal_max_places": "„{where}“ darf höchstens {decimal_places} Nachkommastellen haben",
    "decimal_whole_digits": ("„{where}“ darf höchstens {whole_digits} Ziffern vor dem Komma haben"),
}
# Our own validators' German text, after pydantic's English lead-in.
_OWN_TEXT = {"value_error": "Value error, ", "assertion_error": "Assertion failed, "}


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "(oberste Ebene)"


_QUOTED = re.compile(r"'([^']*)'")


def _given(value: object) -> str:
    """The value someone gave, quoted: a text as German text quotes it (``„stopp“``), anything
    else as Python writes it (``5``, ``None``, ``[1, 2]``)."""
    return f"„{value}“" if isinstance(value, str) else repr(value)


def _shown(value: object) -> str:
    """A number of pydantic's context as a German reader writes it; words with "oder"."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        # pydantic quotes choices 'a' or 'b': German text quotes „a“ oder „b“.
        return quoted(_QUOTED.sub(r"„\1“", str(value)).replace(" or ", " oder "))
    if isinstance(value, float) and not value.is_integer():
        return str(value).replace(".", ",")
    return german.count(int(value))


def _too_short(where: str, context: dict[str, Any]) -> str:
    least = int(context.get("min_length", 0))
    actual = context.get("actual_length")
    has = f", hat aber {german.count(actual)}" if isinstance(actual, int) else ""
    items = german.counted(least, "Eintrag", "Einträge")
    return f"„{where}“ braucht mindestens {items}{has}"


def _too_long(where: str, context: dict[str, Any]) -> str:
    most = int(context.get("max_length", 0))
    actual = context.get("actual_length")
    has = f", hat aber {german.count(actual)}" if isinstance(actual, int) else ""
    return f"„{where}“ darf höchstens {german.counted(most, 'Eintrag', 'Einträge')} haben{has}"


class _Context(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def german_problem(error: dict[str, Any]) -> str:
    """One pydantic error in German, naming the key it is about (every error type pydantic
    knows has its words; one it may add later is still told in German)."""
    loc = tuple(error.get("loc", ()))
    kind = str(error.get("type", ""))
    where = _where(loc)
    got = quoted(_given(error.get("input")))
    context = dict(error.get("ctx") or {})
    if kind in _OWN_TEXT:
        # Our sentence may quote a value or two itself (each cut where it is quoted).
        text = quoted(str(error.get("msg", "")).removeprefix(_OWN_TEXT[kind]), 4 * QUOTE_CHARS)
        return f"„{where}“: {text}" if loc else text
    if kind in _TYPE_WORDS:
        return f"„{where}“ muss {_TYPE_WORDS[kind]} sein, ist aber {got}"
    if kind in _BOUNDS:
        limit = _shown(next(iter(context.values()), "?"))
        return f"„{where}“ muss {_BOUNDS[kind]} {limit} sein, ist aber {got}"
    if kind == "too_short":
        return _too_short(where, context)
    if kind == "too_long":
        return _too_long(where, context)
    if kind == "string_too_short":
        least = int(context.get("min_length", 1))
        if least <= 1:
            return f"„{where}“ darf nicht leer sein"
        return f"„{where}“ muss mindestens {german.count(least)} Zeichen lang sein"
    if kind in _SENTENCES:
        shown = _Context({key: _shown(value) for key, value in context.items()})
        return _SENTENCES[kind].format_map(_Context(shown, where=where, got=got))
    return f"„{where}“ ist ungültig: {got}"
