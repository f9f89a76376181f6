"""run.json as the store's typed ``Manifest`` (issue 34): a file touchstone wrote reads and
writes back to the same bytes, keys of newer versions are kept, a damaged file is bad input
in German naming file and key, and a key the file lacks is told from one it records."""

import json
import shutil
from pathlib import Path

import pytest

from touchstone.errors import InputError
from touchstone.store import MANIFEST, RunDir
from touchstone.store.manifest import Manifest, load_manifest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.mark.parametrize("fixture", ["judged_before_layout", "single_judge_run/run"])
def test_a_run_json_touchstone_wrote_is_written_back_byte_for_byte(
    tmp_path: Path, fixture: str
) -> None:
    shutil.copy(FIXTURES / fixture / MANIFEST, tmp_path / MANIFEST)
    before = (tmp_path / MANIFEST).read_bytes()
    run = RunDir(tmp_path)
    run.write_manifest(run.read_manifest())
    assert (tmp_path / MANIFEST).read_bytes() == before


def test_keys_of_a_newer_version_are_kept(tmp_path: Path) -> None:
    path = tmp_path / MANIFEST
    path.write_text(json.dumps({"pack_id": "p", "future": {"a": [1, 2]}}), encoding="utf-8")
    run = RunDir(tmp_path)
    run.write_manifest(run.read_manifest().with_model("m"))
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "pack_id": "p",
        "models": ["m"],
        "future": {"a": [1, 2]},
    }


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"repeats": "3"}', "repeats"),
        ('{"models": "m"}', "models"),
        ("[1, 2]", "erwartet ein JSON-Objekt"),
        ('{"name": ', "kein gültiges JSON"),
    ],
)
def test_a_damaged_run_json_is_bad_input_naming_the_file(
    tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / MANIFEST
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=said) as caught:
        load_manifest(path)
    assert str(path) in str(caught.value)


def test_a_missing_key_reads_as_its_default_and_is_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / MANIFEST
    path.write_text('{"max_tokens": null}', encoding="utf-8")
    manifest = load_manifest(path)
    assert manifest.recorded("max_tokens") and not manifest.recorded("repeats")
    assert manifest.repeats == 1 and manifest.models == [] and not manifest.empty
    assert Manifest().empty and Manifest().as_json() == {}
