"""The pure statistics: no file, no German, no feature; everything above imports from here.

distributions  the t and chi-squared quantiles (pure Python), far into the tail, and the
               one confidence level ``LEVEL``
intervals      the scorecard's cluster bootstrap over prompts (expanded percentiles, the
               floors for few prompts)
paired         paired differences of two rows over the prompts both scored
pooling        a row's spread floored by the run's other rows (moderated t)
multiplicity   decisions over a set: Bonferroni-widened intervals, Holm
bootstrap      the plain percentile bootstrap of the judge-quality figures (why a second
               one: its statistics are computed from resampled units as a whole and may
               be undefined on some resamples; the scorecard's resamples prompts with
               floors for few of them)
within         the length effect's slope with two sets of fixed effects, CR1 over prompts
"""
