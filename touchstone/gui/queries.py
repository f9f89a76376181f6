"""What the run page asks of a run: a filtered, sorted page of verdicts; one prompt's answers.

The verdict table pages through the API instead of the page inlining every verdict: at
100,000 cells the run page stays small and the browser fast.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from touchstone.gui.cache import LoadedRun
from touchstone.gui.judge_evidence import evidence, prompt_replies
from touchstone.limits import DecimalText
from touchstone.results import (
    EvalResponse,
    Verdict,
    VerdictKey,
    cell_key,
    cut_at_cap,
    unscored_label,
)

SortKey = Literal[
    "model", "variant", "prompt_id", "category", "repeat", "score", "red_flag", "judge_model"
]
# The fields of ``VerdictQuery`` that select verdicts (the rest sort and page them).
FILTER_FIELDS = (
    "model",
    "variant",
    "category",
    "prompt",
    "min",
    "max",
    "red_flag",
    "unscored",
    "disputed",
    "truncated",
    "q",
    "answer",
)
PAGE_SIZE = 50
MAX_PAGE = 500
# The characters of an answer a row of the table shows (the whole one opens on a click).
ANSWER_SHOWN = 160
# What a yes/no filter takes: the page's German words, and the English the API took before.
_YES_NO = {"ja": True, "nein": False, "true": True, "false": False, "": None}


def _yes_no(value: object) -> object:
    """``?red_flag=ja`` as True; a word a yes/no filter does not take is refused by name
    (never dropped: a filter silently ignored shows every verdict as if selected)."""
    if not isinstance(value, str):
        return value
    word = value.strip().casefold()
    if word not in _YES_NO:
        raise ValueError(
            f"„{value}“ ist kein erlaubter Wert; erlaubt sind „ja“ und „nein“ (oder leer)"
        )
    return _YES_NO[word]


YesNo = Annotated[bool | None, BeforeValidator(_yes_no)]


class VerdictQuery(BaseModel):
    """Filters of the verdict table, as the page keeps them in its URL."""

    model_config = ConfigDict(extra="forbid")

    model: str = ""
    variant: str = ""
    category: str = ""
    prompt: str = ""
    # Decimals too: a user asks for "from 2,5" (or 2.5) on a 0-5 scale.
    min: Annotated[float | None, DecimalText] = Field(default=None, allow_inf_nan=False)
    max: Annotated[float | None, DecimalText] = Field(default=None, allow_inf_nan=False)
    red_flag: YesNo = None
    unscored: YesNo = None
    # Cells a jury's members disagree on by 40 % of the scale or more ("strittig", design.md §18).
    disputed: YesNo = None
    # Answers cut at max_tokens (finish_reason "length", design.md §13).
    truncated: YesNo = None
    q: str = Field(default="", max_length=200)
    # Text the answer holds (case-insensitive), beside ``q`` over the judge's words.
    answer: str = Field(default="", max_length=200)
    sort: SortKey = "model"
    order: Literal["asc", "desc"] = "asc"
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=PAGE_SIZE, ge=1, le=MAX_PAGE)

    def score_problem(self, low: int, high: int) -> str:
        """Why the score bounds can keep no verdict on the scale ``low``-``high``, or ""."""

        def shown(value: float) -> str:
            return f"{value:g}".replace(".", ",")

        for name, value in (("von", self.min), ("bis", self.max)):
            if value is not None and not low <= value <= high:
                return (
                    f"Wertung „{name}“ ({shown(value)}) liegt außerhalb der Skala "
                    f"{low}–{high} dieses Pakets."
                )
        if self.min is not None and self.max is not None and self.min > self.max:
            return (
                f"Wertung „von“ ({shown(self.min)}) ist größer als „bis“ ({shown(self.max)}): "
                "so passt keine Bewertung."
            )
        return ""

    def keeps(self, v: Verdict) -> bool:
        if self.model and v.model != self.model:
            return False
        if self.variant and v.variant != self.variant:
            return False
        if self.category and v.category != self.category:
            return False
        if self.prompt and v.prompt_id != self.prompt:
            return False
        if self.unscored is not None and v.unscored != self.unscored:
            return False
        if self.red_flag is not None and v.red_flag != self.red_flag:
            return False
        if self.min is not None and (v.unscored or v.score < self.min):
            return False
        if self.max is not None and (v.unscored or v.score > self.max):
            return False
        if self.q:
            needle = self.q.casefold()
            haystack = f"{v.rationale} {v.prompt_id} {v.model} {v.unscored_reason}".casefold()
            return needle in haystack
        return True


def page_filters(params: Mapping[str, str]) -> VerdictQuery:
    """The table's filters a run page's URL holds (``/runs/x?red_flag=ja``), checked as the API
    checks them: the page refuses a filter it cannot show instead of dropping it. Raises
    pydantic's ``ValidationError``."""
    return VerdictQuery.model_validate({k: v for k, v in params.items() if k in FILTER_FIELDS})


def verdict_item(v: Verdict, answer: EvalResponse | None = None) -> dict[str, Any]:
    """A verdict as the API gives it; with ``answer``, its answer shortened to
    ``ANSWER_SHOWN`` characters (a failed call's error in its place)."""
    shown: dict[str, Any] = {}
    if answer is not None:
        text = answer.response_text if answer.ok else answer.error
        cut = len(text) > ANSWER_SHOWN
        shown = {
            "answer": text[:ANSWER_SHOWN] + "…" if cut else text,
            "answer_cut": cut,
            "answer_ok": answer.ok,
            "truncated": cut_at_cap(answer),
        }
    return {
        **shown,
        "model": v.model,
        "variant": v.variant,
        "prompt_id": v.prompt_id,
        "category": v.category,
        "repeat": v.repeat,
        "score": None if v.unscored else v.score,
        "red_flag": v.red_flag,
        "safety_critical": v.safety_critical,
        "unscored": v.unscored,
        "unscored_reason": v.unscored_reason,
        "unscored_label": unscored_label(v),
        "rationale": v.rationale,
        "judge_model": v.judge_model,
        "cached": v.cached,
    }


def selected_verdicts(run: LoadedRun, query: VerdictQuery) -> list[Verdict]:
    """Every verdict the filters keep, sorted as the table shows them (ties in a stable,
    natural order): the table's pages and its CSV export."""
    kept = [v for v in run.view.verdicts if query.keeps(v)]
    if query.answer:
        needle, answers = query.answer.casefold(), answers_of(run)
        kept = [
            v
            for v in kept
            if v.key in answers and needle in answers[v.key].response_text.casefold()
        ]
    if query.truncated is not None:
        answers = answers_of(run)
        kept = [
            v for v in kept if (v.key in answers and cut_at_cap(answers[v.key])) == query.truncated
        ]
    if query.disputed is not None:
        jury = run.card.jury_card
        disputed = set(jury.disputed) if jury is not None else set()
        kept = [v for v in kept if (cell_key(v) in disputed) == query.disputed]
    natural = sorted(kept, key=lambda v: (v.model, v.variant, v.prompt_id, v.repeat))
    if query.sort == "score":
        # Unscored cells sort below every score.
        natural.sort(key=lambda v: -1 if v.unscored else v.score, reverse=query.order == "desc")
    else:
        key = query.sort
        natural.sort(key=lambda v: getattr(v, key), reverse=query.order == "desc")
    return natural


def verdict_page(run: LoadedRun, query: VerdictQuery) -> dict[str, Any]:
    """One page of the verdicts the filters keep, sorted."""
    kept = selected_verdicts(run, query)
    page = kept[query.offset : query.offset + query.limit]
    answers = answers_of(run)
    return {
        "total": len(kept),
        "offset": query.offset,
        "limit": query.limit,
        "items": [verdict_item(v, answers.get(v.key)) for v in page],
    }


def answers_of(run: LoadedRun) -> dict[VerdictKey, EvalResponse]:
    """The run's answers by cell: one pass over them per request (a search over 100,000
    answers reads each once)."""
    return {r.key: r for r in run.view.responses}


def answer_item(answer: EvalResponse, verdict: Verdict | None) -> dict[str, Any]:
    return {
        "model": answer.model,
        "variant": answer.variant,
        "repeat": answer.repeat,
        "answer": answer.response_text,
        "ok": answer.ok,
        "error": answer.error,
        "reasoning": answer.reasoning,
        "reasoning_chars": answer.reasoning_chars,
        "latency_s": answer.latency_s,
        "completion_tokens": answer.completion_tokens,
        "truncated": cut_at_cap(answer),
        "verdict": None if verdict is None else verdict_item(verdict),
    }


def prompt_detail(run: LoadedRun, prompt_id: str) -> dict[str, Any] | None:
    """A prompt with its rubric and, per model, variant and repeat, answer and verdict."""
    pack = run.view.pack
    if not pack.has_prompt(prompt_id):
        return None
    prompt = pack.prompt(prompt_id)
    verdicts = {v.key: v for v in run.view.verdicts if v.prompt_id == prompt_id}
    answers = sorted(
        (r for r in run.view.responses if r.prompt_id == prompt_id),
        key=lambda r: (r.model, r.variant, r.repeat),
    )
    # The neighbours in the pack's order (the run page's order of prompts).
    ids = [p.id for _, p in pack.all_prompts()]
    at = ids.index(prompt_id)
    shown_variants = sorted({a.variant for a in answers})
    replies, replies_problem = prompt_replies(run, prompt_id)
    return {
        "previous": ids[at - 1] if at > 0 else None,
        "next": ids[at + 1] if at + 1 < len(ids) else None,
        # What each variant's model was told (its system prompt, "" for none): the answers
        # are read against it. A variant the pack no longer has is told as such (None).
        "variants": {name: pack.variants.get(name) for name in shown_variants},
        "prompt": {
            "id": prompt.id,
            "category": prompt.category,
            "category_title": pack.category_title(prompt.category),
            "text": prompt.text,
            "expectations": list(prompt.expectations),
            "red_flags": list(prompt.red_flags),
            "safety_critical": prompt.safety_critical,
        },
        "answers": [
            {
                **answer_item(a, verdicts.get(a.key)),
                **evidence(a, verdicts.get(a.key), prompt, run, replies.get(a.key, {})),
            }
            for a in answers
        ],
        # A damaged judge-replies.jsonl: said where the replies go, the page shown.
        "replies_problem": replies_problem,
    }
