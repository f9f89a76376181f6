"""A new run dir that got no answer is removed; its message said the command "setzt … den Run
fort" and then "Nichts wurde behalten: … ist wieder entfernt" (issue 36). It now says plainly
that no answer came and the new dir is removed, and that the corrected command starts the run
anew: nothing of it is continued."""

from tests.conftest import PackRun


def test_a_removed_run_is_said_plainly_and_not_continued(tiny_run: PackRun) -> None:
    outcome = tiny_run("sim-gutt")  # misspelt: 404, no answer
    assert outcome.removed
    text = outcome.unfinished()
    assert text.startswith(
        f"Keine Antwort erhalten: das neue Run-Verzeichnis {tiny_run.out} ist daher wieder "
        "entfernt (6 Zellen offen)."
    )
    assert f"mit --out {tiny_run.out} den Run neu an." in text
    assert "fort" not in text and "nachholen" not in text and "holt" not in text
    assert "Nichts wurde behalten" not in text


def test_a_kept_run_still_goes_on(tiny_run: PackRun) -> None:
    tiny_run("sim-gut", variants=["none"])
    again = tiny_run("sim-gut", "sim-gutt", variants=["none"], extend=True)
    assert not again.removed
    text = again.unfinished()
    assert "den Run fort" in text and "neu an" not in text and "entfernt" not in text
