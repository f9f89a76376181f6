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
from touchstone.pack import load_pack
from touchstone.plain import plain
from touchstone.scorecard.fitness import render_fitness_card
from touchstone.scorecard.terminal import render_run_scorecard
from touchstone.sim import SimServer
from touchstone.sim.person import STRICT_WITH, simulated_rating
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
            out.print(
                f"→ sauber gestoppt nach {german.seconds(time.monotonic() - started)}; "
                "keine Fehlerzelle gespeichert, der nächste Judge-Lauf bewertet alles."
            )
        else:
            raise RuntimeError("the simulated runaway judge was expected to trip the guard")

        step(out, "4. Judge:", f"derselbe Run mit dem guten Judge ({GOOD_JUDGE}).")
        good = JudgeConfig(
            endpoint=JudgeEndpoint(base_url=server.base_url), model=GOOD_JUDGE, call_timeout_s=30
        )
        with progress("Bewertungen") as on_event:
            execute_judge(target, config=good, on_event=on_event)

        jury_step(out, target, server, progress)

    view = load_run(target)
    card = view.scorecard()
    out.print()
    out.print(render_run_scorecard(view.pack, card))
    step(
        out,
        "6. Stichprobe:",
        f"eine simulierte Person ({SIM_RATER}) bewertet {SPOT_SAMPLE} Antworten blind selbst "
        f"(`{cli_command('rate')}`); mit {STRICT_WITH} ist sie strenger als der Judge.",
    )
    spot_check(view)
    human = view.human()
    if human is None or human.verdict != "weicht ab":
        raise RuntimeError("the simulated spot check was expected to show a deviating judge")
    out.print(render_human_card(human))
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
        f"drei Judges bewerten parallel, jeder mit eigenem Schutz: {GOOD_JUDGE}, der "
        f"strengere {HARSH_JUDGE} und {RUNAWAY_JUDGE} (Frist 1 s, Aus nach 3 Fehlern in "
        f"Folge). Quorum 2, Median. {GOOD_JUDGE} kennt seine Bewertungen schon (Cache).",
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
    started = time.monotonic()
    with progress("Jury") as on_event:
        outcome = execute_judge(target, config=jury, on_event=on_event)
    dropped = [e["model"] for e in outcome.jury_events if e["dropped"]]
    if dropped != [RUNAWAY_JUDGE]:
        raise RuntimeError(f"the jury was expected to drop {RUNAWAY_JUDGE}, not {dropped}")
    for line in outcome.jury_lines:
        out.print(plain(line, style="yellow" if line.startswith("⚠") else ""))
    out.print(
        f"→ fertig nach {german.number(time.monotonic() - started, 1)} s: jede Zelle mit "
        f"2 von 3 Judges bewertet (Quorum 2); die Scorecard zeigt ihren Median."
    )


def step(out: Console, title: str, text: str) -> None:
    """A step's heading: its title in bold, then what it does (a path may be in it)."""
    out.print()
    out.print(Text.assemble((title, "bold"), " ", plain(text)))
