"""``pack check`` as the terminal shows it: findings, probe counts, the power table, the
verdict; German, readable from 80 columns (prose wraps at words, the table has 3 columns)."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from touchstone import german
from touchstone.packs.check import PackCheck
from touchstone.packs.power import ASSUMED_SD_SHARE, about
from touchstone.packs.power_table import Power, share_note, summary_sentence
from touchstone.plain import plain
from touchstone.quality.probes import PER_KIND
from touchstone.stats.power import POWER

_MARKS = {"error": ("✗ Fehler", "bold red"), "warning": ("⚠ Warnung", "yellow")}


def render_pack_check(result: PackCheck) -> Group:
    pack = result.pack
    scale = pack.scale
    parts: list[Any] = [
        plain(f"Paket {pack.id}: {pack.title}", style="bold"),
        Text(
            f"{german.counted(pack.prompt_count, 'Prompt', 'Prompts')} in "
            f"{german.counted(len(pack.categories), 'Kategorie', 'Kategorien')} · Skala "
            f"{scale.min}{german.DASH}{scale.max} · "
            f"{german.counted(len(pack.variants), 'Variante', 'Varianten')}"
        ),
        Text(""),
        Text("Prüfung", style="bold"),
    ]
    if result.findings:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column()
        for finding in result.findings:
            label, style = _MARKS[finding.severity]
            grid.add_row(Text(label, style=style), plain(finding.text))
        parts.append(grid)
    else:
        parts.append(Text("✓ keine Befunde", style="green"))
    parts.append(
        Text(
            f"Proben für judge-check: {german.counted(result.references, 'Prompt', 'Prompts')} "
            f"mit Referenzantwort, {german.count(result.counterexamples)} mit Gegenbeispiel "
            f"(volle Prüfung ab je {PER_KIND})."
        )
    )
    parts += [Text(""), *render_power(result.power), Text("")]
    parts.append(_verdict(result))
    return Group(*parts)


def render_power(result: Power) -> list[Any]:
    """The power section: a table for 1, 3 and 5 repeats, the sentence, where the spread
    comes from."""
    goal = german.number(result.target, 1)
    table = Table(
        title=f"Trennschärfe ({german.percent(POWER)} Power, 95-%-Niveau)",
        title_justify="left",
        title_style="bold",
    )
    table.add_column("Wiederholungen", justify="right")
    table.add_column("kleinster trennbarer\nUnterschied", justify="right")
    table.add_column(f"Prompts für\n{goal} Punkte", justify="right")
    for row in result.rows:
        needed = german.DASH if row.needed is None else f"etwa {german.count(about(row.needed))}"
        table.add_row(str(row.repeats), german.number(row.difference), needed)
    parts = [table, Text(summary_sentence(result)), plain(spread_text(result), style="dim")]
    note = share_note(result)
    if note:
        parts.append(plain(note, style="dim"))
    return parts


def spread_text(result: Power) -> str:
    """Which spread the figures assume, in words."""
    spread = result.spread
    sd = german.number(math.sqrt(spread.variance(1)))
    share = german.percent(spread.repeat_share)
    if not spread.measured:
        return (
            f"Angenommen (ohne --run): eine typische Streuung; die Standardabweichung des "
            f"Unterschieds zweier Modelle je Prompt ist {sd} Punkte "
            f"({german.percent(ASSUMED_SD_SHARE)} der Skala), {share} ihrer Varianz kommen aus "
            "Wiederholungen (Antwort und Urteil schwanken), der Rest aus den Prompts. Mit "
            "--run RUN gilt die Streuung, die ein Run gemessen hat."
        )
    how = "gemessen" if spread.share_measured else "angenommen, der Run hat keine Wiederholungen"
    return (
        f"Gemessen im Run {result.run}: Standardabweichung des Unterschieds zweier Zeilen je "
        f"Prompt {sd} Punkte bei 1 Wiederholung, davon {share} der Varianz aus Wiederholungen "
        f"({how}); aus {german.counted(spread.pairs, 'Paar', 'Paaren')} benachbarter Zeilen "
        f"über bis zu {german.counted(spread.prompts, 'Prompt', 'Prompts')}, "
        f"{_repeats(spread.repeats)} je Prompt und Zeile."
    )


def _repeats(value: float) -> str:
    """``1 Wiederholung``, ``3 Wiederholungen``, ``2,6 Wiederholungen`` (a mean)."""
    if abs(value - round(value)) < 0.05:
        return german.counted(round(value), "Wiederholung", "Wiederholungen")
    return f"{german.number(value, 1)} Wiederholungen"


def _verdict(result: PackCheck) -> Text:
    warnings = german.counted(result.warnings, "Warnung", "Warnungen")
    if result.usable:
        return Text.assemble(("Ergebnis: brauchbar", "bold green"), f" ({warnings})")
    errors = german.counted(result.errors, "Fehler", "Fehler")
    return Text.assemble(("Ergebnis: nicht brauchbar", "bold red"), f" ({errors}, {warnings})")
