"""A chunk's sums in one compiled pass (native.core.add_rotation, deal_moments: csrc/escoba_aggregate.h) are
the very integers of their NumPy reference (runs.aggregates), on played and on random batches; bad batches
are refused by both."""

import pickle

import numpy as np
import pytest

from escoba_sim import native
from escoba_sim.batch import play_games, play_hands
from escoba_sim.cli.errors import render
from escoba_sim.game.columns import SIDE_COLUMNS, empty_games, empty_hands
from escoba_sim.game.rules import parse_rules
from escoba_sim.runs import aggregates, chunk
from escoba_sim.runs.aggregates import DealLayout, chunk_sums, fit_histograms
from escoba_sim.runs.spec import Sprt, make_spec

pytestmark = pytest.mark.core("the compiled chunk sums (add_rotation, deal_moments)")

# (rules, lineup by entrant): 2 players, 3, teams of two and of three, 6 alone
TABLES = [("ludoteka", ["greedy", "maxoros"]), ("tradicional", ["random", "heuristic"]),
          ("ludoteka(players=3)", ["greedy", "maxoros", "random"]),
          ("ludoteka(players=4,teams=true)", ["greedy", "maxoros"]),
          ("cardgames(players=6,teams=true)", ["random", "maxoros"]),
          ("robo(players=6)", ["greedy", "random", "maxoros", "defensive", "random", "sevens"])]


def both(batches, E, count, width, first, teams):
    """The sums of the batches [(rotation, hands, games)] by the compiled pass and by the reference."""
    lay = DealLayout(E)
    where = lay.columns(width)
    out = []
    for add, moments in ((native.core.add_rotation, native.core.deal_moments),
                         (aggregates.add_rotation, aggregates.deal_moments)):
        sums = chunk_sums(E, count, width)
        for r, hands, games in batches:
            fit_histograms(sums, hands, games)
            add(sums, where, hands, games, r, first, teams)
        sums["deal_sum"], sums["deal_gram"] = moments(sums["deal"], lay.core_size)
        out.append(sums)
    return out


def assert_equal_sums(got, ref, where):
    assert got.keys() == ref.keys(), where
    for k in ref:
        assert got[k].dtype == ref[k].dtype and got[k].shape == ref[k].shape, f"{where}: {k}"
        diff = np.argwhere(got[k] != ref[k])
        assert len(diff) == 0, f"{where}: {k} differs first at {diff[0].tolist()}: {got[k][tuple(diff[0])]} != " \
                               f"{ref[k][tuple(diff[0])]}"


@pytest.mark.parametrize("rules,lineup", TABLES, ids=[t[0] for t in TABLES])
@pytest.mark.parametrize("mode", ["hands", "games"])
@pytest.mark.parametrize("full", [False, True], ids=["core", "full"])
def test_compiled_sums_are_the_reference_on_played_batches(rules, lineup, mode, full):
    r = parse_rules(rules)
    E = len(lineup)
    first, count = 1_000 + 7 * E, 120 if mode == "hands" else 30
    batches = []
    for rot in range(E):  # every rotation of a duplicate chunk
        seats = [lineup[(r.side_of(s) + rot) % E] for s in range(r.players)]
        b = (play_hands if mode == "hands" else play_games)(r, seats, 5, first, count)
        batches.append((rot, b.hands, b.games))
    lay = DealLayout(E)
    got, ref = both(batches, E, count, lay.size if full else lay.core_size, first, r.teams)
    assert_equal_sums(got, ref, f"{rules} {mode}")
    assert got["deal"].any() and got["deal_gram"].any() and got["pos_points"].any()  # something was summed


def random_batch(rng, E, count, mode, first, players):
    """A batch of made-up values: any dealer, any totals and categories (ties too), games of 1-6 hands."""
    if mode == "hands":
        n, games = count, None
    else:
        lengths = rng.integers(1, 7, count)
        n = int(lengths.sum())
        games = empty_games(count, E)
        games["game"][:] = first + np.arange(count)
        games["hands"][:] = lengths
        games["winner"][:] = rng.integers(0, E, count)
    hands = empty_hands(n, E)
    hands["game"][:] = first  # not read by the sums
    hands["dealer"][:] = rng.integers(0, players, n)
    hands["lucky_deal"][:] = rng.integers(0, 3, n) * (rng.random(n) < 0.2)
    for c in SIDE_COLUMNS:
        hands[c][:] = rng.integers(0, 4 if c == "total" else 13, (n, E))
    return hands, games


@pytest.mark.parametrize("E,players,teams", [(2, 2, False), (3, 3, False), (2, 4, True), (2, 6, True), (4, 4, False),
                                             (6, 6, False)])
@pytest.mark.parametrize("mode", ["hands", "games"])
def test_compiled_sums_are_the_reference_on_random_batches(E, players, teams, mode):
    rng = np.random.default_rng(100 * E + players + (mode == "games"))
    first, count = 640, 700  # more deals than a block of deal_moments' fast path (256)
    batches = [(r, *random_batch(rng, E, count, mode, first, players)) for r in range(E)]
    got, ref = both(batches, E, count, DealLayout(E).size, first, teams)
    assert_equal_sums(got, ref, f"{E} entrants, {players} players, {mode}")
    assert got["pos_wdl"][..., 1].any()  # the totals tie often: draws are counted


@pytest.mark.parametrize("top", [2047, 2048, 70_000, 100_000_000])
def test_deal_moments_are_exact_for_any_values(top):
    rng = np.random.default_rng(top)
    deal = rng.integers(0, top + 1, (600, 17), dtype=np.int64)
    deal[5, 3] = top
    deal[:, 4] = 0  # an empty column
    if top > 2047:
        deal[300, 2] = -top  # negative values take the 64-bit path
    for moments in (native.core.deal_moments, aggregates.deal_moments):
        s, g = moments(deal, 14)
        exact = deal[:, :14].astype(object)
        assert s.dtype == g.dtype == np.int64
        assert s.tolist() == exact.sum(axis=0).tolist() and g.tolist() == (exact.T @ exact).tolist()


def test_deal_moments_refuse_sums_that_could_wrap():
    deal = np.zeros((4, 14), np.int64)
    deal[0, 0] = 2**31  # 2**62 * 4 deals may pass 2**63 - 1
    with pytest.raises(OverflowError) as raised:  # the core gives the numbers, the library the message
        native.core.deal_moments(deal, 14)
    assert raised.value.args == (4, 2**31)
    for moments in (chunk._compiled_deal_moments, aggregates.deal_moments):
        with pytest.raises(OverflowError, match="smaller chunk_size") as raised:  # the library's parameter
            moments(deal, 14)
        assert isinstance(raised.value, aggregates.ChunkOverflow) and raised.value.fields["chunk_size"] == "chunk_size"
        assert render(raised.value) == ("a chunk's cross products could pass 2**63 (4 deals, values up to "
                                        "2147483648): use a smaller --chunk")  # the command line's flag
    deal[0, 0] = 1_518_500_249  # its square times 4 stays below 2**63
    assert native.core.deal_moments(deal, 14)[1][0, 0] == aggregates.deal_moments(deal, 14)[1][0, 0] == 1_518_500_249**2


def test_a_run_failed_by_the_overflow_names_the_parameter_as_its_front_end_does():
    from escoba_sim.runs.executor import ChunkFailed
    from escoba_sim.runs.runner import _failure

    raised = pickle.loads(pickle.dumps(aggregates.chunk_overflow(4, 2**31)))  # raised in a worker process
    failure = _failure(ChunkFailed(2, raised), None, None, 0)
    said = "chunk 2 failed: OverflowError: a chunk's cross products could pass 2**63 (4 deals, values up to 2147483648)"
    assert str(failure) == said + ": use a smaller chunk_size; nothing was saved (use out DIR to keep finished chunks)"
    assert render(failure) == said + ": use a smaller --chunk; nothing was saved (use --out DIR to keep finished chunks)"


def bad_batches():
    rng = np.random.default_rng(3)
    hands, games = random_batch(rng, 2, 50, "games", 0, 2)
    out = {}
    h = {k: v.copy() for k, v in hands.items()}
    h["total"][7, 1] = -1
    out["negative total"] = (h, games, "total")
    h = {k: v.copy() for k, v in hands.items()}
    h["dealer"][3] = 2
    out["dealer off the table"] = (h, games, "dealer")
    g = {k: v.copy() for k, v in games.items()}
    g["hands"][4] += 1
    out["games longer than the hands"] = (hands, g, "games")
    g = {k: v.copy() for k, v in games.items()}
    g["game"][9] += 1
    out["games out of order"] = (hands, g, "games")
    g = {k: v.copy() for k, v in games.items()}
    g["winner"][0] = 2
    out["winner off the table"] = (hands, g, "games")
    out["too few games"] = (hands, {k: v[:-1] for k, v in games.items()}, "deal|games")
    return out


@pytest.mark.parametrize("case", list(bad_batches()))
def test_both_refuse_a_bad_batch(case):
    hands, games, word = bad_batches()[case]
    where = DealLayout(2).columns(DealLayout(2).core_size)
    for add in (native.core.add_rotation, aggregates.add_rotation):
        sums = chunk_sums(2, 50, DealLayout(2).core_size)
        sums["points_hist"] = np.zeros((2, 4), np.int64)
        sums["game_hands_hist"] = np.zeros(8, np.int64)
        with pytest.raises(ValueError, match=word):
            add(sums, where, hands, games, 0, 0, False)


def test_compiled_sums_check_their_arrays():
    hands, games = random_batch(np.random.default_rng(4), 2, 20, "hands", 0, 2)
    lay = DealLayout(2)
    sums = chunk_sums(2, 20, lay.core_size)
    fit_histograms(sums, hands, games)
    with pytest.raises(ValueError, match="pos_points"):
        native.core.add_rotation(sums | {"pos_points": sums["pos_points"].astype(np.int32)}, lay.columns(lay.core_size),
                                 hands, games, 0, 0, False)
    with pytest.raises(ValueError, match="columns of a row"):
        native.core.add_rotation(sums, lay.columns(lay.size), hands, games, 0, 0, False)  # a row too narrow
    with pytest.raises(ValueError, match="hands\\['total'\\]"):
        native.core.add_rotation(sums, lay.columns(lay.core_size), hands | {"total": hands["total"][:, :1].copy()},
                                 games, 0, 0, False)


def test_layout_table_names_the_layouts_columns():
    lay = DealLayout(3)
    names = lay.names()
    t = lay.columns(lay.size)
    assert names[t["hands"][0]] == "hands" and names[t["games"][0]] == "games"
    assert [names[c] for c in t["won"]] == ["won_0", "won_1", "won_2"]
    assert names[t["pos_hands"][2, 1]] == "pos_hands_2_1" and names[t["pos_total"][1, 2]] == "pos_total_1_2"
    assert [names[c] for c in t["side"][1]] == [f"{c}_1" for c in SIDE_COLUMNS]
    core = lay.columns(lay.core_size)["side"]
    assert (core[:, SIDE_COLUMNS.index("total")] >= 0).all() and (np.delete(core, SIDE_COLUMNS.index("total"), 1) == -1).all()


@pytest.mark.parametrize("rules,vs,hands,pairing", [("ludoteka", ["maxoros"], True, "duplicate"),
                                                    ("ludoteka(players=3)", ["maxoros", "random"], False, "duplicate"),
                                                    ("ludoteka(players=4,teams=true)", ["random"], True, "independent")])
def test_a_chunk_is_the_same_with_the_reference_sums(monkeypatch, tmp_path, rules, vs, hands, pairing):
    sprt = Sprt(0, 10) if len(vs) == 1 else None
    spec = make_spec("greedy", vs, rules, 400, hands=hands, seed=9, pairing=pairing, chunk_size=90, sprt=sprt)
    deals = tmp_path / "run" / "deals"
    deals.mkdir(parents=True)
    got = chunk.play_chunk(spec, 1, deals_dir=str(deals), cut=70)
    written = (deals / chunk.chunk_name(1)).read_bytes()
    monkeypatch.setattr(chunk, "native", type("NoCore", (), {"core": None}))
    ref = chunk.play_chunk(spec, 1, deals_dir=str(deals), cut=70)
    assert got.keys() == ref.keys() and all(np.array_equal(got[k], ref[k]) and got[k].shape == ref[k].shape for k in ref)
    assert (deals / chunk.chunk_name(1)).read_bytes() == written
