"""Hands per second of thread CPU time for the compiled core on sys.path: for A/B runs of two builds.

Usage: PYTHONPATH=<checkout with a built core> python benchmarks/bench_thread_clock.py greedy-maxoros 3

Plays ludoteka hands with `_core.play_hands` in 20,000-hand chunks for the given seconds of thread CPU
time and prints the best and the median chunk's rate. Thread time leaves out the time the process waits
for the CPU, and the best chunk is the least disturbed one: on a shared VM, alternate the two builds
several times and compare best against best (benchmarks/README.md, "Fifth pass").
It calls only `_core.play_hands` and `parse_rules`, not `escoba_sim.bench.measure` (wall clock, growing
chunks), so that it also runs against old checkouts such as the issue's baseline 4c5a461.
"""

import statistics
import sys
import time

from escoba_sim import _core
from escoba_sim.game.rules import parse_rules

if len(sys.argv) != 3:
    raise SystemExit("usage: bench_thread_clock.py PAIRING SECONDS (e.g. greedy-maxoros 3)")
pairing, seconds = sys.argv[1].split("-"), float(sys.argv[2])
rules = parse_rules("ludoteka")
players = [pairing[i % len(pairing)] for i in range(rules.players)]
_core.play_hands(rules, players, 1, 0, 1000)  # warm the tables and the allocator
rates, spent, start = [], 0.0, 0
while spent < seconds:
    t0 = time.thread_time()
    _core.play_hands(rules, players, 1, start, 20_000)
    dt = time.thread_time() - t0
    spent, start = spent + dt, start + 20_000
    rates.append(20_000 / dt)
print(f"{max(rates):.0f} {statistics.median(rates):.0f}")
