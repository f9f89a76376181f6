"""`--help` describes every option in German, with its default (issue 23 §6, design.md §22)."""

from collections.abc import Iterator

import pytest
import typer

from tests.unit.test_german_output import _help
from touchstone.cli.app import app
from touchstone.cli.helptext import germanize

COMMANDS = [
    ("run",),
    ("judge",),
    ("report",),
    ("show",),
    ("compare",),
    ("judge-check",),
    ("gui",),
    ("sim",),
    ("demo",),
    ("cache", "stats"),
    ("cache", "clear"),
]


def options() -> Iterator[tuple[str, object]]:
    root = germanize(typer.main.get_command(app))
    stack = [("", root)]
    while stack:
        path, command = stack.pop()
        for param in command.params:
            yield f"{path} {param.name}", param
        for name, sub in getattr(command, "commands", {}).items():
            stack.append((f"{path} {name}", sub))


@pytest.mark.parametrize("command", COMMANDS)
def test_usage_shows_no_placeholder_braces(
    command: tuple[str, ...], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _help(capsys, monkeypatch, *command)
    usage = next(line for line in text.splitlines() if "Aufruf:" in line)
    assert "{" not in usage and "}" not in usage, usage


def test_compare_help_says_when_each_exit_code_comes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = " ".join(_help(capsys, monkeypatch, "compare").replace("│", " ").split())
    assert "Aufruf: touchstone compare [OPTIONEN] NEU BASELINE" in text
    # Without a gate a worse row is not exit 1 (design.md §19): the help must not claim it is.
    assert "Exit 0 bestanden, 1 schlechter" not in text
    assert "Ohne --fail-on und --margin: Exit 0, sobald der Vergleich gelungen ist" in text
    assert "--fail-on schlechter (oder worse): Exit 1, wenn eine Zeile signifikant" in text


def test_every_option_is_described_with_its_default() -> None:
    missing = []
    for name, param in options():
        help_text = getattr(param, "help", None) or ""
        if getattr(param, "param_type_name", "") == "argument":
            continue  # arguments have no default: their help names what they are
        if getattr(param, "is_flag", False) or getattr(param, "required", False):
            continue  # a flag is off unless given; a required option shows [Pflicht]
        default = getattr(param, "default", None)
        shown = getattr(param, "show_default", None) is not False and default not in (None, (), [])
        if not help_text or not (shown or "Standard:" in help_text):
            missing.append((name, help_text))
    assert not missing, missing


def test_a_default_has_one_word_standard() -> None:
    # "[Standard: 300]" from click beside "(Vorgabe: …)" in the help text read as two things.
    mixed = [(name, p.help) for name, p in options() if "Vorgabe" in (getattr(p, "help", "") or "")]
    assert not mixed, mixed


def test_the_base_url_names_its_default(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = " ".join(_help(capsys, monkeypatch, "run").replace("│", " ").split())
    assert "OPENAI_BASE_URL" in text and "OPENAI_API_KEY" in text
    # Defaults are German numbers too.
    assert "[Standard: 300]" in text and "[Standard: 4]" in text and ".0]" not in text


# -- prose at any width, and whole in a pipe (issue 23 §1) ----------------------------------

PROSE = (
    "Judge abgebrochen: 3 Judge-Aufrufe in Folge fehlgeschlagen; letzter Fehler: Frist "
    "überschritten („keine vollständige Antwort innerhalb der Frist von 0,50\u00a0s“). Wählen "
    "Sie ein Judge-Modell ohne Thinking/Reasoning, oder schalten Sie das Denken per "
    "`extra_body` in der Judge-Konfiguration ab. Bereits gespeicherte Bewertungen bleiben "
    "erhalten; ein erneutes `touchstone judge` bewertet die 108 offenen Zellen in "
    "runs/buero-lokal-mit-einem-recht-langen-namen-2026-12-01."
)


@pytest.mark.parametrize("width", [80, 100, 120, 200])
def test_prose_wraps_at_words_at_every_width(width: int) -> None:
    import io

    from touchstone.cli import ui
    from touchstone.plain import plain

    buffer = io.StringIO()
    console = ui.console_for(terminal=True, file=buffer, width=width)
    console.print(plain(PROSE))
    lines = buffer.getvalue().splitlines()
    assert all(len(line) <= width for line in lines)
    words = set(PROSE.split())
    assert all(word in words for line in lines for word in line.split()), lines


def test_prose_in_a_pipe_is_one_line_whatever_its_length() -> None:
    import io

    from touchstone.cli import ui
    from touchstone.plain import plain

    buffer = io.StringIO()
    ui.console_for(terminal=False, file=buffer).print(plain(PROSE + " " + PROSE))
    assert buffer.getvalue() == PROSE + " " + PROSE + "\n"
