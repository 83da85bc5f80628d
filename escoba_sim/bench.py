"""Speed measurement: hands per second on one core, for either engine.

``measure`` times one (rules, strategies, engine) combination in a single
process, in growing chunks (up to ``MAX_CALL_HANDS``) until the time budget
is spent; ``bench_table`` produces the standard table (greedy-maxoros,
greedy-greedy, random-random for the compiled core and the reference engine,
and their ratio) behind ``escoba-sim bench`` and ``benchmarks/bench_core.py``. Benchmarks never run as
timed unit tests (the machines are shared and noisy).
"""

from __future__ import annotations

import time

from . import batch
from .game.rules import Ruleset, parse_rules
from .i18n import translate as _

PAIRINGS = (("greedy", "maxoros"), ("greedy", "greedy"), ("random", "random"))
# The largest call of the compiled core: 320,000 hands (~0.3 s, ~20 MB of results). The call's own cost
# (~20 us) is lost in it, and its result blocks stay under glibc's 32 MB mmap ceiling, so the allocator
# reuses them; past it every call's result is mapped and zeroed afresh (benchmarks/README.md, "Seventh pass").
MAX_CALL_HANDS = 320_000


def _players(rules: Ruleset, pairing: tuple[str, ...]) -> list[str]:
    return [pairing[i % len(pairing)] for i in range(rules.players)]


def measure(rules: Ruleset | str, strategies: tuple[str, ...] | list[str], engine: str = "cython",
            seconds: float = 1.0, min_hands: int = 0, seed: int = 1) -> dict:
    """Hands per second of one engine on one core: play chunks until ``seconds`` and ``min_hands`` are met."""
    rules = parse_rules(rules)
    players = _players(rules, tuple(strategies))
    play = batch.py_play_hands if engine == "python" else None
    if engine == "cython":
        batch.engine_for([], "cython")  # a clear error when the core is not built
        from . import _core

        play = _core.play_hands
        play(rules, players, seed, 0, 1000)  # warm the lookup tables and the allocator
    elif engine != "python":
        raise ValueError(_("unknown engine `{engine}` (cython or python)").format(engine=engine))
    chunk = 20 if engine == "python" else 20_000
    hands, elapsed = 0, 0.0
    while elapsed < seconds or hands < min_hands:
        t0 = time.perf_counter()
        play(rules, players, seed, hands, chunk)
        elapsed += time.perf_counter() - t0
        hands += chunk
        if elapsed < seconds / 4:
            chunk = min(2 * chunk, MAX_CALL_HANDS)  # fewer, larger calls: their own cost stays out of the figure
    return {"engine": engine, "rules": str(rules), "strategies": list(players), "hands": hands,
            "seconds": round(elapsed, 4), "hands_per_s": hands / elapsed}


def bench_table(rules: Ruleset | str = "ludoteka", seconds: float = 2.0, python_seconds: float | None = None,
                engines: tuple[str, ...] = ("cython", "python")) -> list[dict]:
    """One row per pairing: hands/s for each engine and the core/reference ratio."""
    rules = parse_rules(rules)
    rows = []
    for pairing in PAIRINGS:
        row: dict = {"pairing": "-".join(pairing), "rules": str(rules)}
        for engine in engines:
            secs = seconds if engine == "cython" or python_seconds is None else python_seconds
            row[engine] = measure(rules, pairing, engine, secs)["hands_per_s"]
        if "cython" in row and "python" in row:
            row["ratio"] = row["cython"] / row["python"]
        rows.append(row)
    return rows


def format_table(rows: list[dict]) -> str:
    """A plain-text table of ``bench_table`` rows."""
    pairing, cython, python, ratio = _("pairing"), _("cython hands/s"), _("python hands/s"), _("ratio")
    lines = [f"{pairing:<16}{cython:>16}{python:>16}{ratio:>9}"]
    for r in rows:
        cy = f"{r['cython']:,.0f}" if "cython" in r else "-"
        py = f"{r['python']:,.0f}" if "python" in r else "-"
        ratio = f"{r['ratio']:,.0f}x" if "ratio" in r else "-"
        lines.append(f"{r['pairing']:<16}{cy:>16}{py:>16}{ratio:>9}")
    return "\n".join(lines)
