"""The skill scorecard: relative skill, the coin-flip equivalent and restricted play, each recomputed here
from the runs' per-deal vectors and plain runs on the same seed, or from exact small cases."""

import json
import math

import numpy as np
import pytest
from helpers import skill_metric

from escoba_sim.game.rules import parse_rules
from escoba_sim.runs.folder import read_manifest, read_run_deals, run_spec_of
from escoba_sim.runs.runner import run as run_one
from escoba_sim.runs.spec import make_spec
from escoba_sim.series import scorecard as sc
from escoba_sim.series import skill as sk
from escoba_sim.series.compare import build_variants
from escoba_sim.strategies import check_strategy

Z = 1.959963984540054
LADDER = ["random", "greedy", "heuristic"]


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    out = tmp_path_factory.mktemp("scorecard") / "s"
    return out, sk.skill(build_variants([], ["lucky_deal=escobas,off"]), LADDER, 150, out, seed=5)


def _deals(out, pair: dict) -> np.ndarray:
    run_dir = out / pair["run"]
    spec = run_spec_of(run_dir, read_manifest(run_dir))
    return np.vstack([read_run_deals(run_dir, spec, k) for k in range(spec.n_chunks)]).astype(float)


def _pair(out, ruleset: int, a: str, b: str, figure: str | None = None) -> dict:
    m = json.loads((out / "manifest.json").read_text())
    return next(p for p in m["pairs"] if p["ruleset"] == ruleset and p.get("figure") == figure
                and (figure is not None or (p["a"], p["b"]) == (a, b)))


def _margin_parts(v: np.ndarray):
    from escoba_sim.runs.aggregates import DealLayout

    lay = DealLayout(2)
    return v[:, lay.points(0)] - v[:, lay.points(1)], v[:, lay.hands]


def test_the_scorecard_plays_the_oracle_and_the_restricted_heuristics_on_the_ladders_deals(scored):
    out, summary = scored
    card = summary["scorecard"]
    assert card["beginner"] == "random" and card["best"] == summary["strategies"][-1]
    figures = [r[0] for r in card["runs"]]
    restricted = ["restricted_cards", "restricted_oros", "restricted_sevens", "restricted_siete",
                  "restricted_escobas"]
    assert figures[-5:] == restricted
    for r in card["runs"][-5:]:  # the base against itself with one weight at 0: a spec option
        assert r[1] == summary["strategies"][-1] and r[2] != r[1] and r[2].startswith("heuristic:")
    m = json.loads((out / "manifest.json").read_text())
    assert {json.loads((out / p["run"] / "manifest.json").read_text())["seed"] for p in m["pairs"]} == {m["seed"]}


@pytest.mark.parametrize("figure", ["restricted_oros", "restricted_cards"])
def test_a_restricted_value_is_the_plain_runs_margin_with_its_deal_model_interval(scored, tmp_path, figure):
    """The figure is the base's points margin per hand over its restricted self: a plain run of the same two
    specs on the same seed gives the same per-deal vectors, and the interval is the ratio's delta method written
    here in numpy."""
    out, summary = scored
    p = _pair(out, 0, "", "", figure)
    v = _deals(out, p)
    spec = make_spec(p["a"], [p["b"]], parse_rules("ludoteka"), 150, seed=summary["seed"], keep_deals=True,
                     players_fixed=True)
    run_one(spec, tmp_path / "plain")
    plain_spec = run_spec_of(tmp_path / "plain", read_manifest(tmp_path / "plain"))
    plain = np.vstack([read_run_deals(tmp_path / "plain", plain_spec, k) for k in range(plain_spec.n_chunks)])
    assert np.array_equal(plain, v)
    d, h = _margin_parts(v)
    est = d.sum() / h.sum()
    infl = (d - est * h) / h.mean()
    half = Z * infl.std(ddof=1) / math.sqrt(len(d))
    got = skill_metric(summary, "ludoteka", figure)
    assert got["estimate"] == pytest.approx(est, abs=1e-12)
    assert (got["hi"] - got["lo"]) / 2 == pytest.approx(half, rel=1e-9)


def test_a_restriction_of_an_element_the_player_never_pursued_is_worth_exactly_nothing(tmp_path):
    """A base heuristic that already gives oros no weight: restricted and unrestricted are one strategy, so on
    duplicate deals every deal's margin cancels: 0, its interval [0, 0]; the others still move."""
    base = "heuristic:oros=0,keep=0"
    s = sk.skill(sk.skill_variants(["ludoteka"], []), ["random", base], 100, tmp_path / "s", seed=2)
    card = s["scorecard"]
    assert card["restricted"] == check_strategy(base)
    got = skill_metric(s, "ludoteka", "restricted_oros")
    assert (got["estimate"], got["lo"], got["hi"]) == (0.0, 0.0, 0.0)
    assert skill_metric(s, "ludoteka", "restricted_cards")["estimate"] != 0


def test_restricted_play_uses_the_ladders_last_heuristic_else_the_default():
    assert sc.restricted_base(["random", "heuristic:oros=2", "greedy"]).startswith("heuristic:cards=1,oros=2,")
    assert sc.restricted_base(["random", "greedy"]) == check_strategy("heuristic")
    assert "sevens=0," in sc.restricted_spec(sc.restricted_base(["random"]), "sevens")


@pytest.mark.core("the oracle is the fictive player")
def test_relative_skill_is_the_best_players_edge_over_the_oracles_recomputed_from_the_deals(scored, tmp_path):
    """Borm and van der Genugten's relative skill with the beginner as everyone's opponent: the best's margin
    per hand over random (the ladder's random-heuristic pair, heuristic on side 1) over the oracle's (a plain run
    of oracle vs random on the seed gives the same deals), with the delta method's interval written here."""
    out, summary = scored
    ladder = _deals(out, _pair(out, 0, "random", summary["strategies"][-1]))
    fictive_pair = _pair(out, 0, "", "", "relative_skill")
    fictive = _deals(out, fictive_pair)
    spec = make_spec(fictive_pair["a"], ["random"], parse_rules("ludoteka"), 150, seed=summary["seed"],
                     keep_deals=True, players_fixed=True)
    run_one(spec, tmp_path / "plain")
    plain_spec = run_spec_of(tmp_path / "plain", read_manifest(tmp_path / "plain"))
    assert np.array_equal(np.vstack([read_run_deals(tmp_path / "plain", plain_spec, k)
                                     for k in range(plain_spec.n_chunks)]), fictive)
    d0, h0 = _margin_parts(ladder)
    d0 = -d0  # heuristic is side 1 of (random, heuristic)
    df, hf = _margin_parts(fictive)
    m_best, m_oracle = d0.sum() / h0.sum(), df.sum() / hf.sum()
    rs = m_best / m_oracle
    n = len(d0)
    infl = rs * (d0 / d0.sum() - h0 / h0.sum() - df / df.sum() + hf / hf.sum()) * n
    half = Z * infl.std(ddof=1) / math.sqrt(n)
    got = skill_metric(summary, "ludoteka", "relative_skill")
    assert got["estimate"] == pytest.approx(rs, rel=1e-12)
    assert (got["hi"] - got["lo"]) / 2 == pytest.approx(half, rel=1e-9)
    assert skill_metric(summary, "ludoteka", "learning_effect")["estimate"] == pytest.approx(m_best)
    assert skill_metric(summary, "ludoteka", "random_effect")["estimate"] == pytest.approx(m_oracle - m_best)
    assert 0 < got["lo"] < got["estimate"] < got["hi"] < 1  # the oracle beats the heuristic against random
    # lucky_deal=off minus ludoteka, paired by deal: the difference of the two, narrower than unpaired
    (e,) = [x for x in summary["effects"] if x["metric"] == "relative_skill"]
    other = skill_metric(summary, "lucky_deal=off", "relative_skill")
    assert e["estimate"] == pytest.approx(other["estimate"] - got["estimate"])
    assert e["hi"] - e["lo"] < math.hypot(other["hi"] - other["lo"], got["hi"] - got["lo"])


@pytest.mark.parametrize("x", [0.05, 0.3, 0.8])
def test_the_coin_flip_share_inverts_its_reference(x):
    """Ratings fitted to the reference with a share x of coin flips give back x."""
    from escoba_sim.runs.stats import bradley_terry

    games, K = 400, 4
    wins = np.zeros((K, K))
    for i in range(K):
        for j in range(i + 1, K):
            wins[i, j], wins[j, i] = (1 - x / 2) * games, x / 2 * games
    r = bradley_terry(wins)
    assert sc.coin_flip_share(r, games, sc.rating_sd(r)) == pytest.approx(x, abs=1e-9)


def test_the_coin_flip_share_of_equal_players_is_all_coin_flips_and_more_spread_means_fewer():
    assert sc.coin_flip_share([0.0, 0.0, 0.0], 100, 0.0) == 1.0
    a = sc.coin_flip_share([-100, 0, 100], 500, sc.rating_sd([-100, 0, 100]))
    b = sc.coin_flip_share([-300, 0, 300], 500, sc.rating_sd([-300, 0, 300]))
    assert 0 < b < a < 1
    # the interval maps the spread's ends: a wider spread is fewer flips
    x, lo, hi = sc.coin_flip([-300, 0, 300], np.diag([400.0, 100.0, 400.0]), 500)
    assert lo < x < hi and x == b


def test_the_summary_coin_flip_is_the_ratings_mapped(scored):
    _, summary = scored
    ratings = [r["estimate"] for r in summary["ratings"] if r["ruleset"] == "ludoteka"]
    got = skill_metric(summary, "ludoteka", "coin_flip")
    assert got["estimate"] == pytest.approx(sc.coin_flip_share(ratings, summary["games_per_pair"],
                                                               sc.rating_sd(ratings)), abs=1e-12)
    assert got["lo"] < got["estimate"] < got["hi"]


def test_a_folder_without_the_scorecard_has_none_and_resumes_as_before(tmp_path):
    from escoba_sim.series.resume import resume_folder

    out = tmp_path / "s"
    s = sk.skill(sk.skill_variants(["ludoteka"], []), ["random", "greedy"], 60, out, seed=4, scorecard=False)
    assert s["scorecard"] is None and not any(r["metric"].startswith("restricted") for r in s["skill"])
    m = json.loads((out / "manifest.json").read_text())
    del m["scorecard"]  # a folder made before the scorecard
    (out / "manifest.json").write_text(json.dumps(m))
    (out / "summary.json").unlink()
    assert resume_folder(out)["skill"] == s["skill"]
