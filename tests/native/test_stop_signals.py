"""Issue 25: the compiled searches (oracle, ismcts, endgame, the evaluator) stop within about a
second on SIGINT or SIGTERM, and a signal whose handler does not stop the program changes no result."""

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from escoba_sim import batch
from escoba_sim.game.rules import parse_rules

pytestmark = [pytest.mark.core("the searches' stop signals"),
              pytest.mark.skipif(sys.platform != "linux", reason="POSIX signals")]

STOP_BOUND = 4.0  # seconds from the signal to the exit: "about a second", with room for a loaded machine
SEARCH_TIME = 3.0  # seconds the command runs first: well inside a search that takes minutes
# searches of many minutes (the case: the oracle solving a whole hand exactly; a hint over a million deals)
ORACLE_RUN = ["run", "-s", "oracle:exact=40", "--vs", "greedy", "-r", "tradicional", "-n", "10", "--hands", "-j1"]
ORACLE_TRACE = ["trace", "--strategy", "oracle:exact=40", "--vs", "greedy", "-r", "tradicional", "--seed", "1"]
HINT_TRACE = ["trace", "--strategy", "greedy", "--vs", "greedy", "--seed", "3", "--analyze", "--samples", "1000000"]


def _default_signals():  # a shell's background job ignores SIGINT; the command must see it as a terminal would
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _stopped_after(args, sig):
    p = subprocess.Popen([sys.executable, "-c", "from escoba_sim.cli import main; main()", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_signals)
    try:
        time.sleep(SEARCH_TIME)
        assert p.poll() is None, "the command ended before the signal: it was no long search"
        t0 = time.time()
        p.send_signal(sig)
        p.wait(timeout=120)
        return p.returncode, time.time() - t0, p.communicate(timeout=30)[1]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_run_stops_inside_an_exact_search_and_keeps_its_folder(tmp_path, sig, code):
    rc, took, err = _stopped_after([*ORACLE_RUN, "--out", tmp_path / "o"], sig)
    assert rc == code and took < STOP_BOUND, (rc, took, err)
    assert f"escoba-sim resume {tmp_path / 'o'}" in err


@pytest.mark.parametrize("args", [ORACLE_TRACE, HINT_TRACE], ids=["oracle", "hint"])
@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, -signal.SIGTERM)])
def test_trace_stops_inside_a_search(args, sig, code):
    rc, took, err = _stopped_after(args, sig)
    assert rc == code and took < STOP_BOUND, (rc, took, err)
    assert "Traceback" not in err


def test_a_signal_whose_handler_does_not_stop_changes_no_result():
    # the searches of the hand in play are cut short, then that hand is played again: the batch is the same
    r = parse_rules("ludoteka")
    names = ["ismcts:iters=3000,stop=0", "oracle:exact=10,iters=300"]
    clean = batch.play_hands(r, names, 5, 0, 6).hands
    seen = []
    previous = signal.signal(signal.SIGINT, lambda s, f: seen.append(s))
    try:
        def poke():  # the core releases the GIL while it plays, so this thread signals mid-search
            for _ in range(5):
                time.sleep(0.05)
                os.kill(os.getpid(), signal.SIGINT)

        t = threading.Thread(target=poke)
        t.start()
        poked = batch.play_hands(r, names, 5, 0, 6).hands
        t.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen  # the handler ran (so searches were cut short and replayed)
    for k in clean:
        np.testing.assert_array_equal(clean[k], poked[k], err_msg=k)


def test_a_signal_stops_the_main_threads_search_and_leaves_another_threads_search_alone():
    # the signal guard's stop is the main thread's: while another thread searches (the page's computer, a
    # hint), a signal (whose handler does not stop the program) still ends the main thread's guarded search at
    # once (played again, unchanged), and the other search neither ends early nor takes that stop for its own.
    # The main thread's search looks at its stop once per deal of 400 playouts (its options repeated), the
    # other's every few playouts: it would see the stop first
    from escoba_sim import _core
    from escoba_sim.game import engine
    from escoba_sim.game.cards import mask_of
    from escoba_sim.game.rng import shuffled_deck
    from escoba_sim.hands.evaluate import DEFAULT_C, evaluate

    st = engine.new_hand(parse_rules("ludoteka"), shuffled_deck(3, 0, 0), 0)
    position = _core.Position(hands=[mask_of(h) for h in st.hands], table=mask_of(st.table), piles=list(st.piles),
                              escobas=list(st.escobas), stock_left=len(st.stock), dealer=st.dealer)
    options = [(m.card, mask_of(m.take)) for m in engine.legal_moves(st)] * 100

    def main_search():
        return _core.evaluate_sample(st.rules, st.to_play, position, options, blow=False, samples=3000, c=DEFAULT_C,
                                     seed=2)

    other_alone, main_alone = evaluate(st, samples=60_000, seed=1).margins, main_search()
    got, handled, killed = {}, [], []
    worker = threading.Thread(target=lambda: got.update(other=evaluate(st, samples=60_000, seed=1).margins))

    def kill():
        killed.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGTERM)

    before = signal.signal(signal.SIGTERM, lambda *_: handled.append(time.perf_counter()))
    try:
        worker.start()
        threading.Timer(0.2, kill).start()
        main = main_search()
        worker.join(60)
    finally:
        signal.signal(signal.SIGTERM, before)
    assert killed and handled, "the signal did not arrive during the searches"
    # the handler runs when the main thread's search has ended (its stop taken), within a deal of the signal
    assert handled[0] - killed[0] < 0.3, f"the main thread's search went on {handled[0] - killed[0]:.2f} s"
    np.testing.assert_array_equal(main, main_alone)
    np.testing.assert_array_equal(got["other"], other_alone)
