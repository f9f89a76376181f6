"""A call touchstone gives up on stops on the server too (design.md §6, issue 16).

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/http/test_server_side.py``."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_cli import judge_config
from tests.conftest import REPO, coarse
from tests.http.test_server_side import NOTICE_S, wait_idle
from touchstone.sim import SimServer


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_cli_leaves_no_generation_behind(
    answered_run: Path, tmp_path: Path, sig: signal.Signals
) -> None:
    with SimServer() as server:
        config = judge_config(
            tmp_path / "j.yaml", server, "sim-runaway", call_timeout_s=60, concurrency=3
        )
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        argv = ["judge", str(answered_run), "--config", str(config)]
        child = subprocess.Popen(
            [sys.executable, "-m", "touchstone", *argv],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + coarse(10)
            while server.generations["running"] < 3 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert server.generations["running"] == 3
            child.send_signal(sig)
            code = child.wait(timeout=coarse(5))
        finally:
            child.kill()
            child.communicate()
        assert code != 0
        assert wait_idle(server, coarse(4 * NOTICE_S))
