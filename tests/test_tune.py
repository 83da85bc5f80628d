"""escoba-sim tune: common random numbers, reproducibility for any --jobs, resume, best.toml, errors."""

import json
import subprocess

import pytest

pytest.importorskip("cma")
from escoba_sim.strategies import parse_strategy
from escoba_sim.tune import TuneError, evaluate, make_tune_spec, tune

pytestmark = pytest.mark.core("tune")


def small(**kw):
    args = dict(evals=12, games=150, seed=11, popsize=4, check=200)
    args.update(kw)
    return make_tune_spec("heuristic", **args)


def read_evals(out):
    return {p.name: json.loads(p.read_text()) for p in sorted((out / "evals").iterdir())}


def test_identical_candidates_score_exactly_the_same():
    spec = small()
    x = [1.3, 0.7, 1.1, 0.9, 1.2, 0.8, 0.6]
    a = evaluate(spec, 2, 0, x)
    b = evaluate(spec, 2, 3, x)  # another candidate slot of the same generation: the same deals
    assert (a["score"], a["lo"], a["hi"]) == (b["score"], b["lo"], b["hi"])
    # another generation plays other deals, so the same candidate's score moves by deal luck
    assert evaluate(spec, 3, 0, x)["score"] != a["score"]
    # a different candidate on the same deals differs by play only
    assert evaluate(spec, 2, 1, [v * 3 for v in x])["score"] != a["score"]


def test_the_start_point_is_the_starting_spec():
    # parameters are scaled by max(|start|, 1): the point of ones (keep: 0.5) is the start itself
    spec = small()
    start = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5]  # scaled: heuristic defaults / max(|v|, 1)
    e = evaluate(spec, 0, 0, start)
    assert e["spec"] == spec.strategy


def test_reproducible_for_any_jobs_and_best_toml(tmp_path):
    spec = small()
    one = tune(spec, tmp_path / "one", jobs=1)
    two = tune(spec, tmp_path / "two", jobs=2)
    assert one["tuned"] == two["tuned"] and one["history"] == two["history"] and one["check"] == two["check"]
    assert read_evals(tmp_path / "one") == read_evals(tmp_path / "two")
    assert len(read_evals(tmp_path / "one")) == spec.evals
    toml = tmp_path / "one" / "best.toml"
    assert parse_strategy(f"heuristic:{toml}").canonical == one["tuned"]
    c = one["check"]
    assert c["lo"] <= c["points_per_hand"] <= c["hi"] and c["deals"] == 200


def test_resume_after_interrupt_gives_the_identical_result(tmp_path):
    spec = small()
    whole = tune(spec, tmp_path / "whole")

    def stop_after_two(p):
        if p.generation == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tune(spec, tmp_path / "cut", on_generation=stop_after_two)
    assert not (tmp_path / "cut" / "summary.json").exists()
    # an interruption inside a generation: only some of its evaluations are on disk
    (tmp_path / "cut" / "evals" / "g0001-c02.json").unlink()
    seen = []
    resumed = tune(spec, tmp_path / "cut", on_generation=lambda p: seen.append(p.seconds_left))
    assert resumed == whole
    assert read_evals(tmp_path / "cut") == read_evals(tmp_path / "whole")
    # generation 1 was read back (nothing timed yet); generation 2 recomputed one evaluation, timing it
    assert seen[0] is None and seen[1] is not None


def test_seed_changes_the_tune(tmp_path):
    a = tune(small(evals=4), tmp_path / "a")
    b = tune(small(evals=4, seed=12), tmp_path / "b")
    assert a["history"] != b["history"]


def test_a_folder_with_another_tune_is_refused(tmp_path):
    tune(small(evals=4), tmp_path / "t")
    with pytest.raises(TuneError, match="different tune"):
        tune(small(evals=4, seed=5), tmp_path / "t")


@pytest.mark.parametrize("args, message", [
    (["greedy"], "no numeric parameters"),
    (["heuristic", "--param", "colour"], "no parameter `colour`"),
    (["endgame", "--param", "max_cards"], "whole-number cost setting"),
    (["heuristic", "--vs", "nosuch"], "unknown strategy"),
])
def test_cli_errors_are_one_line(tmp_path, args, message):
    r = subprocess.run(["escoba-sim", "tune", *args, "--out", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and message in r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
    assert "Traceback" not in r.stderr and len(errors) == 1 and message in errors[0]


def test_cli_tune_writes_best_toml(tmp_path):
    out = tmp_path / "t"
    cmd = ["escoba-sim", "tune", "heuristic", "--param", "risk", "--param", "escoba",
           "--evals", "8", "--games", "100", "--popsize", "4", "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "generation 2/2" in r.stderr and "best so far" in r.stderr
    assert "check on 200 fresh deals" in r.stdout
    tuned = parse_strategy(f"heuristic:{out / 'best.toml'}")
    d = dict(tuned.params)
    assert (d["cards"], d["oros"], d["sevens"], d["siete"], d["keep"]) == (1, 1, 1.5, 3, 0.5)  # untuned stay put
    again = subprocess.run(cmd, capture_output=True, text=True)  # a finished tune is read back, not redone
    assert again.returncode == 0 and again.stdout == r.stdout


def test_a_single_parameter_is_tuned_alone(tmp_path):
    # cma needs two dimensions: a lone parameter gets a dummy twin that never reaches the strategy
    spec = make_tune_spec("heuristic", params=["risk"], evals=4, games=100, seed=2, popsize=2, check=100)
    s = tune(spec, tmp_path / "t")
    tuned, start = dict(parse_strategy(s["tuned"]).params), dict(parse_strategy(spec.strategy).params)
    assert tuned["risk"] != start["risk"]
    assert {k: v for k, v in tuned.items() if k != "risk"} == {k: v for k, v in start.items() if k != "risk"}
    assert all(len(e["x"]) == 1 for e in read_evals(tmp_path / "t").values())
