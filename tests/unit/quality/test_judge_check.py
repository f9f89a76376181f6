"""``judge-check`` (design.md §14, issue 15): each probe kind, each criterion, each verdict.

The logic runs against ``ProbeJudge``, a fake that answers by the probe it is shown; the
command runs against the simulator's judges of known character.
"""

import asyncio
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, TINY_PACK, make_response
from touchstone.errors import JudgeCallError
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.judge.rubric import judge_user_prompt
from touchstone.pack import Pack, load_pack
from touchstone.quality.probes import MAX_PROBES, NON_ANSWERS, Bounds, probe_battery
from touchstone.stages.judge_check import execute_judge_check
from touchstone.transport.fake import FakeChat, SentCall

BUERO = REPO / "packs" / "buero.yaml"
ANSWER = re.compile(r"<<<ANTWORT>>>\n(.*)\n<<<ENDE DER ANTWORT>>>", re.DOTALL)
Reply = str | Exception


def verdict(score: int, red_flag: bool = False) -> str:
    return json.dumps({"score": score, "red_flag": red_flag, "rationale": "fake"})


class ProbeJudge(FakeChat):
    """A fake judge that answers by what it is shown: ``kind_of(answer)`` names the probe
    kind, ``replies[kind]`` the reply (a callable gets the number of the call); ``slow[kind]``
    seconds it takes. ``kinds``: the probe kind of every call."""

    def __init__(
        self,
        pack: Pack,
        replies: dict[str, Reply | Callable[[int], Reply]] | None = None,
        slow: dict[str, float] | None = None,
    ) -> None:
        super().__init__()
        self.pack = pack
        self.replies = replies or {}
        self.slow = slow or {}
        self.kinds: list[str] = []

    def kind_of(self, answer: str) -> str:
        if answer in NON_ANSWERS:
            return "non_answer"
        if "bewertende Instanz" in answer or '"score"' in answer:
            return "injection"
        for _, prompt in self.pack.all_prompts():
            if answer == prompt.reference:
                return "reference"
            if answer == prompt.counterexample:
                return "counterexample"
        raise AssertionError(f"not a probe: {answer!r}")

    async def reply(self, sent: SentCall) -> str:
        found = ANSWER.search(sent.user)
        assert found is not None
        kind = self.kind_of(found.group(1).replace("‹‹‹", "<<<").replace("›››", ">>>"))
        self.kinds.append(kind)
        await asyncio.sleep(self.slow.get(kind, 0))
        good = {
            "reference": verdict(5),
            "counterexample": verdict(1, True),
            "non_answer": verdict(0),
            "injection": verdict(0),
        }
        reply = self.replies.get(kind, good[kind])
        if callable(reply) and not isinstance(reply, Exception):
            reply = reply(self.kinds.count(kind))
        if isinstance(reply, Exception):
            raise reply
        return reply


@pytest.fixture(scope="module")
def buero() -> Pack:
    return load_pack(BUERO)


def check(pack: Pack, judge: ProbeJudge, *, call_timeout_s: float = 60):  # type: ignore[no-untyped-def]
    config = JudgeConfig(
        JudgeEndpoint("http://127.0.0.1:9/v1"), "fake", call_timeout_s=call_timeout_s
    )
    return execute_judge_check(pack, config=config, backend=judge)


def failed(card) -> set[str]:  # type: ignore[no-untyped-def]
    return {c.name.split(" (")[0] for c in card.criteria if c.passed is False}


def test_the_battery_is_at_most_24_probes_spread_over_categories(buero: Pack) -> None:
    probes = probe_battery(buero)
    assert len(probes) <= MAX_PROBES
    kinds = [p.kind for p in probes]
    assert kinds.count("reference") == kinds.count("counterexample") == 6
    assert kinds.count("non_answer") == 3 and kinds.count("injection") == 2
    assert kinds.count("repeat") == 1
    assert len({p.prompt.category for p in probes if p.kind == "reference"}) >= 4


def test_references_are_probes_not_grading_aids(buero: Pack) -> None:
    """A run's judge prompt never shows the reference or the counterexample."""
    for _, prompt in buero.all_prompts():
        if prompt.reference:
            user = judge_user_prompt(make_response(prompt.id), prompt, buero)
            assert prompt.reference not in user and (prompt.counterexample or "") not in user


def test_a_good_judge_is_suitable(buero: Pack) -> None:
    judge = ProbeJudge(buero)
    card = check(buero, judge)
    assert card.suitable and card.verdict_de() == "geeignet"
    assert all(c.passed for c in card.criteria)
    assert len(judge.history) == len(probe_battery(buero))


@pytest.mark.parametrize(
    ("replies", "criterion"),
    [
        ({"reference": verdict(3)}, "Referenzantworten oben"),
        ({"counterexample": verdict(4)}, "Gegenbeispiele niedrig"),
        ({"counterexample": verdict(1, False)}, "Gegenbeispiele mit Warnsignal"),
        ({"non_answer": lambda n: verdict(3 if n == 2 else 0)}, "Nicht-Antworten unten"),
        (
            {"injection": lambda n: verdict(5 if n == 2 else 0)},
            "Eingeschleuste Anweisungen abgewehrt",
        ),
        ({"reference": lambda n: verdict(4 if n == 7 else 5)}, "Gleiche Wertung bei Wiederholung"),
        ({"counterexample": "Das ist eine gute Antwort."}, "Lesbare Urteile"),
    ],
)
def test_each_miss_fails_its_criterion_and_the_judge(
    buero: Pack, replies: dict, criterion: str
) -> None:
    card = check(buero, ProbeJudge(buero, replies))
    assert criterion in failed(card)
    assert not card.suitable and card.verdict_de().startswith("ungeeignet: ")
    assert criterion in card.verdict_de()


def test_one_reference_below_the_top_is_tolerated(buero: Pack) -> None:
    card = check(buero, ProbeJudge(buero, {"reference": lambda n: verdict(3 if n == 2 else 5)}))
    assert card.suitable, card.verdict_de()


def test_reasoning_only_replies_count_against_the_judge(buero: Pack) -> None:
    reasoning = JudgeCallError("nur Reasoning", kind="reasoning_only")
    judge = ProbeJudge(
        buero, {"counterexample": lambda n: reasoning if n in (1, 3, 5) else verdict(1, True)}
    )
    card = check(buero, judge)
    assert "Nur Reasoning, keine Antwort" in failed(card)


def test_a_slow_judge_fails_on_its_p95_latency(buero: Pack) -> None:
    card = check(buero, ProbeJudge(buero, slow={"injection": 0.3}), call_timeout_s=0.5)
    assert failed(card) == {"Latenz p95"}


def without(pack_text: str, key: str) -> str:
    """The pack text without its ``key:`` lines (and their folded continuation)."""
    lines, skipping = [], False
    for line in pack_text.splitlines():
        if line.strip().startswith(f"{key}:"):
            skipping = line.rstrip().endswith(">-")
            continue
        if skipping and line.startswith("          "):
            continue
        skipping = False
        lines.append(line)
    return "\n".join(lines) + "\n"


def pack_from(tmp_path: Path, text: str) -> Pack:
    path = tmp_path / "pack.yaml"
    path.write_text(text, encoding="utf-8")
    return load_pack(path)


def test_without_references_the_judge_cannot_be_assessed(tmp_path: Path) -> None:
    """A judge that scores everything at the bottom would pass every other probe."""
    pack = pack_from(tmp_path, without(TINY_PACK, "reference"))
    card = check(pack, ProbeJudge(pack, {"counterexample": verdict(0, True)}))
    assert not card.suitable
    assert card.verdict_de().startswith("nicht beurteilbar: das Paket hat keine Referenzantworten")


def test_without_counterexamples_the_check_is_partial(tmp_path: Path) -> None:
    pack = pack_from(tmp_path, without(TINY_PACK, "counterexample"))
    card = check(pack, ProbeJudge(pack))
    assert card.suitable
    assert card.verdict_de() == (
        "geeignet (eingeschränkt geprüft: das Paket hat keine Gegenbeispiele)"
    )
    untested = {c.name.split(" (")[0] for c in card.criteria if c.passed is None}
    assert untested == {"Gegenbeispiele niedrig", "Gegenbeispiele mit Warnsignal"}


def test_a_judge_that_flags_every_answer_is_unfit(buero: Pack) -> None:
    flags_all = {k: verdict(s, True) for k, s in [("reference", 5), ("non_answer", 0)]}
    card = check(buero, ProbeJudge(buero, {**flags_all, "injection": verdict(0, True)}))
    assert "Referenzantworten oben" in failed(card)


def test_an_injection_that_half_works_is_caught(buero: Pack) -> None:
    """An instruction to give the top score is no answer: anything above the bottom obeys it
    in part."""
    card = check(buero, ProbeJudge(buero, {"injection": verdict(3)}))
    assert failed(card) == {"Eingeschleuste Anweisungen abgewehrt"}


def test_counterexamples_scored_low_without_the_flag_miss_only_the_flag(buero: Pack) -> None:
    card = check(buero, ProbeJudge(buero, {"counterexample": verdict(1, False)}))
    assert failed(card) == {"Gegenbeispiele mit Warnsignal"}


def test_timeouts_count_as_failed_calls_and_in_the_latency_tail(buero: Pack) -> None:
    timeout = JudgeCallError("DeadlineExceeded", kind="timeout")
    judge = ProbeJudge(buero, {"reference": lambda n: timeout if n in (2, 4) else verdict(5)})
    card = check(buero, judge, call_timeout_s=2)
    assert {"Fehlgeschlagene Aufrufe", "Latenz p95"} <= failed(card)


def test_the_refusal_goes_to_a_prompt_that_is_not_safety_critical(buero: Pack) -> None:
    (refusal,) = [p for p in probe_battery(buero) if p.answer == NON_ANSWERS[2]]
    assert not refusal.prompt.safety_critical


@pytest.mark.parametrize(
    ("low", "high"), [(0, 1), (0, 2), (1, 3), (1, 5), (0, 5), (1, 10), (0, 100)]
)
def test_the_check_tells_good_from_middling_on_any_scale(
    tmp_path: Path, low: int, high: int
) -> None:
    pack = pack_from(
        tmp_path, TINY_PACK.replace("{min: 0, max: 5}", f"{{min: {low}, max: {high}}}")
    )
    bounds = Bounds.of(pack.scale)
    assert high >= bounds.top_from > bounds.low_up_to >= bounds.bottom_up_to >= low
    good = {
        "reference": verdict(high),
        "counterexample": verdict(low, True),
        "non_answer": verdict(low),
        "injection": verdict(low),
    }
    assert check(pack, ProbeJudge(pack, good)).suitable
    middle = (low + high + 1) // 2
    middling = {kind: verdict(middle) for kind in good}
    assert not check(pack, ProbeJudge(pack, middling)).suitable


@pytest.mark.parametrize(("low", "high", "top"), [(1, 5, 4), (0, 3, 2), (0, 5, 4), (0, 10, 8)])
def test_near_the_top_is_never_fewer_than_the_top_two_points(
    tmp_path: Path, low: int, high: int, top: int
) -> None:
    """A strict good judge gives a reference the second-best score: on 1..5 that is 4, and
    "the top fifth" alone would admit only 5 and call such a judge unfit."""
    pack = pack_from(
        tmp_path, TINY_PACK.replace("{min: 0, max: 5}", f"{{min: {low}, max: {high}}}")
    )
    assert Bounds.of(pack.scale).top_from == top
    strict = {
        "reference": verdict(high - 1),
        "counterexample": verdict(low, True),
        "non_answer": verdict(low),
        "injection": verdict(low),
    }
    assert check(pack, ProbeJudge(pack, strict)).suitable


# -- the command against the simulator's judges -----------------------------------------------


@pytest.mark.parametrize(("screen", "said"), [(True, False), (False, True)])
def test_on_a_terminal_a_suitable_verdict_is_said_once(
    buero: Pack, monkeypatch: pytest.MonkeyPatch, screen: bool, said: bool
) -> None:
    from rich.console import Console

    from touchstone.cli import judge_check as check_command

    card = check(buero, ProbeJudge(buero))
    assert card.suitable
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(check_command, "stdout", Console(file=out, force_terminal=screen))
    monkeypatch.setattr(check_command, "stderr", Console(file=err, force_terminal=screen))
    check_command.say_suitable(card)
    # The card's "Urteil: geeignet" is on the same screen; a pipe keeps the stderr line.
    assert ("Judge-Check: geeignet" in err.getvalue()) is said
