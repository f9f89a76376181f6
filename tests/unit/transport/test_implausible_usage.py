"""The budget's rule for usage too low to be true (issue 35, ``transport/budget.py``)."""

from __future__ import annotations

from touchstone.transport.budget import Budget, Price

# One unit per token, input and output alike.
PER_TOKEN = Price(1_000_000.0, 1_000_000.0)


def settled(prompt: int, completion: int, sent: int, received: int) -> Budget:
    """A budget after one call of ``sent`` characters that brought ``received`` back and
    reported ``prompt`` and ``completion`` tokens."""
    budget = Budget(1e9, PER_TOKEN, max_output_tokens=1000)
    assert budget.admit("a", sent, in_flight=False)
    budget.settle("a", prompt_tokens=prompt, completion_tokens=completion, received_chars=received)
    return budget


def test_a_call_that_brought_content_is_never_free() -> None:
    # 0/0 for 400 characters sent and 800 received: characters / 4 of both, 100 + 200.
    assert settled(0, 0, 400, 800).spent == 300
    # Too few on one side only: that side counts its estimate, the other what was reported.
    assert settled(120, 0, 400, 800).spent == 120 + 200
    assert settled(0, 250, 400, 800).spent == 100 + 250
    # Reasoning counts as received: a reply of reasoning only is not free either.
    assert settled(100, 1, 400, 80).spent == 100 + 20
    assert settled(0, 0, 400, 800).misreported == 1


def test_a_plausible_report_is_what_counts() -> None:
    # characters / 8 is still a count a tokenizer makes; so is an empty reply's 0.
    honest = settled(50, 100, 400, 800)
    assert honest.spent == 150 and honest.misreported == 0 and honest.measured == 1
    assert settled(50, 0, 400, 0).spent == 50
    assert "wirken falsch" not in honest.summary_de()


def test_the_line_says_once_how_many_calls_looked_wrong() -> None:
    budget = Budget(1e9, PER_TOKEN, max_output_tokens=1000)
    for key in "abc":
        budget.admit(key, 40, in_flight=False)
        budget.settle(key, prompt_tokens=0, completion_tokens=0, received_chars=40)
    summary = budget.summary_de()
    assert summary.count("Die Verbrauchsangaben des Servers wirken falsch: 3 Aufrufe meldeten") == 1
    assert "gespeichert bleibt, was der Server meldete" in summary
    one = settled(0, 0, 400, 800).summary_de()
    assert "wirken falsch: 1 Aufruf meldete weniger Tokens" in one and "und zählt mindestens" in one
