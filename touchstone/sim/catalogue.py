"""What the simulated models say: the model catalogue and the simulated content.

Answerers state their quality ("Qualitätsstufe N/5") in every answer; the simulated judges
(``judges``) read it back, so a demo run has models of known, clearly different quality.
"""

from __future__ import annotations

import re

ANSWERERS = {
    "sim-gut": 5,
    "sim-mittel": 3,
    "sim-schwach": 1,
    "sim-denker": 5,
    "sim-old": 4,
    "sim-ausufernd": 4,
}
# Writes an answer of about ``RAMBLE_TOKENS`` tokens, cut at a smaller ``max_tokens`` with
# finish_reason "length" as real servers do (``capped``); the others never reach a cap.
RAMBLER = "sim-ausufernd"
RAMBLE_TOKENS = 1000
FAULTS = (
    "sim-hang",
    "sim-drop",
    "sim-trickle",
    "sim-think-endless",
    "sim-reasoning",
    "sim-garbage",
    "sim-500",
    "sim-429",
    "sim-401",
    "sim-403",
    "sim-filter",
    "sim-flaky",
    "sim-picky",
    "sim-plaintext",
    "sim-runaway",
    "sim-cutoff",
    "sim-nochoices",
    "sim-quota",
    "sim-402",
    "sim-proxy-filter",
    "sim-proxy-unknown-model",
    "sim-proxy-no-db",
    # Hostile replies (``hostile``): bombs, floods, lists of parts, a thousand choices, an
    # integer Python's json refuses.
    "sim-bomb",
    "sim-flood",
    "sim-longline",
    "sim-parts",
    "sim-choices",
    "sim-bignum",
    # Small local judges (``judges``): prose unless asked in a schema; no schema taken.
    "sim-prosa",
    "sim-schemalos",
    # Thinking judges (``judges``): one obeys the switch, one does not.
    "sim-denkt",
    "sim-denkt-stur",
    # A slow CPU server without thinking (``judges``): about 10 tokens/s.
    "sim-langsam",
)
MODELS = (*ANSWERERS, "sim-judge", "sim-gullible", "sim-constant", *FAULTS)

# status, message, code, type of the error replies the fault models send.
STATUS_FAULTS: dict[str, tuple[int, str, str, str]] = {
    "sim-500": (500, "simulated server error", "server_error", "server_error"),
    "sim-429": (429, "simulated rate limit", "rate_limit_exceeded", "requests"),
    "sim-401": (401, "simulated: invalid API key", "invalid_api_key", "auth_error"),
    "sim-403": (403, "simulated: access denied", "forbidden", "auth_error"),
    "sim-filter": (
        400,
        "The response was filtered due to the prompt triggering the content "
        "management policy (simulated content filter).",
        "content_filter",
        "invalid_request_error",
    ),
    "sim-quota": (
        429,
        "You exceeded your current quota, please check your plan and billing details (simulated).",
        "insufficient_quota",
        "insufficient_quota",
    ),
    "sim-402": (402, "Insufficient credits (simulated).", "402", "payment_required"),
    # What a LiteLLM proxy makes of upstream errors: everything a 400 with code "400".
    "sim-proxy-filter": (
        400,
        "litellm.BadRequestError: OpenAIException - The response was filtered due to the "
        "prompt triggering Azure OpenAI's content management policy. Please modify your "
        "prompt and retry. (simulated)",
        "400",
        "None",
    ),
    "sim-proxy-unknown-model": (
        400,
        "Invalid model name passed in model=sim-proxy-unknown-model. Call `/v1/models` to "
        "view available models for your key. (simulated)",
        "400",
        "None",
    ),
    "sim-proxy-no-db": (400, "No connected db. (simulated)", "400", "None"),
}
# What a server without structured output says to a ``response_format`` (``sim-schemalos``).
NO_SCHEMA = (
    400,
    "response_format is not supported by this server (touchstone simulator)",
    "invalid_request_error",
    "invalid_request_error",
)
UNKNOWN_STREAM_OPTIONS = (
    400,
    "Unrecognized request argument supplied: stream_options",
    "invalid_request_error",
    "invalid_request_error",
)

DIMENSIONS = re.compile(r"Dimension-IDs: ([^\n]+)")

_ANSWER_BODIES = {
    5: (
        "Die Aufgabe wird vollständig bearbeitet: alle Angaben sind geprüft, die Rechnung ist "
        "nachvollziehbar, Risiken werden benannt und der nächste Schritt ist klar."
    ),
    3: (
        "Die Aufgabe wird im Wesentlichen bearbeitet, einige Angaben fehlen jedoch und die "
        "Begründung bleibt knapp."
    ),
    4: "Die Aufgabe wird gut bearbeitet; eine Angabe bleibt ungeprüft.",
    1: "Kurze, ungenaue Antwort ohne Prüfung der Angaben.",
}


def simulated_answer(model: str, prompt: str) -> str:
    quality = ANSWERERS[model]
    topic = " ".join(prompt.split())[:80]
    return (
        f"Simulierte Antwort ({model}, Qualitätsstufe {quality}/5) zu: „{topic}“\n\n"
        f"{_ANSWER_BODIES[quality]}"
    )


def rambling_answer(prompt: str) -> str:
    """``RAMBLER``'s answer: its quality stated first, then about ``RAMBLE_TOKENS`` tokens."""
    start = simulated_answer(RAMBLER, prompt)
    more = " Dazu im Einzelnen noch einmal ausführlich:"
    filler = " " + _ANSWER_BODIES[4]
    text = start + more
    while len(text) < RAMBLE_TOKENS * 4:
        text += filler
    return text


def capped(content: str, max_tokens: object) -> tuple[str, str]:
    """``content`` cut at ``max_tokens`` (four characters a token, as the simulator counts
    them) and its finish_reason: "length" when cut, else "stop"."""
    if isinstance(max_tokens, int) and max_tokens > 0 and len(content) > max_tokens * 4:
        return content[: max_tokens * 4], "length"
    return content, "stop"
