"""Ctrl-C in ``run`` says how to resume (issue 36): it said only "alles bisher Gespeicherte
bleibt erhalten", and without ``--out`` the user did not know the run dir's name. A new run
dir that got no answer before Ctrl-C is removed, and the message says so."""

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import coarse
from touchstone.sim import SimServer
from touchstone.store import RunDir


def interrupted_run(args: list[str], events: Path, cwd: Path, ready: Callable[[str], bool]) -> str:
    """``touchstone run ARGS --events EVENTS`` sent SIGINT (Ctrl-C) once its events are
    ``ready``; its stderr, after exit code 130."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "touchstone", "run", *args, "--events", str(events)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + coarse(10)
    while time.monotonic() < deadline and not ready(
        events.read_text(encoding="utf-8") if events.exists() else ""
    ):
        time.sleep(0.05)
    time.sleep(0.3)  # the calls of sim-hang are now hanging
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=coarse(5))
    assert proc.returncode == 130, stderr
    assert json.loads(events.read_text(encoding="utf-8").splitlines()[-1])["event"] == "aborted"
    return " ".join(stderr.split())


def test_ctrl_c_in_run_names_the_command_that_resumes_the_run(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    # No --out: the run dir gets a name with a time stamp, which the hint must name.
    args = ["--pack", str(tiny_pack_path), "--model", "sim-gut,sim-hang"]
    args += ["--base-url", sim.base_url, "--call-timeout-s", "60"]
    # sim-gut's 6 cells come first; then sim-hang hangs.
    said = interrupted_run(
        args, tmp_path / "events.jsonl", tmp_path, lambda text: text.count('"ok"') >= 6
    )
    [run_dir] = (tmp_path / "runs").iterdir()
    assert "alles bisher Gespeicherte bleibt erhalten" in said
    assert f"Derselbe Befehl mit --out {Path('runs') / run_dir.name} setzt den Run fort" in said
    assert len(RunDir(run_dir).load_responses()) == 6


def test_ctrl_c_before_the_first_answer_of_a_new_run_leaves_no_run_dir(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "runs" / "neu"
    args = ["--pack", str(tiny_pack_path), "--model", "sim-hang", "--out", str(out)]
    args += ["--base-url", sim.base_url, "--call-timeout-s", "60"]
    said = interrupted_run(args, tmp_path / "events.jsonl", tmp_path, lambda t: '"start"' in t)
    assert f"das neue Run-Verzeichnis {out} ist entfernt" in said
    assert not out.exists()
