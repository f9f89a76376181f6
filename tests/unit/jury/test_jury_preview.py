"""``touchstone judge --dry-run`` with a jury (design.md §18, §19): per member the calls it
would make, their tokens and cost by its own price, the jury's total; nothing called, nothing
written."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_on_sim
from tests.unit.stages.test_cost import snapshot
from touchstone.errors import InputError
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.preview.preview import preview_judge

PRICED = "max_tokens: 200, price_per_million: {input: 0.5, output: 1.5}, budget: 2"


@pytest.fixture
def own_sim() -> Iterator[SimServer]:
    """A simulator of this test alone: its call counts are this test's."""
    with SimServer() as server:
        yield server


def jury_file(path: Path, sim: SimServer, *members: str, extra: str = "") -> Path:
    """A jury config: one ``judges`` entry per member (its model and keys, YAML flow)."""
    path.write_text(
        "judges:\n"
        + "".join(f"  - {{endpoint: {{base_url: '{sim.base_url}'}}, {m}}}\n" for m in members)
        + extra,
        encoding="utf-8",
    )
    return path


def priced_jury(path: Path, sim: SimServer, other: str = "model: sim-strict") -> Path:
    """sim-judge with a price, max_tokens and a budget, then ``other``."""
    return jury_file(path, sim, f"model: sim-judge, {PRICED}", other)


def answered(sim: SimServer, pack: Path, out: Path) -> Path:
    run_on_sim(sim, pack_path=pack, models=["sim-gut", "sim-schwach"], out=out)
    return out


def block(lines: list[str], heading: str) -> list[str]:
    """The indented lines under ``heading`` (a member's or the jury's figures)."""
    start = lines.index(heading) + 1
    end = start
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    return [line.strip() for line in lines[start:end]]


def test_a_jury_preview_counts_each_members_calls_and_changes_nothing(
    own_sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = answered(own_sim, tiny_pack_path, tmp_path / "run")
    config = priced_jury(tmp_path / "jury.yaml", own_sim)
    before, calls = snapshot(out), own_sim.calls
    preview = preview_judge(out, config=config)
    assert snapshot(out) == before and own_sim.calls == calls

    # The first member also writes the holistic pass (4 calls); the other judges the cells.
    assert [(m.name, m.preview.calls) for m in preview.members] == [
        ("sim-judge", 12 + 4),
        ("sim-strict", 12),
    ]
    assert preview.calls == 28
    outcome = execute_judge(out, config=config, use_cache=False)
    made = {m["model"]: m["health"]["calls"] for m in outcome.jury_events}
    assert made == {"sim-judge": 16, "sim-strict": 12}

    lines = preview.lines()
    assert lines[0] == "Probelauf: nichts wird aufgerufen, nichts geschrieben."
    judge = block(lines, "Judge sim-judge:")
    assert "Aufrufe: 16" in judge
    assert "Ausgabe: höchstens 3.200 Tokens (max_tokens 200 je Aufruf; noch nichts gemessen)" in (
        judge
    )
    assert any(re.match(r"Kosten: höchstens etwa 0,00\d\d \(Preis je Million", x) for x in judge)
    assert "Budget: 2,00 – reicht nach dieser Schätzung." in judge
    strict = block(lines, "Judge sim-strict:")
    assert "Aufrufe: 12" in strict
    assert any(x.startswith("Kosten: unbekannt – kein Preis") for x in strict)
    assert not any(x.startswith("Budget") for x in strict)  # it has none
    total = block(lines, "Jury gesamt:")
    assert total[0] == "Aufrufe: 28"
    assert any(x.startswith("Kosten: unbekannt – kein Preis für sim-strict") for x in total)
    assert any(x.startswith("Dauer: unbekannt") for x in total)


def test_a_jury_preview_asks_only_missing_members_and_checks_each_budget(
    own_sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = answered(own_sim, tiny_pack_path, tmp_path / "run")
    execute_judge(out, config=priced_jury(tmp_path / "a.yaml", own_sim), use_cache=False)

    # sim-judge has every verdict and its holistic reports; sim-gullible is new to the run.
    gullible = "model: sim-gullible, max_tokens: 100, price_per_million: {input: 0, output: 1000}"
    later = priced_jury(tmp_path / "b.yaml", own_sim, f"{gullible}, budget: 1")
    before, calls = snapshot(out), own_sim.calls
    preview = preview_judge(out, config=later)
    assert snapshot(out) == before and own_sim.calls == calls
    assert [m.preview.calls for m in preview.members] == [0, 12]
    lines = preview.lines()
    assert block(lines, "Judge sim-judge:") == ["Aufrufe: 0 – nichts zu tun: alle Zellen bewertet"]
    # 12 calls of at most 100 tokens at 1.000 per million: 1,20, more than its 1,00.
    gul = block(lines, "Judge sim-gullible:")
    assert any(x.startswith("Kosten: höchstens etwa 1,20") for x in gul)
    assert any(
        x.startswith("Budget: 1,00 – reicht nach dieser Schätzung nicht: der Judge scheidet aus")
        for x in gul
    )
    total = block(lines, "Jury gesamt:")
    assert total[0] == "Aufrufe: 12"
    assert any(x.startswith("Kosten: höchstens etwa 1,20") for x in total)

    # What the preview said is what the jury asks (the same config, without the budget that
    # would drop the member).
    jury = priced_jury(tmp_path / "c.yaml", own_sim, gullible)
    execute_judge(out, config=jury, use_cache=False)
    asked = {k: own_sim.calls.get(k, 0) - calls.get(k, 0) for k in ("sim-judge", "sim-gullible")}
    assert asked == {"sim-judge": 0, "sim-gullible": 12}


def test_a_jury_preview_refuses_a_model_override(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    config = jury_file(tmp_path / "jury.yaml", sim, "model: sim-judge", "model: sim-strict")
    with pytest.raises(InputError, match="--model other passt nicht zu einer Jury"):
        preview_judge(answered_run, config=config, model="other")
