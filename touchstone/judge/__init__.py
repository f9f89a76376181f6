"""The LLM judge and its runaway guard (design.md §6, §8): its modules.

config.py    JudgeConfig, JudgeEndpoint, load_judge_config (judge.yaml)
backend.py   the judge in the call seam: OpenAIJudgeBackend, ask_judge, judge_caller
rubric.py    the judge prompt for one answer
replies.py   parsers for the judge's replies
cells.py     the per-cell path: score_response, CellTask, JUDGE_ERROR_RATIONALE
policy.py    the breaker: which failures stop the judge
passes.py    judge_responses, judge_bundle (through the engine); run_result.py: what a run did
holistic.py  score_dimensions and the holistic pass
health.py    JudgeHealth, the end-of-run summary
cache.py     the verdict cache
plan.py      which cells a judge run judges (open, stale, re-judged)
session.py   one judge invocation: call, identity, guard settings, health
advice.py    what to do when the judge stopped, by cause

Judge quality (judge-check's probes and fitness card, agreement, human spot checks) lives
in touchstone.quality.

The package re-exports nothing: import from the module that defines a name, so that a
command loads only what it uses (a settled resume imports no call machinery).
"""
