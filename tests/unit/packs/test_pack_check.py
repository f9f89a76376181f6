"""``touchstone pack check``: findings, exit codes, the power section (design.md §20)."""

from __future__ import annotations

import json
import re
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO
from tests.unit.judge.test_cache import config
from touchstone.cli import main
from touchstone.pack import Pack
from touchstone.packs.check import check, near_duplicates, words
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge


def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    """The CLI in-process: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["touchstone", *args])
    # main installs its SIGTERM handler; the test process keeps its own.
    handler = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit) as ended:
            main()
    finally:
        signal.signal(signal.SIGTERM, handler)
    out = capsys.readouterr()
    return ended.value.code, out.out, out.err


def _prompt(ident: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"id": ident, "text": text, "expectations": ["nennt den Betrag"], **extra}


def _pack(categories: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"id": "probe", "title": "Probe", "categories": categories, **extra}


GOOD = _pack(
    [
        {
            "id": "A",
            "title": "Rechnen",
            "prompts": [
                _prompt(
                    f"A{i}",
                    f"Aufgabe {i}: {word} berechnen",
                    reference="Richtig.",
                    counterexample="Falsch.",
                    red_flags=["falsche Zahl"],
                )
                for i, word in enumerate(["Zinsen", "Rabatt", "Skonto", "Steuer", "Miete", "Lohn"])
            ],
        }
    ]
)


def test_a_clean_pack_has_no_findings() -> None:
    result = check(Pack.model_validate(GOOD))
    assert result.findings == [] and result.usable
    assert (result.references, result.counterexamples) == (6, 6)


def test_every_kind_of_finding_with_its_severity() -> None:
    long_text = " ".join(f"wort{i}" for i in range(30))
    data = _pack(
        [
            {
                "id": "A",
                "title": "Briefe",
                "prompts": [
                    _prompt("A1", "Schreibe eine Mahnung!"),
                    # The same after normalising: case, punctuation, spaces.
                    _prompt("A2", "schreibe   eine MAHNUNG."),
                    _prompt("A3", long_text + " ende"),
                    # 30 words shared of 32 in all (94 %): near, not equal.
                    _prompt("A4", long_text + " schluss"),
                    {"id": "A5", "text": "Ohne Rubrik", "expectations": ["  "]},
                ],
            },
            {
                "id": "S",
                "title": "Sicherheit",
                "prompts": [_prompt("S1", "IBAN geändert?", safety_critical=True)],
            },
        ],
        variants={"none": "", "leer": " ", "a": "Sei knapp.", "b": "sei knapp"},
    )
    result = check(Pack.model_validate(data))
    errors = [f.text for f in result.findings if f.severity == "error"]
    warnings = [f.text for f in result.findings if f.severity == "warning"]
    assert not result.usable and result.errors == 3
    assert any("Gleicher Text in A1, A2" in e for e in errors)
    assert any("Ohne Erwartungen" in e and "A5" in e for e in errors)
    assert any("ohne Warnsignale" in e and "S1" in e for e in errors)
    assert any("Fast gleicher Text in A3 und A4 (94 %" in w for w in warnings)
    assert any("Kategorie S (Sicherheit) hat nur 1 Prompt:" in w for w in warnings)
    assert any("Variante leer hat denselben Systemprompt wie none" in w for w in warnings)
    assert any("Variante b hat denselben Systemprompt wie a" in w for w in warnings)
    assert any("Kein Prompt hat eine Referenzantwort" in w for w in warnings)
    assert any("Kein Prompt hat ein Gegenbeispiel" in w for w in warnings)
    # Errors come first.
    assert [f.severity for f in result.findings][: result.errors] == ["error"] * 3


def test_few_probes_are_counted_against_judge_checks_six() -> None:
    data = json.loads(json.dumps(GOOD))
    for prompt in data["categories"][0]["prompts"][2:]:
        del prompt["reference"]
    result = check(Pack.model_validate(data))
    assert [f.text for f in result.findings] == [
        "Nur 2 Prompts mit Referenzantwort: judge-check prüft den Judge voll erst mit je 6."
    ]
    assert result.usable


def test_near_duplicates_are_found_by_the_join_as_by_comparing_every_pair() -> None:
    import random

    rng = random.Random(3)
    vocabulary = [f"w{i}" for i in range(40)]
    texts = []
    for i in range(300):
        base = set(rng.sample(vocabulary, 12))
        if i % 3 == 0 and texts:
            base = set(texts[-1][1])
            base.discard(next(iter(base)))
        texts.append((f"P{i}", base))
    found, cut = near_duplicates(texts, threshold=0.8)
    slow = {
        (a, b)
        for i, (a, x) in enumerate(texts)
        for b, y in texts[i + 1 :]
        if len(x & y) / len(x | y) >= 0.8
    }
    assert not cut
    assert {tuple(sorted(p[:2])) for p in found} == {tuple(sorted(p)) for p in slow}
    assert slow


def test_normalised_words() -> None:
    assert words("Straße, ＳＴＲＡSSE!") == ("strasse", "strasse")


def test_buero_is_usable(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    code, out, _ = cli(monkeypatch, capsys, "pack", "check", str(REPO / "packs" / "buero.yaml"))
    assert code == 0, out
    assert "Ergebnis: brauchbar" in out
    assert re.search(r"Mit \d+ Prompts und 1 Wiederholung trennt dieses Paket Modelle", out)
    assert "für 0,2 Punkte braucht es etwa" in out


def test_a_pack_with_errors_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    data = json.loads(json.dumps(GOOD))
    data["categories"][0]["prompts"][0]["expectations"] = []
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    code, out, _ = cli(monkeypatch, capsys, "pack", "check", str(path))
    assert code == 1
    assert "✗ Fehler" in out and "Ergebnis: nicht brauchbar (1 Fehler, 0 Warnungen)" in out


def test_bad_input_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    code, _, err = cli(monkeypatch, capsys, "pack", "check", str(tmp_path / "fehlt.yaml"))
    assert code == 2 and "nicht gefunden" in err
    code, _, err = cli(
        monkeypatch,
        capsys,
        "pack",
        "check",
        str(REPO / "packs" / "buero.yaml"),
        "--run",
        str(tmp_path / "kein-lauf"),
    )
    assert code == 2 and "Traceback" not in err


def test_a_runs_measured_spread(
    sim: SimServer,
    answered_run: Path,
    tiny_pack_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Any,
) -> None:
    execute_judge(answered_run, config=config(sim))
    capsys.readouterr()
    code, out, err = cli(
        monkeypatch, capsys, "pack", "check", str(tiny_pack_path), "--run", str(answered_run)
    )
    assert code == 0, err
    assert f"Gemessen im Run {answered_run}" in out
    assert "3 Prompts" in out
    card = json.loads((answered_run / "scorecard.json").read_text(encoding="utf-8"))
    resolution = card["resolution"]
    assert resolution["prompts"] == 3 and resolution["min_difference"] > 0
    assert resolution["power"] == 0.8 and resolution["level"] == 0.95


def test_the_packs_pages_power_table_is_buero_s() -> None:
    from touchstone.packs.readme import page_table, power_table

    shown = page_table(REPO / "docs" / "packs.md")
    assert shown == power_table(REPO / "packs" / "buero.yaml"), (
        "docs/packs.md's power table is stale: "
        "uv run python -m touchstone.packs.readme packs/buero.yaml docs/packs.md"
    )


def test_the_check_reads_at_80_columns() -> None:
    from rich.console import Console

    from touchstone.packs.check_text import render_pack_check

    data = json.loads(json.dumps(GOOD))
    data["categories"][0]["prompts"][0]["expectations"] = []
    data["categories"].append(
        {"id": "B", "title": "Eine sehr lange Kategorie", "prompts": [_prompt("B1", "kurz")]}
    )
    console = Console(width=80, record=True)
    console.print(render_pack_check(check(Pack.model_validate(data))))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text  # nothing cut
    flat = " ".join(text.split())
    assert "✗ Fehler Ohne Erwartungen (expectations): A0." in flat
    assert "⚠ Warnung Kategorie B (Eine sehr lange Kategorie) hat nur 1 Prompt" in flat
    assert "Mit 7 Prompts und 1 Wiederholung trennt dieses Paket Modelle" in flat


def test_a_run_with_one_repeat_says_the_repeat_share_is_assumed_and_what_it_may_be(
    sim: SimServer,
    answered_run: Path,
    tiny_pack_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Any,
) -> None:
    """Issue 33 §5: a run with one repeat cannot measure how much of its variance repeats
    would remove; the figures for 3 and 5 repeats rest on the assumed 40 % (the audit's run
    had 82 %: the table overstated them by 17-27 %). The check says so, with the range the
    true share leaves, in the terminal and in --json."""
    execute_judge(answered_run, config=config(sim))
    capsys.readouterr()
    out_json = tmp_path / "check.json"
    code, out, err = cli(
        monkeypatch,
        capsys,
        "pack",
        "check",
        str(tiny_pack_path),
        "--run",
        str(answered_run),
        "--json",
        str(out_json),
    )
    assert code == 0, err
    flat = " ".join(out.split())
    assert "Der Anteil der Wiederholungen an der Varianz ist angenommen (40 %)" in flat
    assert "der Run hat 1 Wiederholung je Prompt und Zeile" in flat
    data = json.loads(out_json.read_text(encoding="utf-8"))
    power = data["power"]
    assert power["repeat_share"] == 0.4 and power["repeat_share_measured"] is False
    assert "angenommen (40 %)" in power["note"]
    one, three, five = power["rows"]
    assert one["min_difference_range"] is None  # the run's own repeats: measured
    for row in (three, five):
        low, high = row["min_difference_range"]
        # All of the variance from repeats divides it by k; none leaves the one-repeat figure.
        assert high == pytest.approx(one["min_difference"], abs=1e-4)
        assert low == pytest.approx(one["min_difference"] / row["repeats"] ** 0.5, abs=1e-3)
        assert low < row["min_difference"] < high
        shown = f"bei {row['repeats']} Wiederholungen zwischen"
        assert shown in flat and shown in power["note"]
    assert data["usable"] is True and data["pack"]


def test_with_repeats_the_measured_share_is_used_and_nothing_is_assumed(tiny_pack: Pack) -> None:
    import random as _random

    from touchstone.packs.power import measured_spread
    from touchstone.packs.power_table import share_note
    from touchstone.stats.intervals import Cluster

    rng = _random.Random(3)
    # Per-cell noise sd 0.9 (variance 0.81), the models' gap varies little between prompts:
    # most of the variance at one repeat comes from repeats, far more than the assumed 40 %.
    effect = {f"P{i}": rng.gauss(0, 0.2) for i in range(40)}
    rows = [
        {
            p: Cluster.of([3 + e * side + rng.gauss(0, 0.9) for _ in range(2)])
            for p, e in effect.items()
        }
        for side in (1, -1)
    ]
    spread = measured_spread(rows)
    assert spread is not None and spread.share_measured and spread.repeat_share > 0.7
    result = check(tiny_pack, spread, run="lauf").power
    assert all(row.span is None for row in result.rows)
    assert share_note(result) == "" and result.as_dict()["note"] is None
