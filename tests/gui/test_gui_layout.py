"""Layout defects from the new-user walk (issue 23 §5, design.md §6), through the FastAPI
TestClient:
names and number-with-unit stay whole, a run without answers says so and offers the next
step, the overview stamps each run's files once per request, and the judge's latency lines
tell the same truth about calls cut at their deadline."""

import re
import socket
from collections import Counter
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from touchstone.sim import SimServer
from touchstone.stages.run.run import execute_run
from touchstone.store import stamps


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def empty_run(workspace: Path, name: str = "leer") -> Path:
    """A run whose only model was never reached: run.json, no answer. Its dir exists before
    (as the GUI makes it for its job): a run that got no answer into a new dir leaves none."""
    out = workspace / "runs" / name
    out.mkdir(parents=True)
    execute_run(
        pack_path=workspace / "packs" / "tiny.yaml",
        models=["sim-gut"],
        out=out,
        base_url=f"http://127.0.0.1:{closed_port()}/v1",
        call_timeout_s=1,
    )
    return out


def overview_row(html: str, name: str) -> str:
    rows = re.findall(r"<tr>.*?</tr>", html, re.S)
    found = [row for row in rows if f'href="/runs/{name}">{name}<' in row]
    assert len(found) == 1, rows
    return found[0]


# -- 1. names and numbers stay whole -------------------------------------------------------


def test_the_run_header_keeps_each_model_name_whole(client: TestClient) -> None:
    html = client.get("/runs/tiny").text
    header = re.search(r"Paket .*?</p>", html, re.S)
    assert header, html[:500]
    # Each model a no-wrap name, not "Modelle sim-gut, sim-schwach" as plain text that a
    # phone breaks after "sim-".
    for model in ("sim-gut", "sim-schwach"):
        assert f'<span class="name">{model}</span>' in header.group(0)


def test_the_overview_keeps_95_percent_together(client: TestClient) -> None:
    html = client.get("/").text
    head = re.search(r"<thead>.*?</thead>", html, re.S)
    assert head
    # "(95 %)" never as "(95" over "%)".
    assert '<span class="nowrap">(95 %)</span>' in head.group(0)


# -- 3. a run without answers --------------------------------------------------------------


def test_a_run_without_answers_says_so_and_offers_the_next_step(
    client: TestClient, workspace: Path
) -> None:
    empty_run(workspace)
    html = client.get("/runs/leer").text
    assert "Noch keine Antworten" in html
    # No judge to start, no report of nothing, no empty scorecard.
    assert 'data-testid="start-judge"' not in html
    assert 'data-testid="check-judge"' not in html
    assert '/report.html"' not in html
    assert 'data-testid="scorecard"' not in html
    assert 'data-testid="csv"' not in html
    # The next step: the run again, its name, pack and endpoint filled in on the overview.
    step = re.search(r'<a [^>]*data-testid="continue-run"[^>]*href="([^"]+)"', html) or re.search(
        r'<a [^>]*href="([^"]+)"[^>]*data-testid="continue-run"', html
    )
    assert step, html
    form = client.get(step.group(1).replace("&amp;", "&")).text
    assert re.search(r'<input name="name"[^>]*value="leer"', form), form
    assert re.search(r"<option selected>packs/tiny.yaml</option>", form)
    assert re.search(r'<input name="base_url"[^>]*value="http://127\.0\.0\.1:\d+/v1"', form)

    overview = client.get("/").text
    row = overview_row(overview, "leer")
    assert "Noch keine Antworten" in row
    assert "Bericht" not in row and "/report.html" not in row
    assert "0 / 0" not in row
    # The answered run keeps its report link.
    assert "/report.html" in overview_row(overview, "tiny")


# -- 6. the overview stamps each run once per request --------------------------------------


def counting_stamps(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each run's answers file is hashed (every stamp of a run hashes it)."""
    counted: Counter[str] = Counter()
    real = stamps.file_stamp

    def counting(path: Path) -> stamps.Stamp:
        if path.name == "responses.jsonl":
            counted[path.parent.name] += 1
        return real(path)

    monkeypatch.setattr(stamps, "file_stamp", counting)
    return counted


@pytest.mark.parametrize("scorecard_json", [False, True])
def test_the_overview_stamps_each_run_once_per_request(
    client: TestClient,
    workspace: Path,
    sim: SimServer,
    monkeypatch: pytest.MonkeyPatch,
    scorecard_json: bool,
) -> None:
    from touchstone.stages.view import load_run, write_scorecard

    run = workspace / "runs" / "tiny"
    if scorecard_json:
        view = load_run(run, pack_within=workspace)
        write_scorecard(view.run_dir, view.scorecard())
    counted = counting_stamps(monkeypatch)
    for request in range(3):
        if request == 2:
            # A job appended an answer: the next overview reads the run again.
            with (run / "responses.jsonl").open("a", encoding="utf-8") as handle:
                handle.write("\n")
        counted.clear()
        assert client.get("/").status_code == 200
        assert counted == {"tiny": 1}, (request, counted)


def test_the_expected_cells_are_the_planned_cells(client: TestClient, workspace: Path) -> None:
    row = overview_row(client.get("/").text, "tiny")
    # 2 models x 1 variant x 1 repeat x 3 prompts.
    assert "6 / 6" in row


# -- 5. calls cut at their deadline: the card and the Judge-Bilanz say the same ------------


def test_calls_cut_at_the_deadline_are_told_alike_by_card_and_bilanz() -> None:
    from tests.unit.quality.test_judge_check import BUERO, ProbeJudge, check, verdict
    from touchstone.errors import JudgeCallError
    from touchstone.pack import load_pack
    from touchstone.quality.probes import probe_battery

    pack = load_pack(BUERO)
    cut = JudgeCallError("keine vollständige Antwort innerhalb der Frist", kind="timeout")
    # Every call of one kind cut at the deadline, the rest answered at once.
    judge = ProbeJudge(pack, {"reference": cut, "counterexample": verdict(1, True)})
    card = check(pack, judge, call_timeout_s=2)
    cut_calls = card.health.failures["timeout"]
    # (The guard stops after a few cut calls in a row; a probe asked twice for stability
    # may be among them.)
    assert 1 < cut_calls < len(probe_battery(pack))
    latency = next(c for c in card.criteria if c.name == "Latenz p95")
    summary = card.health.summary_de(resumable=False)
    # Both name the calls cut at the deadline; the card's p95 is a lower bound with them.
    told = f"{cut_calls} Aufrufe an der Frist abgebrochen"
    assert told in latency.figure and told in summary, (latency.figure, summary)
    assert latency.figure.startswith("mindestens "), latency.figure


def test_a_judge_with_every_call_cut_says_why_there_is_no_latency() -> None:
    from collections import Counter

    from touchstone.judge.health import JudgeHealth

    health = JudgeHealth(calls=3, failures=Counter(timeout=3))
    assert "Latenz: – (3 Aufrufe an der Frist abgebrochen)" in health.summary_de()
    one = JudgeHealth(calls=1, failures=Counter(timeout=1))
    assert "Latenz: – (1 Aufruf an der Frist abgebrochen)" in one.summary_de()
    assert (
        "an der Frist" not in JudgeHealth(calls=2, successes=2, latencies_s=[0.1, 0.2]).summary_de()
    )
