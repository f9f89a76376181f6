"""What a German reader sees (DESIGN §22): numbers with a decimal comma in the report and the
GUI, ``verdicts.csv`` for a German Excel, counted words, error kinds in German."""

from __future__ import annotations

import csv
import io
import re

from touchstone.export import verdict_csv_lines
from touchstone.results import Verdict

from .conftest import make_response

# "4.85" or "0.67" between non-digits: a number in English notation (a version "1.2.3" or an
# IP address would continue with another point and digit).
ENGLISH_DECIMAL = re.compile(r"(?<![\d.])\d+\.\d+(?![\d.])")


def _verdict(prompt_id: str, score: int, **kw: object) -> Verdict:
    return Verdict(
        model=str(kw.pop("model", "m")),
        variant="none",
        prompt_id=prompt_id,
        repeat=1,
        category="R",
        score=score,
        red_flag=bool(kw.pop("red_flag", False)),
        rationale=str(kw.pop("rationale", "gut")),
        judge_model="j",
        **kw,
    )  # type: ignore[arg-type]


def _csv_rows(data: bytes) -> list[dict[str, str]]:
    text = data.decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text, newline=""), delimiter=";"))


def test_verdicts_csv_opens_in_a_german_excel() -> None:
    responses = [make_response("R1", text="Antwort; mit Semikolon"), make_response("R2")]
    responses[0].latency_s = 1.25
    responses[0].completion_tokens = 6224
    timed_out = make_response("R3", ok=False, error="keine Antwort innerhalb der Frist")
    verdicts = [
        _verdict("R1", 4, red_flag=True),
        _verdict("R2", 2),
        _verdict(
            "R3",
            0,
            unscored=True,
            unscored_reason="model_error",
            error_kind="timeout",
        ),
    ]
    data = "".join(verdict_csv_lines(verdicts, [*responses, timed_out])).encode("utf-8")
    assert data.startswith(b"\xef\xbb\xbf")
    header = data.decode("utf-8-sig").splitlines()[0]
    assert header.count(";") >= 10 and "," not in header
    rows = _csv_rows(data)
    first = rows[0]
    assert first["Modell"] == "m" and first["Prompt"] == "R1"
    assert first["Wertung"] == "4" and first["Warnsignal"] == "ja"
    assert rows[1]["Warnsignal"] == "nein" and rows[1]["unbewertet"] == "nein"
    assert first["Antwort"] == "Antwort; mit Semikolon"
    assert first["Latenz (s)"] == "1,25" and first["Ausgabe-Tokens"] == "6224"
    third = rows[2]
    assert third["unbewertet"] == "ja" and third["Wertung"] == ""
    assert "Frist überschritten" in third["Grund"] and "timeout" not in third["Grund"]


def test_error_kinds_have_german_labels_for_every_kind() -> None:
    from touchstone.errors import ERROR_KINDS, kind_label

    for kind in ERROR_KINDS:
        label = kind_label(kind)
        assert label and label != kind and "_" not in label, kind
    assert kind_label("timeout") == "Frist überschritten"
    assert kind_label("unparseable") == "Judge-Ausgabe unlesbar"
