"""How much the runner adds to the core: `escoba-sim run --hands --jobs 1` hands/s against `bench.measure`.

For each pairing, alternates a core measurement (``escoba_sim.bench.measure``,
one lineup, no aggregation) with a real ``escoba-sim run --hands -j 1 --json``
subprocess (its reported ``performance.hands_per_second``: chunk play plus
aggregation and merging, process start-up excluded), ``--repeat`` times, and
prints the best of each and their ratio (target: at least 0.90). Run it on a
quiet machine; never as a unit test.

    python benchmarks/bench_runner.py [-n 2e6] [--repeat 3] [--rules ludoteka] [--out-dir DIR]

With ``--out-dir`` the runs also write their output folder (Parquet per chunk,
manifest, summary), which shows the cost of the files.

Wall-clock ratios move by +-10% on a shared machine, so the script also
prints the runner's own cost in isolation: CPU milliseconds that
``chunk.play_chunk`` spends per 100,000 hands beyond the core (the batches
are played once and replayed from memory), next to the core's CPU time for
the same hands. That figure is stable and bounds the ratio from below.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from escoba_sim import native
from escoba_sim.bench import measure

PAIRINGS = (("greedy", "maxoros"), ("random", "random"))


def run_cli(strategy: str, vs: str, n: int, rules: str, pairing: str, out: Path | None) -> float:
    args = ["escoba-sim", "run", "-s", strategy, "--vs", vs, "--hands", "-n", str(n), "-r", rules, "--seed", "1",
            "-j", "1", "--pairing", pairing, "--json", "-q"]
    if out is not None:
        if out.exists():
            shutil.rmtree(out)
        args += ["--out", str(out)]
    r = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["performance"]["hands_per_second"]


def aggregation_cost(rules: str) -> None:
    """CPU ms per 100k hands of the runner's aggregation, with the batches replayed from memory."""
    import time

    from escoba_sim.runs import chunk
    from escoba_sim.runs import spec as runspec

    cache: dict = {}
    real = {"play_hands": chunk.play_hands, "play_games": chunk.play_games}

    def cached(name):
        def play(r, lineup, seed, first, count):
            key = (name, tuple(lineup), first, count)
            if key not in cache:
                cache[key] = real[name](r, lineup, seed, first, count)
            return cache[key]
        return play

    def cpu(f, k=9):
        best = float("inf")
        for _ in range(k):
            t = time.process_time()
            f()
            best = min(best, time.process_time() - t)
        return best

    chunk.play_hands, chunk.play_games = cached("play_hands"), cached("play_games")
    try:
        print(f"\n{'runner aggregation':<34}{'core CPU ms':>12}{'runner CPU ms':>15}{'core share':>12}")
        for label, hands, pairing in (("--hands independent", True, "independent"), ("--hands duplicate", True, "duplicate"),
                                      ("games duplicate", False, "duplicate")):
            n = 100_000 if hands else 25_000
            spec = runspec.make_spec("greedy", ["maxoros"], rules, n, hands=hands, seed=1, pairing=pairing,
                                    chunk_size=n // (2 if pairing == "duplicate" else 1))
            cache.clear()
            t = time.process_time()
            agg = chunk.play_chunk(spec, 0)  # plays and caches the batches
            first = time.process_time() - t
            extra = cpu(lambda: chunk.play_chunk(spec, 0))
            played = int(agg["hands"][0])
            core_ms = (first - extra) * 1e8 / played
            extra_ms = extra * 1e8 / played
            print(f"{label + ' (per 100k hands)':<34}{core_ms:>12.1f}{extra_ms:>15.1f}{core_ms / (core_ms + extra_ms):>12.3f}")
    finally:
        chunk.play_hands, chunk.play_games = real["play_hands"], real["play_games"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=float, default=2e6, help="hands per run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rules", default="ludoteka")
    ap.add_argument("--seconds", type=float, default=2.0, help="time budget of each bench.measure call")
    ap.add_argument("--out-dir", action="store_true", help="also write an output folder (--out)")
    a = ap.parse_args()
    if native.ENGINE != "cython":
        sys.exit("the compiled core is not active; this benchmark compares the runner with the core")
    n = int(a.n)
    tmp = Path(tempfile.mkdtemp()) if a.out_dir else None
    print(f"engine {native.ENGINE}, rules {a.rules}, n {n:,} hands, best of {a.repeat}, "
          f"{'with' if tmp else 'without'} --out")
    print(f"{'pairing':<16}{'run pairing':<13}{'bench hands/s':>15}{'run hands/s':>14}{'ratio':>8}")
    for strategy, vs in PAIRINGS:
        for pairing in ("independent", "duplicate"):
            core, runs = [], []
            for _ in range(a.repeat):
                lineups = [(strategy, vs)] if pairing == "independent" else [(strategy, vs), (vs, strategy)]
                # the core's figure for the same work: the lineups the run plays, in equal shares
                rates = [measure(a.rules, lu, seconds=a.seconds / len(lineups))["hands_per_s"] for lu in lineups]
                core.append(len(rates) / sum(1 / r for r in rates))
                runs.append(run_cli(strategy, vs, n, a.rules, pairing, tmp / "o" if tmp else None))
            c, r = max(core), max(runs)
            print(f"{strategy + '-' + vs:<16}{pairing:<13}{c:>15,.0f}{r:>14,.0f}{r / c:>8.3f}")
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    aggregation_cost(a.rules)


if __name__ == "__main__":
    main()
