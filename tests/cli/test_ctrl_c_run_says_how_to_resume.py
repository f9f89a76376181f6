"""Ctrl-C in ``run`` says how to resume (issue 36): it said only "alles bisher Gespeicherte
bleibt erhalten", and without ``--out`` the user did not know the run dir's name."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import coarse
from touchstone.sim import SimServer
from touchstone.store import RunDir


def test_ctrl_c_in_run_names_the_command_that_resumes_the_run(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    events = tmp_path / "events.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    # No --out: the run dir gets a name with a time stamp, which the hint must name.
    args = ["run", "--pack", str(tiny_pack_path), "--model", "sim-gut,sim-hang"]
    args += ["--base-url", sim.base_url, "--call-timeout-s", "60", "--events", str(events)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "touchstone", *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )

    def answered() -> int:
        text = events.read_text(encoding="utf-8") if events.exists() else ""
        return text.count('"outcome": "ok"')

    deadline = time.monotonic() + coarse(10)
    while time.monotonic() < deadline and answered() < 6:  # sim-gut's cells; sim-hang hangs
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=coarse(5))
    assert proc.returncode == 130, stderr
    text = " ".join(stderr.split())
    [run_dir] = (tmp_path / "runs").iterdir()
    assert "alles bisher Gespeicherte bleibt erhalten" in text
    assert f"Derselbe Befehl mit --out {Path('runs') / run_dir.name} setzt den Run fort" in text
    assert len(RunDir(run_dir).load_responses()) == 6
    assert json.loads(events.read_text(encoding="utf-8").splitlines()[-1])["event"] == "aborted"


def test_ctrl_c_before_the_first_answer_of_a_new_run_leaves_no_run_dir(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    events = tmp_path / "events.jsonl"
    out = tmp_path / "runs" / "neu"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    args = ["run", "--pack", str(tiny_pack_path), "--model", "sim-hang", "--out", str(out)]
    args += ["--base-url", sim.base_url, "--call-timeout-s", "60", "--events", str(events)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "touchstone", *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + coarse(10)
    while time.monotonic() < deadline and not (events.exists() and '"start"' in events.read_text()):
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=coarse(5))
    assert proc.returncode == 130, stderr
    assert f"das neue Run-Verzeichnis {out} ist entfernt" in " ".join(stderr.split())
    assert not out.exists()
