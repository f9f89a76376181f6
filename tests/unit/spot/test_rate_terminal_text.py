"""Terminal ``rate`` as a person reads it (issue 36): the pack's prose as paragraphs (not the
pack's line breaks wrapped again), a wrapped bullet indented under its text, a cell taller
than the screen names itself again above the prompt, and ``z`` goes back to correct the
last rating (the last rating of a rater and cell wins)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from tests.unit.spot.test_rate import fresh, judged, scripted
from touchstone.bundled import bundled_pack
from touchstone.cli.rate import cell_view, run_spot_check
from touchstone.pack import load_pack
from touchstone.results import VerdictKey
from touchstone.stages.spot_check import SpotCell
from touchstone.stages.view import load_run
from touchstone.store.ratings import HUMAN

__all__ = ["judged"]  # the module's fixture, used here


def _shown(cell: SpotCell, *, width: int = 80) -> list[str]:
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None).print(cell_view(cell))
    return [line.strip("│ ").rstrip() for line in buffer.getvalue().splitlines()]


def _cell(prompt_id: str, answer: str = "Eine Antwort.") -> SpotCell:
    pack = load_pack(bundled_pack("buero"))
    return SpotCell(
        key=VerdictKey("m", "none", prompt_id, 0),
        prompt=pack.prompt(prompt_id),
        answer=answer,
        reasoning_chars=0,
        position=1,
        total=5,
    )


def test_the_task_reads_as_paragraphs_not_the_pack_s_line_breaks() -> None:
    lines = _shown(_cell("B1"))
    task = lines[lines.index("Aufgabe") + 1 : lines.index("Erwartungen") - 1]
    # The pack wraps B1's minutes at about 88 columns: wrapped again at 76, every second
    # line was a stub ("Frau Wolf", "von 6 % …"). As paragraphs, only a paragraph's last
    # line is short.
    paragraphs = " ".join(task).split("  ")
    ends = {i for i, line in enumerate(task) if i + 1 == len(task) or not task[i + 1]}
    stubs = [line for i, line in enumerate(task) if line and i not in ends and len(line) < 60]
    assert stubs == [], task
    assert paragraphs and "zusammen und liste danach" in " ".join(task)


def test_an_invoice_s_rows_and_a_table_keep_their_lines() -> None:
    invoice = _shown(_cell("C9"))
    assert "5 × Toner schwarz à 64,90 € = 324,50 €" in invoice
    assert "10 × Kopierpapier (Karton) à 23,40 € = 234,00 €" in invoice
    table = _shown(_cell("D7"))
    assert "| Januar  | 42.300 | 38.900 | 27.600 |" in table


def test_a_wrapped_bullet_is_indented_under_its_text() -> None:
    buffer = io.StringIO()
    Console(file=buffer, width=60, color_system=None).print(cell_view(_cell("A1")))
    lines = buffer.getvalue().splitlines()
    at = next(i for i, line in enumerate(lines) if "• Korrekte Anrede" in line)
    bullet = lines[at].index("Korrekte")
    following = lines[at + 1]
    assert "•" not in following
    inner = following[1:].rstrip(" │")
    assert inner[: bullet - 1].strip() == "" and inner[bullet - 1] != " ", (lines[at], following)


def test_a_cell_taller_than_the_screen_names_itself_above_the_prompt(
    judged: Path, tmp_path: Path
) -> None:
    run = fresh(judged, tmp_path)
    buffer = io.StringIO()
    out = Console(file=buffer, width=80, height=15, color_system=None)
    before_prompt: list[str] = []
    ask, _ = scripted(["q"])

    def asking(prompt: str) -> str:
        before_prompt.append(buffer.getvalue().rstrip().splitlines()[-1])
        return ask(prompt)

    run_spot_check(run, n=5, rater="anna", console=out, ask=asking)
    assert before_prompt[0].startswith("— Zelle 1 von 5 · Aufgabe: "), before_prompt


def test_z_goes_back_and_the_new_rating_replaces_the_old(judged: Path, tmp_path: Path) -> None:
    run = fresh(judged, tmp_path)
    buffer = io.StringIO()
    out = Console(file=buffer, width=80, color_system=None)
    # z at the first cell: nothing before it. Cell 1 rated 4; at cell 2 back (z), cell 1
    # again rated 2 with a red flag; cell 2 rated 3; quit.
    entries = ["z", "4", "", "", "z", "2", "j", "korrigiert", "3", "", "", "q"]
    ask, prompts = scripted(entries)
    run_spot_check(run, n=5, rater="anna", console=out, ask=ask)
    text = buffer.getvalue()
    assert "Keine Zelle davor" in text
    shown = [line for line in text.splitlines() if line.startswith("╭")]
    assert [line.split()[1:5] for line in shown] == [
        ["Zelle", "1", "von", "5"],
        ["Zelle", "2", "von", "5"],
        ["Zelle", "1", "von", "5"],
        ["Zelle", "2", "von", "5"],
        ["Zelle", "3", "von", "5"],
    ]
    assert prompts[0].startswith("Wertung (0–5; z = zurück, s = überspringen, q = beenden)")
    lines = [json.loads(line) for line in (run / HUMAN).read_text("utf-8").splitlines()]
    assert [r["score"] for r in lines] == [4, 2, 3]
    kept = {r.cell: r for r in load_run(run).ratings()}
    first = VerdictKey(*(lines[0][k] for k in ("model", "variant", "prompt_id", "repeat")))
    assert kept[first].score == 2 and kept[first].red_flag and kept[first].note == "korrigiert"
    assert "2 Wertungen gespeichert" in " ".join(text.split())
