"""Runs: a run spec, its chunks and their per-deal aggregates, the output folder, executors and clusters,
the runner that ties them together, and the statistics read from the aggregates."""
