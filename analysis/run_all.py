"""Run every study: `python analysis/run_all.py` (ESCOBA_ANALYSIS_N=20000 for more games)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import game_length  # noqa: E402
import make_readme  # noqa: E402
import oracle_gap  # noqa: E402  (its own count, ESCOBA_GAP_N: oracle and ismcts are ~10 ms per hand)
import rule_fields  # noqa: E402
import search_strength  # noqa: E402  (its own counts, ESCOBA_SEARCH_N*: ismcts is ~1 ms per move)
import seat_advantage  # noqa: E402
import skill_study  # noqa: E402  (its own counts, ESCOBA_SKILL_N and ESCOBA_SKILL_FULL_N: ismcts is ~50 ms a game)
import strategies_by_preset  # noqa: E402
import strategy_strength  # noqa: E402
import tuned_weights  # noqa: E402  (its own counts, ESCOBA_TUNE_*)

if __name__ == "__main__":
    for study in (strategies_by_preset, strategy_strength, rule_fields, seat_advantage, game_length, search_strength,
                  tuned_weights, oracle_gap, skill_study):
        print(f"== {study.__name__}", flush=True)
        study.main()
    make_readme.main()
