"""Real error bodies of real providers, replayed over HTTP: each is classified right.

``fixtures/provider_errors.json`` holds the error replies of OpenAI, Azure OpenAI, OpenRouter,
vLLM, Ollama, LM Studio, llama.cpp server and the LiteLLM proxy as their docs, issues and
source code show them (each entry names its source; ``verbatim: false`` where a body had to be
rebuilt from the code that makes it). A small server on 127.0.0.1 sends each one back, as a
plain reply or inside a stream, to the real openai SDK through touchstone's judge backend.
"""

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import http_server
from touchstone.errors import ERROR_KINDS, JudgeCallError
from touchstone.judge.backend import OpenAIJudgeBackend, ask_judge

CORPUS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "provider_errors.json").read_text(encoding="utf-8")
)
PROVIDERS = {
    "openai",
    "azure_openai",
    "openrouter",
    "vllm",
    "ollama",
    "lmstudio",
    "llamacpp",
    "litellm",
}


class _Replay(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        entry = CORPUS[int(request["model"].removeprefix("corpus-"))]
        body = entry["body"]
        if entry["in_stream"]:
            if isinstance(body, str):  # a raw line (llama.cpp's old "error:" field)
                payload = (body + "\n\n").encode()
            else:
                payload = f"data: {json.dumps(body)}\n\ndata: [DONE]\n\n".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
        else:
            payload = json.dumps(body).encode()
            self.send_response(entry["status"])
            self.send_header("Content-Type", "application/json")
        for name, value in (entry.get("headers") or {}).items():
            if name.lower() not in ("content-type", "content-length"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture(scope="module")
def replay() -> Iterator[str]:
    with http_server(_Replay) as url:
        yield url


def test_the_corpus_covers_every_provider_and_names_its_sources() -> None:
    assert {e["provider"] for e in CORPUS} == PROVIDERS
    assert all(e["source"] and e["expected_kind"] in ERROR_KINDS for e in CORPUS)
    kinds = {e["expected_kind"] for e in CORPUS}
    assert {"auth", "not_found", "rate_limit", "quota", "refused", "bad_request"} <= kinds


@pytest.mark.parametrize(
    "index", range(len(CORPUS)), ids=[f"{e['provider']}-{e['case']}" for e in CORPUS]
)
def test_every_provider_error_is_classified_right(replay: str, index: int) -> None:
    entry = CORPUS[index]
    backend = OpenAIJudgeBackend(
        replay, "k", f"corpus-{index}", deadline_s=5, stream=entry["in_stream"]
    )
    with pytest.raises(JudgeCallError) as info:
        ask_judge(backend, system="s", user="u")
    assert info.value.kind == entry["expected_kind"], str(info.value)
