"""Series of runs on the same deals: a comparison of rulesets, a tournament of strategies and a skill ladder
(one table of kinds, ``kinds.SERIES``), the per-deal tables they share, and resuming any folder."""
