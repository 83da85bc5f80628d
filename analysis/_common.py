"""Shared settings of the studies: one seed, counts, and where results go."""

import json
import os
from pathlib import Path

SEED = 20261129
# games per ruleset or per pair; ESCOBA_ANALYSIS_N overrides (the README says which count produced its numbers)
N = int(float(os.environ.get("ESCOBA_ANALYSIS_N", "2000")))
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
