"""The judge's fitness card as the terminal shows it (rich): criteria, verdict, misses.

The judge's name, its rationales and a stop's message come from config and server: each is
``plain`` text.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from touchstone import german
from touchstone.plain import plain
from touchstone.quality.fitness import UNREACHED, FitnessCard, schema_line

# Probes that missed their expectation, shown under the card (the rest are in --events).
MISSES_SHOWN = 8


def _mark(passed: bool | None) -> Text:
    if passed is None:
        return Text("–", style="dim")
    return Text("✓", style="bold green") if passed else Text("✗", style="bold red")


def render_fitness_card(card: FitnessCard) -> Group:
    probes = german.counted(len(card.results), "Probe", "Proben")
    title = f"Judge-Check: {card.judge_model} (Paket {card.pack_id}, {probes})"
    table = Table(title=plain(title), title_justify="left")
    table.add_column("", no_wrap=True)
    # Narrow terminals wrap both at words; a word longer than the column folds, never cut.
    table.add_column("Kriterium", overflow="fold")
    table.add_column("Ergebnis", overflow="fold")
    for criterion in card.criteria:
        table.add_row(_mark(criterion.passed), plain(criterion.name), plain(criterion.figure))
    parts: list[Any] = [table]
    misses = [r for r in card.results if not r.met and r.probe.kind != "repeat"]
    if misses and not card.aborted and not card.health.failures.keys() & UNREACHED:
        parts.append(Text("Verfehlte Proben:", style="bold"))
        for result in misses[:MISSES_SHOWN]:
            verdict = result.verdict
            if verdict is None:
                said = "kein Urteil"
            elif verdict.unscored:
                said = "unlesbar"
            else:
                said = f"Wertung {verdict.score}" + (", Warnsignal" if verdict.red_flag else "")
            why = " ".join(verdict.rationale.split())[:140] if verdict is not None else ""
            parts.append(
                plain(f"  • {result.probe.label()}: {said}" + (f" – {why}" if why else ""))
            )
        if len(misses) > MISSES_SHOWN:
            parts.append(Text(f"  … und {len(misses) - MISSES_SHOWN} weitere", style="dim"))
    parts += [plain(note, style="yellow") for note in card.notes]
    parts.append(plain(schema_line(card.health)))
    if card.thinking:
        parts.append(plain(f"{card.thinking}."))
    parts.append(plain(card.health.summary_de(resumable=False)))
    if card.suitable:
        parts.append(Text.assemble("Urteil: ", plain(card.verdict_de(), style="bold green")))
    elif card.unassessable:
        parts.append(Text.assemble("Urteil: ", ("nicht beurteilbar", "bold red")))
    else:
        # The reasons follow on stderr ("Judge-Check: ungeeignet: …"), where the CLI says why
        # it exits 1; the ✗ rows above are the same reasons.
        failed = sum(1 for c in card.criteria if c.passed is False)
        why = (
            "vom Judge-Schutz gestoppt"
            if card.aborted
            else f"{failed} {'Kriterium' if failed == 1 else 'Kriterien'} verfehlt"
        )
        parts.append(Text.assemble("Urteil: ", (f"ungeeignet ({why})", "bold red")))
    return Group(*parts)
