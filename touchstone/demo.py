"""``touchstone demo``: the whole pipeline on the built-in simulator, guard included.

1. The simulator starts on a free loopback port (nothing leaves this machine).
2. ``buero`` is answered by three simulated models of clearly different quality.
3. ``judge-check`` rejects a gullible simulated judge and passes the good one.
4. A simulated runaway "thinking" judge is tried first: the guard stops it within seconds.
5. The good simulated judge finishes every cell.
6. A jury judges the same run: the good judge, a harsher one and the runaway. The runaway
   member is dropped by its own guard within seconds; the jury completes with quorum 2 and
   its cells' verdicts are the median of the two that remain. Scorecard and ``report.html``
   follow.
7. A simulated person rates a blind sample (``sim/person.py``: stricter with ``sim-gut``, so
   the judge is in effect lenient to it): the agreement card says "Judge weicht ab".

What the narration says of a result (which judge is stricter, to which model the judge is
milder, how many judges scored each cell) is read from the card it refers to
(``jury_finding``, ``spot_finding``), never fixed text: a simulator change cannot make the
narration contradict the card printed beside it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from touchstone import german
from touchstone.bundled import bundled_pack
from touchstone.errors import JudgeAborted
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.jury.config import JuryConfig
from touchstone.jury.summary import JurySummary
from touchstone.pack import load_pack
from touchstone.plain import plain
from touchstone.scorecard.fitness import render_fitness_card
from touchstone.scorecard.terminal import render_run_scorecard
from touchstone.sim import SimServer
from touchstone.sim.person import STRICT_WITH, STRICTER_BY, simulated_rating
from touchstone.spot.agreement import HumanAgreement
from touchstone.spot.card import render_human_card
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.judge_check import execute_judge_check
from touchstone.stages.run.manifest import default_run_name
from touchstone.stages.run.run import execute_run
from touchstone.stages.spot_check import SKIP, Decision, Rated, SpotCell, rate_cells, spot_cells
from touchstone.stages.view import RunView, load_run, write_report
from touchstone.started import command as cli_command

DEMO_MODELS = ("sim-gut", "sim-mittel", "sim-schwach")
RUNAWAY_JUDGE = "sim-think-endless"
GOOD_JUDGE = "sim-judge"
GULLIBLE_JUDGE = "sim-gullible"
SIM_RATER = "sim-person"
SPOT_SAMPLE = 30
HARSH_JUDGE = "sim-strict"
ProgressFactory = Callable[[str], AbstractContextManager[Callable[[str, dict[str, Any]], None]]]


def run_demo(runs_dir: Path, *, out: Console, err: Console, progress: ProgressFactory) -> Path:
    """Run the demo into a new directory under ``runs_dir``; returns the report's path."""
    pack_path = bundled_pack("buero")
    view_pack = load_pack(pack_path)
    with SimServer() as server:
        out.print(
            plain(
                f"touchstone-Demo mit dem eingebauten Simulator auf {server.base_url} "
                "(simulierte Modelle, keine echten LLMs, nichts verlässt diesen Rechner)."
            )
        )
        target = runs_dir / default_run_name("demo-buero")
        step(out, "1. Run:", f"{', '.join(DEMO_MODELS)} beantworten {pack_path.name}")
        with progress("Antworten") as on_event:
            execute_run(
                pack_path=pack_path,
                models=DEMO_MODELS,
                out=target,
                base_url=server.base_url,
                api_key="",
                call_timeout_s=30,
                on_event=on_event,
            )

        step(
            out,
            "2. Judge-Check:",
            "taugt ein Judge, bevor ein Run mit ihm bezahlt wird? "
            f"Erst ein leichtgläubiger ({GULLIBLE_JUDGE}), dann der gute ({GOOD_JUDGE}).",
        )
        for judge in (GULLIBLE_JUDGE, GOOD_JUDGE):
            config = JudgeConfig(
                endpoint=JudgeEndpoint(base_url=server.base_url), model=judge, call_timeout_s=30
            )
            with progress("Proben") as on_event:
                fitness = execute_judge_check(view_pack, config=config, on_event=on_event)
            out.print()
            out.print(render_fitness_card(fitness))
            if fitness.suitable != (judge == GOOD_JUDGE):
                raise RuntimeError(f"judge-check misjudged the simulated judge {judge}")

        step(
            out,
            "3. Judge-Schutz:",
            f"ein „denkendes“ Judge-Modell ({RUNAWAY_JUDGE}), das nie fertig wird – Frist 1 s "
            "je Aufruf, Abbruch nach 3 Fehlern in Folge.",
        )
        runaway = JudgeConfig(
            endpoint=JudgeEndpoint(base_url=server.base_url),
            model=RUNAWAY_JUDGE,
            call_timeout_s=1,
            max_consecutive_failures=3,
        )
        started = time.monotonic()
        try:
            with progress("Bewertungen") as on_event:
                execute_judge(target, config=runaway, on_event=on_event)
        except JudgeAborted as exc:
            err.print(Text.assemble(("Judge abgebrochen:", "bold red"), " ", plain(str(exc))))
            out.print(guard_finding(load_run(target), time.monotonic() - started))
        else:
            raise RuntimeError("the simulated runaway judge was expected to trip the guard")

        step(out, "4. Judge:", f"derselbe Run mit dem guten Judge ({GOOD_JUDGE}).")
        good = JudgeConfig(
            endpoint=JudgeEndpoint(base_url=server.base_url), model=GOOD_JUDGE, call_timeout_s=30
        )
        with progress("Bewertungen") as on_event:
            execute_judge(target, config=good, on_event=on_event)

        started = time.monotonic()
        jury_step(out, target, server, progress)
        elapsed = time.monotonic() - started

    view = load_run(target)
    card = view.scorecard()
    if card.jury is None:
        raise RuntimeError("the demo's run was expected to be judged by a jury")
    out.print(jury_finding(card.jury, len(view.responses), elapsed))
    out.print()
    out.print(render_run_scorecard(view.pack, card))
    step(
        out,
        "6. Stichprobe:",
        f"eine simulierte Person ({SIM_RATER}) bewertet {SPOT_SAMPLE} Antworten blind selbst "
        f"(`{cli_command('rate')}`). Sie ist so simuliert, dass sie {STRICT_WITH} "
        f"{german.counted(STRICTER_BY, 'Punkt', 'Punkte')} strenger bewertet als sonst: "
        "findet die Karte das?",
    )
    spot_check(view)
    human = view.human()
    if human is None or human.verdict != "weicht ab":
        raise RuntimeError("the simulated spot check was expected to show a deviating judge")
    out.print(render_human_card(human))
    out.print(plain(spot_finding(human)))
    report_path = write_report(view, card)
    step(out, "7. Bericht:", str(report_path))
    return report_path


def spot_check(view: RunView) -> None:
    """The simulated person rates the run's sample as ``touchstone rate`` would store it."""
    scale = view.pack.scale
    cells = spot_cells(
        view.pack, view.responses, view.verdicts, view.ratings(), rater=SIM_RATER, n=SPOT_SAMPLE
    )

    def decide(cell: SpotCell) -> Decision:
        rated = simulated_rating(cell.answer, scale.min, scale.max)
        return SKIP if rated is None else Rated(score=rated[0], red_flag=rated[1])

    rate_cells(view.run_dir, view.pack, cells, rater=SIM_RATER, decide=decide)


def jury_step(out: Console, target: Path, server: SimServer, progress: ProgressFactory) -> None:
    """Step 5: a jury of three, one of them the runaway, judges the same run (quorum 2)."""
    step(
        out,
        "5. Jury:",
        f"drei Judges bewerten parallel, jeder mit eigenem Schutz: {GOOD_JUDGE}, "
        f"{HARSH_JUDGE} (als strenger simuliert) und {RUNAWAY_JUDGE} (Frist 1 s, Aus nach "
        f"3 Fehlern in Folge). Quorum 2, Median. {GOOD_JUDGE} kennt seine Bewertungen "
        "schon (Cache).",
    )
    endpoint = JudgeEndpoint(base_url=server.base_url)
    jury = JuryConfig(
        [
            JudgeConfig(endpoint=endpoint, model=GOOD_JUDGE, call_timeout_s=30),
            JudgeConfig(endpoint=endpoint, model=HARSH_JUDGE, call_timeout_s=30),
            JudgeConfig(
                endpoint=endpoint,
                model=RUNAWAY_JUDGE,
                call_timeout_s=1,
                max_consecutive_failures=3,
            ),
        ],
        quorum=2,
    )
    with progress("Jury") as on_event:
        outcome = execute_judge(target, config=jury, on_event=on_event)
    dropped = [e["model"] for e in outcome.jury_events if e["dropped"]]
    if dropped != [RUNAWAY_JUDGE]:
        raise RuntimeError(f"the jury was expected to drop {RUNAWAY_JUDGE}, not {dropped}")
    for line in outcome.jury_lines:
        out.print(plain(line, style="yellow" if line.startswith("⚠") else ""))


def guard_finding(view: RunView, elapsed_s: float) -> str:
    """What the stopped judge left behind, read from the run: its verdicts, the open cells."""
    kept = len(view.verdicts)
    left = len(view.responses) - kept
    return (
        f"→ sauber gestoppt nach {german.seconds(elapsed_s)}; "
        + (
            "keine Bewertung gespeichert"
            if not kept
            else f"{german.counted(kept, 'Bewertung', 'Bewertungen')} gespeichert"
        )
        + f", der nächste Judge-Durchgang bewertet die {german.count(left)} offenen Zellen."
    )


def jury_finding(jury: JurySummary, cells: int, elapsed_s: float) -> str:
    """What the jury did to the run's ``cells``, read from its summary: who scored how much,
    who is stricter."""
    active = [m for m in jury.members if m.dropped is None]
    if all(m.scored == cells for m in active):
        text = (
            f"→ fertig nach {german.seconds(elapsed_s)}: jede der {german.count(cells)} "
            f"Zellen mit {len(active)} von {len(jury.members)} Judges bewertet "
            f"(Quorum {jury.quorum}"
        )
    else:
        each = ", ".join(f"{m.model} {german.count(m.scored)}" for m in active)
        text = (
            f"→ fertig nach {german.seconds(elapsed_s)}: von {german.count(cells)} Zellen "
            f"bewertet: {each} (Quorum {jury.quorum}"
        )
    text += f", {jury.no_quorum} ohne Quorum); " if jury.no_quorum else "); "
    text += f"die Scorecard zeigt ihren {AGGREGATE_WORDS.get(jury.aggregate, jury.aggregate)}."
    means = sorted((m.mean, m.model) for m in active if m.mean is not None)
    if len(means) >= 2 and means[0][0] < means[-1][0]:
        (low, strict), (high, mild) = means[0], means[-1]
        text += (
            f" Strenger ist {strict}: im Mittel {german.number(low)} gegen "
            f"{german.number(high)} bei {mild}."
        )
    return text


AGGREGATE_WORDS = {"median": "Median", "mean": "Mittelwert", "majority": "Mehrheitswert"}


def spot_finding(human: HumanAgreement) -> str:
    """What the agreement card found per model, read from its rows: where the judge is
    milder or stricter than the person for that row alone (its interval clear of 0)."""
    milder = [german.row(r.model, r.variant) for r in human.rows if r.ci and r.ci[0] > 0]
    stricter = [german.row(r.model, r.variant) for r in human.rows if r.ci and r.ci[1] < 0]
    found = []
    if milder:
        found.append(f"bewertet {', '.join(milder)} milder als die Person")
    if stricter:
        found.append(f"bewertet {', '.join(stricter)} strenger als die Person")
    if not found:
        found.append("weicht bei keinem Modell für sich allein sicher ab")
    hit = any(r.model == STRICT_WITH and r.ci and r.ci[0] > 0 for r in human.rows)
    return (
        f"→ Laut Karte: der Judge (seit Schritt 5 der Median der Jury) {' und '.join(found)} "
        "(95-%-Intervall der Zeile ganz über bzw. unter 0). Die simulierte Strenge mit "
        f"{STRICT_WITH} ist damit {'gefunden' if hit else 'nicht sicher gefunden'}."
    )


def step(out: Console, title: str, text: str) -> None:
    """A step's heading: its title in bold, then what it does (a path may be in it)."""
    out.print()
    out.print(Text.assemble((title, "bold"), " ", plain(text)))
