"""The GUI's spot check (design.md §17): "Stichprobe bewerten", one cell at a time, blind.

``/runs/{name}/rate`` shows the next cell of the sample the rater has not rated (after the
position ``after``: a skipped cell is passed over, not stored); the page posts a rating to
``/api/runs/{name}/ratings`` and goes on. Ratings are written by ``stages.human`` like the
terminal's. The page knows a cell only by an opaque token (a hash of its key), so neither
the model's name nor its variant is in the page; the judge's verdict never is. Ratings are
read from ``human.jsonl`` at each request: the cached view of a run is kept while its answers
and verdicts are unchanged, and rating changes neither.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from touchstone.errors import InputError
from touchstone.gui.cache import LoadedRun, file_stamp
from touchstone.gui.validation import request_problem
from touchstone.results import VerdictKey
from touchstone.spot.agreement import HumanAgreement, human_agreement
from touchstone.spot.card import card_view
from touchstone.spot.sample import DEFAULT_SAMPLE
from touchstone.stages.spot_check import SpotCell, run_ratings, save_rating, spot_cells
from touchstone.store import Stamp
from touchstone.store.ratings import (
    HUMAN,
    MAX_NOTE,
    MAX_RATER,
    HumanRating,
    RedFlag,
    Score,
    StrictInt,
    Text,
    default_rater,
    rating_for,
)

MAX_SAMPLE = 100_000


class RatingRequest(BaseModel):
    """A rating as the page posts it: the values with the types ``human.jsonl`` is read with
    (``store.ratings``), strictly: ``"score": true``, ``"3"`` or ``3.0`` would be stored as
    a rating and then refuse the file as a bad line."""

    model_config = ConfigDict(extra="forbid", strict=True)
    cell: Annotated[Text, Field(min_length=1, max_length=64)]
    score: Score
    red_flag: RedFlag = False
    note: Annotated[Text, Field(max_length=MAX_NOTE)] = ""
    rater: Annotated[Text, Field(min_length=1, max_length=MAX_RATER)]
    n: Annotated[StrictInt, Field(ge=1, le=MAX_SAMPLE)] = DEFAULT_SAMPLE


def rating_request(body: bytes) -> RatingRequest:
    """The posted ``body`` as a rating, or a German 400 (no JSON: not UTF-8, cut short, a
    number of 5,000 digits) or 422 (a field's value), as ``request_problem`` words it: the
    route reads its body itself, so that FastAPI's English "There was an error parsing the
    body" never reaches the page."""
    try:
        return RatingRequest.model_validate_json(body)
    except ValidationError as exc:
        errors = exc.errors()
        status = 400 if any(error["type"] == "json_invalid" for error in errors) else 422
        raise HTTPException(status, request_problem(errors)) from None


def token(key: VerdictKey) -> str:
    """The cell's name in the page: says nothing about the model."""
    text = "\x1f".join((key.model, key.variant, key.prompt_id, str(key.repeat)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def _ratings(run: LoadedRun, warnings: list[str] | None = None) -> list[HumanRating]:
    """The ratings as they are now. Their warnings go to ``warnings`` (shown with the card),
    never into the kept run's own list, which would grow with every request."""
    view = run.view
    sink = warnings if warnings is not None else []
    return run_ratings(view.run_dir, view.pack, view.responses, sink.append)


def _cells(run: LoadedRun, rater: str, n: int) -> list[SpotCell]:
    view = run.view
    ratings = _ratings(run)
    # A jury's disputed cells first: where the judges disagree, a person's word counts most.
    jury = run.card.jury_card
    disputed = jury.disputed if jury is not None else None
    return spot_cells(
        view.pack, view.responses, view.verdicts, ratings, rater=rater, n=n, disputed=disputed
    )


def rater_or_default(rater: str) -> str:
    """The rater named in the request, else the user the GUI runs as."""
    try:
        return rater.strip() or default_rater()
    except InputError:
        return ""


# The last card of each run, with the loaded run and the stamp of human.jsonl it was built
# from: a page reload costs no bootstrap (a card of 300 ratings takes about a second).
_CARDS: dict[Path, tuple[LoadedRun, Stamp, HumanAgreement | None, list[str]]] = {}
_CARDS_LOCK = threading.Lock()


def human_of(run: LoadedRun) -> tuple[HumanAgreement | None, list[str]]:
    """The run's agreement card from the ratings as they are now, and the warnings of
    reading them."""
    view = run.view
    path = view.run_dir.file(HUMAN)
    stamp = file_stamp(path)
    with _CARDS_LOCK:
        kept = _CARDS.get(path)
    if kept is not None and kept[0] is run and kept[1] == stamp:
        return kept[2], kept[3]
    warnings: list[str] = []
    ratings = _ratings(run, warnings)
    card = human_agreement(ratings, view.verdicts, view.pack.scale) if ratings else None
    with _CARDS_LOCK:
        _CARDS[path] = (run, stamp, card, warnings)
    return card, warnings


def human_view(run: LoadedRun) -> tuple[dict[str, object] | None, str]:
    """The card for a page, and what is wrong with ``human.jsonl`` (shown in the card's
    place: a broken ratings file must not hide the scorecard), or its warnings."""
    try:
        card, warnings = human_of(run)
    except InputError as exc:
        return None, str(exc)
    return (card_view(card) if card is not None else None), " ".join(warnings)


def rate_context(run: LoadedRun, name: str, rater: str, n: int, after: int) -> dict[str, Any]:
    """What the page shows: the next cell after position ``after``, or the end."""
    scale = run.view.pack.scale
    context: dict[str, Any] = {
        "name": name,
        "rater": rater,
        "n": n,
        "scale": list(range(scale.min, scale.max + 1)),
        "cell": None,
        "token": "",
        "left": 0,
        "skipped_any": False,
        "human": None,
        "human_problem": "",
        "judged": any(v.scored for v in run.view.verdicts),
    }
    if rater:
        cells = _cells(run, rater, n)
        later = [cell for cell in cells if cell.position > after]
        context["left"] = len(cells)
        context["skipped_any"] = len(later) < len(cells)
        if later:
            context["cell"] = later[0]
            context["token"] = token(later[0].key)
    if context["cell"] is None:
        # The card at the end of the sample; while rating, the next cell comes quickly.
        context["human"], context["human_problem"] = human_view(run)
    return context


async def save_posted(load: Callable[[], LoadedRun], request: Request) -> dict[str, Any]:
    """``POST /api/runs/{name}/ratings``: the body read here, not by FastAPI, so that its
    refusals are German (``rating_request``); the run loaded and the rating stored in a
    worker thread."""
    body = rating_request(await request.body())
    return await run_in_threadpool(lambda: save(load(), body))


def save(run: LoadedRun, body: RatingRequest) -> dict[str, Any]:
    """Store the rating of the cell ``body.cell`` names (one of the rater's sample)."""
    if not 1 <= body.n <= MAX_SAMPLE:
        raise HTTPException(422, f"Ungültige Stichprobengröße: {body.n}.")
    found = [cell for cell in _cells(run, body.rater, body.n) if token(cell.key) == body.cell]
    if not found:
        raise HTTPException(
            409,
            "Diese Zelle ist nicht (mehr) offen in Ihrer Stichprobe: schon bewertet, oder der "
            "Run hat sich geändert. Die Seite zeigt die nächste.",
        )
    cell = found[0]
    try:
        rating = rating_for(
            cell.key,
            score=body.score,
            red_flag=body.red_flag,
            note=body.note,
            rater=body.rater,
            scale=run.view.pack.scale,
        )
    except InputError as exc:
        raise HTTPException(422, str(exc)) from exc
    save_rating(run.view.run_dir, rating)
    return {"saved": True, "position": cell.position}
