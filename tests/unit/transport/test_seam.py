"""The call seam (issue 34): one async protocol for both roles, one OpenAI-compatible
implementation, one fake; tests take the production path."""

import ast
import asyncio
import threading

import pytest

from tests.conftest import REPO, OverlapCounting, answer_once, make_response
from touchstone.answers import OpenAIAnswerBackend
from touchstone.errors import JudgeCallError
from touchstone.judge.backend import OpenAIJudgeBackend, ask_judge
from touchstone.judge.passes import judge_responses
from touchstone.pack import Pack
from touchstone.sim import SimServer
from touchstone.stages.run.answering import answer_cells
from touchstone.transport.endpoint import OpenAIChat
from touchstone.transport.engine import run_blocking
from touchstone.transport.fake import FakeChat, SentCall

# The seam's members, and what backends were once probed for by name.
SEAM_NAMES = {
    "aanswer",
    "ajudge",
    "aclose",
    "base_url",
    "call",
    "deadline_s",
    "identity",
    "model",
    "model_ids",
    "timeout",
    "kind",
}


def test_nothing_probes_a_backend_or_a_call_error_by_name() -> None:
    found = []
    for path in sorted((REPO / "touchstone").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in SEAM_NAMES
            ):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert found == []


def test_both_roles_are_one_implementation() -> None:
    for backend in (OpenAIAnswerBackend, OpenAIJudgeBackend):
        assert issubclass(backend, OpenAIChat)
        # A role adapter only configures: the call, the listing and the closing are shared.
        assert {"call", "model_ids", "aclose", "identity"}.isdisjoint(vars(backend)), backend


def test_the_roles_differ_in_their_request_and_reply(sim: SimServer) -> None:
    answers = OpenAIAnswerBackend(sim.base_url, "", deadline_s=5)
    answer_once(answers, model="sim-old", system="", user="Hallo")
    assert [m["role"] for m in sim.history[-1]["messages"]] == ["user"]
    judge = OpenAIJudgeBackend(sim.base_url, "", "sim-judge", deadline_s=5)
    ask_judge(judge, system="", user="Skala: 0 bis 5")
    assert [m["role"] for m in sim.history[-1]["messages"]] == ["system", "user"]
    # Reasoning without content: an answer the run records, a judge call that failed.
    reply = answer_once(answers, model="sim-reasoning", system="", user="u")
    assert not reply.content.strip() and reply.reasoning
    with pytest.raises(JudgeCallError) as info:
        ask_judge(
            OpenAIJudgeBackend(sim.base_url, "", "sim-reasoning", deadline_s=5),
            system="s",
            user="u",
        )
    assert info.value.kind == "reasoning_only"


def test_base_url_is_told_without_credentials_but_identity_keeps_the_endpoint() -> None:
    judge = OpenAIJudgeBackend("http://user:secret@127.0.0.1:9/v1/", "", "j", deadline_s=1)
    assert judge.base_url == "http://127.0.0.1:9/v1/"
    assert judge.identity["base_url"] == "http://user:secret@127.0.0.1:9/v1"


class _Overlapping(OverlapCounting):
    """Takes a while per call and notes the thread and how many calls overlap."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[int] = set()

    async def pause(self, sent: SentCall) -> None:
        self.threads.add(threading.get_ident())
        await asyncio.sleep(0.02)


def test_a_fake_judge_takes_the_engines_path(tiny_pack: Pack) -> None:
    fake = _Overlapping()
    fake.deadline_s = 7.0
    items = [make_response("R1", repeat=i) for i in range(1, 9)]
    out = judge_responses(fake, items, tiny_pack, concurrency=4)
    assert len(out) == 8 and all(v.score == 4 for v in out)
    # On the engine's one loop, concurrently, no worker threads; closed by the session.
    assert fake.threads == {threading.get_ident()} and fake.most == 4
    assert fake.closed == 1
    # The backend's deadline reaches every call under its one name.
    assert {sent.deadline_s for sent in fake.history} == {7.0}
    assert {sent.model for sent in fake.history} == {"fake-judge"}


def test_a_fake_answerer_gets_the_model_of_each_cell(tiny_pack: Pack) -> None:
    fake = FakeChat(default="Antwort", model="", deadline_s=3.0)
    persisted = []
    run_blocking(
        answer_cells(
            fake,
            tiny_pack,
            models=["a", "b"],
            variants=["knapp"],
            repeats=1,
            done_keys=set(),
            on_response=persisted.append,
            concurrency=2,
        )
    )
    assert {r.model for r in persisted} == {"a", "b"}
    assert {sent.model for sent in fake.history} == {"a", "b"}
    assert {sent.system for sent in fake.history} == {"Antworte knapp."}
    assert {sent.deadline_s for sent in fake.history} == {3.0} and fake.closed == 1


def test_the_fake_replays_its_script_then_its_default() -> None:
    fake = FakeChat(script=["eins", JudgeCallError("weg", kind="server")], default="immer")

    async def three() -> list[str]:
        replies = []
        for _ in range(3):
            try:
                reply = await fake.call(model="m", system="s", user="u", deadline_s=None)
                replies.append(reply.content)
            except JudgeCallError as exc:
                replies.append(exc.kind)
        return replies

    assert run_blocking(three()) == ["eins", "server", "immer"]
    assert fake.history == [SentCall("m", "s", "u", None)] * 3


def test_the_seam_is_declared_once() -> None:
    declared = [
        path.relative_to(REPO).as_posix()
        for path in (REPO / "touchstone").rglob("*.py")
        if "(Protocol)" in path.read_text(encoding="utf-8")
        and ("async def call" in path.read_text(encoding="utf-8"))
    ]
    assert declared == ["touchstone/transport/seam.py"]


def test_no_module_runs_a_backend_in_threads() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "touchstone").rglob("*.py"))
    assert "in_threads" not in source and "run_in_executor" not in source
