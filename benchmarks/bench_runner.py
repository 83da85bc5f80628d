"""How much the runner adds to the core: `run --hands` and `run` (games) against the core alone, -j 1 and -j 2.

For each row (strategies, mode, pairing) it alternates, ``--repeat`` times:

* the core alone: the very batches the run plays (its lineups and chunk ranges) through
  ``native.core.play_hands`` / ``play_games``, no aggregation, in process CPU time (what
  ``escoba-sim bench`` measures, for the run's own work);
* the runner at ``-j 1``: ``runs.runner.run`` in this process, in CPU time (chunk play,
  aggregation, merging, the summary; process start-up excluded);
* the runner at ``-j 2``: a process pool, in wall time and in CPU time of all processes
  (this one and the workers);
* ``escoba-sim run ... -j 1 --json`` as a subprocess: its reported hands/s (wall, as a user sees
  it) and its peak RSS (``--memory``: at -n and at 4 * -n, to show that memory stays flat).

It prints the best of each, the runner/core ratio at -j 1 (target: at least 0.90) and the -j 2
speed-up. CPU time is used where wall time is noisy (a shared machine); the -j 2 wall figure
needs two idle cores to mean anything. Never a unit test.

    python benchmarks/bench_runner.py [-n 2e6] [--repeat 3] [--rules ludoteka] [--out-dir] [--memory]

With ``--out-dir`` the runs also write their output folder (Parquet per chunk, manifest,
summary), which shows the cost of the files. The last table is the runner's own cost in
isolation: CPU milliseconds that ``chunk.play_chunk`` spends per 100,000 hands beyond the core
(the batches are played once and replayed from memory, so it leaves out the cache and page
faults a real run pays).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from escoba_sim import native
from escoba_sim.runs import runner
from escoba_sim.runs import spec as runspec
from escoba_sim.strategies import parse_strategy

# (strategy, vs, mode, pairing); games are sized to about the same number of hands (~3.8 per game)
ROWS = (("greedy", "maxoros", "hands", "duplicate"), ("greedy", "maxoros", "hands", "independent"),
        ("greedy", "maxoros", "games", "duplicate"), ("random", "random", "hands", "duplicate"))
HANDS_PER_GAME = 3.8


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def core_cpu(spec: runspec.RunSpec) -> tuple[float, int]:
    """CPU seconds and hands of the core alone playing the run's batches."""
    play = native.core.play_hands if spec.mode == "hands" else native.core.play_games
    lineups = [[parse_strategy(s) for s in spec.lineup(r)] for r in range(spec.rotations)]
    t, hands = time.process_time(), 0
    for k in range(spec.n_chunks):
        first, count = spec.chunk_range(k)
        for lineup in lineups:
            hands += len(play(spec.rules, lineup, spec.seed, first, count).hands["game"])
    return time.process_time() - t, hands


def runner_times(spec: runspec.RunSpec, jobs: int, out: Path | None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (this process and its workers) and hands of ``runner.run``."""
    if out is not None and out.exists():
        shutil.rmtree(out)
    w, c, cc = time.perf_counter(), time.process_time(), children_cpu()
    res = runner.run(spec, out, jobs=jobs)
    return (time.perf_counter() - w, time.process_time() - c + children_cpu() - cc, int(res.summary["hands"]))


def run_cli(strategy: str, vs: str, n: int, rules: str, mode: str, pairing: str, out: Path | None) -> tuple[float, int]:
    """hands/s that `escoba-sim run -j 1 --json` reports, and its peak RSS in MB."""
    args = [sys.executable, "-c", "from escoba_sim.cli import main; main()", "run", "-s", strategy, "--vs", vs,
            "-n", str(n), "-r", rules, "--seed", "1", "-j", "1", "--pairing", pairing, "--json", "-q"]
    args += ["--hands"] if mode == "hands" else []
    if out is not None:
        if out.exists():
            shutil.rmtree(out)
        args += ["--out", str(out)]
    wrapped = [sys.executable, "-c", "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)",
               *args]
    r = subprocess.run(wrapped, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["performance"]["hands_per_second"], int(r.stderr.strip().splitlines()[-1]) // 1024


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
    ap.add_argument("-n", type=float, default=2e6, help="hands per run (games: n / 3.8 games)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rules", default="ludoteka")
    ap.add_argument("--out-dir", action="store_true", help="also write an output folder (--out)")
    ap.add_argument("--memory", action="store_true", help="peak RSS of `escoba-sim run` at -n and at 4 * -n")
    ap.add_argument("--rows", type=int, nargs="*", help="row numbers to measure (default: all)")
    a = ap.parse_args()
    if native.ENGINE != "cython":
        sys.exit("the compiled core is not active; this benchmark compares the runner with the core")
    tmp = Path(tempfile.mkdtemp())
    out = tmp / "o" if a.out_dir else None
    print(f"engine {native.ENGINE}, rules {a.rules}, about {a.n:,.0f} hands a run, best of {a.repeat}, "
          f"{'with' if out else 'without'} --out; hands/s, CPU time unless marked wall")
    print(f"{'row':<32}{'core':>11}{'run -j1':>11}{'ratio':>7}{'-j2 wall':>11}{'-j1 wall':>11}{'x':>6}"
          f"{'-j2 CPU':>10}{'CLI wall':>11}")
    for i, (strategy, vs, mode, pairing) in enumerate(ROWS):
        if a.rows and i not in a.rows:
            continue
        n = int(a.n if mode == "hands" else a.n / HANDS_PER_GAME)
        spec = runspec.make_spec(strategy, [vs], a.rules, n, hands=mode == "hands", seed=1, pairing=pairing)
        core, run1, wall1, wall2, cpu2, cli = [], [], [], [], [], []
        for _ in range(a.repeat):
            c, h = core_cpu(spec)
            core.append(h / c)
            w, c, h = runner_times(spec, 1, out)
            run1.append(h / c)
            wall1.append(h / w)
            w, c, h = runner_times(spec, 2, out)
            wall2.append(h / w)
            cpu2.append(h / c)
            cli.append(run_cli(strategy, vs, n, a.rules, mode, pairing, out)[0])
        label = f"{strategy}-{vs} {mode} {pairing[:3]}"
        print(f"{label:<32}{max(core):>11,.0f}{max(run1):>11,.0f}{max(run1) / max(core):>7.3f}{max(wall2):>11,.0f}"
              f"{max(wall1):>11,.0f}{max(wall2) / max(wall1):>6.2f}{max(cpu2):>10,.0f}{max(cli):>11,.0f}")
    if a.memory:
        print("\npeak RSS of `escoba-sim run -s greedy --vs maxoros --hands -j 1` (MB)")
        for n in (int(a.n), 4 * int(a.n)):
            print(f"  -n {n:>12,}: {run_cli('greedy', 'maxoros', n, a.rules, 'hands', 'duplicate', out)[1]:>6,}")
    shutil.rmtree(tmp, ignore_errors=True)
    aggregation_cost(a.rules)


if __name__ == "__main__":
    main()
