"""Who answers: the identity of an endpoint and model, without building a client.

``OpenAIChat.identity`` and ``JudgeConfig.identity`` both build it here, so that a judge-check
and a judge run of the same config name the same judge (its verdict cache keys, its stored
probes and fitness) whether or not a backend (and the openai SDK) was ever made.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def endpoint_identity(
    *,
    model: str,
    url: str,
    temperature: float | None,
    max_tokens: int | None,
    extra_body: Mapping[str, Any],
    schema_mode: str,
) -> dict[str, Any]:
    """Everything about an endpoint's model that can change its replies."""
    # The URL as configured: a cache key, never written where a person reads it.
    return {
        "model": model,
        "base_url": url.rstrip("/"),
        "temperature": temperature,
        "max_tokens": max_tokens,
        "extra_body": dict(extra_body),
        # Only where it can change a reply: a judge without it keeps its cached verdicts.
        **({"schema": schema_mode} if schema_mode != "off" else {}),
    }


def canonical(identity: Mapping[str, Any]) -> str:
    """``identity`` as canonical JSON (the judge identity of verdicts and caches)."""
    return json.dumps(dict(identity), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
