"""judge-check with a jury (design.md §14, §18): a card per member, and the jury's verdict."""

from tests.conftest import REPO
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.jury.config import JuryConfig
from touchstone.pack import load_pack
from touchstone.sim import SimServer
from touchstone.stages.jury.member_check import execute_jury_check

BUERO = REPO / "packs" / "buero.yaml"


def member(sim: SimServer, model: str, **settings: object) -> JudgeConfig:
    return JudgeConfig(JudgeEndpoint(sim.base_url), model, **settings)  # type: ignore[arg-type]


def test_jury_is_fit_when_enough_fit_members_reach_the_quorum(sim: SimServer) -> None:
    pack = load_pack(BUERO)
    fit = execute_jury_check(
        pack,
        JuryConfig(
            [member(sim, "sim-judge"), member(sim, "sim-strict"), member(sim, "sim-gullible")],
            quorum=2,
        ),
    )
    assert [c.suitable for c in fit.cards] == [True, True, False]
    assert fit.suitable
    assert fit.verdict_de() == (
        "Jury geeignet: 2 von 3 Judges geeignet (Quorum 2); ungeeignet: sim-gullible."
    )
    unfit = execute_jury_check(
        pack,
        JuryConfig(
            [
                member(sim, "sim-judge"),
                member(sim, "sim-gullible"),
                member(sim, "sim-think-endless", call_timeout_s=0.3, max_consecutive_failures=2),
            ],
        ),
    )
    assert [c.suitable for c in unfit.cards] == [True, False, False]
    assert not unfit.suitable and unfit.verdict_de().startswith("Jury ungeeignet: 1 von 3")


def test_gui_job_shows_every_members_card_and_the_jurys_verdict(sim: SimServer) -> None:
    from touchstone.gui.job_state import job_progress

    events: list[dict[str, object]] = []
    execute_jury_check(
        load_pack(BUERO),
        JuryConfig([member(sim, "sim-judge"), member(sim, "sim-gullible")], quorum=1),
        on_event=lambda kind, data: events.append({"event": kind, **data}),
    )
    progress = job_progress(events)
    assert [c["judge_model"] for c in progress["cards"]] == ["sim-judge", "sim-gullible"]
    assert progress["jury_verdict"].startswith("Jury geeignet: 1 von 2 Judges geeignet")
