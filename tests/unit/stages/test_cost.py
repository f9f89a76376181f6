"""Cost before and during a run (design.md §19): the preview (--dry-run) and the hard cap."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FakeJudge, PackRun
from touchstone.errors import BudgetReached, CallError, InputError
from touchstone.gui.job_state import final_state
from touchstone.judge.config import JudgeConfig, JudgeEndpoint, PricePerMillion, load_judge_config
from touchstone.results import EvalResponse, Verdict
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.preview.preview import preview_judge, preview_run
from touchstone.stages.run.run import execute_run
from touchstone.store.jsonl import iter_jsonl
from touchstone.transport.budget import Budget, Price, parse_price
from touchstone.transport.engine import completed, run_blocking

# One currency unit per output token, input free: what a call cost is what it wrote.
PER_OUTPUT_TOKEN = Price(0.0, 1_000_000.0)


@pytest.fixture
def own_sim() -> Iterator[SimServer]:
    """A simulator of this test alone: its call count and peak are this test's."""
    with SimServer() as server:
        yield server


@pytest.fixture
def own_run(own_sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> PackRun:
    """Runs of the tiny pack against ``own_sim``, into ``tmp_path/"run"``."""
    return PackRun(own_sim.base_url, tiny_pack_path, tmp_path / "run")


def snapshot(path: Path) -> dict[str, str]:
    """Every file under ``path`` by its content hash (a dry run must leave it so)."""
    return {
        str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


def answers(run: Path) -> list[EvalResponse]:
    return list(iter_jsonl(run / "responses.jsonl", EvalResponse, lambda w: None))


def verdicts(run: Path) -> list[Verdict]:
    return list(iter_jsonl(run / "judgements.jsonl", Verdict, lambda w: None))


# -- the cap itself ----------------------------------------------------------------------


def test_the_cap_reserves_the_worst_case_of_calls_in_flight() -> None:
    budget = Budget(2.5, PER_OUTPUT_TOKEN, max_output_tokens=1)
    assert budget.admit("a", 0, in_flight=False)
    assert budget.admit("b", 0, in_flight=True)
    # Two worst cases (1 + 1) are held: a third would make 3 > 2.5, so it waits.
    assert not budget.admit("c", 0, in_flight=True)
    assert not budget.reached
    budget.settle("a", prompt_tokens=10, completion_tokens=0)  # came back cheap
    assert budget.admit("c", 0, in_flight=True)
    budget.settle("b", prompt_tokens=1, completion_tokens=1)
    budget.settle("c", prompt_tokens=1, completion_tokens=1)
    assert budget.spent == 2.0
    assert not budget.admit("d", 0, in_flight=False)  # 2 + 1 > 2.5, nothing can make room
    assert budget.reached
    assert budget.message().startswith("Budget erreicht: 2,00 von 2,50")


def test_calls_without_usage_count_at_their_worst_case_and_refusals_cost_nothing() -> None:
    budget = Budget(100.0, PER_OUTPUT_TOKEN, max_output_tokens=7)
    for key in "abc":
        assert budget.admit(key, 40, in_flight=False)
    budget.settle("a")  # the server reported nothing
    budget.settle("b", error=CallError("Zugang", kind="auth"))  # turned away: not billed
    budget.settle("c", error=CallError("Frist", kind="timeout"))  # may have generated
    assert budget.spent == 14.0
    assert budget.estimated == 2
    assert "2 Aufrufe ohne Verbrauchsangabe des Servers" in budget.summary_de()


def test_reported_usage_raises_the_input_estimate() -> None:
    budget = Budget(1e9, Price(1_000_000.0, 0.0), max_output_tokens=1)
    assert budget.worst_case(400) == 100  # characters / 4
    budget.admit("a", 400, in_flight=False)
    budget.settle("a", prompt_tokens=200, completion_tokens=1)  # the server counts double
    assert budget.worst_case(400) == 200


def test_the_engine_holds_a_call_the_cap_refuses_until_one_in_flight_ends() -> None:
    budget = Budget(3.0, PER_OUTPUT_TOKEN, max_output_tokens=1)
    active = peak = 0

    async def call(item: int, deadline_s: float | None) -> int:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.01)
        active -= 1
        return item

    async def run() -> list[int]:
        results = completed(
            range(10),
            call,
            concurrency=8,
            admit=budget.admission(lambda i: i, lambda i: 0),
        )
        ended = []
        async with contextlib.aclosing(results):
            async for done in results:
                # Each call wrote half a token: 10 calls would cost 5 > 3.
                budget.settle(done.item, prompt_tokens=0, completion_tokens=0.5)  # type: ignore[arg-type]
                ended.append(done.item)
        return ended

    ended = run_blocking(run())
    assert peak == 3  # three worst cases fit in 3,00, never a fourth in flight
    assert budget.spent <= 3.0
    assert len(ended) == 5  # 2,50 spent, the next worst case (1) does not fit
    assert budget.reached


def test_prices_are_read_as_in_and_out() -> None:
    assert parse_price("0.15,0.60") == Price(0.15, 0.60)
    for bad in ("0,15,0,60", "0,15;0,60;1", "a,b", "-1,2", "1,2,3", "inf,1"):
        with pytest.raises(InputError, match="--price-per-million"):
            parse_price(bad)


# -- run -----------------------------------------------------------------------------------


def test_a_run_stops_at_its_budget_under_concurrency_and_resumes(
    own_sim: SimServer, own_run: PackRun
) -> None:
    out = own_run.out
    options = {
        "repeats": 6,
        "max_tokens": 100,
        "concurrency": 4,
        # Half a unit per input token, one per output token.
        "price": Price(500_000.0, 1_000_000.0),
    }
    outcome = own_run("sim-gut@0.05", **options, budget=250.0)
    summary = outcome.summary
    assert summary.budget is not None and summary.budget.reached
    assert own_sim.generations["peak"] > 1  # the calls did overlap
    saved = answers(out)
    spent = sum((r.prompt_tokens or 0) / 2 + (r.completion_tokens or 0) for r in saved)
    # The cap holds on what the server reported, and it stopped only when the next worst case
    # (100 tokens out and a short prompt in) no longer fitted.
    assert spent == pytest.approx(summary.budget.spent)
    assert 140 < spent <= 250
    assert summary.over_budget == 36 - len(saved) == summary.left > 0
    # Resumable: the same call with room goes on where it stopped.
    again = own_run("sim-gut@0.05", **options, budget=10_000.0)
    assert again.summary.already_done == len(saved)
    assert len(answers(out)) == 36 and again.summary.complete


def test_run_budget_without_price_or_max_tokens_is_bad_input(
    tiny_pack_path: Path, tmp_path: Path
) -> None:
    with pytest.raises(InputError, match="--budget: ein Budget braucht einen Preis"):
        execute_run(
            pack_path=tiny_pack_path, models=["m"], out=tmp_path / "r", budget=5.0, max_tokens=9
        )
    with pytest.raises(InputError, match="braucht max_tokens"):
        execute_run(
            pack_path=tiny_pack_path,
            models=["m"],
            out=tmp_path / "r",
            budget=5.0,
            price=PER_OUTPUT_TOKEN,
        )
    assert not (tmp_path / "r").exists()


def test_a_done_job_shows_what_its_budget_left() -> None:
    event = {
        "event": "done",
        "budget": {"reached": False, "summary": "Budget: 1,23 von 5,00 verbraucht."},
    }
    assert final_state({}, [event])["message"] == "Budget: 1,23 von 5,00 verbraucht"


# -- judge ---------------------------------------------------------------------------------


def sim_judge_config(sim: SimServer, **keys: object) -> JudgeConfig:
    return JudgeConfig(
        endpoint=JudgeEndpoint(base_url=sim.base_url),
        model="sim-judge@0.05",
        **keys,  # type: ignore[arg-type]
    )


def test_a_judge_stops_at_its_budget_under_concurrency_and_resumes(
    own_sim: SimServer, own_run: PackRun
) -> None:
    out = own_run.out
    own_run("sim-gut", "sim-schwach", repeats=3)
    price = PricePerMillion(input=0.0, output=1_000_000.0)
    config = sim_judge_config(own_sim, max_tokens=60, price_per_million=price, concurrency=4)
    config.budget = 200.0
    with pytest.raises(BudgetReached) as stop:
        execute_judge(out, config=config)
    assert own_sim.generations["peak"] > 1  # the run asked one at a time: the judge overlapped
    saved = verdicts(out)
    spent = sum(v.judge_completion_tokens or 0 for v in saved)
    assert 0 < len(saved) < 36
    assert 140 < spent <= 200  # the next worst case (60) no longer fitted
    assert str(stop.value).startswith("Budget erreicht: ")
    assert "ein erneutes `touchstone judge` bewertet die" in str(stop.value)
    config.budget = 100_000.0
    outcome = execute_judge(out, config=config)
    assert len(verdicts(out)) == 36 and outcome.cells_left == 0
    assert outcome.budget is not None and not outcome.budget.reached


def fake_judge_config(**keys: object) -> JudgeConfig:
    """The fake judge's config: 10 tokens a call at most, one unit per output token."""
    return JudgeConfig(
        endpoint=JudgeEndpoint(base_url="http://127.0.0.1:9/v1"),
        model="fake-judge",
        max_tokens=10,
        price_per_million=PricePerMillion(input=0.0, output=1_000_000.0),
        **keys,  # type: ignore[arg-type]
    )


def judged_to_budget(run: Path, budget: float, concurrency: int) -> tuple[FakeJudge, str]:
    """The fake judge on ``run`` until ``budget`` stops it: the judge and the stop's words."""
    judge = FakeJudge()
    config = fake_judge_config(budget=budget)
    with pytest.raises(BudgetReached) as stop:
        execute_judge(run, config=config, backend=judge, concurrency=concurrency)
    return judge, str(stop.value)


def test_without_usage_reports_the_judge_cap_counts_estimates_and_says_so(
    answered_run: Path,
) -> None:
    judge, message = judged_to_budget(answered_run, 35.0, concurrency=2)
    # A fake reports no usage: each call counts its worst case, 10; the fourth does not fit.
    assert len(judge.history) == 3 == len(verdicts(answered_run))
    assert "3 Aufrufe ohne Verbrauchsangabe des Servers" in message


def test_a_re_judge_stopped_by_its_budget_says_which_verdicts_stand(answered_run: Path) -> None:
    config = fake_judge_config()
    execute_judge(answered_run, config=config, backend=FakeJudge())
    config.budget = 35.0
    with pytest.raises(BudgetReached) as stop:
        execute_judge(answered_run, config=config, backend=FakeJudge(), rejudge="all")
    message = str(stop.value)
    assert "9 Zellen nicht neu bewertet: die bisherigen bleiben." in message
    assert "fehlgeschlagene oder unlesbare Neubewertung" not in message  # not what happened
    assert len(verdicts(answered_run)) == 12


def test_a_budget_reached_before_the_holistic_pass_keeps_every_verdict(
    answered_run: Path,
) -> None:
    # The 12 answers' calls (10 each) fit, a holistic call no more.
    judge, message = judged_to_budget(answered_run, 125.0, concurrency=3)
    assert "Jede Zelle ist bewertet und gespeichert" in message
    assert len(judge.history) == 12 == len(verdicts(answered_run))
    reports = json.loads((answered_run / "reports.json").read_text(encoding="utf-8"))
    assert all("das Budget war erreicht" in r["dim_rationales"]["_error"] for r in reports)
    assert (answered_run / "scorecard.json").is_file()
    # The next judge run asks for the holistic reports only.
    execute_judge(answered_run, config=fake_judge_config(budget=1000.0), backend=judge)
    assert len(judge.history) == 12 + 4


def test_a_judge_budget_without_price_or_max_tokens_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "judge.yaml"
    path.write_text("endpoint: {base_url: 'http://x/v1'}\nmodel: j\nbudget: 5\n", "utf-8")
    with pytest.raises(InputError, match="„budget“: ein Budget braucht einen Preis"):
        load_judge_config(path)
    path.write_text(
        "endpoint: {base_url: 'http://x/v1'}\nmodel: j\nbudget: 5\n"
        "price_per_million: {input: 1, output: 2}\n",
        "utf-8",
    )
    with pytest.raises(InputError, match="„budget“: ein Budget braucht max_tokens"):
        load_judge_config(path)


# -- the preview -------------------------------------------------------------------------


def test_a_run_preview_calls_nothing_and_creates_nothing(
    own_sim: SimServer, own_run: PackRun
) -> None:
    asked = own_run.options("sim-gut", "sim-schwach", max_tokens=100, concurrency=4)
    preview = preview_run(**asked, price=Price(1.0, 2.0))
    assert not own_run.out.exists()
    assert own_sim.calls == {}
    lines = preview.lines()
    assert "Aufrufe: 12" in lines
    assert preview.input_tokens > 0
    assert preview.output_tokens == 1200 and preview.output_bound
    assert any(line.startswith("Ausgabe: höchstens 1.200 Tokens") for line in lines)
    assert any(line.startswith("Dauer: unbekannt") for line in lines)


def test_a_run_preview_uses_what_earlier_answers_measured(
    own_sim: SimServer, own_run: PackRun
) -> None:
    out = own_run.out
    own_run("sim-gut@0.05")
    before, calls = snapshot(out), own_sim.calls
    # Two more repeats: 12 cells.
    asked = own_run.options("sim-gut@0.05", repeats=3, concurrency=2, extend=True)
    preview = preview_run(**asked)
    assert snapshot(out) == before and own_sim.calls == calls
    assert preview.calls == 12
    mean = sum(r.completion_tokens or 0 for r in answers(out)) / 6
    assert preview.output_tokens == round(mean * 12)
    assert preview.seconds is not None and 0.05 * 12 / 2 <= preview.seconds < 12
    assert any("gemessene Latenz" in line for line in preview.lines())


def test_a_judge_preview_changes_nothing_and_counts_the_calls_the_judge_makes(
    own_sim: SimServer, own_run: PackRun
) -> None:
    out = own_run.out
    own_run("sim-gut", "sim-schwach")
    config = sim_judge_config(own_sim, max_tokens=200)
    before, calls = snapshot(out), own_sim.calls
    preview = preview_judge(out, config=config)
    assert snapshot(out) == before and own_sim.calls == calls
    outcome = execute_judge(out, config=config, use_cache=False)
    assert preview.calls == outcome.health.calls == 12 + 4  # answers, then 4 holistic calls
    assert preview.output_bound and preview.output_tokens == 16 * 200
    settled = preview_judge(out, config=config)
    assert (
        settled.calls == 0 and "Aufrufe: 0 – nichts zu tun: alle Zellen bewertet" in settled.lines()
    )
    # Measured now: the next preview (a full re-judge) takes the mean of the judge's replies.
    again = preview_judge(out, config=config, rejudge="all")
    measured = [v.judge_completion_tokens or 0 for v in verdicts(out)]
    assert again.output_tokens == round(sum(measured) / len(measured) * again.calls)
    assert any(line.startswith("Dauer: unbekannt") for line in again.lines())
