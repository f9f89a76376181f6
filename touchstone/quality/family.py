"""Which model family a model name belongs to (design.md §17): a judge tends to prefer answers
of its own family (self-preference), so a candidate of the judge's family is suspect.

``family_of("meta-llama/Llama-3.1-8B-Instruct")`` is ``"llama"``. A name is read by its
tokens, never by substrings: ``delphi`` holds no ``phi`` and ``yield`` no ``yi``. The name is
cut at ``/`` into segments (provider, organisation, repository, model); its last segment
names the model, so it is read first, token by token, and the first token that names a family
decides ("DeepSeek-R1-Distill-Qwen-7B" is ``deepseek``: a fine-tune or distillate counts as
the family named first). Only when the last segment names none are the segments before it
read, from the right: an organisation such as ``mistralai`` or ``anthropic`` says the family
of a model whose own name does not ("mistralai/my-finetune"). A token is a run of letters
and digits; its leading letters are what is looked up (``qwen2`` is ``qwen``, ``llama3`` is
``llama``, ``phi4`` is ``phi``). OpenAI's o-series (``o1``, ``o3-mini``, ``o4-mini``) counts
only at the start of a segment, where those names put it ("marco-o1" is no OpenAI model).
None: no family known.
"""

from __future__ import annotations

import re

# Leading letters of a token -> family. Code and chat offshoots carry their family's name
# glued to another word, so they are listed as they are written.
_FAMILIES: dict[str, str] = {
    **dict.fromkeys(("qwen", "qwq", "qvq", "codeqwen"), "qwen"),
    **dict.fromkeys(("llama", "codellama", "tinyllama"), "llama"),
    **dict.fromkeys(
        (
            "mistral",
            "mistralai",
            "mixtral",
            "codestral",
            "ministral",
            "magistral",
            "devstral",
            "pixtral",
            "mathstral",
        ),
        "mistral",
    ),
    **dict.fromkeys(("gemma", "codegemma", "recurrentgemma", "shieldgemma"), "gemma"),
    "gemini": "gemini",
    "phi": "phi",
    **dict.fromkeys(("gpt", "chatgpt", "openai"), "gpt"),
    **dict.fromkeys(("claude", "anthropic"), "claude"),
    "deepseek": "deepseek",
    **dict.fromkeys(("glm", "chatglm", "codegeex", "thudm"), "glm"),
    "yi": "yi",
    **dict.fromkeys(("command", "aya", "cohere", "cohereforai", "coherelabs"), "command"),
    "granite": "granite",
    **dict.fromkeys(("falcon", "tiiuae"), "falcon"),
    "internlm": "internlm",
    **dict.fromkeys(("olmo", "olmoe", "allenai"), "olmo"),
    "nemotron": "nemotron",
    "starcoder": "starcoder",
    "smollm": "smollm",
    "stablelm": "stablelm",
    "grok": "grok",
    "exaone": "exaone",
    "kimi": "kimi",
    "minimax": "minimax",
    "ernie": "ernie",
    "baichuan": "baichuan",
    "hunyuan": "hunyuan",
    "jamba": "jamba",
    "dbrx": "dbrx",
    "solar": "solar",
}
# "gpt-j", "gpt-neo", "gpt-neox", "GPT-SW3" are EleutherAI's and AI Sweden's, not OpenAI's.
_NOT_OPENAI_AFTER_GPT = frozenset({"j", "neo", "neox", "sw3", "sw"})
_O_SERIES = re.compile(r"o[134](?:[a-z]*)")
_TOKEN = re.compile(r"[a-z0-9]+")
_LETTERS = re.compile(r"[a-z]+")


def _segment_family(segment: str) -> str | None:
    tokens = _TOKEN.findall(segment)
    if tokens and _O_SERIES.fullmatch(tokens[0]):
        return "gpt"
    for index, token in enumerate(tokens):
        letters = _LETTERS.match(token)
        if letters is None:
            continue
        family = _FAMILIES.get(letters.group())
        if family is None:
            continue
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if letters.group() == "gpt" and token == "gpt" and following in _NOT_OPENAI_AFTER_GPT:
            continue
        return family
    return None


def family_of(model_name: str) -> str | None:
    """The family ``model_name`` belongs to (``"qwen"``, ``"llama"``, ``"gpt"``, …), or None."""
    segments = model_name.lower().split("/")
    for segment in reversed(segments):
        family = _segment_family(segment)
        if family is not None:
            return family
    return None


def same_family(model_name: str, judge_models: list[str] | tuple[str, ...]) -> str | None:
    """The family ``model_name`` shares with one of ``judge_models``, or None."""
    family = family_of(model_name)
    if family is None:
        return None
    return family if any(family_of(judge) == family for judge in judge_models) else None
