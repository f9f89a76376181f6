"""The judge transport with the real openai SDK over real HTTP against the simulator."""

import time

import httpx2
import openai
import pytest
from openai.types.chat import ChatCompletion

from tests.conftest import coarse
from touchstone.errors import ERROR_KINDS, DeadlineExceeded, JudgeCallError, ReasoningOnly
from touchstone.judge.backend import OpenAIJudgeBackend, ask_judge
from touchstone.sim import SimServer
from touchstone.transport.classify import classify

DEADLINE = 0.5


@pytest.fixture
def backend_for(sim: SimServer):  # type: ignore[no-untyped-def]
    def make(model: str, **options: object) -> OpenAIJudgeBackend:
        options.setdefault("deadline_s", DEADLINE)
        return OpenAIJudgeBackend(sim.base_url, "", model, **options)  # type: ignore[arg-type]

    return make


@pytest.mark.parametrize(("max_retries", "calls"), [(0, 1), (2, 3)])
def test_sdk_retries_only_when_configured(
    sim: SimServer, backend_for, max_retries: int, calls: int
) -> None:
    before = sim.calls.get("sim-500", 0)
    with pytest.raises(JudgeCallError):
        ask_judge(
            backend_for("sim-500", max_retries=max_retries, deadline_s=10), system="s", user="u"
        )
    assert sim.calls.get("sim-500", 0) - before == calls


def test_success_and_max_tokens_only_when_set(sim: SimServer, backend_for) -> None:
    plain = backend_for("sim-judge")
    reply = ask_judge(plain, system="s", user="Skala: 0 bis 5").content
    assert '"score"' in reply
    assert "max_tokens" not in sim.history[-1]
    assert sim.history[-1]["temperature"] == 0.0
    capped = backend_for(
        "sim-judge", max_tokens=321, extra_body={"chat_template_kwargs": {"enable_thinking": False}}
    )
    ask_judge(capped, system="s", user="u")
    assert sim.history[-1]["max_tokens"] == 321
    assert sim.history[-1]["chat_template_kwargs"] == {"enable_thinking": False}
    assert "extra_body" not in sim.history[-1]  # merged into the body, not sent as a field


def test_json_labelled_as_text_is_still_read(backend_for) -> None:
    backend = backend_for("sim-plaintext", stream=False)
    assert '"score"' in ask_judge(backend, system="s", user="Skala: 0 bis 5").content


@pytest.mark.parametrize(
    ("model", "stream"),
    [
        ("sim-hang", False),
        ("sim-trickle", False),
        ("sim-trickle", True),
        ("sim-think-endless", True),
    ],
)
def test_deadline_holds_against_silent_and_trickling_servers(
    backend_for, model: str, stream: bool
) -> None:
    backend = backend_for(model, stream=stream, max_retries=2)
    started = time.monotonic()
    with pytest.raises(JudgeCallError) as info:
        ask_judge(backend, system="s", user="u")
    elapsed = time.monotonic() - started
    assert DEADLINE * 0.9 <= elapsed < coarse(DEADLINE)
    assert info.value.kind == "timeout"
    assert str(info.value).startswith("DeadlineExceeded: ")
    assert isinstance(info.value.__cause__, DeadlineExceeded)


def test_sdk_read_timeout_alone_does_not_end_a_trickling_call(sim: SimServer) -> None:
    """Why the deadline exists: each trickled byte resets the SDK's read timeout."""
    client = openai.OpenAI(base_url=sim.base_url, api_key="k", timeout=0.3, max_retries=0)
    started = time.monotonic()
    pieces = 0
    with client.chat.completions.with_streaming_response.create(
        model="sim-trickle", messages=[{"role": "user", "content": "u"}]
    ) as response:
        for _ in response.iter_bytes():
            pieces += 1
            if time.monotonic() - started > 1.2:
                break
    client.close()
    # Four read timeouts later the call is still alive and receiving.
    assert time.monotonic() - started > 1.2 and pieces >= 4


@pytest.mark.parametrize(
    ("model", "kind", "type_name"),
    [
        ("sim-500", "server", "InternalServerError"),
        ("sim-429", "rate_limit", "RateLimitError"),
        ("sim-401", "auth", "AuthenticationError"),
        ("sim-403", "auth", "PermissionDeniedError"),
        ("sim-filter", "refused", "BadRequestError"),
        ("kein-solches-modell", "not_found", "NotFoundError"),
    ],
)
def test_status_errors_become_judge_call_errors(
    backend_for, model: str, kind: str, type_name: str
) -> None:
    with pytest.raises(JudgeCallError) as info:
        ask_judge(backend_for(model), system="s", user="u")
    assert info.value.kind == kind
    assert str(info.value).startswith(f"{type_name}: ")
    assert type(info.value.__cause__).__name__ == type_name


@pytest.mark.parametrize("max_tokens", [None, 64])
def test_reasoning_only_reply_is_a_call_failure(backend_for, max_tokens: int | None) -> None:
    with pytest.raises(JudgeCallError) as info:
        ask_judge(backend_for("sim-reasoning", max_tokens=max_tokens), system="s", user="u")
    assert info.value.kind == "reasoning_only"
    assert isinstance(info.value.__cause__, ReasoningOnly)
    assert ("finish_reason=length" in str(info.value)) == (max_tokens is not None)


def test_connection_refused_is_a_connection_error(sim: SimServer) -> None:
    backend = OpenAIJudgeBackend("http://127.0.0.1:9/v1", "", "x", deadline_s=DEADLINE)
    with pytest.raises(JudgeCallError) as info:
        ask_judge(backend, system="s", user="u")
    assert info.value.kind == "connection"
    # A refusal, unlike a reply that broke off: the engine may wait it out (server busy).
    assert info.value.refused_connection
    with pytest.raises(JudgeCallError) as info:
        ask_judge(
            OpenAIJudgeBackend(
                backend.base_url.replace(":9/", f":{sim.port}/"),
                "",
                "sim-cutoff",
                deadline_s=DEADLINE,
            ),
            system="s",
            user="u",
        )
    assert info.value.kind == "connection" and not info.value.refused_connection


def _error_instances() -> dict[type[BaseException], tuple[BaseException, str]]:
    """One instance of every exception class the openai SDK exports, with its expected kind."""
    request = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")

    def status(cls: type[openai.APIStatusError], code: int, body: object = None) -> BaseException:
        return cls("boom", response=httpx2.Response(code, request=request), body=body)

    completion = ChatCompletion.model_construct(id="x", choices=[], created=0, model="m")
    return {
        openai.BadRequestError: (status(openai.BadRequestError, 400), "bad_request"),
        openai.AuthenticationError: (status(openai.AuthenticationError, 401), "auth"),
        openai.OAuthError: (
            openai.OAuthError(response=httpx2.Response(401, request=request), body=None),
            "auth",
        ),
        openai.PermissionDeniedError: (status(openai.PermissionDeniedError, 403), "auth"),
        openai.NotFoundError: (status(openai.NotFoundError, 404), "not_found"),
        openai.ConflictError: (status(openai.ConflictError, 409), "other"),
        openai.UnprocessableEntityError: (
            status(openai.UnprocessableEntityError, 422),
            "bad_request",
        ),
        openai.RateLimitError: (status(openai.RateLimitError, 429), "rate_limit"),
        openai.InternalServerError: (status(openai.InternalServerError, 503), "server"),
        openai.APIStatusError: (status(openai.APIStatusError, 502), "server"),
        openai.APITimeoutError: (openai.APITimeoutError(request=request), "timeout"),
        openai.APIConnectionError: (openai.APIConnectionError(request=request), "connection"),
        openai.APIResponseValidationError: (
            openai.APIResponseValidationError(httpx2.Response(200, request=request), None),
            "other",
        ),
        openai.APIError: (openai.APIError("x", request, body=None), "other"),
        openai.OpenAIError: (openai.OpenAIError("x"), "other"),
        openai.LengthFinishReasonError: (
            openai.LengthFinishReasonError(completion=completion),
            "reasoning_only",
        ),
        openai.ContentFilterFinishReasonError: (openai.ContentFilterFinishReasonError(), "refused"),
        openai.InvalidWebhookSignatureError: (openai.InvalidWebhookSignatureError("x"), "other"),
        openai.WebSocketConnectionClosedError: (
            openai.WebSocketConnectionClosedError("x", unsent_messages=[]),
            "other",
        ),
        openai.WebSocketQueueFullError: (openai.WebSocketQueueFullError("x"), "other"),
    }


def test_every_openai_error_class_is_classified() -> None:
    instances = _error_instances()
    exported = {
        value
        for name in dir(openai)
        if not name.startswith("_")
        and isinstance(value := getattr(openai, name), type)
        and issubclass(value, BaseException)
    }
    # A class the SDK adds later fails here until someone decides its kind.
    assert exported <= set(instances), exported - set(instances)
    for cls, (instance, kind) in instances.items():
        assert type(instance) is cls
        assert classify(instance) == kind, cls
        assert kind in ERROR_KINDS


def test_refusal_and_own_failures_are_classified() -> None:
    request = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")
    refused = openai.BadRequestError(
        "blocked", response=httpx2.Response(400, request=request), body={"code": "content_filter"}
    )
    assert classify(refused) == "refused"
    assert classify(DeadlineExceeded(1)) == "timeout"
    assert classify(ReasoningOnly("x")) == "reasoning_only"
    assert classify(ConnectionResetError()) == "connection"
    assert classify(ValueError("bug")) == "other"
