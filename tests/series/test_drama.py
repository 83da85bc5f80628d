"""The drama figures: the win-probability model exact on small chains (against value iteration written here
and closed forms), lead changes and comebacks recomputed from the played games, their intervals from numpy,
the model's calibration check able to tell a calibrated model from a wrong one, the model's two dealers
mirrored."""

import math

import numpy as np
import pytest
from helpers import skill_metric

from escoba_sim.game.rules import parse_rules
from escoba_sim.series import drama as dr
from escoba_sim.series import skill as sk

Z = 1.959963984540054


def _value_iteration(rules, model, states, sweeps: int = 400):
    """W by repeated sweeps over a grid (not the module's recursion): W(s0, s1, d) = sum p * (end or W(next))."""
    top = max(max(a, b) for a, b, _ in states) + 3 * rules.target + 40
    W = np.full((top + 40, top + 40, 2), 0.5)
    for _ in range(sweeps):
        new = W.copy()
        for s0 in range(top):
            for s1 in range(top):
                for d in (0, 1):
                    v = 0.0
                    for (x0, x1), p in model[d]:
                        a, b = s0 + x0, s1 + x1
                        if max(a, b) >= rules.target and a != b:
                            v += p * (a > b)
                        else:
                            v += p * W[min(a, top), min(b, top), 1 - d]
                    new[s0, s1, d] = v
        W = new
    return {st: W[st] for st in states}


def test_first_to_two_points_is_the_closed_form():
    rules = parse_rules("ludoteka(target=2)")
    p = 0.6
    model = {d: [((1, 0), p), ((0, 1), 1 - p)] for d in (0, 1)}
    W = dr.win_chances(rules, model)
    assert W(0, 0, 0) == pytest.approx(p * p * (3 - 2 * p), abs=1e-12)  # two of three
    assert W(1, 1, 1) == pytest.approx(p)


def test_scoreless_hands_and_ties_at_the_top_play_on():
    """A hand nobody scores passes the deal (the same scores), a tie at the target plays another hand: the
    recursion agrees with value iteration over a grid, dealer by dealer."""
    rules = parse_rules("ludoteka(target=3)")
    model = {0: [((0, 0), 0.2), ((1, 1), 0.2), ((2, 0), 0.3), ((0, 1), 0.3)],
             1: [((0, 0), 0.1), ((1, 1), 0.3), ((1, 0), 0.2), ((0, 2), 0.4)]}
    W = dr.win_chances(rules, model)
    states = [(0, 0, 0), (0, 0, 1), (2, 2, 0), (3, 3, 1), (1, 2, 0)]
    want = _value_iteration(rules, model, states)
    for st in states:
        assert W(*st) == pytest.approx(want[st], abs=1e-9)


def test_the_model_from_real_hands_agrees_with_value_iteration():
    rules = parse_rules("ludoteka")
    played = dr.play(rules, "heuristic", 3, 60)
    model = dr.hand_model([h for g in played for h in g["hands"]])
    W = dr.win_chances(rules, model)
    states = [(0, 0, 0), (0, 0, 1), (7, 10, 0), (14, 14, 1)]
    want = _value_iteration(rules, model, states, sweeps=60)
    for st in states:
        assert W(*st) == pytest.approx(want[st], abs=1e-6)


def _recount(rules, played, model_hands):
    """Lead changes and comebacks per game, recomputed from the games with the model of the other hands."""
    W = dr.win_chances(rules, dr.hand_model(model_hands))
    changes, trail, back = [], [], []
    for g in played:
        favs = [np.sign(W(*st) - 0.5) for st in g["states"]]
        favs = [f for f in favs if f]
        changes.append(sum(1 for a, b in zip(favs, favs[1:]) if a != b))
        s0, s1, _ = g["states"][-1]
        trail.append(s0 != s1)
        back.append(s0 != s1 and (g["winner"] == 0) == (s0 < s1))
    return np.asarray(changes, float), np.asarray(trail, float), np.asarray(back, float)


def test_the_figures_are_recomputed_from_the_games_with_numpy_intervals(tmp_path):
    variants = sk.skill_variants(["ludoteka", "tradicional"], [])
    rows, effects, checks = dr.drama_rows(variants, "heuristic", 9, 120)
    got = {(r[0], r[1]): r[2:] for r in rows}
    per = {}
    for v in variants:
        played = dr.play(v.rules, "heuristic", 9, 120)
        hands = dr.model_hands(v.rules, "heuristic", 9, dr.MODEL_HANDS * 120)
        assert len(hands) == 1200 and {d for *_, d in hands} == {0, 1}
        c, t, b = _recount(v.rules, played, hands)
        h = np.asarray([len(g["states"]) for g in played], float)
        per[v.label] = (c, t, b, h)
        est, lo, hi = got[(v.label, "lead_changes")]
        assert est == pytest.approx(c.mean())
        assert (hi - lo) / 2 == pytest.approx(Z * c.std(ddof=1) / math.sqrt(len(c)), rel=1e-9)
        est, lo, hi = got[(v.label, "comebacks")]
        share = b.sum() / t.sum()
        assert est == pytest.approx(share)
        infl = (b - share * t) / t.mean()
        assert (hi - lo) / 2 == pytest.approx(Z * infl.std(ddof=1) / math.sqrt(len(b)), rel=1e-9)
        est, lo, hi = got[(v.label, "hands_spread")]
        assert est == pytest.approx(h.std())
        m4 = ((h - h.mean()) ** 4).mean()  # the standard deviation's delta-method se for independent games
        assert (hi - lo) / 2 == pytest.approx(Z * math.sqrt((m4 - h.var() ** 2) / (4 * h.var() * (len(h) - 1))),
                                              rel=1e-6)
    (e,) = [x for x in effects if x[1] == "lead_changes"]  # paired by game
    d = per["tradicional"][0] - per["ludoteka"][0]
    assert e[2] == pytest.approx(d.mean())
    assert (e[4] - e[3]) / 2 == pytest.approx(Z * d.std(ddof=1) / math.sqrt(len(d)), rel=1e-9)
    assert {c["label"] for c in checks} == {"ludoteka", "tradicional"}


def test_the_model_reads_each_hand_for_both_dealers_mirrored():
    model = dr.hand_model([(3, 1, 0), (2, 2, 0), (0, 5, 1)])
    assert dict(model[0]) == pytest.approx({(3, 1): 1 / 3, (2, 2): 1 / 3, (5, 0): 1 / 3})
    assert dict(model[1]) == pytest.approx({(1, 3): 1 / 3, (2, 2): 1 / 3, (0, 5): 1 / 3})


def test_the_calibration_check_tells_a_calibrated_model_from_a_wrong_one():
    rng = np.random.default_rng(7)
    p = rng.uniform(0, 1, 20000)
    fair = dr.calibration(p, rng.uniform(0, 1, p.size) < p)
    wrong = dr.calibration(p, rng.uniform(0, 1, p.size) < p ** 2)
    assert fair["error"] < 0.02 < 0.1 < wrong["error"]
    assert sum(b["states"] for b in fair["bins"]) == p.size


def test_a_ruleset_of_three_sides_has_no_drama():
    assert dr.drama_rows(sk.skill_variants(["ludoteka(players=3)"], []), "heuristic", 1, 10) == ([], [], [])


def test_a_skill_summary_carries_the_drama_and_its_models_calibration(tmp_path):
    s = sk.skill(sk.skill_variants(["ludoteka"], []), ["random", "greedy"], 80, tmp_path / "s", seed=6)
    lc = skill_metric(s, "ludoteka", "lead_changes")
    assert lc["lo"] < lc["estimate"] < lc["hi"]
    (c,) = s["calibration"]
    assert c["label"] == "ludoteka" and 0 <= c["error"] < 0.2 and c["states"] > 80
