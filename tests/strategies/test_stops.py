"""Stopping a search from another thread (escoba_sim/stops.py): the compiled searches run without the GIL, a
Stop set from any thread (or past its deadline) ends the searches of the threads that run under it within
milliseconds with Stopped, and no other thread's; every search (decide_move, decide_blow, the evaluator, the
exact endgame, the oracle, the reading, the hand loop, the vector env's opponents, the reference endgame)
honours it; nothing half-searched is returned."""

import threading
import time

import numpy as np
import pytest

from escoba_sim import stops
from escoba_sim.batch import make_player
from escoba_sim.errors import EscobaError
from escoba_sim.game import engine
from escoba_sim.game.cards import mask_of
from escoba_sim.game.rng import PLAY, SplitMix64, shuffled_deck
from escoba_sim.game.rules import parse_rules
from escoba_sim.stops import Stop, Stopped, running_under
from escoba_sim.strategies.endgame import EndgameStrategy

CORE = pytest.mark.core("the compiled searches")
# a search that takes seconds (and minutes at most): only a stop ends it in a test's time
LONG = "ismcts:iters=1000000,stop=0"


def _first_position(rules="ludoteka", seed=1):
    from escoba_sim import _core

    r = parse_rules(rules)
    st = engine.new_hand(r, shuffled_deck(seed, 0, 0), 0)
    position = _core.Position(hands=[mask_of(h) for h in st.hands], table=mask_of(st.table), piles=list(st.piles),
                              escobas=list(st.escobas), stock_left=len(st.stock), dealer=st.dealer,
                              last_capturer=st.last_capturer, voids=list(st.voids), stock=list(st.stock))
    return r, position, st.to_play  # the stock too: the oracle sees its order (without it, it is refused)


def _decide(spec, seed=1):
    from escoba_sim import _core

    r, position, seat = _first_position(seed=seed)
    return _core.decide_move(r, spec, position, seat, 12345)


class _Worker(threading.Thread):
    """``work()`` in a thread under ``stop``: ``result`` or ``error`` once done, ``ended`` its perf_counter."""

    def __init__(self, work, stop):
        super().__init__(daemon=True)
        self.work, self.stop = work, stop
        self.result = self.error = self.ended = None
        self.started_search = threading.Event()

    def run(self):
        with running_under(self.stop):
            self.started_search.set()
            try:
                self.result = self.work()
            except BaseException as e:  # noqa: BLE001 - handed to the test
                self.error = e
        self.ended = time.perf_counter()


@CORE
def test_a_search_in_a_thread_leaves_the_gil_to_other_threads():
    # while a search of about a second runs in another thread, this one keeps running Python: the longest
    # pause between two of its steps stays far below the search's time (holding the GIL, it was the search)
    worker = _Worker(lambda: _decide("ismcts:iters=200000,stop=0"), Stop())
    steps, longest = 0, 0.0
    start = last = time.perf_counter()  # timed from the start: the worker may take the GIL at once
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
        steps += 1
    worker.join()
    took = worker.ended - start
    assert worker.error is None and worker.result is not None
    assert took > 0.2, f"the search took only {took:.3f} s: too short to tell"
    assert longest < 0.1, f"this thread waited {longest:.3f} s while the search ran ({took:.3f} s)"
    assert steps > 1000


@CORE
def test_setting_a_stop_ends_a_search_running_in_another_thread_quickly():
    stop = Stop()
    worker = _Worker(lambda: _decide(LONG), stop)
    worker.start()
    worker.started_search.wait()
    time.sleep(0.2)
    assert worker.is_alive()
    set_at = time.perf_counter()
    stop.set()
    worker.join(10)
    assert not worker.is_alive()
    assert isinstance(worker.error, Stopped) and worker.result is None
    assert worker.ended - set_at < 0.5
    assert stop.is_set()


@CORE
def test_a_deadline_ends_a_search():
    start = time.perf_counter()
    with running_under(Stop(deadline_seconds=0.3)) as stop, pytest.raises(Stopped):
        _decide(LONG)
    took = time.perf_counter() - start
    assert 0.3 <= took < 0.8, took
    assert stop.is_set()


@CORE
def test_a_stop_in_one_thread_does_not_stop_another():
    # two searches in two threads, each under its own Stop: setting one ends that one only, and the other
    # returns the very move it returns alone
    spec = "ismcts:iters=150000,stop=0"
    alone = _decide(spec)
    stopped, kept = Stop(), Stop()
    a, b = _Worker(lambda: _decide(LONG), stopped), _Worker(lambda: _decide(spec), kept)
    a.start()
    b.start()
    a.started_search.wait()
    b.started_search.wait()
    time.sleep(0.05)
    stopped.set()
    a.join(10)
    b.join(60)
    assert isinstance(a.error, Stopped)
    assert b.error is None and b.result == alone and not kept.is_set()
    assert stops.ATTENTION[0] == 0  # no Stop in force is set any more: the searches read one flag again


@CORE
def test_a_search_outside_running_under_and_after_it_is_not_stopped():
    spec = "ismcts:iters=3000,stop=0"
    alone = _decide(spec)
    stop = Stop()
    stop.set()
    with running_under(stop), pytest.raises(Stopped):
        _decide(spec)
    assert _decide(spec) == alone  # the block ended: the thread's searches read no Stop


@CORE
def test_running_under_nests_and_an_outer_stop_ends_an_inner_blocks_search():
    outer, inner = Stop(), Stop()
    assert stops.current_flag() is None
    with running_under(outer):
        with running_under(inner):
            outer.set()
            with pytest.raises(Stopped):
                _decide("ismcts:iters=3000,stop=0")
        with pytest.raises(Stopped):  # back in the outer block: its own Stop, set
            _decide("ismcts:iters=3000,stop=0")
    assert stops.current_flag() is None and not inner.is_set()
    with running_under(inner), running_under(Stop()):
        assert _decide("ismcts:iters=3000,stop=0") == _decide("ismcts:iters=3000,stop=0")


def _stopped_meanwhile(work, wait=0.2):
    """Run ``work`` in a thread under a Stop set after ``wait`` s; the seconds from the set to its end."""
    stop = Stop()
    worker = _Worker(work, stop)
    worker.start()
    worker.started_search.wait()
    time.sleep(wait)
    assert worker.is_alive(), "the work ended before the stop: make it longer"
    set_at = time.perf_counter()
    stop.set()
    worker.join(30)
    assert isinstance(worker.error, Stopped), (worker.error, worker.result)
    return worker.ended - set_at


def _hand_at(rules, seed, until, play="greedy"):
    """The first position (``play`` in every seat, games ``seed``, ``seed + 1``, ...) where ``until(st)`` holds."""
    r = parse_rules(rules)
    for game in range(seed, seed + 50):
        st = engine.new_hand(r, shuffled_deck(game, 0, 0), 0)
        players = [make_player(play) for _ in range(r.players)]
        rng = SplitMix64.for_hand(game, 0, 0, PLAY)
        while not st.over and not until(st):
            if engine.blow_options(st):
                engine.apply_blow(st, players[st.to_play].choose_blow(st, engine.blow_options(st), rng))
            else:
                engine.apply_move(st, players[st.to_play].choose_move(st, engine.legal_moves(st), rng))
        if not st.over:
            return st
    raise AssertionError("no such position")


@CORE
@pytest.mark.parametrize("what", ["ismcts", "oracle", "evaluate", "play_hands", "vector env"])
def test_a_stop_ends_each_long_compiled_search_quickly(what):
    from escoba_sim import batch
    from escoba_sim.env.vector import EscobaVectorEnv
    from escoba_sim.hands.evaluate import evaluate

    r = parse_rules("ludoteka")
    st = _hand_at("ludoteka", 3, lambda st: True)
    if what == "ismcts":
        work = lambda: _decide(LONG)  # noqa: E731
    elif what == "oracle":
        work = lambda: _decide("oracle:iters=1000000,stop=0")  # noqa: E731
    elif what == "evaluate":
        work = lambda: evaluate(st, samples=1_000_000)  # noqa: E731
    elif what == "play_hands":
        work = lambda: batch.play_hands(r, [LONG, "greedy"], 1, 0, 10)  # noqa: E731
    else:
        env = EscobaVectorEnv(2, rules="ludoteka", opponent=LONG, learner=1, backend="core")
        work = lambda: env.reset(seed=1)  # noqa: E731
    assert _stopped_meanwhile(work) < 0.5
    if what == "vector env":  # its hands were played on by cut-short searches: it asks for a reset first
        with pytest.raises(RuntimeError, match="reset"):
            env.step(np.zeros(2, np.int64))


@CORE
@pytest.mark.parametrize("what", ["decide_move", "decide_blow", "evaluate", "evaluate_exact", "read_hands",
                                  "play_hands", "play_games"])
def test_a_stop_set_before_a_search_stops_it_from_the_start(what):
    from escoba_sim import _core, batch
    from escoba_sim.hands.evaluate import evaluate
    from escoba_sim.hands.reading import read_hands

    if what == "decide_blow":
        st = _hand_at("tradicional", 5, lambda st: bool(engine.blow_options(st)), play="random")
        card = engine.blow_options(st)[0].card
        position = _core.Position(hands=[mask_of(h) for h in st.hands], table=mask_of(st.table),
                                  piles=list(st.piles), escobas=list(st.escobas), stock_left=len(st.stock),
                                  dealer=st.dealer, last_capturer=st.last_capturer, pending=card)
        work = lambda: _core.decide_blow(st.rules, "ismcts:blows=1", position, st.to_play, card, 1)  # noqa: E731
    elif what in ("evaluate", "read_hands"):
        st = _hand_at("ludoteka", 3, lambda st: len(st.plays) >= 3 and not engine.blow_options(st)
                      and len(engine.legal_moves(st)) > 1)
        work = (lambda: evaluate(st, samples=50)) if what == "evaluate" else (lambda: read_hands(st))
    elif what == "evaluate_exact":
        st = _hand_at("ludoteka", 3, lambda st: not st.stock and not engine.blow_options(st)
                      and len(engine.legal_moves(st)) > 1)
        work = lambda: evaluate(st, samples=50)  # noqa: E731
    elif what == "decide_move":
        work = lambda: _decide("ismcts:iters=2000")  # noqa: E731
    else:
        r = parse_rules("ludoteka")
        play = batch.play_hands if what == "play_hands" else batch.play_games
        work = lambda: play(r, ["ismcts:iters=200", "endgame"], 1, 0, 2)  # noqa: E731
    work()  # it works
    stop = Stop()
    stop.set()
    with running_under(stop), pytest.raises(Stopped):
        work()
    work()  # and works again outside the block


def test_the_reference_endgame_search_honours_a_stop():
    # the pure-Python alpha-beta solver (the reference engine's only search) checks its thread's Stop
    st = _hand_at("ludoteka", 3, lambda st: not st.stock and not engine.blow_options(st) and st.to_play == 0)
    player = EndgameStrategy()
    moves = engine.legal_moves(st)
    rng = SplitMix64.for_hand(3, 0, 0, PLAY)
    best = player.choose_move(st, moves, rng)
    stop = Stop()
    stop.set()
    with running_under(stop), pytest.raises(Stopped):
        player.choose_move(st, moves, rng)
    assert player.choose_move(st, moves, rng) == best


def test_a_deadline_sets_the_stop_for_the_python_side_too():
    stop = Stop(deadline_seconds=0.05)
    assert not stop.is_set()  # the deadline counts from running_under
    with running_under(stop):
        stops.check()
        time.sleep(0.1)
        assert stop.is_set()
        with pytest.raises(Stopped):
            stops.check()
    stops.check()  # outside every block nothing is stopped


def test_stop_names_what_is_wrong_with_its_arguments():
    with pytest.raises(EscobaError, match="deadline_seconds"):
        Stop(deadline_seconds=-1)
    with pytest.raises(EscobaError, match="deadline_seconds"):
        Stop(deadline_seconds="soon")
    with pytest.raises(EscobaError, match="deadline_seconds"):
        Stop(deadline_seconds=True)
    with pytest.raises(EscobaError, match="stop"):
        with running_under(None):
            pass
    assert isinstance(Stopped(), EscobaError)


@CORE
def test_the_oracle_is_refused_a_position_without_the_stock_it_sees():
    """``sees=0`` deals from the stock's order: without it in the position the search dealt from cards the
    position does not hold (a crash in 3 of 15 runs of the stop tests, which gave no stock)."""
    from escoba_sim import _core

    r, position, seat = _first_position()
    blind = _core.Position(hands=position.hands, table=position.table, piles=position.piles,
                           escobas=position.escobas, stock_left=position.stock_left, dealer=position.dealer,
                           last_capturer=position.last_capturer, voids=position.voids)
    with pytest.raises(ValueError, match="stock"):
        _core.decide_move(r, "oracle:iters=100", blind, seat, 1)
    # the oracle that does not see the stock's order (sees=1), and any fair search, need no stock
    for spec in ("oracle:iters=100,sees=1", "ismcts:iters=100"):
        card, _take, _state = _core.decide_move(r, spec, blind, seat, 1)
        assert position.hands[seat] >> card & 1
