"""Shared settings of the studies: one seed, counts, the environment's settings, and where results go."""

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SEED = 20261129


def _count(env: Mapping[str, str], name: str, default: str) -> int:
    return int(float(env.get(name, default)))  # a count may be written 3e5


def _parts(env: Mapping[str, str], name: str, default: str) -> list[str]:
    return env.get(name, default).split(",")


@dataclass(frozen=True)
class Settings:
    """Every environment variable the studies read, read once (``SETTINGS``), with its default.

    A count (an ``int`` read through ``float``, so ``3e5`` works) is of games or duplicate deals; a
    ``*_parts`` setting is a comma-separated list of the parts of a script to run. The README gives the
    values that produced its numbers; each field's comment names its variable.
    """

    analysis_n: int  # ESCOBA_ANALYSIS_N (2000): games per ruleset or per pair, every study run by run_all.py
    # oracle_gap.py
    gap_n: int  # ESCOBA_GAP_N (1000): duplicate deals each strategy plays greedy on
    gap_jobs: int  # ESCOBA_GAP_JOBS (2): worker processes
    # ESCOBA_GAP_PRESETS (all): a comma-separated subset of presets to re-run; the others keep their numbers
    # (and the labels and script line they were made with) from results/oracle_gap.json
    gap_presets: list[str]
    # search_strength.py
    search_n: int  # ESCOBA_SEARCH_N (2000): deals of the exact and exploit options against the default
    search_n_option: int  # ESCOBA_SEARCH_N_OPTION (1000): deals of the other options
    search_n_greedy: int  # ESCOBA_SEARCH_N_GREEDY (1000): deals of each search against greedy
    search_n_infer: int  # ESCOBA_SEARCH_N_INFER (6000): deals of the candidate against the default
    search_seconds: float  # ESCOBA_SEARCH_SECONDS (6): seconds of each CPU-time measure
    search_cost_deals: int  # ESCOBA_SEARCH_COST_DEALS (12, an int): deals of the instruction counts
    search_cpu_runs: int  # ESCOBA_SEARCH_CPU_RUNS (3, an int): interleaved CPU-time runs of each spec
    search_parts: list[str]  # ESCOBA_SEARCH_PARTS (options,candidate)
    search_n_confirm: int  # ESCOBA_SEARCH_N_CONFIRM (30000): the registered confirmation's deals
    search_n_confirm_greedy: int  # ESCOBA_SEARCH_N_CONFIRM_GREEDY (4000): its deals against greedy
    search_jobs: int  # ESCOBA_SEARCH_JOBS (0, an int): worker processes; 0 is one per CPU
    # ESCOBA_SEARCH_CANDIDATE (ismcts:iters=950,c=4,rollout=0,exact=0,infer=1,stop=0,prior=0): the candidate
    search_candidate: str
    # skill_study.py
    skill_reuse: bool  # ESCOBA_SKILL_REUSE (off; 1 is on): keep finished folders, finish and re-read them
    skill_full_n: int  # ESCOBA_SKILL_FULL_N (300): the full ladder's games
    skill_n: int  # ESCOBA_SKILL_N (5000): the cheap ladder's games
    # scorecard_study.py
    scorecard_n: int  # ESCOBA_SCORECARD_N (1000, skill's default): games per pair and ruleset
    scorecard_reuse: bool  # ESCOBA_SCORECARD_REUSE (off; 1 is on): keep a finished folder and re-read it
    # stronger_search.py
    stronger_n_confirm: int  # ESCOBA_STRONGER_N_CONFIRM (4000): the registered confirmation's deals
    stronger_cost_deals: int  # ESCOBA_STRONGER_COST_DEALS (12, an int): deals of the instruction counts
    stronger_n_gap: int  # ESCOBA_STRONGER_N_GAP (1000): deals of each spec against greedy
    stronger_jobs: int  # ESCOBA_STRONGER_JOBS (one per CPU, an int): worker processes
    stronger_parts: list[str]  # ESCOBA_STRONGER_PARTS (confirm,cost,gap)
    # hand_reading.py
    reading_n_confirm: int  # ESCOBA_READING_N_CONFIRM (4000): the registered confirmation's deals per ruleset
    reading_fit_hands: int  # ESCOBA_READING_FIT_HANDS (600): self-play hands the opponent model is fitted on
    reading_logloss_hands: int  # ESCOBA_READING_LOGLOSS_HANDS (600): self-play hands of the log-loss
    reading_n_greedy: int  # ESCOBA_READING_N_GREEDY (1000): deals of each search against greedy
    reading_n_worth: int  # ESCOBA_READING_N_WORTH (1000): deals of the worth of seeing the other hand
    reading_jobs: int  # ESCOBA_READING_JOBS (one per CPU, an int): worker processes
    reading_parts: list[str]  # ESCOBA_READING_PARTS (fit,logloss,confirm,greedy,worth,cost)
    # levels.py
    levels_n: int  # ESCOBA_LEVELS_N (2000): games per pair of the levels' tournament, per ruleset
    levels_jobs: int  # ESCOBA_LEVELS_JOBS (one per CPU, an int): worker processes
    levels_rules: list[str]  # ESCOBA_LEVELS_RULES (ludoteka,tradicional): the rulesets rated
    # tuned_weights.py
    tune_evals: int  # ESCOBA_TUNE_EVALS (270): evaluations of each tune
    tune_games: int  # ESCOBA_TUNE_GAMES (10000): duplicate deals of each evaluation
    tune_check: int  # ESCOBA_TUNE_CHECK (100000): fresh duplicate deals of the check

    @classmethod
    def from_environment(cls, env: Mapping[str, str] = os.environ) -> "Settings":
        return cls(
            analysis_n=_count(env, "ESCOBA_ANALYSIS_N", "2000"),
            gap_n=_count(env, "ESCOBA_GAP_N", "1000"),
            gap_jobs=int(env.get("ESCOBA_GAP_JOBS", "2")),
            gap_presets=[p for p in env.get("ESCOBA_GAP_PRESETS", "").split(",") if p],
            search_n=_count(env, "ESCOBA_SEARCH_N", "2000"),
            search_n_option=_count(env, "ESCOBA_SEARCH_N_OPTION", "1000"),
            search_n_greedy=_count(env, "ESCOBA_SEARCH_N_GREEDY", "1000"),
            search_n_infer=_count(env, "ESCOBA_SEARCH_N_INFER", "6000"),
            search_seconds=float(env.get("ESCOBA_SEARCH_SECONDS", "6")),
            search_cost_deals=int(env.get("ESCOBA_SEARCH_COST_DEALS", "12")),
            search_cpu_runs=int(env.get("ESCOBA_SEARCH_CPU_RUNS", "3")),
            search_parts=_parts(env, "ESCOBA_SEARCH_PARTS", "options,candidate"),
            search_n_confirm=_count(env, "ESCOBA_SEARCH_N_CONFIRM", "30000"),
            search_n_confirm_greedy=_count(env, "ESCOBA_SEARCH_N_CONFIRM_GREEDY", "4000"),
            search_jobs=int(env.get("ESCOBA_SEARCH_JOBS", "0")) or os.cpu_count() or 1,
            search_candidate=env.get("ESCOBA_SEARCH_CANDIDATE",
                                     "ismcts:iters=950,c=4,rollout=0,exact=0,infer=1,stop=0,prior=0"),
            skill_reuse=env.get("ESCOBA_SKILL_REUSE") == "1",
            skill_full_n=_count(env, "ESCOBA_SKILL_FULL_N", "300"),
            skill_n=_count(env, "ESCOBA_SKILL_N", "5000"),
            scorecard_n=_count(env, "ESCOBA_SCORECARD_N", "1000"),
            scorecard_reuse=env.get("ESCOBA_SCORECARD_REUSE") == "1",
            stronger_n_confirm=_count(env, "ESCOBA_STRONGER_N_CONFIRM", "4000"),
            stronger_cost_deals=int(env.get("ESCOBA_STRONGER_COST_DEALS", "12")),
            stronger_n_gap=_count(env, "ESCOBA_STRONGER_N_GAP", "1000"),
            stronger_jobs=int(env.get("ESCOBA_STRONGER_JOBS", str(os.cpu_count() or 1))),
            stronger_parts=_parts(env, "ESCOBA_STRONGER_PARTS", "confirm,cost,gap"),
            reading_n_confirm=_count(env, "ESCOBA_READING_N_CONFIRM", "4000"),
            reading_fit_hands=_count(env, "ESCOBA_READING_FIT_HANDS", "600"),
            reading_logloss_hands=_count(env, "ESCOBA_READING_LOGLOSS_HANDS", "600"),
            reading_n_greedy=_count(env, "ESCOBA_READING_N_GREEDY", "1000"),
            reading_n_worth=_count(env, "ESCOBA_READING_N_WORTH", "1000"),
            reading_jobs=int(env.get("ESCOBA_READING_JOBS", str(os.cpu_count() or 1))),
            reading_parts=_parts(env, "ESCOBA_READING_PARTS", "fit,logloss,confirm,greedy,worth,cost"),
            levels_n=_count(env, "ESCOBA_LEVELS_N", "2000"),
            levels_jobs=int(env.get("ESCOBA_LEVELS_JOBS", str(os.cpu_count() or 1))),
            levels_rules=_parts(env, "ESCOBA_LEVELS_RULES", "ludoteka,tradicional"),
            tune_evals=_count(env, "ESCOBA_TUNE_EVALS", "270"),
            tune_games=_count(env, "ESCOBA_TUNE_GAMES", "10000"),
            tune_check=_count(env, "ESCOBA_TUNE_CHECK", "100000"),
        )


SETTINGS = Settings.from_environment()
N = SETTINGS.analysis_n  # the README says which count produced its numbers
RESULTS = Path(__file__).resolve().parent / "results"
# ismcts' default until issue 14's confirmation (1000 iterations, uniform deals), spelled in full so that a
# study measured against it, or played with it, keeps playing that search whatever the default becomes
EARLIER_ISMCTS = "ismcts:iters=1000,c=4,rollout=0,exact=0,blows=0,leaf=-1,exploit=0,infer=0,stop=0,prior=0"


def fresh(name: str) -> Path:
    """An output folder for one study; an older result of the same study is replaced."""
    import shutil

    out = RESULTS / name
    if out.exists():
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    return out


def save_numbers(name: str, numbers: dict) -> None:
    """Write a study's numbers, with the deal stream that dealt them (make_readme flags older ones)."""
    from escoba_sim.game.rng import DEAL_STREAM_VERSION

    numbers = {**numbers, "deal_stream": DEAL_STREAM_VERSION}
    (RESULTS / f"{name}.json").write_text(json.dumps(numbers, indent=2) + "\n")
