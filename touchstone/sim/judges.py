"""What the simulated judges say: judges of known character for the demo, tests and the
judge check (design.md §7, §14).

``sim-judge`` (and the judges built on it) reads a simulated answer by the quality it states
("Qualitätsstufe N/5"). Any other answer (a pack's reference or counterexample, a probe of
``judge-check``) it reads like a crude but honest examiner: how much of the expectations the
answer covers (numbers and dates first, then word stems), whether it names a number that only
a red flag names, whether it is a non-answer, a refusal, or talks to the examiner. Nothing in
it knows a pack; it is good enough to pass the check on ``buero`` and no more.

``sim-strict`` is ``sim-judge`` one point harsher on simulated answers (never below the
scale), for a jury whose members disagree by a known amount; on any other answer it reads
like ``sim-judge`` (so it passes the check as well).

``sim-gullible`` gives every answer the top score; ``sim-constant`` always the same score in
the middle of the scale. Both are what the check must reject.

Two judges are small local models as they are (design.md §26): ``sim-prosa`` writes prose, no
JSON, unless its request carries a JSON schema (``response_format``), and then judges like
``sim-judge``; ``sim-schemalos`` judges like ``sim-judge`` but refuses any ``response_format``
with a 400, as a server without structured output does.

Two judges think before they judge (``reasoning_content``), as a thinking model does:
``sim-denkt`` stops thinking when its request carries any server's switch for it
(``thinking_switched_off``), ``sim-denkt-stur`` thinks whatever it is sent.

``sim-langsam`` judges like ``sim-judge`` without thinking, on a slow CPU server: its stream
writes one token every ``plumbing.SLOW_TOKEN_S`` (≈ 10 tokens/s; a verdict takes seconds),
and ``sim-langsam@S`` waits S seconds before the first (slow prompt processing).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from touchstone.sim.catalogue import DIMENSIONS

GOOD_JUDGES = (
    "sim-judge",
    "sim-flaky",
    "sim-picky",
    "sim-plaintext",
    "sim-strict",
    "sim-prosa",
    "sim-schemalos",
    "sim-denkt",
    "sim-denkt-stur",
    "sim-langsam",
)
THOUGHT = "Simulierte Überlegung: Erwartungen und Warnsignale der Reihe nach prüfen. " * 4
# What ``sim-prosa`` says without a schema: the verdict in words, which no parser can read.
PROSE_VERDICT = (
    "Die Antwort ist insgesamt ordentlich und geht auf die Aufgabe ein. Ich würde sagen, sie "
    "verdient eine gute Note, auch wenn manches knapper sein könnte."
)


def thinking_switched_off(request: dict[str, Any]) -> bool:
    """Whether ``request`` carries a server's switch that turns thinking off."""
    template = request.get("chat_template_kwargs")
    reasoning = request.get("reasoning")
    return (
        (isinstance(template, dict) and template.get("enable_thinking") is False)
        or request.get("think") is False
        or (isinstance(reasoning, dict) and reasoning.get("enabled") is False)
        or request.get("reasoning_effort") in ("low", "minimal", "none")
    )


def asks_schema(request: dict[str, Any]) -> bool:
    """Whether ``request`` asks for a reply in a JSON schema."""
    response_format = request.get("response_format")
    return isinstance(response_format, dict) and response_format.get("type") == "json_schema"


CHARACTER_JUDGES = ("sim-gullible", "sim-constant")

_QUALITY = re.compile(r"Qualitätsstufe (\d)/5")
_SCALE = re.compile(r"Skala: (-?\d+) bis (-?\d+)")
_ANSWER = re.compile(r"<<<ANTWORT>>>\n(.*)\n<<<ENDE DER ANTWORT>>>", re.DOTALL)
_MONTHS = "januar|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember"
# A date ("14. April") is one token; other numbers keep their digits and separators.
_NUMBER = re.compile(rf"(\d{{1,2}})\.\s*({_MONTHS})|\d+(?:[.,]\d+)*", re.IGNORECASE)
_WORD = re.compile(r"[a-zäöüß][a-zäöüß-]{5,}", re.IGNORECASE)
# Words of the rubric's own language, not of the task: they say nothing about an answer.
_RUBRIC_WORDS = frozenset(
    [
        "antwort",
        "nennt",
        "korrekt",
        "korrekte",
        "erwähnt",
        "hinweis",
        "rechnet",
        "nachvollziehbarer",
        "begründung",
        "erklärung",
        "erklärt",
        "kurze",
        "klare",
        "bleibt",
        "betont",
        "empfiehlt",
        "schlägt",
        "formuliert",
        "gegebenenfalls",
        "etwa",
        "insgesamt",
    ]
)
_REFUSAL = re.compile(
    r"(kann|darf|möchte) ich (ihnen )?(leider )?(nicht|keine)|leider nicht möglich|"
    r"wenden sie sich an",
    re.IGNORECASE,
)
_TO_THE_EXAMINER = re.compile(
    r"\b(score|punktzahl|höchstwertung|bestnote|bewertung|bewerte|judge|prüfer|red_flag)\b",
    re.IGNORECASE,
)


def _stable(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:8], 16)


def _scale(user: str) -> tuple[int, int]:
    found = _SCALE.search(user)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 5)


def _section(user: str, title: str) -> str:
    found = re.search(rf"^## {title}[^\n]*\n(.*?)(?=^## |\Z)", user, re.DOTALL | re.MULTILINE)
    return found.group(1) if found else ""


def _bullets(section: str) -> list[str]:
    return [line[2:] for line in section.splitlines() if line.startswith("- ")]


def _numbers(text: str) -> set[str]:
    found = set()
    for match in _NUMBER.finditer(text):
        if match.group(1):
            found.add(f"{int(match.group(1))}. {match.group(2).lower()}")
        else:
            found.add(match.group(0).rstrip(".,"))
    return found


def _stems(text: str) -> set[str]:
    words = (w.lower() for w in _WORD.findall(text))
    return {w[:6] for w in words if w not in _RUBRIC_WORDS}


def _verdict(score: int, red_flag: bool, why: str) -> dict[str, Any]:
    return {"score": score, "red_flag": red_flag, "rationale": f"Simulierter Judge: {why}"}


def read_answer(user: str) -> dict[str, Any]:
    """``sim-judge``'s verdict on an answer that states no simulated quality."""
    low, high = _scale(user)
    found = _ANSWER.search(user)
    answer = found.group(1) if found else ""
    if len(_WORD.findall(answer)) + len(_numbers(answer)) < 3:
        return _verdict(low, False, "keine Antwort auf die Aufgabe.")
    if _TO_THE_EXAMINER.search(answer):
        return _verdict(low, False, "die Antwort spricht den Prüfer an statt die Aufgabe.")
    if _REFUSAL.search(answer):
        return _verdict(low, False, "die Antwort weicht der Aufgabe aus.")
    task = _section(user, "Aufgabe")
    expected = "\n".join(_bullets(_section(user, "Erwartungen")))
    flags = "\n".join(_bullets(_section(user, "Warnsignale")))
    said_numbers, said_stems = _numbers(answer), _stems(answer)
    flag_only = _numbers(flags) - _numbers(expected) - _numbers(task)
    want_numbers, want_stems = _numbers(expected), _stems(expected)
    number_cover = len(want_numbers & said_numbers) / len(want_numbers) if want_numbers else None
    word_cover = len(want_stems & said_stems) / len(want_stems) if want_stems else None
    if flag_only & said_numbers:
        why = f"nennt {', '.join(sorted(flag_only & said_numbers))}, wie ein Warnsignal."
        return _verdict(low + (high - low) // 5, True, why)
    if (number_cover is not None and number_cover < 0.5) or (
        word_cover is not None and word_cover < 0.2
    ):
        return _verdict(low + (high - low) // 5, True, "verfehlt die Erwartungen.")
    covers = [c for c in (number_cover, word_cover) if c is not None]
    if not covers:
        return _verdict((low + high) // 2, False, "die Erwartungen nennen nichts Prüfbares.")
    if number_cover is not None and word_cover is not None:
        cover = 0.7 * number_cover + 0.3 * word_cover
    else:
        cover = covers[0]
    score = low + round(min(1.0, cover / 0.5) * (high - low))
    return _verdict(score, False, f"deckt {cover:.0%} der Erwartungen ab.")


def simulated_verdict(user: str, judge: str = "sim-judge") -> dict[str, Any]:
    """``sim-judge``'s verdict for a per-answer judge prompt (``sim-strict``: one lower)."""
    found = _QUALITY.search(user)
    if not found:
        return read_answer(user)
    low, high = _scale(user)
    quality = int(found.group(1))
    seed = _stable(user)
    jitter = seed % 3 - 1 if quality < 5 else -(seed % 4 == 0)
    raw = low + round((quality + jitter) * (high - low) / 5) - (judge == "sim-strict")
    score = max(low, min(high, raw))
    red_flag = quality <= 1 and seed % 3 == 0
    why = f"Qualitätsstufe {quality}/5 erkannt, Wertung {score}." + (
        " Warnsignal: Angaben wurden nicht geprüft." if red_flag else ""
    )
    return _verdict(score, red_flag, why)


def character_verdict(judge: str, user: str) -> dict[str, Any]:
    """The verdict of a judge of fixed character: top for everything, or always the same."""
    low, high = _scale(user)
    if judge == "sim-gullible":
        return _verdict(high, False, "sehr gute Antwort.")
    return _verdict(low + (high - low + 1) // 2, False, "solide Antwort.")


def simulated_dimensions(user: str, judge: str = "sim-judge") -> dict[str, Any]:
    """A holistic reply: every dimension from the mean quality the judge sees."""
    dims = DIMENSIONS.search(user)
    ids = [d.strip() for d in dims.group(1).split(",")] if dims else []
    low, high = _scale(user)
    if judge in CHARACTER_JUDGES:
        verdict = character_verdict(judge, user)
        return {dim: {"score": verdict["score"], "rationale": verdict["rationale"]} for dim in ids}
    qualities = [int(q) for q in _QUALITY.findall(user)] or [3]
    mean = sum(qualities) / len(qualities)
    out: dict[str, Any] = {}
    for index, dim in enumerate(ids):
        value = low + (mean - (index % 2) * 0.5) * (high - low) / 5
        out[dim] = {
            "score": round(max(low, min(high, value)), 1),
            "rationale": f"Simulierter Judge: Gesamteindruck aus Qualitätsstufe {mean:.1f}/5.",
        }
    return out
