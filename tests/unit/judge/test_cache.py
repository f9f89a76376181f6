"""The verdict cache: identical work is judged once, failures are never reused."""

import io
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import FakeJudge, copied_runs, make_response, timeout_error
from touchstone.cli import ui
from touchstone.errors import InputError
from touchstone.gui.job_state import final_state
from touchstone.judge.cache import CachedVerdict, VerdictCache, cache_key
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.judge.passes import judge_bundle
from touchstone.jury.verdicts import run_cells
from touchstone.pack import Pack
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.store import RunDir
from touchstone.store.verdict_cache import CACHE_FILE, cache_stats, clear_cache


def test_96_cells_with_6_distinct_answers_cost_at_most_7_calls(tiny_pack: Pack) -> None:
    cells = [
        make_response(prompt_id, category=prompt_id[0], repeat=16 * k + r, text=f"Antwort {kind}")
        for prompt_id in ("R1", "R2", "S1")
        for k, kind in enumerate(("a", "b"))
        for r in range(1, 17)
    ]
    assert len(cells) == 96
    judge = FakeJudge()
    persisted = []
    verdicts, reports = judge_bundle(
        judge, cells, tiny_pack, concurrency=16, cache=VerdictCache(), on_verdict=persisted.append
    )
    assert len(judge.history) <= 7  # six distinct judge prompts plus the holistic call
    assert len(verdicts) == len(persisted) == 96
    assert sum(v.cached for v in verdicts) == 90
    assert not any(v.unscored for v in verdicts) and len(reports) == 1


def test_different_variant_or_answer_or_judge_is_a_miss(tiny_pack: Pack) -> None:
    system, user = "s", "u"
    assert cache_key("j", system, user) != cache_key("k", system, user)
    assert cache_key("j", system, user) != cache_key("j", system, user + "!")
    cells = [
        make_response("R1", text="gleich"),
        make_response("R1", text="gleich", variant="knapp"),
    ]
    judge = FakeJudge()
    judge_bundle(judge, cells, tiny_pack, cache=VerdictCache())
    assert len(judge.history) == 2 + 2  # two cells, two holistic calls


@pytest.fixture
def two_runs(sim: SimServer, tiny_pack_path: Path, tmp_path: Path) -> tuple[Path, Path]:
    return copied_runs(sim, tiny_pack_path, tmp_path)


def config(sim: SimServer) -> JudgeConfig:
    return JudgeConfig(JudgeEndpoint(sim.base_url), "sim-judge")


def test_user_cache_serves_another_run_dir(
    two_runs: tuple[Path, Path],
    sim: SimServer,
    private_verdict_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = two_runs
    judge = FakeJudge()
    execute_judge(first, config=config(sim), backend=judge)
    assert len(judge.history) == 6 + 2
    assert (private_verdict_cache / CACHE_FILE).is_file()

    again = FakeJudge()
    events: list[tuple[str, dict[str, object]]] = []
    outcome = execute_judge(
        second, config=config(sim), backend=again, on_event=lambda k, d: events.append((k, d))
    )
    # Three cached cells asked again without the cache (drift, quality/drift.py), then only
    # the holistic calls: every cell's verdict comes from the cache.
    assert len(again.history) == 3 + 2
    assert all(v.cached for v in run_cells(RunDir(second)).cells)
    assert outcome.health.calls == 3 + 2
    # "6 neue Bewertungen" beside "5 Aufrufe" says where the other four came from: in the
    # terminal and in the done event (the GUI's done message).
    done = next(d for k, d in events if k == "done")
    assert outcome.from_cache == done["from_cache"] == 6
    buffer = io.StringIO()
    monkeypatch.setattr(ui, "stdout", ui.console_for(terminal=False, file=buffer, width=80))
    ui.show_judge_outcome(outcome)
    said = " ".join(buffer.getvalue().split())
    assert "6 neue Bewertungen gespeichert" in said
    assert "davon 6 aus dem Bewertungs-Cache (gleiche Antwort, gleicher Judge)" in said, said
    message = final_state({}, [{"event": k, **d} for k, d in events])["message"]
    assert "6 Bewertungen aus dem Bewertungs-Cache" in message, message

    bypass = FakeJudge()
    execute_judge(second, config=config(sim), backend=bypass, rejudge="all")
    assert len(bypass.history) == 6 + 2
    assert not any(v.cached for v in run_cells(RunDir(second)).cells)


def test_no_cache_judges_again_and_writes_nothing(
    two_runs: tuple[Path, Path], sim: SimServer, private_verdict_cache: Path
) -> None:
    first, second = two_runs
    execute_judge(first, config=config(sim), backend=FakeJudge(), use_cache=False)
    assert not (private_verdict_cache / CACHE_FILE).exists()
    judge = FakeJudge()
    execute_judge(second, config=config(sim), backend=judge, use_cache=False)
    assert len(judge.history) == 6 + 2


def test_judge_errors_and_unparseable_replies_are_never_cached(
    two_runs: tuple[Path, Path], sim: SimServer
) -> None:
    first, second = two_runs
    execute_judge(first, config=config(sim), backend=FakeJudge([timeout_error(), "kein JSON"]))
    judge = FakeJudge()
    execute_judge(second, config=config(sim), backend=judge)
    # The failed and the unparseable cell, three cached cells asked again (drift), holistic.
    assert len(judge.history) == 2 + 3 + 2


# -- rows of the user-level cache are untrusted: validated like a judge reply --------------

PERMISSIVE = (
    "CREATE TABLE verdicts (key TEXT PRIMARY KEY, score, red_flag, rationale, judge_model, "
    "created_at) WITHOUT ROWID"
)
COLUMNS = ("key", "score", "red_flag", "rationale", "judge_model", "created_at")
BAD_ROWS = [
    {"score": 99},
    {"score": "abc"},
    {"score": None},
    {"score": 4.5},
    {"red_flag": "yes"},
    {"red_flag": 2},
    {"rationale": "x" * 1_000_000},
    {"rationale": None},
    {"judge_model": "ein-anderer-judge"},
]


def test_bad_cache_rows_are_misses_judged_again_with_one_warning(
    sim: SimServer, four_model_run: Path, tmp_path: Path, private_verdict_cache: Path
) -> None:
    second = tmp_path / "b"
    shutil.copytree(four_model_run, second)
    execute_judge(four_model_run, config=config(sim), backend=FakeJudge())
    path = private_verdict_cache / CACHE_FILE
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT * FROM verdicts ORDER BY key").fetchall()
    assert len(rows) == 24
    # Rebuilt without the column types and NOT NULLs that would refuse some of the damage
    # (another version or a hand-edit may leave such a table).
    path.unlink()
    bad_keys = set()
    with sqlite3.connect(path) as db:
        db.execute(PERMISSIVE)
        for index, row in enumerate(rows):
            values = dict(zip(COLUMNS, row, strict=True))
            if index < len(BAD_ROWS):
                values.update(BAD_ROWS[index])
                bad_keys.add(values["key"])
            db.execute("INSERT INTO verdicts VALUES (?, ?, ?, ?, ?, ?)", tuple(values.values()))

    judge = FakeJudge(default='{"score": 3, "red_flag": false, "rationale": "neu"}')
    outcome = execute_judge(second, config=config(sim), backend=judge)
    verdicts = run_cells(RunDir(second)).cells
    # The bad rows' cells, three good ones asked again (drift), then holistic.
    assert len(judge.history) == len(BAD_ROWS) + 3 + 8
    assert all(0 <= v.score <= 5 and not v.unscored for v in verdicts)
    assert {v.cache_key for v in verdicts if not v.cached} == bad_keys
    assert all(v.rationale == "neu" for v in verdicts if not v.cached)
    warned = [w for w in outcome.run_dir.warnings if "Bewertungs-Cache" in w]
    assert len(warned) == 1 and f"{len(BAD_ROWS)} Einträge" in warned[0], warned
    assert str(path) in warned[0]
    # The fresh verdicts replaced the bad rows: a third run is served by the cache alone.
    with sqlite3.connect(path) as db:
        scores = dict(db.execute("SELECT key, score FROM verdicts").fetchall())
    assert all(scores[key] == 3 for key in bad_keys)
    third = tmp_path / "c"
    shutil.copytree(four_model_run, third)
    (third / "judgements.jsonl").unlink()
    again = FakeJudge()
    execute_judge(third, config=config(sim), backend=again)
    assert len(again.history) == 3 + 8  # three cells asked again (drift), then holistic


def damaged_cache(path: Path, damage: str) -> None:
    if damage == "garbage":
        path.write_bytes(b"kein sqlite" * 100)
    elif damage == "truncated":
        cache = VerdictCache(path)
        for index in range(2000):
            cache.put(f"k{index}", CachedVerdict(3, False, "gut " * 50, "j"))
        cache.close()
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE verdicts (key TEXT PRIMARY KEY, score INTEGER)")
            db.execute("INSERT INTO verdicts VALUES ('k', 3)")
        # Closed and checkpointed: the file alone is the database.
        for side in path.parent.glob(path.name + "-*"):
            side.unlink()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "wrong_schema"])
def test_cache_stats_and_clear_on_a_damaged_file_say_delete_it(tmp_path: Path, damage: str) -> None:
    path = tmp_path / CACHE_FILE
    damaged_cache(path, damage)
    before = path.read_bytes()
    for action in (lambda: cache_stats(path), lambda: clear_cache(path)):
        with pytest.raises(InputError) as info:
            action()
        message = str(info.value)
        assert f"löschen Sie {path}" in message, message
    assert path.read_bytes() == before


def test_a_cache_file_of_another_schema_warns_and_the_run_goes_on(
    two_runs: tuple[Path, Path], sim: SimServer, private_verdict_cache: Path
) -> None:
    path = private_verdict_cache / CACHE_FILE
    damaged_cache(path, "wrong_schema")
    first, _ = two_runs
    judge = FakeJudge()
    outcome = execute_judge(first, config=config(sim), backend=judge)
    assert outcome.new_verdicts == 6 and len(judge.history) == 6 + 2
    warned = [w for w in outcome.run_dir.warnings if "Bewertungs-Cache" in w]
    assert len(warned) == 1 and f"löschen Sie {path}" in warned[0], warned
