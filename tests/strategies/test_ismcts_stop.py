"""ismcts' settled stop (`stop`) and the default's information: a search that ends once its choice is made
changes no decision, and the default decides from the seat's own information only."""

import random

import numpy as np
import pytest

from escoba_sim import _core, batch
from escoba_sim.game import engine
from escoba_sim.game.cards import mask_of
from escoba_sim.game.rng import PLAY, SplitMix64, shuffled_deck
from escoba_sim.game.rules import parse_rules
from escoba_sim.strategies import GreedyStrategy

pytestmark = pytest.mark.core("ismcts")


@pytest.mark.parametrize("rules,spec", [("ludoteka", "ismcts:iters=400,exact=0,stop=0"),
                                        ("tradicional", "ismcts:iters=300,blows=1,exact=0,stop=0"),
                                        ("cardgames(players=4,teams=true)", "ismcts:iters=200,exact=0,stop=0"),
                                        ("ludoteka(players=3)", "ismcts:iters=200,exact=6,stop=0")])
def test_stop_1_ends_searches_whose_choice_is_settled_without_changing_any_decision(rules, spec):
    # with stop=1 a search ends only when no other option could still overtake the most visited one, so
    # every decision (and the PLAY stream: one draw per searched decision either way) is the same
    r = parse_rules(rules)
    names = [spec] + ["greedy"] * (r.players - 1)
    full = batch.play_hands(r, names, 7, 0, 12).hands
    settled = batch.play_hands(r, [spec.replace("stop=0", "stop=1")] + names[1:], 7, 0, 12).hands
    for k in full:
        np.testing.assert_array_equal(full[k], settled[k], err_msg=k)
    # a smaller share is a bet that the runner-up would not catch up: it stops sooner and plays otherwise
    bet = batch.play_hands(r, [spec.replace("stop=0", "stop=0.05")] + names[1:], 7, 0, 40).hands
    assert not np.array_equal(batch.play_hands(r, names, 7, 0, 40).hands["total"], bet["total"])


def _view(hands, st, seat):
    """decide_move's position and seat for ``seat`` (the stock: its size only)."""
    return (_core.Position(hands=[mask_of(h) for h in hands], table=mask_of(st.table), piles=list(st.piles),
                           escobas=list(st.escobas), stock_left=len(st.stock), dealer=st.dealer,
                           last_capturer=st.last_capturer, voids=list(st.voids)), seat)


@pytest.mark.parametrize("rules", ["ludoteka", "tradicional", "cardgames(players=4,teams=true)"])
def test_the_default_decides_from_its_own_information_only(rules):
    # the same information set with the hidden cards dealt again between the other hands and the stock: the
    # default search (its deals, exact endgame and stopping) makes the same decision with the same draws
    r = parse_rules(rules)
    checked = 0
    for seed in range(6):
        st = engine.new_hand(r, shuffled_deck(seed, 0, 0), 0)
        players = [GreedyStrategy() for _ in range(r.players)]
        rng = SplitMix64.for_hand(seed, 0, 0, PLAY)
        rnd = random.Random(seed)
        while not st.over:
            if engine.blow_options(st):
                engine.apply_blow(st, players[st.to_play].choose_blow(st, engine.blow_options(st), rng))
                continue
            seat = st.to_play
            if len(engine.legal_moves(st)) > 1 and rnd.random() < 0.5:
                base = _core.decide_move(r, "ismcts", *_view(st.hands, st, seat), 12345)
                hidden = [c for s, h in enumerate(st.hands) if s != seat for c in h] + list(st.stock)
                for _ in range(3):
                    rnd.shuffle(hidden)
                    other, i = [list(h) for h in st.hands], 0
                    for s in range(r.players):
                        if s != seat:
                            other[s] = hidden[i:i + len(st.hands[s])]
                            i += len(st.hands[s])
                    assert _core.decide_move(r, "ismcts", *_view(other, st, seat), 12345) == base
                checked += 1
            engine.apply_move(st, players[seat].choose_move(st, engine.legal_moves(st), rng))
    assert checked >= 20
