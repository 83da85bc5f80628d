"""Series of runs on the same deals: what compare and tournament share, and the two commands."""
