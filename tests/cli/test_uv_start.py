"""``uv run touchstone …`` starts without compiling the environment again (issue 36).

With ``[tool.uv] compile-bytecode`` uv byte-compiles the whole site-packages after every
implicit sync, so each ``uv run`` printed "Bytecode compiled 3860 files" and paid for it.
The bytecode is compiled once, at install (``uv sync --compile-bytecode`` in ``.ci/run``,
where ``PYTHONDONTWRITEBYTECODE`` is set); elsewhere Python writes it on the first start.
The settled start-up itself is guarded by ``tests/cli/test_startup.py``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_uv_run_compiles_nothing_on_a_synced_environment() -> None:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH")
    # The project's own settings decide, not a developer's UV_COMPILE_BYTECODE.
    env = {k: v for k, v in os.environ.items() if k != "UV_COMPILE_BYTECODE"}
    done = subprocess.run(
        [uv, "run", "--frozen", "--offline", "python", "-c", "pass"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "Bytecode compiled" not in done.stderr, done.stderr
