"""The verdict cache: identical work is judged once, failures are never reused.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/judge/test_cache.py``."""

from pathlib import Path

from tests.conftest import run_cli
from tests.unit.judge.test_cache import damaged_cache
from touchstone.store.verdict_cache import CACHE_FILE


def test_cache_commands_on_a_garbage_file_exit_2_naming_the_file(
    private_verdict_cache: Path, tmp_path: Path
) -> None:
    path = private_verdict_cache / CACHE_FILE
    damaged_cache(path, "garbage")
    for command in ("stats", "clear"):
        result = run_cli("cache", command, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr + result.stdout
        assert "löschen Sie" in result.stderr and CACHE_FILE in result.stderr
