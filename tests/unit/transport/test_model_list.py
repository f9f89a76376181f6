"""Listing an endpoint's models ("Meinten Sie …?"): one function, its failures mapped to a
``CallError``; the caller decides what a failed listing means (issue 23 review)."""

import asyncio
import inspect
import socket
from pathlib import Path

import pytest

from tests.conftest import run_on_sim
from touchstone.answers import OpenAIAnswerBackend
from touchstone.errors import CallError
from touchstone.judge.backend import OpenAIJudgeBackend
from touchstone.sim import SimServer


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_failed_listing_is_a_call_error_not_an_empty_list() -> None:
    backend = OpenAIAnswerBackend(f"http://127.0.0.1:{closed_port()}/v1", "", deadline_s=1)

    async def listing() -> list[str]:
        try:
            return await backend.model_ids()
        finally:
            await backend.aclose()

    with pytest.raises(CallError) as caught:
        asyncio.run(listing())
    assert caught.value.kind == "connection"


def test_a_listing_that_works_names_the_models(sim: SimServer) -> None:
    backend = OpenAIAnswerBackend(sim.base_url, "", deadline_s=1)

    async def listing() -> list[str]:
        try:
            return await backend.model_ids()
        finally:
            await backend.aclose()

    assert "sim-gut" in asyncio.run(listing())


def test_no_backend_swallows_the_failure_of_a_listing() -> None:
    for backend in (OpenAIAnswerBackend, OpenAIJudgeBackend):
        source = inspect.getsource(backend.model_ids)
        assert "except" not in source, backend


def test_a_run_of_another_pack_is_refused_by_the_one_settings_check(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    from touchstone.errors import InputError

    out = tmp_path / "r"
    run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut"], variants=["none"], out=out)
    other = tmp_path / "other.yaml"
    other.write_text(
        tiny_pack_path.read_text(encoding="utf-8").replace("id: tiny", "id: anders", 1), "utf-8"
    )
    before = (out / "run.json").read_bytes()
    for extend in (False, True):
        with pytest.raises(InputError, match="Paket: gespeichert „tiny“, verlangt „anders“"):
            run_on_sim(sim, pack_path=other, models=["sim-gut"], out=out, extend=extend)
    assert (out / "run.json").read_bytes() == before
