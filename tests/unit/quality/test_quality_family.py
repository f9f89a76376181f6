"""Model families from names (design.md §17): real names as providers write them."""

from __future__ import annotations

import pytest

from touchstone.quality.family import family_of, same_family

REAL_NAMES = [
    # Ollama tags
    ("qwen2.5:7b", "qwen"),
    ("qwen3:8b", "qwen"),
    ("qwq:32b", "qwen"),
    ("llama3.1:8b", "llama"),
    ("llama3.2:3b-instruct-q4_K_M", "llama"),
    ("codellama:13b", "llama"),
    ("tinyllama", "llama"),
    ("mistral:7b", "mistral"),
    ("mixtral:8x7b", "mistral"),
    ("mistral-nemo:12b", "mistral"),
    ("codestral:22b", "mistral"),
    ("gemma2:9b", "gemma"),
    ("gemma3:27b", "gemma"),
    ("codegemma:7b", "gemma"),
    ("phi3:mini", "phi"),
    ("phi4:14b", "phi"),
    ("dolphin-phi:2.7b", "phi"),
    ("deepseek-r1:7b", "deepseek"),
    ("deepseek-coder-v2:16b", "deepseek"),
    ("glm4:9b", "glm"),
    ("yi:34b", "yi"),
    ("command-r:35b", "command"),
    ("command-r-plus", "command"),
    ("aya-expanse:8b", "command"),
    ("granite3.1-dense:8b", "granite"),
    ("falcon3:7b", "falcon"),
    ("internlm2:7b", "internlm"),
    ("olmo2:13b", "olmo"),
    ("nemotron-mini", "nemotron"),
    ("starcoder2:15b", "starcoder"),
    ("smollm2:1.7b", "smollm"),
    ("gpt-oss:20b", "gpt"),
    ("hf.co/bartowski/Qwen2.5-7B-Instruct-GGUF:Q4_K_M", "qwen"),
    ("hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF", "llama"),
    # Hugging Face repositories
    ("meta-llama/Llama-3.1-8B-Instruct", "llama"),
    ("meta-llama/Meta-Llama-3-70B-Instruct", "llama"),
    ("Qwen/Qwen2.5-72B-Instruct", "qwen"),
    ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "mistral"),
    ("mistralai/Ministral-8B-Instruct-2410", "mistral"),
    ("google/gemma-2-9b-it", "gemma"),
    ("microsoft/Phi-3.5-mini-instruct", "phi"),
    ("deepseek-ai/DeepSeek-V3", "deepseek"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "deepseek"),
    ("THUDM/chatglm3-6b", "glm"),
    ("THUDM/glm-4-9b-chat", "glm"),
    ("01-ai/Yi-1.5-9B-Chat", "yi"),
    ("NousResearch/Nous-Hermes-2-Yi-34B", "yi"),
    ("NousResearch/Hermes-3-Llama-3.1-8B", "llama"),
    ("teknium/OpenHermes-2.5-Mistral-7B", "mistral"),
    ("CohereForAI/c4ai-command-r-v01", "command"),
    ("ibm-granite/granite-3.0-8b-instruct", "granite"),
    ("tiiuae/falcon-7b-instruct", "falcon"),
    ("internlm/internlm2_5-7b-chat", "internlm"),
    ("allenai/OLMo-2-1124-7B-Instruct", "olmo"),
    ("nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "llama"),
    ("bigcode/starcoder2-15b", "starcoder"),
    ("HuggingFaceTB/SmolLM2-1.7B-Instruct", "smollm"),
    # Hosted APIs and routers
    ("gpt-4o-mini", "gpt"),
    ("gpt-4.1", "gpt"),
    ("chatgpt-4o-latest", "gpt"),
    ("o1", "gpt"),
    ("o1-mini", "gpt"),
    ("o3-mini", "gpt"),
    ("o4-mini", "gpt"),
    ("openai/gpt-4o-mini", "gpt"),
    ("openai/o3", "gpt"),
    ("claude-3-5-sonnet-20241022", "claude"),
    ("anthropic/claude-3.5-haiku", "claude"),
    ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", "claude"),
    ("us.meta.llama3-1-70b-instruct-v1:0", "llama"),
    ("mistralai/mistral-small", "mistral"),
    ("gemini-1.5-pro", "gemini"),
    ("vertex_ai/gemini-2.0-flash", "gemini"),
    ("grok-2-1212", "grok"),
    ("accounts/fireworks/models/llama-v3p1-8b-instruct", "llama"),
    ("@cf/meta/llama-3-8b-instruct", "llama"),
    ("groq/llama-3.1-8b-instant", "llama"),
    ("ollama/qwen2.5", "qwen"),
    # The organisation alone says it
    ("mistralai/my-finetune", "mistral"),
    ("anthropic/some-model", "claude"),
]

NO_FAMILY = [
    "delphi-7b",  # "phi" inside a word
    "yield-model",  # "yi" inside a word
    "mymodel",
    "sim-judge",
    "sim-good",
    "marco-o1",  # Alibaba's, not OpenAI's o-series
    "EleutherAI/gpt-j-6b",
    "EleutherAI/gpt-neox-20b",
    "AI-Sweden-Models/gpt-sw3-6.7b",
    "zephyr-7b-beta",
    "hf.co/bartowski/Some-Model-GGUF",
    "",
    "/",
    "4o",
]


@pytest.mark.parametrize(("name", "family"), REAL_NAMES)
def test_family_of_real_model_names(name: str, family: str) -> None:
    assert family_of(name) == family


@pytest.mark.parametrize("name", NO_FAMILY)
def test_no_family_from_substrings_or_unknown_names(name: str) -> None:
    assert family_of(name) is None


def test_same_family_pairs_a_candidate_with_any_judge_of_its_family() -> None:
    assert same_family("qwen2.5:7b", ["Qwen/Qwen2.5-72B-Instruct"]) == "qwen"
    assert same_family("qwen2.5:7b", ["gpt-4o-mini", "qwen3:8b"]) == "qwen"
    assert same_family("llama3.1:8b", ["qwen3:8b"]) is None
    # Two unknown names are no family.
    assert same_family("sim-good", ["sim-judge"]) is None


def test_a_jury_marks_the_rows_of_every_members_family() -> None:
    from tests.conftest import make_response
    from touchstone.jury.aggregate import jury_name
    from touchstone.results import Verdict
    from touchstone.scorecard.build import build_scorecard

    # A jury's cell verdicts name the jury, not one judge: each member's family counts.
    jury = jury_name(["qwen2.5-14b-instruct", "gemma2:9b", "mistralai/mistral-small"])
    models = ("gemma2:2b", "qwen2.5:7b", "mistral:7b", "llama3.1:8b")
    responses = [make_response("R1", model=m) for m in models]
    verdicts = [
        Verdict(m, "none", "R1", 1, "R", 3, False, "", judge_model=jury, jury=True) for m in models
    ]
    card = build_scorecard(responses, verdicts, scale_min=0, scale_max=5)
    marked = {row.model: row.as_dict()["same_family_as_judge"] for row in card.rows}
    assert marked == {
        "gemma2:2b": True,
        "qwen2.5:7b": True,
        "mistral:7b": True,
        "llama3.1:8b": False,
    }
