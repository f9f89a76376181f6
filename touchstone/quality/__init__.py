"""How far the judge's verdicts can be trusted (design.md §14, §17): judge quality, not calls.

probes.py     the probe battery of judge-check; fitness.py: its fitness card
agreement.py  weighted_kappa (the one kappa); how re-judged cells agree with their previous
              verdicts
jury_agreement.py  how far a jury's judges agree: Krippendorff's alpha, pairwise kappa, member
              means, disputed cells, means without a row's own family (cell -> member -> score)
jury_card.py  the jury card built from them: terminal, template, scorecard.json ``jury``
length.py, family.py  the length effect and model families: biases measured on the run
drift.py      the judge behind a name answering otherwise than it did

The human spot check is its own folder, ``spot/``.

``judge/`` stays the calls, the guard and the verdicts; this package judges the judge.
"""
