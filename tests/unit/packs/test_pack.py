from pathlib import Path

import pytest

from tests.conftest import REPO, TINY_PACK
from touchstone.errors import InputError
from touchstone.pack import load_pack


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pack.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_buero_pack_is_substantial() -> None:
    pack = load_pack(REPO / "packs" / "buero.yaml")
    prompts = [p for _, p in pack.all_prompts()]
    assert len(prompts) >= 24
    assert len(pack.categories) >= 5
    assert len(pack.dimensions) >= 4
    assert sum(p.safety_critical for p in prompts) >= 3
    assert "none" in pack.variants and len(pack.variants) >= 2
    assert all(p.expectations and p.red_flags for p in prompts)


def test_prompts_in_file_order_know_their_category(tiny_pack_path: Path) -> None:
    pack = load_pack(tiny_pack_path)
    pairs = [(c.id, p.id, p.category) for c, p in pack.all_prompts()]
    assert pairs == [("R", "R1", "R"), ("R", "R2", "R"), ("S", "S1", "S")]
    assert pack.prompt("S1").safety_critical


def test_defaults_for_scale_and_variants(tmp_path: Path) -> None:
    pack = load_pack(
        write(
            tmp_path,
            "id: x\ntitle: X\ncategories:\n  - {id: A, title: A, prompts: [{id: A1, text: t}]}\n",
        )
    )
    assert (pack.scale.min, pack.scale.max) == (0, 5)
    assert pack.variants == {"none": ""}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            ("judge_instructions:", "judge_instruction:"),
            "unbekannter Schlüssel „judge_instruction“",
        ),
        (
            ('        expectations: ["19 €"]', '        expectation: ["19 €"]'),
            "categories[0].prompts[0].expectation",
        ),
        (
            ("        safety_critical: true", "        safety_critical: vielleicht"),
            "true oder false",
        ),
        (("id: R2", "id: R1"), "Prompt-ID mehrfach vergeben: R1"),
        (
            ("scale: {min: 0, max: 5}", "scale: {min: 5, max: 5}"),
            "min (5) muss kleiner als max (5)",
        ),
        (("  - id: sprache", "  - id: korrektheit"), "Dimensions-ID mehrfach vergeben"),
        (("title: Kleines Testpaket\n", ""), "Pflichtfeld „title“ fehlt"),
    ],
)
def test_invalid_packs_name_file_and_problem(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    assert change[0] in TINY_PACK
    path = write(tmp_path, TINY_PACK.replace(*change, 1))
    with pytest.raises(InputError) as info:
        load_pack(path)
    assert str(path) in str(info.value)
    assert expected in str(info.value)


def test_empty_category_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "id: x\ntitle: X\ncategories:\n  - {id: A, title: A, prompts: []}\n")
    with pytest.raises(InputError, match="Kategorie „A“ enthält keine Prompts"):
        load_pack(path)


def test_missing_file_and_broken_yaml(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="Paket nicht gefunden"):
        load_pack(tmp_path / "fehlt.yaml")
    path = write(tmp_path, "id: x\ntitle: [unclosed\n")
    with pytest.raises(InputError, match=r"Zeile \d+.*kein gültiges YAML"):
        load_pack(path)
