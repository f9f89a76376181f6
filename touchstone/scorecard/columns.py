"""Tables that fit the terminal: a column moves to a second table rather than being cut.

rich squeezes a table wider than the terminal by shrinking its columns until cells read
"4…" or vanish (issue 23 §1). ``FittedTable`` decides at render time, for the width it gets,
which columns the first table shows: essential ones always (uncut; names wrap at worst), the
others by priority, with two-line headers before any column moves. Columns that moved follow
in further tables keyed by the key columns (model, variant); a column that cannot fit even
there is named in a line saying where to find it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.table import Table
from rich.text import Text

from touchstone.german import DASH
from touchstone.plain import clean, plain

# box.SIMPLE_HEAD without outer edges: a rule under the header and two spaces between columns.
# Box drawing around every cell costs three columns per column, which 80 columns cannot give.
GAP = 2
# A name wraps at this width at the narrowest (it is never cut).
MIN_FOLD = 8


@dataclass
class Column:
    """One column. ``drop``: 0 never moves; otherwise columns with the highest ``drop`` move
    first (one value moves together, e.g. all categories). ``narrow``: a header in lines for
    tight widths. ``key``: repeated in every further table. ``fold``: the text may wrap as a
    last resort (a name longer than the terminal), never be cut."""

    header: str
    cells: list[Text]
    justify: JustifyMethod = "right"
    drop: int = 0
    narrow: str = ""
    key: bool = False
    fold: bool = False
    widths: dict[bool, int] = field(default_factory=dict, repr=False)

    def head(self, narrow: bool) -> str:
        return self.narrow if narrow and self.narrow else self.header

    def width(self, narrow: bool) -> int:
        """The width the column needs to show every line whole."""
        if narrow not in self.widths:
            lines = clean(self.head(narrow)).split("\n")  # as ``plain`` will show it
            for cell in self.cells:
                lines += cell.plain.split("\n")
            self.widths[narrow] = max(map(cell_len, lines), default=0)
        return self.widths[narrow]

    @property
    def empty(self) -> bool:
        return all(cell.plain.strip() in ("", DASH) for cell in self.cells)


def table_width(columns: Sequence[Column], narrow: bool) -> int:
    return sum(c.width(narrow) for c in columns) + GAP * max(0, len(columns) - 1)


@dataclass
class Layout:
    shown: list[Column]
    moved: list[Column]
    narrow: bool


def fit(columns: Sequence[Column], width: int) -> Layout:
    """The columns the first table shows at ``width``: as many as fit, moving the highest
    ``drop`` first; wide headers before narrow ones at the same columns."""
    levels = sorted({c.drop for c in columns if c.drop}, reverse=True)
    for cut in range(len(levels) + 1):
        gone = set(levels[:cut])
        shown = [c for c in columns if c.drop not in gone]
        for narrow in (False, True):
            if table_width(shown, narrow) <= width:
                return Layout(shown, [c for c in columns if c.drop in gone], narrow)
    # Even the essential columns are too wide: the names wrap (``folded_widths``).
    return Layout([c for c in columns if not c.drop], [c for c in columns if c.drop], True)


def chunks(
    keys: Sequence[Column], moved: Sequence[Column], width: int
) -> tuple[list[list[Column]], list[Column]]:
    """Further tables for ``moved`` columns beside the ``keys``, in order, as many to a table
    as fit, a group (one ``drop``) together where it fits in one table; and the columns that
    fit in none. Keys take at most half the width (longer names wrap there)."""
    room = width - min(table_width(keys, True), width // 2)
    tables: list[list[Column]] = [[]]

    def need(columns: Sequence[Column]) -> int:
        return sum(GAP + c.width(True) for c in columns)

    unfit = [c for c in moved if need([c]) > room]
    for _, group in groupby((c for c in moved if c not in unfit), key=attrgetter("drop")):
        columns = list(group)
        if need(tables[-1]) + need(columns) > room and need(columns) <= room:
            tables.append([])
        for column in columns:
            if need(tables[-1]) + need([column]) > room:
                tables.append([])
            tables[-1].append(column)
    return [t for t in tables if t], unfit


def folded_widths(columns: Sequence[Column], narrow: bool, width: int) -> list[int]:
    """Each column's width; when the table is too wide, the widest foldable columns give
    way (down to ``MIN_FOLD`` each) so that rich never has to cut a cell."""
    widths = [c.width(narrow) for c in columns]
    excess = table_width(columns, narrow) - width
    foldable = [i for i, c in enumerate(columns) if c.fold]
    while excess > 0 and foldable:
        widest = max(foldable, key=lambda i: widths[i])
        if widths[widest] <= MIN_FOLD:
            break
        widths[widest] -= 1
        excess -= 1
    return widths


def make_table(title: str, columns: Sequence[Column], *, narrow: bool, width: int) -> Table:
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )
    for column, size in zip(columns, folded_widths(columns, narrow, width), strict=True):
        table.add_column(
            plain(column.head(narrow)),
            justify=column.justify,
            no_wrap=size >= column.width(narrow),
            overflow="fold",
            width=size,
        )
    for index in range(len(columns[0].cells) if columns else 0):
        table.add_row(*(column.cells[index] for column in columns))
    return table


class FittedTable:
    """A table that shows what fits at the width it is rendered with and moves the rest to
    further tables (``more_title``); ``elsewhere`` names where a column that fits nowhere is
    ("report.html, scorecard.json")."""

    def __init__(
        self, title: str, columns: Iterable[Column], *, more_title: str, elsewhere: str
    ) -> None:
        # An optional column without content says nothing: it is not printed at all.
        self.columns = [c for c in columns if not (c.drop and c.empty)]
        self.title = title
        self.more_title = more_title
        self.elsewhere = elsewhere

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.parts(options.max_width)

    def parts(self, width: int) -> Iterator[Table | Text]:
        layout = fit(self.columns, width)
        title = self.title
        # A first table of nothing but the keys (model, variant) would say nothing.
        if not all(c.key for c in layout.shown) or not layout.moved:
            yield make_table(title, layout.shown, narrow=layout.narrow, width=width)
            title = self.more_title
        if not layout.moved:
            return
        keys = [c for c in self.columns if c.key]
        tables, unfit = chunks(keys, layout.moved, width)
        for columns in tables:
            narrow = table_width([*keys, *columns], False) > width
            yield make_table(title, [*keys, *columns], narrow=narrow, width=width)
            title = self.more_title
        if unfit:
            names = ", ".join(" ".join(c.header.split()) for c in unfit)
            yield plain(f"Zu breit für dieses Terminal: {names} – siehe {self.elsewhere}.")
