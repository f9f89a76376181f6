"""touchstone starts on Linux, macOS and Windows, and declares every package it imports.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/test_portable.py``."""

import subprocess
import sys


def test_the_cli_starts_when_posix_only_modules_are_missing() -> None:
    # As on Windows: touchstone's own modules load; third-party packages pick their own
    # platform code, so only modules they do not need are blocked here.
    code = """
import sys
for name in ("fcntl", "termios", "tty", "pty", "syslog", "crypt"):
    sys.modules[name] = None
from touchstone.cli import app
import touchstone.gui.app, touchstone.demo, touchstone.sim
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_the_cli_starts_without_the_sdk() -> None:
    # The SDK takes a second to import: commands that call no endpoint (--help, report,
    # cache, every bad-input exit) must not pay it. The first call imports it.
    code = """
import sys
from touchstone.cli import app
import touchstone.stages, touchstone.judge, touchstone.gui.app
print(sorted(name for name in ("openai", "httpx2") if name in sys.modules))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "[]", result.stdout + result.stderr
