"""The scorecard: what people choose a model from (design.md §3, §13).

    build.py     per (model, variant): counts, means with 95 % intervals (overall and per
                 category), unscored cells with their reasons, open cells, speed
    texts.py     how a row's figures read (means, intervals, speed, unscored and failed)
    compare.py   pairwise differences with paired intervals; ranks, and groups of rows that
                 cannot be told apart
    ranks.py     how ranks are split (for the whole card: Bonferroni over the pairs), and how
                 the card says it
    terminal.py  the rich table the CLI prints
    columns.py   tables that fit the terminal's width (what does not fit moves to a second)
    fitness.py   the judge's fitness card of ``judge-check``, for the terminal

Means exclude judge-side gaps (unscored verdicts: judge error, unparseable reply); every
unscored cell is counted with its reason. A failed answer that says something about the model
(deadline overrun, refused prompt, empty or reasoning-only answer) scores the scale's minimum
and is counted apart ("davon fehlgeschlagen"). A mean over nothing is ``None`` and shown as
"–", never as 0; one prompt gives a mean but no interval.

The package re-exports nothing: import from the module that defines a name, so that a
command loads only what it uses (a settled resume imports no call machinery).
"""
