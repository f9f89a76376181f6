"""One word per thing in what a user reads (issue 36, design.md "One word per thing"): a run
is a "Run", never a "Lauf"; the cache of verdicts is the "Bewertungs-Cache", never the
"Verdict-Cache". Checked over everything that carries user text: the package's sources and
templates, the German user pages of docs/, README.md and judge.example.yaml."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Developer pages (English) name the old words where they explain the rule.
DEVELOPER_DOCS = {"design.md", "performance.md", "benchmarks.md"}
OLD_WORDS = re.compile(r"\b(Lauf|Laufs|Laufes|Läufe|Läufen|Laufgröße)\b|Verdict-Cache")


def user_text_files() -> list[Path]:
    package = ROOT / "touchstone"
    sources = [
        p for p in package.rglob("*") if p.suffix in {".py", ".html", ".js", ".css", ".yaml"}
    ]
    docs = [p for p in (ROOT / "docs").glob("*.md") if p.name not in DEVELOPER_DOCS]
    return sources + docs + [ROOT / "README.md", ROOT / "judge.example.yaml"]


def test_user_text_uses_one_word_per_thing() -> None:
    files = user_text_files()
    assert len(files) > 100  # the package and the docs were found
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OLD_WORDS.search(line)
    ]
    assert not found, "\n".join(found)
