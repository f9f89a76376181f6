"""``judge-check`` with a jury (design.md §14, §18): every member is checked as a single judge
would be (one fitness card each), and the jury is "geeignet" when enough fit members remain
to reach its quorum."""

from __future__ import annotations

from dataclasses import dataclass

from touchstone.events import EventSink, emit
from touchstone.german import counted
from touchstone.jury.config import JuryConfig
from touchstone.pack import Pack
from touchstone.quality.fitness import FitnessCard
from touchstone.stages.judge_check import execute_judge_check


@dataclass
class JuryFitness:
    cards: list[FitnessCard]
    quorum: int

    @property
    def fit(self) -> int:
        return sum(card.suitable for card in self.cards)

    @property
    def suitable(self) -> bool:
        return self.fit >= self.quorum

    def verdict_de(self) -> str:
        """``Jury geeignet: 2 von 3 Judges geeignet (Quorum 2)`` or ``Jury ungeeignet: …``."""
        unfit = [card.judge_model for card in self.cards if not card.suitable]
        said = (
            f"{self.fit} von {counted(len(self.cards), 'Judge', 'Judges')} geeignet "
            f"(Quorum {self.quorum})"
        )
        if unfit:
            said += f"; ungeeignet: {', '.join(unfit)}"
        return f"Jury {'geeignet' if self.suitable else 'ungeeignet'}: {said}."


def execute_jury_check(
    pack: Pack, jury: JuryConfig, *, on_event: EventSink | None = None
) -> JuryFitness:
    """Probe every member of ``jury`` in turn (each under its own guard)."""
    cards = [execute_judge_check(pack, config=member, on_event=on_event) for member in jury.judges]
    fitness = JuryFitness(cards, jury.required)
    # The last word of the job: every member's card and the jury's verdict (the GUI shows
    # them all, not only the card of the member checked last).
    emit(
        on_event,
        "done",
        stage="judge-check",
        suitable=fitness.suitable,
        message=fitness.verdict_de(),
        cards=[card.as_dict() for card in cards],
        jury_verdict=fitness.verdict_de(),
    )
    return fitness
