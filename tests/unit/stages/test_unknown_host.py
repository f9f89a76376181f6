"""An unknown host is named as such and stops the run at once (issue 36): ``localhots`` was
"keine Verbindung" on each of 130 calls. The cause is data (``CallError.unknown_host``, from
the ``socket.gaierror`` under the SDK's connection error), the host comes from the base URL.
``.invalid`` never resolves (RFC 2606), and the resolver says so without leaving the machine."""

import socket
from pathlib import Path

import pytest

from tests.conftest import PackRun
from touchstone.errors import JudgeAborted, ModelCallError
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.stages.judge.judge import execute_judge
from touchstone.transport.classify import call_error

NOWHERE = "http://nicht-vorhanden.invalid:9/v1"


@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_run_against_an_unknown_host_stops_after_the_first_calls_and_names_it(
    tiny_run: PackRun, concurrency: int
) -> None:
    outcome = tiny_run("sim-gut", "sim-schwach", base_url=NOWHERE, concurrency=concurrency)
    summary = outcome.summary
    assert summary.total == 12 and summary.left == 12 and summary.recorded == 0
    # The calls already started when the first failure came back, not one per cell.
    assert sum(summary.failures.values()) <= concurrency
    text = outcome.unfinished()
    assert "Rechnername „nicht-vorhanden.invalid“ nicht gefunden" in text
    assert "--base-url" in text and "keine Verbindung" not in text


def test_a_judge_against_an_unknown_host_names_it(answered_run: Path) -> None:
    config = JudgeConfig(endpoint=JudgeEndpoint(base_url=NOWHERE), model="sim-judge")
    with pytest.raises(JudgeAborted) as stopped:
        execute_judge(answered_run, config=config)
    assert "Rechnername „nicht-vorhanden.invalid“ nicht gefunden" in str(stopped.value)
    assert "endpoint.base_url" in str(stopped.value)


def test_only_a_name_the_resolver_does_not_know_is_an_unknown_host() -> None:
    def failed(cause: BaseException) -> ModelCallError:
        try:
            try:
                raise cause
            except OSError as exc:
                raise ConnectionError("verbindung") from exc
        except ConnectionError as exc:
            return call_error(ModelCallError, exc)

    unknown = failed(socket.gaierror(socket.EAI_NONAME, "Name or service not known"))
    assert unknown.kind == "connection" and unknown.unknown_host
    # "Temporary failure in name resolution": no resolver reachable now, the name may exist.
    again = failed(socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"))
    assert again.kind == "connection" and not again.unknown_host
    assert not failed(ConnectionRefusedError(111, "Connection refused")).unknown_host
