"""The LLM judge and its runaway guard (design.md §6, §8): the public API.

config.py    JudgeConfig, JudgeEndpoint, load_judge_config (judge.yaml)
backend.py   the judge in the call seam: OpenAIJudgeBackend, ask_judge, judge_caller
rubric.py    the judge prompt for one answer
replies.py   parsers for the judge's replies
cells.py     the per-cell path: score_response, CellTask, JUDGE_ERROR_RATIONALE
policy.py    the breaker: which failures stop the judge
passes.py    judge_responses, judge_bundle (through the engine)
holistic.py  score_dimensions and the holistic pass
health.py    JudgeHealth, the end-of-run summary
cache.py     the verdict cache
plan.py      which cells a judge run judges (open, stale, re-judged)
session.py   one judge invocation: call, identity, guard settings, health
advice.py    what to do when the judge stopped, by cause

Judge quality (judge-check's probes and fitness card, agreement, human spot checks) lives
in touchstone.quality.
"""

from touchstone.errors import JudgeAborted, JudgeCallError
from touchstone.judge.backend import JudgeBackend, OpenAIJudgeBackend
from touchstone.judge.cells import JUDGE_ERROR_RATIONALE, score_response
from touchstone.judge.config import JudgeConfig, JudgeEndpoint, load_judge_config
from touchstone.judge.holistic import dimensions_user_prompt, score_dimensions
from touchstone.judge.passes import judge_bundle, judge_responses
from touchstone.judge.plan import Rejudge
from touchstone.judge.replies import parse_dimensions_reply, parse_verdict_reply
from touchstone.judge.rubric import (
    ANSWER_END,
    ANSWER_START,
    judge_system_prompt,
    judge_user_prompt,
)

__all__ = [
    "ANSWER_END",
    "ANSWER_START",
    "JUDGE_ERROR_RATIONALE",
    "JudgeAborted",
    "JudgeBackend",
    "JudgeCallError",
    "JudgeConfig",
    "JudgeEndpoint",
    "OpenAIJudgeBackend",
    "Rejudge",
    "dimensions_user_prompt",
    "judge_bundle",
    "judge_responses",
    "judge_system_prompt",
    "judge_user_prompt",
    "load_judge_config",
    "parse_dimensions_reply",
    "parse_verdict_reply",
    "score_dimensions",
    "score_response",
]
