"""The compiled core against the reference engine for sevens, defensive, heuristic and endgame.

Same method as test_core_differential.py (its helpers are reused): every array
must be identical, hand by hand and field by field, over the presets, more
players and teams, huge tables and random rulesets. Endgame's alpha-beta search
is also checked against a deliberately naive full minimax on random endgame
positions, so a pruning bug cannot hide behind two engines sharing it.
"""

from __future__ import annotations

import math
import random

import pytest
from helpers import compare_games, compare_hands, rulesets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from escoba_sim.game import engine
from escoba_sim.game.cards import mask_of
from escoba_sim.game.rules import PRESETS, Ruleset
from escoba_sim.strategies import EndgameStrategy, parse_strategy
from escoba_sim.strategies.endgame import Node

NEW = ("sevens", "defensive", "heuristic", "endgame")
# every new strategy in both seats, against old and new ones, with default and set parameters
PAIRINGS = [("sevens", "greedy"), ("random", "sevens"), ("defensive", "greedy"), ("maxoros", "defensive"),
            ("heuristic", "random"), ("greedy", "heuristic:oros=3,risk=1,keep=0"), ("endgame", "greedy"),
            ("heuristic:escoba=1,risk=9", "endgame:max_cards=6,siete=5")]


@pytest.mark.parametrize("pairing", PAIRINGS, ids="-".join)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_hands_match_reference(preset, pairing):
    compare_hands(PRESETS[preset], pairing, seed=20261129, first=0, count=1000)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_games_match_reference(preset):
    compare_games(PRESETS[preset], ("endgame", "defensive"), seed=11, first=0, count=4)
    compare_games(PRESETS[preset], ("sevens", "heuristic"), seed=12, first=5, count=4)


@pytest.mark.parametrize("players,teams", [(3, False), (4, True), (6, True)])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_more_players_and_teams(preset, players, teams):
    rules = PRESETS[preset].replace(players=players, teams=teams)
    strategies = [NEW[i % 4] for i in range(players)]
    compare_hands(rules, strategies, seed=77, first=0, count=200)
    compare_hands(rules, strategies[::-1], seed=78, first=0, count=100)


def test_large_tables_and_weights():
    rules = Ruleset(table_size=20, hand_size=3, capture="optional", soplar=True, lucky_deal="escobas")
    for pairing in [("defensive", "heuristic"), ("endgame", "sevens"), ("heuristic:cards=-1,oros=7", "endgame")]:
        compare_hands(rules, pairing, seed=3, first=0, count=100)
    rules = Ruleset(players=2, hand_size=4, table_size=24, capture="optional", soplar=True, deal="draw")
    compare_hands(rules, ("endgame", "endgame:max_cards=8,keep=3"), seed=4, first=0, count=60)


@pytest.mark.slow
@pytest.mark.parametrize("pairing", PAIRINGS, ids="-".join)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_hands_match_reference_10k(preset, pairing):
    compare_hands(PRESETS[preset], pairing, seed=7654321, first=0, count=10_000)


@st.composite
def searchable_rulesets(draw):
    """Random rulesets with at most 5 cards per hand and 6 on the table at the deal, so that the
    reference engine's searches stay quick (huge hands and tables have their own fixed cases above)."""
    r = draw(rulesets())
    return r.replace(hand_size=min(r.hand_size, 5), table_size=min(r.table_size, 6))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=searchable_rulesets(), seed=st.integers(0, 2**64 - 1), first=st.integers(0, 10**6), data=st.data())
def test_random_rulesets_match_reference(rules, seed, first, data):
    names = ["random", "greedy", "sevens", "defensive", "heuristic:risk=2,keep=1"]
    if rules.capture != "optional":
        # endgame's exact search grows exponentially with the table, and under `optional` every card
        # may be laid: a table of 25+ cards took the Python reference hours (CI stalled on one such
        # draw); test_large_tables_and_weights covers endgame there on fixed seeds
        names.append("endgame:max_cards=6")
    strategies = data.draw(st.lists(st.sampled_from(names), min_size=rules.players, max_size=rules.players))
    compare_hands(rules, strategies, seed, first, 15)
    compare_games(rules, strategies, seed, first, 1)


# ---------------- endgame's search against a naive minimax ----------------

def naive_value(eg: EndgameStrategy, rules, hands, table, piles, escobas, last, seat, pending) -> int:
    """Full minimax with no pruning, on the same move generator: the oracle for the alpha-beta search."""
    def turn(hands, table, piles, escobas, last, seat, pending):
        pick = max if seat == eg.me else min
        results = []
        blows = [0] + (pending[1] if pending else [])
        for take in blows:
            t, p, la = table, list(piles), last
            if take:
                taken = take | 1 << pending[0]
                t &= ~taken
                p[seat] |= taken
                la = seat
            results.append(moves(hands, t, p, escobas, la, seat))
        return pick(results)

    def moves(hands, table, piles, escobas, last, seat):
        pick = max if seat == eg.me else min
        vals = []
        for card, take in eg.legal(rules, hands[seat], table):
            h, t, p, e, la, pend = list(hands), table, list(piles), list(escobas), last, None
            h[seat] &= ~(1 << card)
            if take:
                t &= ~take
                p[seat] |= take | 1 << card
                la = seat
                e[seat] += not t
            else:
                opts = [mask_of(o) for o in engine.capture_options(card, [c for c in range(40) if t >> c & 1])]
                if rules.soplar and opts:
                    pend = (card, opts)
                t |= 1 << card
            other = 1 - seat
            nxt = other if h[other] else (seat if h[seat] else -1)
            vals.append(eg._leaf(Node(rules, h, t, p, e, la)) if nxt < 0 else turn(h, t, p, e, la, nxt, pend))
        return pick(vals)

    return turn(hands, table, piles, escobas, last, seat, pending)


def random_endgame(r: random.Random, rules):
    """Two hands of 1-3 cards, a table, and the rest of the deck split between the piles."""
    cards = list(range(40))
    r.shuffle(cards)
    n0, n1, nt = r.randint(1, 3), r.randint(0, 3), r.randint(0, 5)
    hands = [mask_of(cards[:n0]), mask_of(cards[n0:n0 + n1])]
    table = mask_of(cards[n0 + n1:n0 + n1 + nt])
    rest = cards[n0 + n1 + nt:]
    cut = r.randint(0, len(rest))
    return hands, table, [mask_of(rest[:cut]), mask_of(rest[cut:])], [r.randint(0, 2), r.randint(0, 2)], r.choice((-1, 0, 1))


@pytest.mark.parametrize("preset", ["ludoteka", "tradicional", "cardgames"])
def test_endgame_search_equals_naive_minimax(preset):
    rules = PRESETS[preset]
    r = random.Random(preset)
    eg = parse_strategy("endgame").make()
    # capture=optional (tradicional) lets every card lay as well: the naive tree is far bigger
    for _ in range(25 if rules.capture == "optional" else 150):
        hands, table, piles, escobas, last = random_endgame(r, rules)
        eg.me = 0
        full = naive_value(eg, rules, hands, table, piles, escobas, last, 0, None)
        pruned = eg._moves_value(Node(rules, hands, table, piles, escobas, last), 0, -math.inf, math.inf)
        assert pruned == full
