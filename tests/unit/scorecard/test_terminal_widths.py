"""The terminal scorecard at every width from 80 columns up (issue 23 §1, design.md §6; design.md
§22).

Rank, model and variant, n/N, the mean with its interval, red flags and the failed/unscored
counts are never cut; what does not fit moves to a second table; empty columns are not
printed; prose wraps at words on a terminal and stays on one line in a pipe.
"""

import io
import random
import re

import pytest
from rich.console import Console

from tests.conftest import make_response
from touchstone import german
from touchstone.cli import ui
from touchstone.results import EvalResponse, ModelReport, Verdict
from touchstone.scorecard.build import Scorecard, ScoreRow, build_scorecard
from touchstone.scorecard.terminal import legend, render_scorecard, tie_text
from touchstone.stats.intervals import Interval

WIDTHS = (80, 100, 120, 200)
MODELS = {"sim-gut": 4.6, "sim-mittel": 3.0, "sim-schwach": 1.2}
VARIANTS = ("none", "sachlich")
CATEGORIES = "ABCDEF"


def realistic_card(models: dict[str, float] = MODELS) -> Scorecard:
    """Three models in two variants over six categories (3 prompts x 3 repeats each), with
    red flags (6 and 8 for "sim-schwach"), safety-critical ones, failed answers (deadline
    overruns), unscored cells (unreadable judge replies), open cells and speed."""
    rng = random.Random(23)
    responses: list[EvalResponse] = []
    verdicts: list[Verdict] = []
    for model, quality in models.items():
        for variant in VARIANTS:
            flags = {"sim-schwach": 6 if variant == "none" else 8}.get(model, 0)
            for c_index, category in enumerate(CATEGORIES):
                for p in range(3):
                    prompt_id = f"{category}{p}"
                    for repeat in (1, 2, 3):
                        resp = make_response(
                            prompt_id, model=model, variant=variant, repeat=repeat,
                            category=category,
                        )  # fmt: skip
                        resp.latency_s, resp.completion_tokens = 0.9 + c_index / 10, 11_945
                        responses.append(resp)
                        cell = (c_index * 3 + p) * 3 + repeat - 1
                        if model == "sim-gut" and variant == "sachlich" and cell < 2:
                            continue  # open: not judged yet
                        score = max(0, min(5, round(rng.gauss(quality, 0.8))))
                        fields = {
                            "model": model,
                            "variant": variant,
                            "prompt_id": prompt_id,
                            "repeat": repeat,
                            "category": category,
                            "rationale": "",
                            "judge_model": "sim-judge",
                        }
                        if model == "sim-schwach" and variant == "sachlich" and cell >= 42:
                            verdicts.append(
                                Verdict(**fields, score=0, red_flag=False, unscored=True,
                                        unscored_reason="model_error", error_kind="timeout")
                            )  # fmt: skip
                            continue
                        if model == "sim-mittel" and variant == "none" and cell < 3:
                            verdicts.append(
                                Verdict(**fields, score=0, red_flag=False, unscored=True,
                                        unscored_reason="unparseable")
                            )  # fmt: skip
                            continue
                        red = cell < flags
                        verdicts.append(
                            Verdict(**fields, score=score, red_flag=red,
                                    safety_critical=red and cell % 3 == 0)
                        )  # fmt: skip
    reports = [
        ModelReport(m, v, {"korrekt": 4.5, "sicherheit": 3.0}) for m in models for v in VARIANTS
    ]
    return build_scorecard(responses, verdicts, reports, scale_min=0)


def shown(card: Scorecard, width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(
        render_scorecard(
            card,
            category_titles={c: f"Kategorie {c}" for c in CATEGORIES},
            dimension_titles={"korrekt": "Fachliche Korrektheit", "sicherheit": "Sicherheit"},
        )
    )
    return console.export_text()


def essential_cells(row: ScoreRow) -> list[str]:
    """The cells of a row that are never cut, in the order the table shows them."""
    assert row.interval is not None and row.rank is not None
    return [
        str(row.rank),
        row.model,
        row.variant,
        f"{row.scored}/{row.cells}",
        german.interval(row.interval.mean, row.interval.low, row.interval.high),
        str(row.red_flags),
    ]


def row_line(text: str, row: ScoreRow) -> str:
    """The main table's line of ``row``: it starts with the rank, then model and variant."""
    pattern = re.compile(
        rf"^\s*{row.rank}\s+{re.escape(row.model)}\s+{re.escape(row.variant)}\s", re.M
    )
    match = pattern.search(text)
    assert match, (row.model, row.variant, text)
    return text[match.start() : text.index("\n", match.start())]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_essential_cells_are_never_cut_at_any_width(width: int) -> None:
    card = realistic_card()
    assert {r.red_flags for r in card.rows} >= {6, 8}
    assert any(r.failed_count for r in card.rows) and any(r.unscored for r in card.rows)
    text = shown(card, width)
    assert "…" not in text, text
    assert max(len(line.rstrip()) for line in text.splitlines()) <= width, text
    for row in card.rows:
        line = row_line(text, row)
        position = 0
        for cell in essential_cells(row):
            found = line.find(cell, position)
            assert found >= 0, (cell, line)
            position = found + len(cell)
        # After the mean: red flags, then failed and unscored counts as whole numbers.
        numbers = line[position - len(str(row.red_flags)) :].split()
        assert numbers[0] == str(row.red_flags), line
        assert str(row.failed_count) in numbers and str(sum(row.unscored.values())) in numbers
    # The reasons of failed and unscored cells, said below the table.
    assert "davon fehlgeschlagen: 12 (Frist überschritten: 12)" in text
    assert "Judge-Ausgabe unlesbar: 3" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_what_does_not_fit_moves_to_a_second_table(width: int) -> None:
    card = realistic_card()
    text = shown(card, width)
    for row in card.rows:
        # Category means, safety-critical flags and speed: in the main table or the second.
        lines = [
            line for line in text.splitlines() if f"{row.model}  " in line and row.variant in line
        ]
        joined = " ".join(lines)
        for category in CATEGORIES:
            assert german.number(row.category_means[category]) in joined, (category, text)
        assert re.search(r"\s1,\d\d\xa0s\s+\d+\.\d{3}(\s|$)", joined), (
            joined
        )  # 11.945 tokens in ~1 s
        assert german.number(row.dim_scores["korrekt"]) in joined
    assert "Kategorie A" in text and "Fachliche" in text and "Korrektheit" in text


def test_at_80_columns_the_categories_move_and_at_200_they_stay() -> None:
    card = realistic_card()
    narrow, wide = shown(card, 80), shown(card, 200)
    assert "Scorecard (Fortsetzung)" in narrow and "Scorecard (Fortsetzung)" not in wide
    assert "Tok/s" in wide.split("Kategorien:")[0].splitlines()[1]  # the header row
    header = next(line for line in narrow.splitlines() if "Mittel" in line)
    assert "Latenz" not in header and "Tok/s" not in header


def test_empty_columns_are_not_printed() -> None:
    card = realistic_card()
    assert "Hinweis" not in shown(card, 200)
    for row in card.rows:
        row.latency_median_s = row.tokens_per_s = None
        row.open = 0
    text = shown(card, 200)
    assert "Latenz" not in text.split("Kategorien:")[0]
    header = next(line for line in text.splitlines() if "Mittel" in line)
    assert "offen" not in header
    assert "offen: in allen Zeilen 0" in text
    card.rows[0].dim_error = "Gesamtbewertung unlesbar"
    assert f"{card.rows[0].model} · {card.rows[0].variant}: Gesamtbewertung unlesbar" in shown(
        card, 80
    )


@pytest.mark.parametrize("width", (80, 120))
def test_long_names_are_wrapped_never_cut(width: int) -> None:
    long_name = "meta-llama/Llama-3.3-70B-Instruct-Turbo-with-a-very-long-suffix"
    card = realistic_card({long_name: 4.0, "sim-schwach": 1.2})
    text = shown(card, width)
    assert "…" not in text
    assert long_name in "".join(line.strip() for line in text.splitlines())
    for row in card.rows:
        assert row.interval is not None
        mean = german.interval(row.interval.mean, row.interval.low, row.interval.high)
        assert mean in text


def test_numbers_are_german_and_one_prompt_shows_no_interval() -> None:
    card = realistic_card()
    text = shown(card, 200)
    assert re.search(r"\d,\d\d \[\d,\d\d–\d,\d\d\]|\d,\d\d ±\d,\d\d", text)
    assert not re.search(r"\b\d+\.\d{1,2}\b", text), text  # no decimal point anywhere
    assert "95-%-Intervall" in legend(card, {})
    one = realistic_card()
    for row in one.rows:
        assert row.interval is not None
        row.interval = Interval(row.interval.mean, None, None, 1)
    text = shown(one, 120)
    for row in one.rows:
        assert row.mean is not None
        line = row_line(text, row)
        assert german.number(row.mean) in line and "±" not in line and "[" not in line


def test_the_tie_text_and_legend_wrap_at_words_on_a_terminal() -> None:
    card = realistic_card()
    buffer = io.StringIO()
    console = ui.console_for(terminal=True, file=buffer, width=80)
    console.print(render_scorecard(card))
    words = set(" ".join([legend(card, {}), tie_text(card)]).split())
    prose = [line for line in buffer.getvalue().splitlines() if line.startswith("Kategorien:")]
    assert prose, buffer.getvalue()
    start = buffer.getvalue().splitlines().index(prose[0])
    for line in buffer.getvalue().splitlines()[start : start + 4]:
        assert len(line) <= 80
        assert all(word in words for word in line.split()), line


def test_messages_wrap_at_words_on_a_terminal_and_stay_whole_in_a_pipe() -> None:
    message = (
        "Judge-Bilanz: 18 Aufrufe, 18 erfolgreich, Fehler nach Art: keine; unlesbare "
        "Antworten: 0; Latenz: Median 0,01 s, p95 0,01 s; Tokens: 6.224 ein, 434 aus."
    )
    terminal = io.StringIO()
    ui.console_for(terminal=True, file=terminal, width=80).print(message)
    lines = terminal.getvalue().splitlines()
    assert len(lines) == 2 and " ".join(line.rstrip() for line in lines) == message
    pipe = io.StringIO()
    ui.console_for(terminal=False, file=pipe).print(message + " " + message)
    assert pipe.getvalue() == message + " " + message + "\n"
