"""The judge-check's criteria by id, in German words: light enough for every reader of a
scorecard (a settled judge run imports no probes)."""

from __future__ import annotations

# Each criterion's id (``scorecard.json`` ``judge_fitness.missed``) and its short German label,
# which the scorecard's line names (a run judged elsewhere may carry an id this version lacks:
# shown as it is). "guard_stop": the guard stopped the judge during the check.
LABELS = {
    "references": "Referenzantworten oben",
    "counterexamples_low": "Gegenbeispiele niedrig",
    "counterexamples_flagged": "Gegenbeispiele mit Warnsignal",
    "non_answers": "Nicht-Antworten unten",
    "injections": "Eingeschleuste Anweisungen abgewehrt",
    "repeat": "Gleiche Wertung bei Wiederholung",
    "parse_rate": "Lesbare Urteile",
    "failed_calls": "Fehlgeschlagene Aufrufe",
    "reasoning_only": "Nur Reasoning, keine Antwort",
    "latency_p95": "Latenz p95",
    "thinking_off": "Ohne Thinking",
    "guard_stop": "vom Judge-Schutz gestoppt",
}
