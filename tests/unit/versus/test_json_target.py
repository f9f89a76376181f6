"""Where ``compare --json`` may write (issue 35): not into a run dir, not over a file that is
not an earlier compare output, unless forced; a directory never."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from touchstone.errors import InputError
from touchstone.versus.target import check_json_target

EARLIER = {"rows": [], "judges_differ": False, "new_run": "a", "baseline_run": "b", "gate": {}}


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "lauf"
    (run / "sub").mkdir(parents=True)
    (run / "run.json").write_text("{}", encoding="utf-8")
    return run


def test_a_new_file_outside_any_run_and_an_earlier_output_may_be_written(tmp_path: Path) -> None:
    check_json_target(tmp_path / "neu" / "vergleich.json", force=False)
    earlier = tmp_path / "alt.json"
    earlier.write_text(json.dumps(EARLIER), encoding="utf-8")
    check_json_target(earlier, force=False)


@pytest.mark.parametrize("name", ["judgements.jsonl", "neu.json", "sub/x.json"])
def test_inside_a_run_dir_is_refused_unless_forced(run_dir: Path, name: str) -> None:
    with pytest.raises(InputError, match=r"im Run-Verzeichnis .*lauf.*--force"):
        check_json_target(run_dir / name, force=False)
    check_json_target(run_dir / name, force=True)


def test_a_link_into_a_run_dir_is_refused(run_dir: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    os.symlink(run_dir / "run.json", link)
    with pytest.raises(InputError, match="Run-Verzeichnis"):
        check_json_target(link, force=False)


@pytest.mark.parametrize(
    "content", [b"meine Notizen", b'{"rows": []}', b"\xff\xfe", b"[1, 2]", b"9" * 5000]
)
def test_a_file_that_is_no_compare_output_is_refused(tmp_path: Path, content: bytes) -> None:
    other = tmp_path / "andere.json"
    other.write_bytes(content)
    with pytest.raises(InputError, match=r"andere\.json.*keine frühere Ausgabe.*--force"):
        check_json_target(other, force=False)
    check_json_target(other, force=True)


def test_a_directory_or_fifo_is_refused_even_when_forced(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="Verzeichnis"):
        check_json_target(tmp_path, force=True)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="keine reguläre Datei"):
        check_json_target(fifo, force=True)
