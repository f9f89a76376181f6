"""Judge hardening over real HTTP: policy by error kind, concurrency, lock, kill -9, provenance.

Here the tests through touchstone's CLI in a subprocess; the in-process ones are in
``tests/unit/judge/test_hardening.py``."""

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_cli import assert_clean_failure, judge_config
from tests.conftest import OverlapCounting, coarse, make_response, run_cli, stage_seconds
from touchstone.errors import JudgeCallError
from touchstone.judge.passes import judge_responses
from touchstone.jury.verdicts import run_cells
from touchstone.pack import Pack
from touchstone.sim import SimServer
from touchstone.store import JUDGEMENTS, RunDir
from touchstone.transport.fake import SentCall
from touchstone.transport.replies import ChatReply


def judge(run: Path, config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_cli("judge", str(run), "--config", str(config), *extra, cwd=config.parent)


@pytest.mark.parametrize(
    ("model", "words"),
    [("sim-401", "Zugang abgelehnt (401: „"), ("sim-falsch-geschrieben", "sim-falsch-geschrieben")],
)
def test_auth_and_not_found_abort_after_one_call(
    sim: SimServer, four_model_run: Path, tmp_path: Path, model: str, words: str
) -> None:
    base = "sim-falsch-geschrieben" if model.startswith("sim-falsch") else model
    before = sim.calls.get(base, 0)
    result = judge(four_model_run, judge_config(tmp_path / "j.yaml", sim, model))
    assert_clean_failure(result, 1)
    assert "Judge abgebrochen:" in result.stderr and words in result.stderr
    assert sim.calls.get(base, 0) - before == 1


def test_refused_cell_is_isolated_even_with_breaker_1(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    # A third of this tiny run mentions an IBAN; refusals do count toward the ratio (0.2 by
    # default), so it is relaxed here to show the streak alone.
    config = judge_config(
        tmp_path / "j.yaml", sim, "sim-picky", max_consecutive_failures=1, max_failure_ratio=0.5
    )
    result = judge(four_model_run, config)
    assert_clean_failure(result, 0)
    verdicts = run_cells(RunDir(four_model_run)).cells
    # S1 mentions an IBAN: its 8 cells are refused by the filter (saved unscored with that
    # reason, asked again next run), the other 16 are judged.
    refused = [v for v in verdicts if v.prompt_id == "S1"]
    assert len(verdicts) == 24 and len(refused) == 8
    assert all(v.unscored_reason == "judge_refused" for v in refused)
    assert sum(v.scored for v in verdicts) == 16
    assert "8 Zellen lehnte der Inhaltsfilter des Judges ab" in result.stdout
    assert "Judge-Filter: 1" in result.stdout  # the scorecard's reason
    assert "Prompt verweigert: 8" in result.stdout


def test_flaky_judge_is_stopped_by_the_ratio_not_the_streak(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    config = judge_config(tmp_path / "j.yaml", sim, "sim-flaky", max_consecutive_failures=3)
    result = judge(four_model_run, config)
    assert_clean_failure(result, 1)
    assert "10 von 20 Judge-Aufrufen fehlgeschlagen" in result.stderr
    assert "in Folge" not in result.stderr
    assert len(run_cells(RunDir(four_model_run)).cells) == 10


class SlowJudge(OverlapCounting):
    """Sleeps per call (longer for early cells) and records how many calls overlap."""

    async def pause(self, sent: SentCall) -> None:
        # Early cells take longest, so completion order is the reverse of input order.
        repeat = int(re.search(r"#(\d+) ", sent.user).group(1))  # type: ignore[union-attr]
        await asyncio.sleep(0.01 * (13 - repeat))


def test_concurrent_calls_overlap_and_keep_input_order(tiny_pack: Pack) -> None:
    items = [make_response("R1", repeat=i) for i in range(1, 13)]
    judge_backend = SlowJudge()
    persisted: list[int] = []
    out = judge_responses(
        judge_backend,
        items,
        tiny_pack,
        concurrency=4,
        on_verdict=lambda v: persisted.append(v.repeat),
    )
    assert [v.repeat for v in out] == list(range(1, 13))
    assert judge_backend.most == 4
    assert sorted(persisted) == list(range(1, 13))


def test_deadline_holds_with_concurrency_against_a_hanging_judge(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    config = judge_config(
        tmp_path / "j.yaml",
        sim,
        "sim-hang",
        call_timeout_s=1,
        max_consecutive_failures=3,
        concurrency=3,
    )
    events = tmp_path / "events.jsonl"
    result = judge(four_model_run, config, "--events", str(events))
    assert_clean_failure(result, 1)
    # One round of three parallel deadlines: T * ceil(k / c) + 1 s (design.md §10).
    assert stage_seconds(events) < coarse(1 * 1 + 1)


def test_concurrency_8_is_at_least_4x_faster_at_200ms(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    timings = {}
    for concurrency in (1, 8):
        run = four_model_run.parent / f"c{concurrency}"
        subprocess.run(["cp", "-r", str(four_model_run), str(run)], check=True)
        config = judge_config(
            tmp_path / f"j{concurrency}.yaml", sim, "sim-judge@0.2", concurrency=concurrency
        )
        from touchstone.stages.judge.judge import execute_judge

        started = time.monotonic()
        outcome = execute_judge(run, config=config)
        timings[concurrency] = time.monotonic() - started
        assert outcome.new_verdicts == 24
    assert timings[1] / timings[8] >= 4, timings


def test_second_process_on_a_busy_run_dir_exits_2_naming_the_holder(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    with RunDir(four_model_run).locked():
        result = judge(four_model_run, judge_config(tmp_path / "j.yaml", sim, "sim-judge"))
    assert_clean_failure(result, 2)
    assert f"PID {os.getpid()}" in result.stderr
    # Once released (or its holder died), the next process takes it over.
    assert (
        judge(four_model_run, judge_config(tmp_path / "j.yaml", sim, "sim-judge")).returncode == 0
    )


def test_kill_9_mid_judge_then_resume_judges_every_cell_exactly_once(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    slow = judge_config(tmp_path / "slow.yaml", sim, "sim-judge@0.15")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "touchstone", "judge", str(four_model_run), "--config", str(slow)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    judgements = four_model_run / JUDGEMENTS
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if judgements.exists() and judgements.read_text(encoding="utf-8").count("\n") >= 5:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = {(v.key, v.rationale) for v in run_cells(RunDir(four_model_run)).cells}
    assert 5 <= len(kept) < 24

    calls_before = sim.calls.get("sim-judge", 0)
    result = judge(four_model_run, judge_config(tmp_path / "good.yaml", sim, "sim-judge"))
    assert_clean_failure(result, 0)
    lines = [json.loads(line) for line in judgements.read_text(encoding="utf-8").splitlines()]
    keys = [(d["model"], d["variant"], d["prompt_id"], d["repeat"]) for d in lines]
    assert len(keys) == len(set(keys)) == 24
    final = {(v.key, v.rationale) for v in run_cells(RunDir(four_model_run)).cells}
    assert kept <= final
    # Only the cells left open were judged again, plus one holistic call per (model, variant).
    assert sim.calls.get("sim-judge", 0) - calls_before == 24 - len(kept) + 8


def test_model_override_rejudge_and_mixed_judge_warning(
    sim: SimServer, four_model_run: Path, tmp_path: Path
) -> None:
    flaky = judge_config(tmp_path / "flaky.yaml", sim, "sim-flaky", max_failure_ratio=0)
    assert judge(four_model_run, flaky).returncode == 0
    first = run_cells(RunDir(four_model_run)).cells
    assert 0 < len(first) < 24 and {v.judge_model for v in first} == {"sim-flaky"}

    result = judge(four_model_run, flaky, "--model", "sim-judge")
    assert_clean_failure(result, 0)
    verdicts = run_cells(RunDir(four_model_run)).cells
    assert {v.judge_model for v in verdicts} == {"sim-flaky", "sim-judge"}
    assert "mehreren Judge-Modellen" in result.stdout

    result = judge(four_model_run, flaky, "--model", "sim-judge", "--rejudge", "all")
    assert_clean_failure(result, 0)
    assert {v.judge_model for v in run_cells(RunDir(four_model_run)).cells} == {"sim-judge"}


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupt_keeps_what_was_persisted_and_exits_cleanly(
    sim: SimServer, four_model_run: Path, tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    RunDir(four_model_run).rewrite_verdicts([], member_lines=[])  # nothing judged yet
    hanging = judge_config(
        tmp_path / "hang.yaml", sim, "sim-hang", call_timeout_s=60, concurrency=4
    )
    events = tmp_path / "events.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "touchstone",
            "judge",
            str(four_model_run),
            "--config",
            str(hanging),
            "--events",
            str(events),
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and '"start"' not in (
        events.read_text(encoding="utf-8") if events.exists() else ""
    ):
        time.sleep(0.05)
    time.sleep(0.3)  # the calls are now hanging
    started = time.monotonic()
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=20)
    assert proc.returncode == code, stderr
    assert time.monotonic() - started < 5  # not the 60 s deadline of the hanging calls
    assert "Traceback" not in stderr and "alles bisher Gespeicherte bleibt erhalten" in stderr
    assert json.loads(events.read_text(encoding="utf-8").splitlines()[-1])["event"] == "aborted"
    assert RunDir(four_model_run).load_responses()  # the run dir still loads


class OneAtATimeJudge(OverlapCounting):
    """A server that takes one connection at a time and refuses the others at once."""

    def __init__(self) -> None:
        super().__init__()
        self.refused = 0

    async def pause(self, sent: SentCall) -> None:
        await asyncio.sleep(0.005)

    async def reply(self, sent: SentCall) -> str | ChatReply:
        if self.active >= 1:
            self.refused += 1
            raise JudgeCallError(
                "APIConnectionError: Connection error.",
                kind="connection",
                refused_connection=True,
            )
        return await super().reply(sent)


def test_refused_connections_while_others_succeed_lower_the_concurrency(tiny_pack: Pack) -> None:
    items = [make_response("R1", repeat=i) for i in range(1, 25)]
    judge_backend = OneAtATimeJudge()
    out = judge_responses(
        judge_backend, items, tiny_pack, concurrency=16, max_consecutive_failures=3
    )
    assert judge_backend.refused > 0  # it did refuse, and the judge did not stop for it
    assert all(not v.unscored for v in out) and len(out) == 24
