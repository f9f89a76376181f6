"""Thinking switched off (or on) on purpose: the switch each kind of server takes (design.md §26).

Judge config ``thinking: off | on | server`` (default ``server``: send nothing, the server's
own setting holds). ``off`` and ``on`` send the switch of the endpoint's kind, detected from
its URL or set by ``server:``; the switch joins the request body (and so the judge identity,
the verdict cache key), and ``thinking_text`` says what was sent, for the cards.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

Thinking = Literal["off", "on", "server"]
ServerKind = Literal["llamacpp", "vllm", "ollama", "openrouter", "openai", "lmstudio"]

SERVER_NAMES: dict[ServerKind, str] = {
    "llamacpp": "llama.cpp",
    "vllm": "vLLM",
    "ollama": "Ollama",
    "openrouter": "OpenRouter",
    "openai": "OpenAI",
    "lmstudio": "LM Studio",
}


def detected_kind(base_url: str) -> ServerKind | None:
    """The server kind a URL gives away (a provider's host, a local server's usual port)."""
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    if host == "openrouter.ai" or host.endswith(".openrouter.ai"):
        return "openrouter"
    if host == "api.openai.com":
        return "openai"
    try:
        port = parts.port
    except ValueError:
        return None
    usual: dict[int, ServerKind] = {11434: "ollama", 1234: "lmstudio"}
    return usual.get(port or 0)


def switch(thinking: Thinking, kind: ServerKind | None) -> dict[str, Any]:
    """The request fields that set ``thinking`` on a server of ``kind`` ({} for ``server``).

    ``ValueError`` (German) when the kind is unknown or has no switch in its API."""
    if thinking == "server":
        return {}
    on = thinking == "on"
    if kind in ("llamacpp", "vllm"):
        return {"chat_template_kwargs": {"enable_thinking": on}}
    if kind == "ollama":
        return {"think": on}
    if kind == "openrouter":
        return {"reasoning": {"enabled": on}}
    if kind == "openai":
        # The lowest effort every OpenAI reasoning model takes; none of them thinks not at all.
        return {"reasoning_effort": "high" if on else "low"}
    if kind == "lmstudio":
        raise ValueError(
            "LM Studio hat keinen Schalter fürs Denken in seiner API: das Denken im Modell "
            "(Preset) abschalten und thinking: server setzen"
        )
    raise ValueError(
        f"thinking: {thinking} braucht server: (llamacpp, vllm, ollama, openrouter, openai): "
        "an der URL ist nicht zu erkennen, welcher Server antwortet"
    )


def thinking_text(thinking: Thinking, kind: ServerKind | None) -> str:
    """What the judge is sent about thinking, for a person ("" for ``server``)."""
    if thinking == "server":
        return ""
    fields = switch(thinking, kind)
    sent = ", ".join(f"{key}: {value}" for key, value in _flat(fields))
    name = SERVER_NAMES[kind] if kind is not None else ""
    return f"Thinking {'an' if thinking == 'on' else 'aus'}: gesendet {sent} ({name})"


def _flat(fields: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in fields.items():
        if isinstance(value, dict):
            out += _flat(value, f"{prefix}{key}.")
        else:
            out.append((f"{prefix}{key}", str(value).lower() if isinstance(value, bool) else value))
    return out
