"""Hands per second of the compiled core and the reference engine, one core.

Prints the standard table (greedy-maxoros, greedy-greedy, random-random under
a ruleset, default ludoteka; core, reference, ratio) and, with --json FILE,
writes the measurements with their provenance. --memory also checks that peak
RSS stays flat as the number of hands grows (the core writes each chunk into
fresh arrays; nothing accumulates between calls).

    python benchmarks/bench_core.py --seconds 5 --json bench_core.json
    python benchmarks/bench_core.py --memory [--memory-hands 1e6,1e8]
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def memory_check(rules: str, hands: list[int], chunk: int = 1_000_000) -> list[dict]:
    """Play `n` hands in chunks for each n and record peak RSS after each run."""
    from escoba_sim import _core
    from escoba_sim.game.rules import parse_rules

    r = parse_rules(rules)
    rows = []
    for n in hands:
        t0 = time.perf_counter()
        done = 0
        total_points = 0
        while done < n:
            k = min(chunk, n - done)
            b = _core.play_hands(r, ["greedy", "maxoros"], 7, done, k)
            total_points += int(b.hands["total"].sum())
            del b  # drop this chunk before the next one is allocated
            done += k
        dt = time.perf_counter() - t0
        rows.append({"hands": n, "seconds": round(dt, 2), "hands_per_s": n / dt, "peak_rss_mb": round(peak_rss_mb(), 1),
                     "points": total_points})
        print(f"{n:>12,} hands  {n / dt:>12,.0f} hands/s  peak RSS {peak_rss_mb():8.1f} MB", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="ludoteka")
    ap.add_argument("--seconds", type=float, default=3.0, help="time per core measurement")
    ap.add_argument("--python-seconds", type=float, default=3.0, help="time per reference measurement")
    ap.add_argument("--json", metavar="FILE", help="write the measurements here")
    ap.add_argument("--memory", action="store_true", help="peak RSS for 1e6, 4e6 and 1.6e7 hands")
    ap.add_argument("--memory-hands", metavar="N,N,...", default="1e6,4e6,1.6e7",
                    help="the hand counts --memory plays, e.g. 1e6,1e8")
    args = ap.parse_args(argv)

    from escoba_sim import __version__, native
    from escoba_sim.bench import bench_table, format_table

    out = {"version": __version__, "engine": native.ENGINE, "python": platform.python_version(),
           "machine": platform.machine(), "processor": _cpu_name(), "rules": args.rules}
    if native.ENGINE == "cython":
        from escoba_sim import _core

        out["impl"] = _core.IMPL
    if args.memory:
        out["memory"] = memory_check(args.rules, [int(float(x)) for x in args.memory_hands.split(",")])
    else:
        engines = ("cython", "python") if native.ENGINE == "cython" else ("python",)
        rows = bench_table(args.rules, seconds=args.seconds, python_seconds=args.python_seconds, engines=engines)
        out["rows"] = rows
        print(format_table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    sys.exit(main())
