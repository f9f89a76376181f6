"""Hostile input and failing machines (design.md §15, issue 12): the CLI as a user runs it.

Every case: exit 2 (1 where the work itself stopped), a short German message naming the file
or option and the problem, no traceback, bounded time, and nothing persisted changed.
"""

import contextlib
import json
import os
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from tests.cli.test_cli import judge_config
from tests.conftest import REPO, TINY_PACK, coarse, run_args, run_cli, run_on_sim
from touchstone.pack import Pack, load_pack
from touchstone.sim import SimServer
from touchstone.stages.run.run import execute_run
from touchstone.store import JUDGEMENTS, MANIFEST, REPORTS, RESPONSES, RunDir

# Messages quote at most ~200 characters of a value, so a whole message stays short.
MAX_MESSAGE = 1500


def assert_bad_input(result: subprocess.CompletedProcess[str], *words: str, code: int = 2) -> None:
    assert result.returncode == code, result.stderr[-3000:]
    assert "Traceback" not in result.stderr + result.stdout
    assert len(result.stderr) < MAX_MESSAGE, result.stderr[:3000]
    for word in words:
        assert word in result.stderr, (word, result.stderr)


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and p.name != ".lock.holder"
    }


@pytest.fixture
def one_model_run(sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> Path:
    out = tmp_path / "runs" / "tiny"
    run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut"], out=out)
    return out


# -- YAML that crashes or runs away -------------------------------------------------------

DEEP = "id: x\ntitle: X\njudge_instructions: " + "[" * 20_000 + "]" * 20_000 + "\n"
LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (DEEP, ["tief verschachtelt"]),
        (LAUGHS + "id: x\n", ["Aliase"]),
        (
            TINY_PACK.replace("      - id: R2", "    prompts:\n      - id: R2"),
            ["doppelt", "prompts"],
        ),
        (
            TINY_PACK.replace(
                '        red_flags: ["falsche Zahl"]',
                '        red_flags: ["falsche Zahl"]\n        expectations: ["egal"]',
            ),
            ["doppelt", "expectations", "Zeile"],
        ),
        # On one line too: a flow mapping drops the first value just the same.
        (
            TINY_PACK.replace("scale: {min: 0, max: 5}", "scale: {min: 0, min: 1, max: 5}"),
            ["doppelt", "„min“"],
        ),
        (TINY_PACK.replace("id: tiny", "id: ../../etc"), ["„id“", "../../etc"]),
        (TINY_PACK.replace("id: tiny", "id: /tmp/x"), ["„id“"]),
        (TINY_PACK.replace("id: R1", 'id: "R1\\n"'), ["„categories[0].prompts[0].id“"]),
        (TINY_PACK.replace("  knapp:", '  "kn/app":'), ["„variants“", "kn/app"]),
    ],
    ids=[
        "deep",
        "laughs",
        "dup-prompts",
        "dup-expectations",
        "dup-one-line",
        "id-dots",
        "id-slash",
        "id-nl",
        "variant-slash",
    ],
)
def test_hostile_packs_are_refused_fast(tmp_path: Path, text: str, words: list[str]) -> None:
    pack = tmp_path / "boese.yaml"
    pack.write_text(text, encoding="utf-8")
    started = time.monotonic()
    result = run_cli("run", "--pack", str(pack), "--model", "m", cwd=tmp_path, timeout=60)
    assert_bad_input(result, str(pack), *words)
    assert time.monotonic() - started < 30
    assert not (tmp_path / "runs").exists() and not Path("/etc-").exists()


def test_a_huge_pack_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    pack = tmp_path / "riesig.yaml"
    with pack.open("wb") as handle:
        handle.truncate(21 * 1024 * 1024)  # sparse: 21 MB of nothing
    result = run_cli("run", "--pack", str(pack), "--model", "m", cwd=tmp_path)
    assert_bad_input(result, str(pack), "20 MB")


def test_an_alias_bomb_in_a_judge_config_is_refused(one_model_run: Path, tmp_path: Path) -> None:
    config = tmp_path / "judge.yaml"
    config.write_text(
        LAUGHS + "endpoint: {base_url: 'http://127.0.0.1:9/v1'}\nmodel: j\nextra_body: {x: *i}\n",
        encoding="utf-8",
    )
    before = snapshot(one_model_run)
    result = run_cli("judge", str(one_model_run), "--config", str(config), cwd=tmp_path)
    assert_bad_input(result, str(config), "Aliase")
    assert snapshot(one_model_run) == before


def test_forty_thousand_prompts_validate_in_seconds(tmp_path: Path) -> None:
    # The duplicate check was quadratic (44 s for 40,000 prompts). Timed here is the
    # validation of the pack, which holds that check; reading YAML is the same per prompt
    # (PyYAML's composer, ~150 µs each) and is tested on small files.
    prompts = [{"id": f"P{i}", "text": "t"} for i in range(40_000)]
    data = {
        "id": "gross",
        "title": "G",
        "categories": [{"id": "A", "title": "A", "prompts": prompts}],
    }
    started = time.monotonic()
    assert TypeAdapter(Pack).validate_python(data).prompt_count == 40_000
    prompts.append({"id": "P17", "text": "t"})
    with pytest.raises(ValidationError, match="Prompt-ID mehrfach vergeben: P17"):
        TypeAdapter(Pack).validate_python(data)
    assert time.monotonic() - started < coarse(2)


# -- numbers that can never work ------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("call_timeout_s: .inf", "call_timeout_s"),
        ("call_timeout_s: 1e300", "call_timeout_s"),
        ("call_timeout_s: .nan", "call_timeout_s"),
        ("temperature: .nan", "temperature"),
        ("temperature: 3", "temperature"),
        ("max_tokens: -5", "max_tokens"),
        ("concurrency: 1000", "concurrency"),
        ("max_failure_ratio: 1.5", "max_failure_ratio"),
        ("max_consecutive_failures: -1", "max_consecutive_failures"),
        ("max_reply_mb: 0", "max_reply_mb"),
        ("max_reply_mb: .inf", "max_reply_mb"),
    ],
)
def test_judge_config_numbers_that_cannot_work(
    sim: SimServer, one_model_run: Path, tmp_path: Path, line: str, key: str
) -> None:
    config = tmp_path / "judge.yaml"
    config.write_text(f"endpoint: {{base_url: '{sim.base_url}'}}\nmodel: sim-judge\n{line}\n")
    before = sim.calls.get("sim-judge", 0)
    result = run_cli("judge", str(one_model_run), "--config", str(config), cwd=tmp_path)
    assert_bad_input(result, str(config), f"„{key}“")
    assert sim.calls.get("sim-judge", 0) == before  # checked before any call


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--call-timeout-s", "nan"),
        ("--call-timeout-s", "inf"),
        ("--call-timeout-s", "0"),
        ("--max-tokens", "-5"),
        ("--repeats", "0"),
        ("--concurrency", "0"),
        ("--concurrency", "300"),
        ("--max-reply-mb", "0"),
        ("--max-reply-mb", "nan"),
    ],
)
def test_run_options_that_cannot_work(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path, option: str, value: str
) -> None:
    result = run_cli(
        *run_args(tiny_pack_path, sim.base_url, tmp_path / "r", "sim-gut"),
        option,
        value,
        cwd=tmp_path,
    )
    assert_bad_input(result, option)
    assert not (tmp_path / "r").exists()


def test_gui_port_out_of_range(tmp_path: Path) -> None:
    result = run_cli("gui", "--port", "99999", "--no-browser", cwd=tmp_path)
    assert_bad_input(result, "--port", "99999")


def test_usage_errors_are_german(tiny_pack_path: Path, tmp_path: Path) -> None:
    result = run_cli("run", "--pack", str(tiny_pack_path), cwd=tmp_path)
    assert_bad_input(result, "Fehlende Option", "--model")
    assert "Missing" not in result.stderr
    result = run_cli("run", "--pack", str(tiny_pack_path), "--modell", "m", cwd=tmp_path)
    assert_bad_input(result, "Unbekannte Option", "--modell", "--model")
    result = run_cli(
        "run", "--pack", str(tiny_pack_path), "--model", "m", "--repeats", "x", cwd=tmp_path
    )
    assert_bad_input(result, "--repeats", "ganze Zahl")
    result = run_cli("richte", cwd=tmp_path)
    assert_bad_input(result, "Unbekannter Befehl", "richte")


# -- run-dir files edited by hand -------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [("repeats", "abc"), ("models", 5), ("pack_path", 123), ("variants", [1, 2])],
)
def test_tampered_manifest_is_bad_input_naming_the_key(
    one_model_run: Path, tmp_path: Path, sim: SimServer, key: str, value: object
) -> None:
    manifest = one_model_run / MANIFEST
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data[key] = value
    manifest.write_text(json.dumps(data), encoding="utf-8")
    before = snapshot(one_model_run)
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    for args in (
        ["judge", str(one_model_run), "--config", str(config)],
        ["report", str(one_model_run)],
    ):
        result = run_cli(*args, cwd=tmp_path)
        assert_bad_input(result, str(manifest), f"„{key}")
    assert snapshot(one_model_run) == before


def test_a_broken_reports_file_is_rebuilt_with_a_warning(
    one_model_run: Path, tmp_path: Path, sim: SimServer
) -> None:
    (one_model_run / REPORTS).write_text("[1]", encoding="utf-8")
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    result = run_cli("judge", str(one_model_run), "--config", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "reports.json" in result.stderr and "neu erstellt" in result.stderr
    assert len(RunDir(one_model_run).load_reports()) == 2


def test_an_unreadable_reports_file_is_a_message_not_a_rebuild(
    one_model_run: Path, tmp_path: Path
) -> None:
    # Unreadable is not corrupt: the report must not go on without its overall ratings.
    (one_model_run / REPORTS).mkdir()
    result = run_cli("report", str(one_model_run), cwd=tmp_path)
    assert_bad_input(result, str(one_model_run / REPORTS))
    assert "neu erstellt" not in result.stderr and not (one_model_run / "report.html").exists()


# -- the machine fails ------------------------------------------------------------------------


@contextlib.contextmanager
def read_only(directory: Path) -> Iterator[None]:
    """``directory`` read-only for a while: file modes for a user, a read-only bind mount
    for root (whom file modes do not stop)."""
    if os.geteuid() != 0:
        paths = [directory, *directory.iterdir()]
        for path in paths:
            path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            directory.chmod(0o755)
        return
    try:
        for command in (
            ["mount", "--bind", directory, directory],
            ["mount", "-o", "remount,ro,bind", directory],
        ):
            subprocess.run(command, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"as root, a read-only directory needs a bind mount, which failed: {exc}")
    try:
        yield
    finally:
        subprocess.run(["umount", directory], check=True)


def test_a_read_only_run_dir_is_a_message_not_a_traceback(
    one_model_run: Path, tmp_path: Path, sim: SimServer
) -> None:
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    before = snapshot(one_model_run)
    with read_only(one_model_run):
        result = run_cli(
            "judge", str(one_model_run), "--config", str(config), "--no-cache", cwd=tmp_path
        )
    assert_bad_input(result, str(one_model_run))
    assert "schreibgeschützt" in result.stderr or "Berechtigung" in result.stderr
    assert snapshot(one_model_run) == before


def test_a_full_disk_is_a_message_and_leaves_no_half_line(
    one_model_run: Path, tmp_path: Path, sim: SimServer
) -> None:
    import resource

    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    limit = 1500  # two verdicts fit, the third does not

    def small_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = run_cli(
        "judge",
        str(one_model_run),
        "--config",
        str(config),
        "--no-cache",
        cwd=tmp_path,
        preexec=small_disk,
    )
    assert_bad_input(result, str(one_model_run))
    for line in (one_model_run / JUDGEMENTS).read_text(encoding="utf-8").splitlines():
        json.loads(line)  # every line whole
    assert len(RunDir(one_model_run).load_responses()) == 6


# -- credentials and file modes ---------------------------------------------------------------


def test_credentials_in_the_base_url_never_persist(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    url = sim.base_url.replace("http://", "http://nutzer:GEHEIM-4711@")
    out = tmp_path / "r"
    result = run_cli(
        *run_args(tiny_pack_path, url, out, "sim-gut", variants=["none"]),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "GEHEIM" not in result.stdout + result.stderr
    assert not any("GEHEIM" in p.read_text(encoding="utf-8") for p in out.rglob("*") if p.is_file())
    assert json.loads((out / MANIFEST).read_text(encoding="utf-8"))["base_urls"] == [sim.base_url]


def test_written_files_follow_the_umask_and_rewrites_keep_their_mode(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"

    def umask_027() -> None:
        os.umask(0o027)

    result = run_cli(
        *run_args(tiny_pack_path, sim.base_url, out, "sim-gut"),
        cwd=tmp_path,
        preexec=umask_027,
    )
    assert result.returncode == 0, result.stderr
    (out / JUDGEMENTS).touch()
    (out / JUDGEMENTS).chmod(0o604)
    config = judge_config(tmp_path / "j.yaml", sim, "sim-judge")
    for args in (["judge", str(out), "--config", str(config)], ["report", str(out)]):
        result = run_cli(*args, cwd=tmp_path, preexec=umask_027)
        assert result.returncode == 0, result.stderr
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in out.iterdir() if p.is_file()}
    assert modes[MANIFEST] == modes["report.html"] == modes[RESPONSES] == 0o640
    assert modes[REPORTS] == 0o640
    assert modes[JUDGEMENTS] == 0o604  # rewritten clean, its mode kept


def test_run_progress_counts_only_the_selected_cells(
    sim: SimServer, tiny_pack_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    run_on_sim(sim, pack_path=tiny_pack_path, models=["sim-gut", "sim-mittel"], out=out, repeats=3)
    events: list[tuple[str, dict]] = []
    execute_run(
        pack_path=tiny_pack_path,
        models=["sim-gut"],
        variants=["none"],
        repeats=1,  # of the run's three (no --repeats would mean all three)
        out=out,
        base_url=sim.base_url,
        on_event=lambda k, d: events.append((k, d)),
    )
    start = next(d for k, d in events if k == "start")
    assert (start["total"], start["already_done"]) == (3, 3)


def test_the_repository_packs_still_load() -> None:
    assert load_pack(REPO / "packs" / "buero.yaml").id == "buero"
