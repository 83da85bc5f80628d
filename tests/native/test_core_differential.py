"""The compiled core against the reference engine, hand by hand and field by field.

The reference engine (game/engine.py + strategies/reference.py) is the oracle: every array
the core returns must equal the reference's (same keys, dtypes, shapes,
values). Also checks the C capture tables against brute-force subset
enumeration (tables of every size, 15+ cards included) and the C RNG against
rng.py. Skips only when the core is not built and not required
(ESCOBA_SIM_REQUIRE_CORE=1 makes a missing core a failure).
"""

from __future__ import annotations

import itertools
import os
import random

import pytest
from helpers import assert_same, compare_games, compare_hands, rulesets

from escoba_sim import batch, native
from escoba_sim.batch import make_player
from escoba_sim.game import columns, engine, rng
from escoba_sim.game.rules import PRESETS, Ruleset

if os.environ.get(native.REQUIRE_ENV) == "1":
    from escoba_sim import _core
else:
    _core = pytest.importorskip("escoba_sim._core", reason="compiled core not built (pip install -e .)")

PAIRINGS = [("greedy", "maxoros"), ("random", "random"), ("maxoros", "greedy"), ("greedy", "random")]


# ---------------- presets and pairings ----------------

@pytest.mark.parametrize("pairing", PAIRINGS, ids="-".join)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_hands_match_reference(preset, pairing):
    compare_hands(PRESETS[preset], pairing, seed=20240601, first=0, count=1000)


# the two-seat loop (esc_plays_two: ludoteka, cardgames) has a copy for each ordered pairing of random,
# greedy and maxoros, with the strategies as constants, and a general copy for any other lineup; the
# seats swap roles every hand (the dealer alternates), so each pairing plays both orders of its copy
TWO_SEAT_STRATEGIES = ("random", "greedy", "maxoros", "sevens", "defensive")


@pytest.mark.parametrize("pairing", list(itertools.product(TWO_SEAT_STRATEGIES, repeat=2)), ids="-".join)
@pytest.mark.parametrize("preset", ["ludoteka", "cardgames"])
def test_every_two_seat_pairing_matches_reference(preset, pairing):
    compare_hands(PRESETS[preset], pairing, seed=77, first=5, count=120)


# The hand loop is compiled once per instruction set (csrc/escoba_core.h: baseline, popcnt, bmi2) and the
# CPU's best is picked at import: every copy this CPU runs must play the reference's hands, in the
# two-seat loop's copies per pairing and its general copy (ludoteka) and in the general loop
# (tradicional: soplar; robo: draw; four seats in teams)
@pytest.mark.parametrize("impl", _core.IMPLS)
def test_every_instruction_set_copy_matches_reference(impl):
    before = _core.use_impl(impl)
    try:
        assert _core.use_impl(impl) == impl  # in use now
        for pairing in [*itertools.product(("random", "greedy", "maxoros"), repeat=2), ("sevens", "defensive")]:
            compare_hands(PRESETS["ludoteka"], pairing, seed=31, first=0, count=100)
        for preset in ("tradicional", "robo"):
            compare_hands(PRESETS[preset], ("greedy", "random"), seed=32, first=0, count=150)
        compare_hands(PRESETS["cardgames"].replace(players=4, teams=True), ("greedy", "random", "maxoros", "greedy"),
                      seed=33, first=0, count=100)
        compare_games(PRESETS["cardgames"], ("greedy", "maxoros"), seed=34, first=0, count=3)
    finally:
        _core.use_impl(before)


def test_instruction_set_copies_listed_and_best_picked():
    assert _core.IMPLS[0] == "baseline" and _core.IMPL == _core.IMPLS[-1]
    with pytest.raises(ValueError, match="no `avx9` copy of the hand loop on this CPU"):
        _core.use_impl("avx9")
    assert _core.use_impl(_core.IMPL) == _core.IMPL


@pytest.mark.parametrize("preset", list(PRESETS))
def test_games_match_reference(preset):
    compare_games(PRESETS[preset], ("greedy", "random"), seed=99, first=3, count=12)
    compare_games(PRESETS[preset], ("maxoros", "maxoros"), seed=5, first=0, count=6)


@pytest.mark.parametrize("players,teams", [(3, False), (4, False), (4, True), (6, True), (6, False)])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_more_players_and_teams(preset, players, teams):
    rules = PRESETS[preset].replace(players=players, teams=teams)
    strategies = [("greedy", "random", "maxoros")[i % 3] for i in range(players)]
    compare_hands(rules, strategies, seed=77, first=500, count=300)
    compare_games(rules, strategies, seed=78, first=0, count=3)


def test_first_offset_and_large_seed():
    rules = PRESETS["tradicional"]
    compare_hands(rules, ("random", "greedy"), seed=2**64 - 1, first=10**9, count=200)


def test_large_tables_and_draw():
    # many cards on the table: capture=optional lets the table grow past 15 cards
    rules = Ruleset(table_size=20, hand_size=3, capture="optional", soplar=True, lucky_deal="escobas")
    for pairing in PAIRINGS:
        compare_hands(rules, pairing, seed=3, first=0, count=150)
    rules = Ruleset(players=3, hand_size=4, table_size=28, capture="optional", deal="draw", ties="none")
    compare_hands(rules, ("random", "maxoros", "greedy"), seed=4, first=0, count=100)


def test_game_hand_guard(monkeypatch):
    # both engines read engine.MAX_HANDS_PER_GAME; a game to 31 needs more than 2 hands
    monkeypatch.setattr(engine, "MAX_HANDS_PER_GAME", 2)
    rules = PRESETS["ludoteka"].replace(target=31)
    with pytest.raises(RuntimeError, match="did not end after 2 hands"):
        batch.py_play_games(rules, ["greedy", "greedy"], 1, 0, 3)
    with pytest.raises(RuntimeError, match="did not end after 2 hands"):
        _core.play_games(rules, ["greedy", "greedy"], 1, 0, 3)


@pytest.mark.slow
@pytest.mark.parametrize("pairing", PAIRINGS, ids="-".join)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_hands_match_reference_10k(preset, pairing):
    compare_hands(PRESETS[preset], pairing, seed=1234567, first=0, count=10_000)


# ---------------- random valid rulesets (hypothesis) ----------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), seed=st.integers(0, 2**64 - 1), first=st.integers(0, 10**6), data=st.data())
def test_random_rulesets_match_reference(rules, seed, first, data):
    strategies = data.draw(st.lists(st.sampled_from(("random", "greedy", "maxoros")),
                                    min_size=rules.players, max_size=rules.players))
    compare_hands(rules, strategies, seed, first, 20)
    compare_games(rules, strategies, seed, first, 2)


# ---------------- capture tables against brute force ----------------

def brute_options(card: int, table: list[int]) -> list[tuple[int, ...]]:
    """Every subset by itertools, filtered and sorted by mask: deliberately naive."""
    need = 15 - (card % 10 + 1)
    found = [tuple(sorted(s)) for r in range(1, len(table) + 1) for s in itertools.combinations(table, r)
             if sum(c % 10 + 1 for c in s) == need]
    return sorted(found, key=lambda s: sum(1 << c for c in s))


def test_capture_tables_small_against_brute_force():
    r = random.Random(1)
    for _ in range(3000):
        k = r.randint(0, 12)
        cards = r.sample(range(40), k + 1)
        card, table = cards[0], cards[1:]
        expected = brute_options(card, table)
        assert _core.capture_options(card, table) == expected, (card, table)
        assert engine.capture_options(card, table) == expected, (card, table)


@pytest.mark.parametrize("size", [15, 18, 22, 28, 39])
def test_capture_tables_large_against_reference(size):
    # itertools over 2^size subsets is too slow past ~20 cards; the reference's
    # pruned enumeration is itself checked against brute force above
    r = random.Random(size)
    for _ in range(20 if size < 30 else 5):
        cards = r.sample(range(40), size + 1)
        card, table = cards[0], cards[1:]
        expected = engine.capture_options(card, table)
        if size <= 18:
            assert expected == brute_options(card, table)
        assert _core.capture_options(card, table) == expected, (card, table)


def test_capture_tables_every_suit_mask():
    # each 10-bit suit mask alone and next to a fixed second suit
    for m in range(1024):
        table = [b for b in range(10) if m >> b & 1] + [32, 35]
        for card in (10, 14, 19):
            assert _core.capture_options(card, table) == brute_options(card, table), (card, table)


def test_reachable_sums():
    r = random.Random(7)
    for _ in range(500):
        table = r.sample(range(40), r.randint(0, 16))
        sums = {0}
        for c in table:
            sums |= {s + c % 10 + 1 for s in sums}
        expected = sum(1 << s for s in sums if s <= 15)
        assert _core.reachable_sums(table) == expected


def _position(r: random.Random) -> tuple[list[int], list[int]]:
    """A hand and a table, often of few values (ties between captures of equal key) and with the
    siete de oros; tables of 0-4 cards most often, as in play, up to 14."""
    k = r.choice([0, 1, 2, 3, 3, 4, 4, 4, 5, 6, 7, 8, 10, 14])
    pool = list(range(40)) if r.random() < 0.5 else [c for c in range(40) if c % 10 + 1 in r.sample(range(1, 11), 4)]
    pool = sorted(set(pool) | {6})
    cards = r.sample(pool, min(len(pool), k + r.randint(1, 4)))
    return cards[k:] or [r.choice([c for c in range(40) if c not in cards])], cards[:k]


@pytest.mark.parametrize("name", ["greedy", "maxoros", "sevens"])
def test_keyed_decisions_match_reference_on_positions(name):
    """The core's move and blow for greedy, maxoros and sevens on constructed positions, against the
    reference strategy over every legal capture (its key, ties to the lowest taken mask)."""
    from escoba_sim.strategies import parse_strategy

    rules = PRESETS["ludoteka"]
    spec = parse_strategy(name)
    ref = make_player(spec)
    r = random.Random(name)
    for _ in range(3000):
        hand, table = _position(r)
        moves = [engine.Move(0, c, take, escoba=len(take) == len(table)) for c in hand
                 for take in engine.capture_options(c, table)] or [engine.Move(0, c) for c in hand]
        want = ref.choose_move(None, moves, None)
        card, take, _ = _core.decide_move(rules, spec, _core.Position(hands=[engine.mask_of(hand), 0],
                                          table=engine.mask_of(table), piles=[0, 0], escobas=[0, 0], stock_left=10,
                                          dealer=1, last_capturer=-1), 0, 1)
        assert (card, take) == (want.card, engine.mask_of(want.take)), (hand, table)
        laid = hand[0]  # a blow of a laid card: never an escoba
        blows = [engine.Move(0, laid, take, soplar=True) for take in engine.capture_options(laid, table)]
        if blows:
            want_blow = ref.choose_blow(None, blows, None)
            got, _ = _core.decide_blow(rules, spec, _core.Position(hands=[0, 0], table=engine.mask_of(table) | 1 << laid,
                                       piles=[0, 0], escobas=[0, 0], stock_left=10, dealer=1, last_capturer=-1),
                                       0, laid, 1)
            assert got == engine.mask_of(want_blow.take), (laid, table)


# ---------------- scoring on constructed piles ----------------

@pytest.mark.parametrize("rules", [PRESETS["ludoteka"], PRESETS["tradicional"], PRESETS["cardgames"],
                                   PRESETS["robo"].replace(players=3),
                                   PRESETS["ludoteka"].replace(players=6, teams=True, bonus_all_oros=2,
                                                               bonus_all_sevens=3)], ids=str)
def test_scoring_matches_reference_on_constructed_piles(rules):
    """Every card goes to a side or to nobody (no capture); empty piles and 0-0 categories included."""
    r = random.Random(5)
    n = rules.n_sides
    cases = [[0] * n, [0b1111 << 10] + [0] * (n - 1)]  # nobody captured; a lucky deal with no oro and no seven
    for _ in range(300):
        owners = [r.randrange(-1, n) if r.random() < 0.3 else r.randrange(n) for _ in range(40)]
        cases.append([sum(1 << c for c in range(40) if owners[c] == s) for s in range(n)])
    for piles in cases:
        escobas = [r.randint(0, 3) for _ in range(n)]
        lucky = [min(e, r.randint(0, 2)) for e in escobas]
        ref = engine.score_piles(rules, piles, escobas, lucky)
        got = _core.score_piles(rules, piles, escobas, lucky)
        assert got == {k: getattr(ref, k) for k in columns.SIDE_COLUMNS}, piles
    nobody = _core.score_piles(rules, [0] * n, [0] * n, [0] * n)
    assert nobody["total"] == [0] * n  # a side that took nothing scores nothing, tie or not


# ---------------- RNG equality ----------------

def test_rng_streams_match():
    r = random.Random(11)
    for _ in range(200):
        seed, game, hand, stream = r.getrandbits(64), r.getrandbits(40), r.randint(0, 10_000), r.randint(0, 1)
        assert _core.stream_state(seed, game, hand, stream) == rng.stream_state(seed, game, hand, stream)
        x = r.getrandbits(64)
        assert _core.mix64(x) == rng.mix64(x)
        g = rng.SplitMix64(x)
        assert _core.next_values(x, 50) == [g.next() for _ in range(50)]
        bounds = [r.randint(1, 2**32 - 1) for _ in range(30)] + list(range(1, 41))
        g = rng.SplitMix64(x)
        assert _core.below_values(x, bounds) == [g.below(b) for b in bounds]


def test_shuffled_deck_matches():
    for seed, game, hand in [(0, 0, 0), (1, 2, 3), (2**64 - 1, 10**12, 9999), (42, 7, 0)]:
        assert _core.shuffled_deck(seed, game, hand) == rng.shuffled_deck(seed, game, hand)


def _unfinalize(z: int) -> int:
    """The inverse of SplitMix64's finaliser, to craft a generator whose next output is ``z``."""
    def unxorshift(y, k):
        x = y
        for _ in range(64 // k + 1):
            x = y ^ (x >> k)
        return x
    z = unxorshift(z, 31)
    z = unxorshift((z * pow(0x94D049BB133111EB, -1, 1 << 64)) & rng.M64, 27)
    z = unxorshift((z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & rng.M64, 30)
    return z


def state_for_outputs(first: int) -> int:
    """A generator state whose first next() is ``first``."""
    return (_unfinalize(first) - rng.GOLDEN) & rng.M64


def test_crafted_states_give_the_outputs_asked_for():
    for x in (0, 1, 0xDEADBEEF << 32, rng.M64):
        assert rng.SplitMix64(state_for_outputs(x)).next() == x


@pytest.mark.parametrize("first", [0, 0x00000000_12345678, 0x87654321_00000001, 0x19999999_9999999A,
                                   0x06666666_00000000, 0xFFFFFFFF_00000005])
def test_shuffle_rejections_match(first):
    """Words whose low product falls below 2^32 mod n are rejected and the next word taken, in both
    engines: a 0 word is rejected for every n that does not divide 2^32 (here the first word for
    n = 40 and the second for n = 39); the other states take the fast path."""
    state = state_for_outputs(first)
    words = rng.words32(rng.SplitMix64(state))
    n_words = []
    for n in (40, 39):
        before = 0
        while True:
            before += 1
            m = next(words) * n
            if m & rng.M32 >= (1 << 32) % n:
                break
        n_words.append(before)
    if first >> 32 == 0:
        assert n_words[0] >= 2  # the crafted first word is rejected
    if first & rng.M32 == 0 and first >> 32 != 0:
        assert n_words[1] >= 2  # the crafted second word is rejected
    assert _core.shuffled_deck_from_state(state) == rng.shuffle(rng.SplitMix64(state))
    assert sorted(rng.shuffle(rng.SplitMix64(state))) == list(range(40))


def test_below32_is_exactly_uniform_over_all_words():
    """Over all 2^32 words (counted by arithmetic, not enumeration) each result gets floor(2^32/n) words."""
    for n in range(1, 41):
        reject_below = (1 << 32) % n
        # words w with w*n mod 2^32 >= reject_below, grouped by w*n >> 32: exactly floor(2^32/n) per value
        counts = []
        for j in range(n):
            lo, hi = -(-(j << 32) // n), -(-((j + 1) << 32) // n)  # the words w with w*n >> 32 == j
            # only the first of them can have a low product below n, so only it can be rejected
            counts.append((hi - lo) - ((lo * n) & rng.M32 < reject_below))
        assert counts == [(1 << 32) // n] * n, n


def test_deal_stream_version_is_shared():
    assert _core.DEAL_STREAM_VERSION == rng.DEAL_STREAM_VERSION == 2


def test_known_rng_values():
    # SplitMix64's published first output for state 0 pins both implementations
    assert rng.SplitMix64(0).next() == 0xE220A8397B1DCDAF
    assert _core.next_values(0, 1) == [0xE220A8397B1DCDAF]
    # deal stream 2 pins the first swaps: 0xE220A839 * 40 >> 32 = 35, 0x7B1DCDAF * 39 >> 32 = 18
    assert (0xE220A839 * 40) >> 32 == 35 and (0x7B1DCDAF * 39) >> 32 == 18
    deck = rng.shuffle(rng.SplitMix64(0))
    ref = list(range(40))
    ref[39], ref[35] = ref[35], ref[39]
    ref[38], ref[18] = ref[18], ref[38]
    assert deck[38:] == ref[38:] and deck == _core.shuffled_deck_from_state(0)


# ---------------- batch dispatch ----------------

@pytest.mark.core("dispatch to the compiled core")
def test_batch_dispatches_to_core_when_loaded():
    rules = PRESETS["ludoteka"]
    a = batch.play_hands(rules, ["greedy", "maxoros"], 1, 0, 50, engine_name="cython")
    b = batch.play_hands(rules, ["greedy", "maxoros"], 1, 0, 50, engine_name="python")
    assert_same(b, a, "dispatch")
