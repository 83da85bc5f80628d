"""One hand at a time, as people meet it: hand records, the hint evaluator, reviewing a hand, playing one."""
