"""The human spot check: does the judge agree with you? A blind sample rated by a person and
the agreement card (the ratings' file format is store/ratings.py; the step is
stages/spot_check.py; its faces cli/rate.py and gui/rate.py; a simulated person sim/person.py).

sample.py       which cells a person rates, in which one fixed order (disputed cells first)
agreement.py    the agreement card's figures: kappa, judge minus person per row, the verdict
intervals.py    the card's intervals, honest with few ratings
rows_differ.py  whether the judge treats the rows differently: one decision for the whole card
card.py         the card in German lines: terminal, report and GUI alike
"""
