"""The compare tests' browser walk: one GUI process, a watched Chromium page at 1280 and at
390 px in turn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.gui.gui_support import ARTIFACTS, chromium, gui_process
from tests.gui.test_gui_phone import DESKTOP, PHONE, watch


def each_width(workdir: Path, problems: list[str]) -> Iterator[tuple[str, str, Any]]:
    """(base URL, "desktop" or "phone", a page at that width whose console errors go to
    ``problems``) on the GUI of ``workdir``; iterate it to the end."""
    ARTIFACTS.mkdir(exist_ok=True)
    with gui_process(workdir) as base, chromium() as browser:
        for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page = browser.new_page(viewport=viewport)
            watch(page, problems)
            yield base, name, page


def fits(page: Any) -> bool:
    """Whether the page scrolls sideways at its width: it must not."""
    width: int = page.viewport_size["width"]
    return bool(page.evaluate("document.documentElement.scrollWidth") <= width)
