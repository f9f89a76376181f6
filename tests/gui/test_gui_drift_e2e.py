"""The GUI shows drift (design.md §17): a second judge-check of the same judge, started in the
browser, shows its comparison with the first on the card."""

from __future__ import annotations

from pathlib import Path

from tests.gui.gui_support import ARTIFACTS, gui_page


def test_a_second_judge_check_in_the_browser_compares_with_the_first(workspace: Path) -> None:
    from playwright.sync_api import expect

    with gui_page(workspace, width=390, height=900) as (base, page):
        errors: list[str] = []
        page.on(
            "console",
            lambda message: errors.append(message.text) if message.type == "error" else None,
        )
        page.goto(f"{base}/runs/tiny")
        for _ in range(2):
            page.get_by_test_id("config").select_option("judge-gut.yaml")
            page.get_by_test_id("check-judge").click()
            expect(page.get_by_test_id("job-state")).to_have_text("fertig", timeout=30_000)
        note = page.locator("#current-job").get_by_test_id("fitness-note")
        # The second job may still be running when the first one's "fertig" is read: the note
        # gets the same 30 s as a job (busy cores), not the locator's default 5 s.
        expect(note.first).to_contain_text("Der Judge antwortet wie am ", timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "judge-check-drift-phone.png"), full_page=True)
        assert not errors
