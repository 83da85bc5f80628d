"""ismcts' `prior`: the hand-set heuristic orders a node's expansions and biases UCB (docs/ismcts.md)."""

import math

import numpy as np
import pytest

from escoba_sim import batch
from escoba_sim.game.rules import parse_rules
from escoba_sim.tune import margins

pytestmark = pytest.mark.core("ismcts")


def test_the_default_is_guided_and_prior_0_plays_otherwise():
    # (prior=0 is the search as it was before the option: tests/strategies/test_ismcts_options.py replays
    # main's recorded decisions with it, draw for draw)
    r = parse_rules("tradicional")
    spec = "ismcts:iters=200,stop=0"
    bare = batch.play_hands(r, [spec, "greedy"], 3, 0, 20).hands
    guided = batch.play_hands(r, [spec + ",prior=16", "greedy"], 3, 0, 20).hands
    off = batch.play_hands(r, [spec + ",prior=0", "greedy"], 3, 0, 20).hands
    for k in bare:
        np.testing.assert_array_equal(bare[k], guided[k], err_msg=k)
    assert not np.array_equal(guided["total"], off["total"])


def test_one_iteration_with_the_prior_plays_the_heuristics_choice_far_more_often_than_not():
    # one iteration expands one root move: with the prior, the one the heuristic scores best, so the search
    # plays as `heuristic` does (ties aside: the heuristic breaks them otherwise); without it, a random one
    r = parse_rules("ludoteka")
    h = batch.play_hands(r, ["heuristic", "greedy"], 4, 0, 200).hands["total"]
    one = batch.play_hands(r, ["ismcts:iters=1,exact=0,prior=1", "greedy"], 4, 0, 200).hands["total"]
    blind = batch.play_hands(r, ["ismcts:iters=1,exact=0,prior=0", "greedy"], 4, 0, 200).hands["total"]
    same_one = np.mean(np.all(h == one, axis=1))
    same_blind = np.mean(np.all(h == blind, axis=1))
    assert same_one > 0.5 > same_blind


def test_the_prior_makes_a_search_of_100_simulations_stronger():
    # the same 100 simulations per move, with and without the heuristic's guidance, on duplicate deals (both
    # seatings): the guided search wins by far more than three standard errors (+0.65 points per hand on
    # 1,000 screening deals; the interval is the deal model's)
    old = "ismcts:iters=100,c=4,rollout=0,stop=0"  # greedy rollouts on both sides: the prior alone
    m = margins(parse_rules("ludoteka"), old + ",prior=16", old + ",prior=0", 5, 0, 300)
    se = float(m.std(ddof=1)) / math.sqrt(len(m))
    assert m.mean() - 3 * se > 0
