"""The lucky-deal odds of RULES.md by exact enumeration of all C(40,4) = 91,390 initial tables.

A naive oracle (sums over explicit card pairs) counts the tables; the engine's
own lucky deal is then checked on one table per multiset of values, weighted
by how many card tables share it, so every one of the 91,390 tables is covered.
"""

import itertools
from collections import Counter
from math import comb

import pytest

from escoba_sim.game import engine
from escoba_sim.game.cards import value
from escoba_sim.game.rules import PRESETS


def naive_groups(table):
    """Groups of 15 a dealer takes under `escobas`: 1 if all sum to 15, 2 if they split into two 15s."""
    vals = [value(c) for c in table]
    if sum(vals) == 15:
        return 1
    if sum(vals) == 30:
        # a single card is at most 10, so two 15s out of four cards are two pairs: try the three pairings
        for i in (1, 2, 3):
            rest = [v for k, v in enumerate(vals) if k not in (0, i)]
            if vals[0] + vals[i] == 15 and sum(rest) == 15:
                return 2
    return 0


@pytest.fixture(scope="module")
def by_values():
    counts = Counter()
    for table in itertools.combinations(range(40), 4):
        counts[tuple(sorted(value(c) for c in table))] += 1
    return counts


def test_exact_counts_over_all_tables():
    groups = Counter(naive_groups(t) for t in itertools.combinations(range(40), 4))
    assert sum(groups.values()) == comb(40, 4) == 91_390
    assert groups[1] == 3_120  # 3.414 %
    assert groups[2] == 876  # 0.959 %
    assert round(100 * groups[1] / 91_390, 3) == 3.414
    assert round(100 * groups[2] / 91_390, 3) == 0.959


def test_engine_lucky_deal_agrees_on_every_table(by_values):
    assert sum(by_values.values()) == 91_390
    tally = {mode: Counter() for mode in ("escobas", "capture", "off")}
    for vals, n in by_values.items():
        # one representative table with these values, cards from distinct suits where values repeat
        table, used = [], Counter()
        for v in vals:
            table.append(used[v] * 10 + v - 1)
            used[v] += 1
        expected = naive_groups(table)
        rest = [c for c in range(40) if c not in table]
        deck = rest[:6] + table + rest[6:]  # two players: 6 cards to hands, then the 4 table cards
        # what the naive oracle says each mode does with this table
        per_mode = {"escobas": expected, "capture": 1 if expected == 1 else 0, "off": 0}
        for mode, counter in tally.items():
            st = engine.new_hand(PRESETS["ludoteka"].replace(lucky_deal=mode), deck, dealer=0)
            assert st.lucky_deal == per_mode[mode], (mode, vals)
            counter[st.lucky_deal] += n
            if st.lucky_deal:
                assert st.table == [] and st.piles[0] == sum(1 << c for c in table)
    assert tally["escobas"][1] == 3_120 and tally["escobas"][2] == 876
    assert tally["capture"][1] == 3_120 and tally["capture"][2] == 0
    assert tally["off"][0] == 91_390
