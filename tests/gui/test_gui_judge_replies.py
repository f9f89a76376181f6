"""The raw judge reply and the request per cell on the prompt page (issue 36, design.md §26):
every verdict a judge call gave leaves its reply in judge-replies.jsonl (bounded to 16 KB,
marked when cut); the prompt page shows it as text, folded when long, per member for a jury,
with the request rebuilt from pack and answer; a damaged line is said there, the page stays."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from tests.conftest import FakeJudge
from tests.gui.gui_support import gui_client, make_workspace
from tests.unit.jury.test_jury_agreement_after_judge import judged_by
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.store.judge_replies import JUDGE_REPLIES, REPLY_KEPT_BYTES

LONG = "<script>alert(1)</script> " + "Abwägung " * 3000
VERDICT = '{"score": 3, "red_flag": false, "rationale": "mittel"}'


def lines(run: Path) -> list[dict]:
    text = (run / JUDGE_REPLIES).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def judged_with(workspace: Path, reply: str) -> Path:
    run = workspace / "runs" / "tiny"
    config = JudgeConfig(JudgeEndpoint("http://127.0.0.1:9"), "fake-judge")
    execute_judge(run, config=config, backend=FakeJudge(default=reply))
    return run


def test_each_verdict_leaves_its_reply_bounded_and_marked(workspace: Path) -> None:
    run = judged_with(workspace, LONG + VERDICT)
    found = lines(run)
    assert len(found) == 6
    first = found[0]
    assert set(first) == {"cell", "cache_key", "judge_model", "finish_reason", "reply", "cut"}
    assert first["judge_model"] == "fake-judge" and first["cut"] is True
    assert len(first["reply"].encode("utf-8")) <= REPLY_KEPT_BYTES
    assert first["reply"].startswith("<script>alert(1)</script> Abwägung")
    verdicts = [json.loads(x) for x in (run / "judgements.jsonl").read_text().splitlines()]
    assert {v["cache_key"] for v in verdicts} == {line["cache_key"] for line in found}


def test_an_unreadable_reply_is_kept_too(workspace: Path) -> None:
    found = lines(judged_with(workspace, "Ich kann das nicht bewerten."))
    assert len(found) == 6 and found[0]["reply"] == "Ich kann das nicht bewerten."
    assert found[0]["cut"] is False


def test_the_prompt_page_shows_reply_and_request_as_text(workspace: Path) -> None:
    judged_with(workspace, LONG + VERDICT)
    with gui_client(workspace) as client:
        page = client.get("/runs/tiny/prompts/R1").text
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Abwägung" in page
    assert page.count('data-testid="judge-reply"') == 2  # one per answer to R1
    assert "Gekürzt: gespeichert sind die ersten 16 KB" in page
    # Long: folded.
    assert '<details class="judge-reply" data-testid="judge-reply" open>' not in page
    request = html.unescape(page.split('data-testid="judge-request"', 1)[1].split("</details>")[0])
    assert "Was sind 19 % von 100 €?" in request and "Simulierte Antwort (sim-gut" in request


def test_a_short_reply_is_shown_open(workspace: Path) -> None:
    judged_with(workspace, VERDICT)
    with gui_client(workspace) as client:
        page = client.get("/runs/tiny/prompts/S1").text
        detail = client.get("/api/runs/tiny/prompts/S1").json()
    assert page.count('<details class="judge-reply" data-testid="judge-reply" open>') == 2
    replies = detail["answers"][0]["replies"]
    assert replies == [
        {
            "judge_model": "fake-judge",
            "reply": VERDICT,
            "cut": False,
            "finish_reason": "",
            "cached": False,
        }
    ]


def test_a_jury_shows_each_members_reply(tmp_path: Path, sim: SimServer) -> None:
    root = make_workspace(tmp_path, sim)
    judged_by(sim, root / "runs" / "tiny", "sim-judge", "sim-strict")
    with gui_client(root) as client:
        answers = client.get("/api/runs/tiny/prompts/R1").json()["answers"]
        page = client.get("/runs/tiny/prompts/R1").text
    # A jury's median between two scores, written the German way ("4,50", not "4.5").
    assert re.findall(r'class="score">([^<]*)<', page) and not re.search(
        r'class="score">\d+\.\d', page
    )
    for answer in answers:
        members = [r["judge_model"] for r in answer["replies"]]
        assert members == ["sim-judge", "sim-strict"]
        assert all(r["reply"] and '"score"' in r["reply"] for r in answer["replies"])


def test_a_damaged_line_is_said_on_the_page(workspace: Path) -> None:
    run = judged_with(workspace, VERDICT)
    with (run / JUDGE_REPLIES).open("a", encoding="utf-8") as handle:
        handle.write('{"cell": ["sim-gut", "none", "R1", 1], "reply": \n')
    with gui_client(workspace) as client:
        response = client.get("/runs/tiny/prompts/R1")
    assert response.status_code == 200
    problem = response.text.split('data-testid="replies-problem"', 1)[1].split("</p>", 1)[0]
    assert JUDGE_REPLIES in problem and "Zeile 7" in problem
