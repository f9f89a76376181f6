"""The runnable examples of README.md and docs/*.md, run against the simulator.

The convention every page follows (docs/design.md, "Runnable examples"): a fenced block with
the info string ``console``; a line starting with ``$ `` is a command (a trailing `` \\``
continues it on the next line); the lines after it, up to the next command, are an excerpt of
what it prints, in order; a line ``…`` stands for omitted lines, and inside a line ``…`` stands
for a varying part; a line ``[exit N]`` after the output is the expected exit code (default 0).

Commands start with ``uv run touchstone`` (run here as ``python -m touchstone`` with this
environment's interpreter) or ``uv run python``; anything else runs in bash, as a reader would
type it. The simulator's URL is written ``http://127.0.0.1:8765/v1``, the port ``touchstone
sim`` listens on by default; the test starts the simulator on a free port and substitutes it,
in the commands and in the expected output. The blocks of one page run in order in one fresh
temporary directory that holds a copy of ``packs/`` and ``judge.example.yaml``, with a private
verdict cache, no ``COLUMNS`` and no terminal (stdout and stderr together, as a terminal shows
them). Lines are compared after removing box-drawing characters and collapsing whitespace, so
table padding never matters.

Every relative link of those pages must lead to a file of the repository and, with an anchor,
to a heading of that page (GitHub's anchors).

To see what a page's commands print today: ``uv run python -m tests.cli.test_docs_examples PAGE``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from touchstone.sim import SimServer

ROOT = Path(__file__).resolve().parents[2]
DOC_URL = "127.0.0.1:8765"
COMMAND_TIMEOUT_S = 120
# Commands that serve until stopped: a page shows them, the test cannot wait for them.
SERVING = ("uv run touchstone sim", "uv run touchstone gui")

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
_EXIT = re.compile(r"^\[exit (\d+)\]$")
# U+2500-U+257F box drawing, U+2580-U+259F block elements: rich's table borders.
_BOX = re.compile(r"[\u2500-\u259f]")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Step:
    """One command of a page with what it must print and how it must end."""

    page: str
    line: int  # 1-based line of the command in the page
    command: str
    expected: tuple[str, ...]
    exit_code: int


class PageError(ValueError):
    """A console block that does not follow the convention."""


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def parse_page(text: str, page: str) -> list[Step]:
    """Every command of the page's console blocks, in page order."""
    steps: list[Step] = []
    fence: str | None = None
    in_console = False
    indent = 0
    command: list[str] = []
    start = 0
    output: list[str] = []
    exit_code: int | None = None

    def finish() -> None:
        nonlocal command, output, exit_code
        if command:
            steps.append(Step(page, start, " ".join(command), tuple(output), exit_code or 0))
        command, output, exit_code = [], [], None

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if fence is None:
            match = _FENCE.match(line)
            if match:
                fence, in_console = match.group(2), match.group(3) == "console"
                indent = len(match.group(1))
            continue
        if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
            if in_console:
                finish()
            fence = None
            continue
        if not in_console:
            continue
        # A block inside a list item is indented with it: its lines lose that indentation.
        line = line[min(indent, len(line) - len(line.lstrip(" "))) :]
        if command and command[-1].endswith("\\"):
            command[-1] = command[-1][:-1].rstrip()
            command.append(line.strip())
            continue
        if line.startswith("$ "):
            finish()
            command, start = [line[2:].strip()], number
            continue
        if not command:
            if line.strip():
                raise PageError(f"{page}:{number}: output without a command before it: {line!r}")
            continue
        code = _EXIT.match(line.strip())
        if code:
            exit_code = int(code.group(1))
        elif exit_code is not None and line.strip():
            raise PageError(f"{page}:{number}: only a new command may follow [exit N]")
        elif line.strip():
            output.append(line)
    if fence is not None:
        raise PageError(f"{page}: a code block is never closed")
    return steps


def normalise(line: str) -> str:
    return _SPACE.sub(" ", _BOX.sub(" ", line)).strip()


def _pattern(expected: str) -> re.Pattern[str]:
    parts = [re.escape(part) for part in normalise(expected).split("…")]
    return re.compile(".*?".join(parts))


def first_missing(expected: tuple[str, ...], printed: str) -> str | None:
    """The first expected line not found in order in what was printed, or None."""
    lines = [normalise(line) for line in printed.splitlines()]
    at = 0
    for wanted in expected:
        if normalise(wanted) == "…":
            continue
        pattern = _pattern(wanted)
        while at < len(lines) and not pattern.fullmatch(lines[at]):
            at += 1
        if at == len(lines):
            return wanted
        at += 1
    return None


def shell_command(command: str, address: str) -> str:
    """The command as this test runs it: our interpreter, the simulator's real port."""
    command = command.replace(DOC_URL, address)
    python = shlex_quote(sys.executable)
    if command == "uv run touchstone" or command.startswith("uv run touchstone "):
        return f"{python} -m touchstone" + command[len("uv run touchstone") :]
    if command == "uv run python" or command.startswith("uv run python "):
        return python + command[len("uv run python") :]
    return command


def shlex_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def prepare(workdir: Path) -> None:
    """What a reader has in a checkout: the packs and the example judge config."""
    shutil.copytree(ROOT / "packs", workdir / "packs")
    shutil.copy2(ROOT / "judge.example.yaml", workdir / "judge.example.yaml")


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.pop("TOUCHSTONE_COMMAND", None)
    # No COLUMNS: a pipe keeps each message on one line, as the pages show it (an explicit
    # COLUMNS would wrap it at that width). As `uv run` starts it, hints name `uv run touchstone`.
    env.pop("COLUMNS", None)
    env.update(LINES="40", PYTHONPATH=str(ROOT), UV="uv")
    return env


def execute(step: Step, address: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    if step.command.startswith(SERVING):
        raise PageError(
            f"{step.page}:{step.line}: {step.command!r} serves until stopped; the examples "
            "use the test's simulator at http://127.0.0.1:8765/v1"
        )
    return subprocess.run(
        ["bash", "-c", shell_command(step.command, address)],
        cwd=workdir,
        env=environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
    )


def check(step: Step, address: str, workdir: Path) -> None:
    result = execute(step, address, workdir)
    printed = result.stdout.replace(address, DOC_URL)
    missing = first_missing(step.expected, printed)
    where = f"{step.page}, line {step.line}: $ {step.command}"
    assert missing is None, (
        f"{where}\nfirst line missing from the output (or out of order): {missing!r}\n"
        f"output:\n{printed}"
    )
    assert result.returncode == step.exit_code, (
        f"{where}\nexit {result.returncode}, expected {step.exit_code}\noutput:\n{printed}"
    )


@pytest.fixture(scope="module")
def doc_sim() -> Iterator[SimServer]:
    with SimServer() as server:
        yield server


def _page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", pages(), ids=_page_id)
def test_the_page_s_examples_print_what_it_says(
    path: Path, doc_sim: SimServer, tmp_path: Path
) -> None:
    steps = parse_page(path.read_text("utf-8"), _page_id(path))
    if not steps:
        return  # a page without a console block has nothing to run
    prepare(tmp_path)
    address = f"127.0.0.1:{doc_sim.port}"
    for step in steps:
        check(step, address, tmp_path)


SAMPLE = """\
# Beispiel

Text.

```console
$ uv run touchstone --version
touchstone …
$ uv run touchstone pack check packs/fehlt.yaml
…
…fehlt.yaml…
[exit 2]
```

```bash
uv run touchstone gui   # not a console block: never run
```

```console
$ uv run python -c "print('a  │ b'); \\
  print('c')"
a │ b
c
```

- in a list:

  ```console
  $ uv run python -c "print('  eingerückt')"
  eingerückt
  ```
"""


def test_a_sample_page_parses_into_its_commands() -> None:
    steps = parse_page(SAMPLE, "sample.md")
    assert [(s.line, s.command, s.exit_code) for s in steps] == [
        (6, "uv run touchstone --version", 0),
        (8, "uv run touchstone pack check packs/fehlt.yaml", 2),
        (19, "uv run python -c \"print('a  │ b'); print('c')\"", 0),
        (28, "uv run python -c \"print('  eingerückt')\"", 0),
    ]
    assert steps[0].expected == ("touchstone …",)
    assert steps[1].expected == ("…", "…fehlt.yaml…")


def test_the_matcher_takes_lines_in_order_with_placeholders() -> None:
    printed = "┃ Modell ┃  Mittel ┃\n│ sim-gut │ 4,70 │\nScorecard fertig in 1,2 s\n"
    assert first_missing(("Modell Mittel", "sim-gut │ 4,70"), printed) is None
    assert first_missing(("…", "Scorecard fertig in … s"), printed) is None
    assert first_missing(("sim-gut 4,70", "Modell Mittel"), printed) == "Modell Mittel"
    assert first_missing(("sim-gut 4,7",), printed) == "sim-gut 4,7"  # whole lines only


@pytest.mark.parametrize(
    ("page", "message"),
    [
        ("```console\nfrei\n```\n", "output without a command"),
        ("```console\n$ x\n[exit 1]\nmehr\n```\n", r"only a new command may follow \[exit N\]"),
        ("```console\n$ x\n", "never closed"),
    ],
)
def test_a_malformed_block_names_page_and_line(page: str, message: str) -> None:
    with pytest.raises(PageError, match=message):
        parse_page(page, "kaputt.md")


def test_a_sample_page_runs_and_a_wrong_line_is_named(doc_sim: SimServer, tmp_path: Path) -> None:
    address = f"127.0.0.1:{doc_sim.port}"
    prepare(tmp_path)
    steps = parse_page(SAMPLE, "sample.md")
    for step in steps:
        check(step, address, tmp_path)
    wrong = Step("sample.md", 6, steps[0].command, ("gibt es nicht",), 0)
    with pytest.raises(AssertionError, match=r"sample.md, line 6.*\n.*'gibt es nicht'"):
        check(wrong, address, tmp_path)
    with pytest.raises(AssertionError, match="exit 2, expected 0"):
        check(Step("sample.md", 8, steps[1].command, (), 0), address, tmp_path)


QUICKSTART = """\
```console
$ uv run touchstone demo --runs-dir runs
…
1. Run: sim-gut, sim-mittel, sim-schwach beantworten buero.yaml
…
Judge-Check: sim-gullible (Paket buero, 18 Proben)
…
Urteil: ungeeignet (… Kriterien verfehlt)
…
Judge-Check: sim-judge (Paket buero, 18 Proben)
…
Urteil: geeignet
…
Judge abgebrochen: 3 Judge-Aufrufe in Folge fehlgeschlagen; …
…
Scorecard
…
Urteil: Judge weicht ab: …
…
7. Bericht: runs/demo-buero-…/report.html
```
"""


def test_the_readme_quickstart_demo_runs_as_a_console_example(
    doc_sim: SimServer, tmp_path: Path
) -> None:
    """README's Quickstart (``uv run touchstone demo``) written in the convention."""
    prepare(tmp_path)
    address = f"127.0.0.1:{doc_sim.port}"
    (step,) = parse_page(QUICKSTART, "README.md (Quickstart)")
    check(step, address, tmp_path)


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings (lower case, punctuation dropped, spaces
    to hyphens, a repeated one numbered)."""
    seen: dict[str, int] = {}
    fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fence = not fence
        heading = None if fence else _HEADING.match(line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(2).lower().replace("`", ""))
            slug = slug.replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            if count:
                seen[f"{slug}-{count}"] = 1
    return set(seen)


def broken_links(path: Path) -> list[str]:
    """Links from ``path`` to a file of the repository or an anchor that does not exist."""
    problems = []
    fence = False
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if _FENCE.match(line):
            fence = not fence
        for target in [] if fence else _LINK.findall(line):
            if "://" in target or target.startswith("mailto:"):
                continue
            name, _, anchor = target.partition("#")
            linked = (path.parent / name).resolve() if name else path
            where = f"{path.relative_to(ROOT)}:{number}"
            if not linked.exists():
                problems.append(f"{where}: no file {name}")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text()):
                problems.append(f"{where}: no heading #{anchor}")
    return problems


@pytest.mark.parametrize("path", pages(), ids=_page_id)
def test_the_page_s_links_lead_somewhere(path: Path) -> None:
    assert broken_links(path) == []


def test_anchors_follow_github() -> None:
    page = "# A\n## What 95 % refers to\n## Compare, the gate and cost\n```\n# no\n```\n## A\n"
    assert anchors(page) == {"a", "a-1", "what-95--refers-to", "compare-the-gate-and-cost"}


def main(argv: list[str]) -> int:
    """Run a page's commands against a fresh simulator and print what each printed."""
    import tempfile

    (page,) = argv
    path = Path(page).resolve()
    with SimServer() as server, tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        prepare(workdir)
        os.environ["TOUCHSTONE_CACHE_DIR"] = str(workdir / ".cache")
        address = f"127.0.0.1:{server.port}"
        for step in parse_page(path.read_text("utf-8"), page):
            result = execute(step, address, workdir)
            print(f"$ {step.command}")
            print(result.stdout.replace(address, DOC_URL), end="")
            if result.returncode:
                print(f"[exit {result.returncode}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
