"""The judge's biases measured on the run itself (design.md §17), as people read them: the rows
of the judge's own family, and how the score moves with the answer's length. One text for
terminal, report and GUI (the templates have ``bias_lines`` as a global)."""

from __future__ import annotations

from touchstone.scorecard.build import Scorecard

SAME_FAMILY = "gleiche Familie wie der Judge"
# Beside a row's model in the terminal table; the note under the table says what it means.
FAMILY_MARK = "†"


def family_note(card: Scorecard, *, mark: bool = True) -> str:
    """The rows whose model shares the judge's family, and why that matters; "" for none.
    ``mark``: led by the mark the terminal puts beside those rows (pages name it in the row)."""
    rows = [row for row in card.rows if row.judge_family is not None]
    if not rows:
        return ""
    named = ", ".join(f"{row.model} · {row.variant} ({row.judge_family})" for row in rows)
    lead = f"{FAMILY_MARK} " if mark else ""
    return (
        f"{lead}{SAME_FAMILY[0].upper()}{SAME_FAMILY[1:]}: {named}. Judges bewerten "
        "Antworten ihrer eigenen Modellfamilie oft besser: diese Zeilen mit Vorsicht lesen, "
        "besser mit einem Judge einer anderen Familie gegenprüfen."
    )


# With scored answers but no length figure, the lengths varied between models and prompts only
# (a simulator, say): said, so that a missing line is not read as "no taste for length".
NO_LENGTH_FIGURE = (
    "Länge: nicht messbar: die Antwortlängen unterscheiden sich nur zwischen Modellen und "
    "Prompts, nicht innerhalb davon."
)


def bias_lines(card: Scorecard, *, mark: bool = True) -> list[str]:
    """The family note and the length effect's lines (none when the run shows neither)."""
    lines = [note] if (note := family_note(card, mark=mark)) else []
    if card.length_effect is not None:
        lines += card.length_effect.lines_de()
    elif any(row.scored > row.failed.total() for row in card.rows):
        lines.append(NO_LENGTH_FIGURE)
    return lines
