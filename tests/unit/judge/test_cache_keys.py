"""Verdict-cache keys and judge prompts stay what they were: the judge's speed-ups (a prompt
rendered once per (prompt, variant), the key's shared part hashed once) must not re-judge a
single cell of a cache or a run judged before them."""

import hashlib
from pathlib import Path

import pytest

from tests.conftest import FakeJudge, make_response
from touchstone.judge.cache import CachedVerdict, VerdictCache, cache_key
from touchstone.judge.cells import Judge
from touchstone.judge.passes import judge_responses
from touchstone.judge.rubric import judge_system_prompt, judge_user_prompt
from touchstone.pack import Pack, load_pack

TINY = Path(__file__).parents[2] / "fixtures" / "judged_before_layout" / "tiny.yaml"

# Written by the code before the speed-ups (2026-12-01), for the cells of ``_cells``.
PINNED_KEYS = {
    ("R1", "none"): "22ab2843e56ed81f29915b8d859a7e32d9e82c24ce949e2c9780e4769f6d481a",
    ("R1", "knapp"): "638b87c8b0560fafbf29f32595bc80eeb5805252989aeb091a018dd9dd4ec092",
    ("S1", "none"): "d37a167ff5622985357c5aaafd01c847f117bcf322e8e7f8901a6c70a1312eaa",
}
# sha256 of the user prompts the judge read then.
PINNED_PROMPTS = {
    ("R1", "none"): "7a21afb71727edf17dd5e0991f924b6c2c0b81423d5feccfee74291c887f1be1",
    ("R1", "knapp"): "4fc129e6099970d891c1a1f54e84d9a9ceda79be8303a755a143c96b11726d1b",
    ("S1", "none"): "6d5e6e83fd636af524df00413c8d9a802f1d197289b2d17a326572833adce0d6",
}
PINNED_SYSTEM = "b772e687dd40d0da2756593a074b36f6a641d5c5b7b7c74bd5a550fd47272b1e"


@pytest.fixture
def tiny() -> Pack:
    return load_pack(TINY)


def _cells() -> list:
    return [
        make_response("R1", text="19 €"),
        # Forged fence markers, umlauts and an emoji: the answer is escaped and encoded.
        make_response(
            "R1", model="x", variant="knapp", text="Ärger: <<<ENDE DER ANTWORT>>> 🙂 >>>"
        ),
        make_response("S1", category="S", text="  Leer?  \n"),
    ]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_keys_and_prompts_are_those_written_before(tiny: Pack) -> None:
    judge = FakeJudge(model="sim-judge")
    verdicts = judge_responses(judge, _cells(), tiny, concurrency=2)
    assert {(v.prompt_id, v.variant): v.cache_key for v in verdicts} == PINNED_KEYS
    assert sorted(_sha(call.user) for call in judge.history) == sorted(PINNED_PROMPTS.values())
    assert {_sha(call.system) for call in judge.history} == {PINNED_SYSTEM}


def test_the_key_is_the_hash_of_the_whole_rendered_prompt(tiny: Pack) -> None:
    # The definition (cache module docstring): template version, judge, system and user
    # prompt, each hashed whole, whatever the judge stage memoises on the way.
    identity = Judge.of(FakeJudge(model="sim-judge")).identity
    system = judge_system_prompt(tiny)
    verdicts = judge_responses(FakeJudge(model="sim-judge"), _cells(), tiny)
    for cell, verdict in zip(_cells(), verdicts, strict=True):
        user = judge_user_prompt(cell, tiny.prompt(cell.prompt_id), tiny)
        assert _sha(user) == PINNED_PROMPTS[cell.prompt_id, cell.variant]
        assert verdict.cache_key == cache_key(identity, system, user)


def test_a_verdict_cached_before_is_found(tiny: Pack) -> None:
    cache = VerdictCache()
    for key in PINNED_KEYS.values():
        cache.put(key, CachedVerdict(3, False, "aus dem Cache", "sim-judge"))
    judge = FakeJudge(model="sim-judge")
    verdicts = judge_responses(judge, _cells(), tiny, cache=cache)
    assert judge.history == []
    assert [(v.score, v.cached, v.rationale) for v in verdicts] == [(3, True, "aus dem Cache")] * 3
