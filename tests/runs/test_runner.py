"""runner.py: aggregates against a naive per-hand oracle, reproducibility across jobs and resume, SPRT, output folder."""

import json
import math
from collections import defaultdict

import numpy as np
import polars as pl
import pytest

from escoba_sim.batch import play_games, play_hands
from escoba_sim.runs import chunk, runner, signals, stats
from escoba_sim.runs import folder as runfolder
from escoba_sim.runs import spec as runspec
from escoba_sim.runs.runner import RunInterrupted, resume, run
from escoba_sim.runs.spec import RunError, make_spec


def strip(summary):
    return {k: v for k, v in summary.items() if k != "performance"}


def naive_ratio(y, x):
    y, x = np.asarray(y, float), np.asarray(x, float)
    r = y.sum() / x.sum()
    n = len(y)
    return r, math.sqrt(n / (n - 1) * ((y - r * x) ** 2).sum() / x.sum() ** 2)


def oracle(spec):
    """Per-hand loop over every rotation of every deal, written without the runner's array tricks."""
    E, R = spec.entrants, spec.rotations
    games_mode = spec.mode == "games"
    pts = defaultdict(int)  # (e, column) -> sum
    ycl = defaultdict(int)  # (deal, e) -> total points
    xcl = defaultdict(int)  # deal -> hands
    pos_hands = defaultdict(int)
    pos_x, pos_y = defaultdict(int), defaultdict(int)  # (deal, e, position)
    wdl = defaultdict(int)  # (e, outcome)
    score = defaultdict(int)  # deal -> half-points of entrant 0
    wins = defaultdict(int)
    lucky = 0
    n_hands = 0
    for r in range(R):
        fn = play_games if games_mode else play_hands
        b = fn(spec.rules, spec.lineup(r), spec.seed, 0, spec.deals)
        h = b.hands
        for i in range(len(h["game"])):
            d = int(h["game"][i])
            n_hands += 1
            lucky += h["lucky_deal"][i] > 0
            xcl[d] += 1
            totals = [int(h["total"][i, (e - r) % E]) for e in range(E)]
            top = max(totals)
            for e in range(E):
                side = (e - r) % E
                for c in ("escobas", "siete_oros", "sevens", "oros", "cards", "bonus", "total"):
                    pts[e, c] += int(h[c][i, side])
                ycl[d, e] += totals[e]
                dealer_side = int(h["dealer"][i]) % 2 if spec.rules.teams else int(h["dealer"][i])
                q = (side - dealer_side) % E
                pos_hands[e, q] += 1
                pos_y[d, e, q] += totals[e]
                pos_x[d, e, q] += 1
                outcome = "loss" if totals[e] < top else "win" if totals.count(top) == 1 else "draw"
                wdl[e, outcome] += 1
                if not games_mode and e == 0:
                    score[d] += {"win": 2, "draw": 1, "loss": 0}[outcome]
        if games_mode:
            for j in range(len(b.games["game"])):
                e = (int(b.games["winner"][j]) + r) % E
                wins[e] += 1
                if e == 0:
                    score[int(b.games["game"][j])] += 2
    return dict(pts=pts, ycl=ycl, xcl=xcl, pos_hands=pos_hands, pos_x=pos_x, pos_y=pos_y, wdl=wdl, score=score, wins=wins, lucky=lucky,
                n_hands=n_hands)


@pytest.mark.parametrize("kw", [
    dict(strategy="greedy", vs=["maxoros"], n=60, hands=True, seed=11, chunk_size=7),
    dict(strategy="random", vs=["greedy"], n=16, hands=False, seed=5, chunk_size=3),
    dict(strategy="greedy", vs=["random", "maxoros"], rules="tradicional", n=30, hands=True, seed=2, chunk_size=4),
    dict(strategy="maxoros", vs=["random"], rules="cardgames(players=4)", teams=True, n=20, hands=True, seed=9,
         chunk_size=3),
    dict(strategy="greedy", vs=["random"], n=25, hands=True, seed=4, pairing="independent", chunk_size=6),
])
def test_summary_matches_naive_oracle(kw):
    kw = dict(kw)
    spec = make_spec(kw.pop("strategy"), kw.pop("vs"), kw.pop("rules", None), kw.pop("n"), **kw)
    s = run(spec).summary
    o = oracle(spec)
    E = spec.entrants
    deals = sorted(o["xcl"])
    assert s["hands"] == o["n_hands"] and s["deals"] == spec.deals == len(deals)
    assert s["lucky_deal_rate"] == pytest.approx(o["lucky"] / o["n_hands"])
    x = [o["xcl"][d] for d in deals]
    for e in range(E):
        ent = s["entrants"][e]
        m, se = naive_ratio([o["ycl"][d, e] for d in deals], x)
        assert ent["points_per_hand"]["mean"] == pytest.approx(m, rel=1e-12)
        assert ent["points_per_hand"]["se"] == pytest.approx(se, rel=1e-9)
        for c in ("escobas", "siete_oros", "sevens", "oros", "cards", "bonus"):
            assert ent["categories"][c] == pytest.approx(o["pts"][e, c] / o["n_hands"])
        assert ent["hands"]["counts"] == [o["wdl"][e, k] for k in ("win", "draw", "loss")]
        assert [p["hands"] for p in ent["by_position"]] == [o["pos_hands"][e, q] for q in range(E)]
        for q, p in enumerate(ent["by_position"]):  # every deal group is a cluster, also where e never sat at q
            m, se = naive_ratio([o["pos_y"][d, e, q] for d in deals], [o["pos_x"][d, e, q] for d in deals])
            assert p["points_per_hand"]["mean"] == pytest.approx(m, rel=1e-12)
            assert p["points_per_hand"]["se"] == pytest.approx(se, rel=1e-9)
        if spec.mode == "games":
            assert ent["games"]["won"] == o["wins"][e]
    for d in s["differences"]:
        a, b = d["a"], d["b"]
        m, se = naive_ratio([o["ycl"][k, a] - o["ycl"][k, b] for k in deals], x)
        assert d["points_per_hand"]["mean"] == pytest.approx(m, abs=1e-12)
        assert d["points_per_hand"]["se"] == pytest.approx(se, rel=1e-9)
    if E == 2 and spec.mode == "games":  # the game win rate is a ratio over deals too
        m, se = naive_ratio([o["score"][d] // 2 for d in deals], [spec.rotations] * len(deals))
        g = s["entrants"][0]["games"]
        assert g["win_rate"] == pytest.approx(m) and g["se"] == pytest.approx(se, rel=1e-9)
        # a share: Wilson at the deals' effective sample size (never outside [0, 1])
        assert g["ci95"] == pytest.approx(list(stats.proportion_interval(m, se, len(deals))))
        assert 0 <= g["ci95"][0] <= m <= g["ci95"][1] <= 1
    if E == 2:
        scores = np.array([o["score"][d] for d in deals]) / (2 * spec.rotations)
        assert s["elo"]["score"] == pytest.approx(scores.mean())
        assert s["elo"]["se"] == pytest.approx(scores.std() / math.sqrt(len(scores)))
    else:
        assert s["elo"] is None
    if spec.pairing == "duplicate":  # every entrant sits in every position equally often
        assert len({p["hands"] for e in s["entrants"] for p in e["by_position"]}) == 1 or spec.mode == "games"


def test_n_rounds_up_to_whole_rotations():
    spec = make_spec("greedy", ["random", "maxoros"], None, 10, hands=True, seed=1)
    assert (spec.rotations, spec.deals, spec.played) == (3, 4, 12)
    assert spec.rules.players == 3
    assert make_spec("greedy", ["random"], None, 10, hands=True, seed=1, pairing="independent").played == 10


def test_duplicate_self_play_is_exactly_even():
    spec = make_spec("greedy", ["greedy"], None, 40, hands=True, seed=3, chunk_size=9)
    s = run(spec).summary
    d = s["differences"][0]["points_per_hand"]
    assert d["mean"] == 0.0 and d["se"] == 0.0
    assert s["elo"]["score"] == 0.5 and s["elo"]["los"] == 0.5
    assert s["entrants"][0]["label"] == "greedy#1" and s["entrants"][1]["label"] == "greedy#2"


def test_games_mode_counts():
    spec = make_spec("greedy", ["maxoros"], None, 12, seed=8, chunk_size=4)
    s = run(spec).summary
    assert s["games"] == 12
    assert sum(s["hands_per_game"]["histogram"].values()) == 12
    assert sum(int(k) * v for k, v in s["hands_per_game"]["histogram"].items()) == s["hands"]
    assert sum(e["games"]["won"] for e in s["entrants"]) == 12


def test_jobs_do_not_change_the_summary():
    spec = make_spec("greedy", ["random"], None, 48, hands=True, seed=21, chunk_size=5)
    assert strip(run(spec, jobs=1).summary) == strip(run(spec, jobs=2).summary)


def test_chunk_frame_round_trip():
    spec = make_spec("greedy", ["random", "maxoros"], None, 18, seed=2, chunk_size=3)
    agg = chunk.play_chunk(spec, 1)
    assert agg["games"][0] == 9 and agg["points_hist"].shape[0] == 3
    with pytest.raises(IndexError):
        chunk.play_chunk(spec, 2)
    back = runfolder.frame_to_agg(runfolder.agg_to_frame(1, spec, agg))
    assert agg.keys() == back.keys()
    for k in agg:
        assert np.array_equal(agg[k], back[k]), k


def test_interrupt_then_resume_equals_uninterrupted(tmp_path):
    spec = make_spec("greedy", ["maxoros"], None, 40, hands=True, seed=13, chunk_size=4)
    whole = run(spec, tmp_path / "whole")
    calls = []

    def boom(p):
        calls.append(p.chunk)
        if len(calls) == 4:
            raise KeyboardInterrupt

    with pytest.raises(RunInterrupted) as e:
        run(spec, tmp_path / "cut", on_chunk=boom)
    assert e.value.done == 4
    manifest = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    assert len(list((tmp_path / "cut" / "chunks").glob("chunk-*.parquet"))) == 4
    assert not list((tmp_path / "cut" / "chunks").glob(".*"))  # no temporary leftovers
    again = resume(tmp_path / "cut", jobs=2)
    assert strip(again.summary) == strip(whole.summary)
    assert json.loads((tmp_path / "cut" / "manifest.json").read_text())["status"] == "complete"
    assert again.summary["performance"]["hands_computed"] == 40 - 4 * 4 * 2  # only the missing chunk is played
    on_disk = json.loads((tmp_path / "cut" / "summary.json").read_text())
    assert strip(on_disk) == strip(whole.summary)


@pytest.mark.parametrize("pool", [False, True])
def test_a_swallowed_ctrl_c_still_stops_the_run(tmp_path, pool):
    """Python drops a KeyboardInterrupt raised in a finalizer (CI saw one in a Dask Future.__del__);
    the signal is remembered, so the run still stops after the chunk in hand and can be resumed."""
    import signal
    from concurrent.futures import ThreadPoolExecutor

    spec = make_spec("greedy", ["maxoros"], None, 40, hands=True, seed=13, chunk_size=4)
    calls = []

    def swallowed(p):
        calls.append(p.chunk)
        if len(calls) == 2:
            try:
                signals._stop_requested(signal.SIGINT, None)  # what the handler does on Ctrl-C
            except KeyboardInterrupt:
                pass  # ... and what a finalizer does with the exception

    with signals.stop_on_signals(), ThreadPoolExecutor(1) as ex, pytest.raises(RunInterrupted) as e:
        run(spec, tmp_path / "cut", on_chunk=swallowed, executor=ex if pool else None)
    assert e.value.done == len(calls) < spec.n_chunks
    assert json.loads((tmp_path / "cut" / "manifest.json").read_text())["status"] == "interrupted"
    assert not signals.stop_requested()  # leaving the block forgets the signal
    assert strip(resume(tmp_path / "cut").summary) == strip(run(spec).summary)


def test_partial_session_out_of_order_then_resume(tmp_path):
    spec = make_spec("random", ["maxoros"], None, 30, hands=True, seed=17, chunk_size=3)
    part = run(spec, tmp_path / "o", only_chunks=[4, 1, 2])
    assert part.summary["status"] == "incomplete" and part.summary["chunks"]["used"] == 0
    seen = []
    assert strip(resume(tmp_path / "o", on_chunk=seen.append).summary) == strip(run(spec).summary)
    assert (seen[0].chunk, seen[0].chunks_done, seen[0].units_done) == (-1, 3, 3 * 3 * 2)  # the saved chunks
    assert seen[-1].units_done == 30 and seen[-1].chunks_done == spec.n_chunks
    assert sorted(p.chunk for p in seen[1:]) == [0, 3]


@pytest.mark.parametrize("made_with", [1, None])  # None: a 0.1.0 manifest without the field (stream 1)
def test_resume_refuses_a_folder_dealt_with_another_deal_stream(cli, tmp_path, made_with):
    from escoba_sim.game.rng import DEAL_STREAM_VERSION

    spec = make_spec("random", ["maxoros"], None, 30, hands=True, seed=17, chunk_size=3)
    run(spec, tmp_path / "o", only_chunks=[0, 1])
    path = tmp_path / "o" / "manifest.json"
    manifest = json.loads(path.read_text())
    assert manifest["deal_stream"] == DEAL_STREAM_VERSION == 2
    if made_with is None:
        del manifest["deal_stream"]
    else:
        manifest["deal_stream"] = made_with
    path.write_text(json.dumps(manifest))
    with pytest.raises(RunError, match="dealt with deal stream 1 .*this escoba-sim deals with stream 2"):
        resume(tmp_path / "o")
    r = cli("resume", tmp_path / "o")
    assert r.exit_code != 0 and "deal stream 1" in r.output and "Traceback" not in r.output
    assert len(list((tmp_path / "o" / "chunks").iterdir())) == 2  # nothing played, nothing lost


def naive_sprt_stop(spec):
    """The first deal after which the GSPRT leaves its bounds, from the oracle's per-deal scores."""
    o = oracle(spec)
    hist = [0] * (2 * spec.rotations + 1)
    lower, upper = stats.sprt_bounds(spec.sprt.alpha, spec.sprt.beta)
    for i, d in enumerate(sorted(o["xcl"])):
        hist[o["score"][d]] += 1
        llr = stats.sprt_llr(hist, spec.sprt.elo0, spec.sprt.elo1)
        if not lower < llr < upper:
            return i + 1, llr
    return None, llr


@pytest.mark.parametrize("chunk_size", [10, 57])
def test_sprt_stops_at_the_deciding_deal_reproducibly(tmp_path, chunk_size):
    """The GSPRT is checked after every deal: the run ends on the deal where LLR first leaves its bounds
    (not at a chunk end, where it overshot to -260 against +-2.94), the same for any --jobs and chunk size."""
    spec = make_spec("greedy", ["random"], None, 400, hands=True, seed=5, chunk_size=chunk_size,
                     sprt=runspec.Sprt(-20, 20, 0.05, 0.05))
    deals, llr = naive_sprt_stop(spec)
    a = run(spec).summary
    assert a["status"] == "stopped-by-sprt"
    assert a["sprt"]["decision"].startswith("accept H1")
    assert deals is not None and a["deals"] == a["sprt"]["deals"] == deals and a["hands"] == 2 * deals
    assert a["sprt"]["hands"] == 2 * deals
    assert a["sprt"]["llr"] == pytest.approx(llr) and a["sprt"]["upper"] <= llr < a["sprt"]["upper"] + 1.0
    used = a["chunks"]["used"]
    assert used == -(-deals // chunk_size)
    b = run(spec, tmp_path / "o", jobs=2).summary
    assert strip(a) == strip(b)
    assert sorted(p.name for p in (tmp_path / "o" / "chunks").iterdir()) == [runfolder.chunk_name(k) for k in range(used)]
    assert json.loads((tmp_path / "o" / "manifest.json").read_text())["status"] == "stopped-by-sprt"
    assert strip(resume(tmp_path / "o").summary) == strip(a)


def test_sprt_with_a_large_effect_stops_close_to_its_bound():
    """greedy against random with 12,500-deal chunks: once LLR -260 at the first chunk end; now near the bound."""
    spec = make_spec("greedy", ["random"], None, 100_000, seed=3, sprt=runspec.Sprt(0, 5, 0.05, 0.05))
    s = run(spec).summary
    sp = s["sprt"]
    assert s["status"] == "stopped-by-sprt" and sp["decision"].startswith("accept H1")
    assert sp["upper"] <= sp["llr"] < sp["upper"] + 1.0
    assert s["games"] == sp["games"] < 5000


def test_save_hands_rows(tmp_path):
    spec = make_spec("greedy", ["maxoros"], None, 10, hands=True, seed=1, chunk_size=3, save_hands=True)
    run(spec, tmp_path / "o")
    df = pl.read_parquet(tmp_path / "o" / "hands" / "*.parquet")
    assert df.height == 10
    assert {"game", "dealer", "total_0", "total_1", "escobas_1", "rotation"} <= set(df.columns)
    # rotation 1 replays the deal of rotation 0 with the strategies swapped: same lucky deals and dealers
    r0 = df.filter(pl.col("rotation") == 0).sort("game")
    r1 = df.filter(pl.col("rotation") == 1).sort("game")
    assert r0["lucky_deal"].to_list() == r1["lucky_deal"].to_list()
    assert r0["dealer"].to_list() == r1["dealer"].to_list()


def test_output_folder_guards(tmp_path):
    spec = make_spec("greedy", ["maxoros"], None, 6, hands=True, seed=1, chunk_size=3)
    run(spec, tmp_path / "o")
    with pytest.raises(RunError, match="already holds this run.*resume"):
        run(spec, tmp_path / "o")
    other = make_spec("greedy", ["maxoros"], None, 6, hands=True, seed=2, chunk_size=3)
    with pytest.raises(RunError, match="different run.*seed"):
        run(other, tmp_path / "o")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "x").write_text("")
    with pytest.raises(RunError, match="not empty"):
        run(spec, tmp_path / "junk")
    (tmp_path / "file").write_text("")
    with pytest.raises(RunError, match="cannot write|not a folder"):
        run(spec, tmp_path / "file" / "o")
    with pytest.raises(RunError, match="no run here"):
        resume(tmp_path / "nothing")


def test_make_spec_errors():
    # a Python caller reads the library's parameter names; the command line renders each as its flag
    with pytest.raises(RunError, match="^give at least one opponent with vs$") as raised:
        make_spec("greedy", [], None, 10)
    assert raised.value.render(lambda name: "--" + name) == "give at least one opponent with --vs"
    with pytest.raises(RunError, match="rules are for 4 players but 2"):
        make_spec("greedy", ["random"], "cardgames(players=4)", 10)
    with pytest.raises(RunError, match="^teams needs 4 or 6 players: .* e.g. rules '") as raised:
        make_spec("greedy", ["random"], None, 10, teams=True)
    assert raised.value.parameter == "teams"
    assert raised.value.render(lambda name: "--" + name).startswith("--teams needs 4 or 6 players")
    with pytest.raises(RunError, match="exactly two"):
        make_spec("greedy", ["random", "maxoros"], "cardgames(players=4)", 10, teams=True)
    with pytest.raises(RunError, match="two strategies"):
        make_spec("greedy", ["random", "maxoros"], None, 10, sprt=runspec.Sprt())
    with pytest.raises(RunError, match="elo0 must be smaller"):
        runspec.Sprt.parse("elo0=5,elo1=0")
    with pytest.raises(RunError, match="needs both"):
        runspec.Sprt.parse("elo1=3")
    assert runspec.Sprt.parse("elo0=0, elo1=20", 0.1, 0.2) == runspec.Sprt(0, 20, 0.1, 0.2)


def test_chunk_size_does_not_depend_on_jobs_and_is_bounded():
    assert runspec.default_chunk(10, "hands") == 250
    assert runspec.default_chunk(10**8, "hands") == runspec.MAX_CHUNK["hands"]
    assert runspec.default_chunk(10**8, "games") == runspec.MAX_CHUNK["games"]
    assert runspec.default_chunk(160_000, "hands") == 10_000


def test_failing_chunk_keeps_finished_chunks(tmp_path, monkeypatch):
    spec = make_spec("greedy", ["maxoros"], None, 20, hands=True, seed=3, chunk_size=2)
    real = runner.play_chunk

    def flaky(s, k, *args, **kwargs):
        if k == 3:
            raise RuntimeError("worker lost")
        return real(s, k, *args, **kwargs)

    monkeypatch.setattr(runner, "play_chunk", flaky)
    with pytest.raises(RunError, match="chunk 3 failed: RuntimeError: worker lost; 3 of 5 chunks are saved in"):
        run(spec, tmp_path / "o")
    assert json.loads((tmp_path / "o" / "manifest.json").read_text())["status"] == "interrupted"
    assert len(list((tmp_path / "o" / "chunks").iterdir())) == 3
    monkeypatch.setattr(runner, "play_chunk", real)
    assert strip(resume(tmp_path / "o").summary) == strip(run(spec).summary)


def test_any_executor_gives_the_same_summary():
    """The executor seam (issue 7 plugs Dask in here): any concurrent.futures-style executor, used as given."""
    from concurrent.futures import ThreadPoolExecutor

    spec = make_spec("random", ["greedy"], None, 30, hands=True, seed=8, chunk_size=2)
    with ThreadPoolExecutor(3) as ex:
        got = run(spec, executor=ex).summary
        assert not ex._shutdown  # the caller's executor is not shut down
    assert strip(got) == strip(run(spec).summary)


@pytest.mark.slow
@pytest.mark.parametrize("hands", [True, False])
def test_cluster_standard_errors_are_calibrated(hands):
    """Across seeds, the spread of the estimates matches the reported standard errors."""
    diffs, ses, scores, score_ses = [], [], [], []
    for seed in range(60):
        spec = make_spec("greedy", ["maxoros"], None, 400 if hands else 120, hands=hands, seed=seed)
        s = run(spec).summary
        d = s["differences"][0]["points_per_hand"]
        diffs.append(d["mean"])
        ses.append(d["se"])
        scores.append(s["elo"]["score"])
        score_ses.append(s["elo"]["se"])
    for est, se in ((diffs, ses), (scores, score_ses)):
        ratio = np.std(est, ddof=1) / np.sqrt(np.mean(np.square(se)))
        assert 0.7 < ratio < 1.35, ratio


def test_labels_are_short_specs_numbered_when_repeated():
    spec = runspec.make_spec("heuristic:oros=2", ["greedy", "heuristic:oros=2"], None, 100, seed=1)
    assert spec.strategies[0].startswith("heuristic:cards=1,oros=2")  # the canonical spec is kept
    assert spec.labels() == ["heuristic:oros=2#1", "greedy", "heuristic:oros=2#2"]


def test_progress_is_built_by_keyword():
    """Progress has twelve fields: positional construction (which silently shifts them) is refused."""
    with pytest.raises(TypeError):
        runner.Progress(0, 1, 2, 3, 4, 5, 0.0)
    p = runner.Progress(chunk=0, chunks_done=1, chunks_total=2, units_done=3, units_total=4, hands_computed=5,
                        seconds=0.0)
    assert (p.chunks_done, p.hands_computed, p.aggregates, p.final) == (1, 5, None, False)


def test_signal_handlers_have_one_home():
    """Only runs/signals.py installs Python signal handlers (the compiled core's guard passes signals on)."""
    from helpers import REPO

    installing = sorted(str(p.relative_to(REPO)) for p in (REPO / "escoba_sim").rglob("*.py")
                        if "signal.signal(" in p.read_text() or "signal.getsignal(" in p.read_text())
    assert installing == ["escoba_sim/runs/signals.py"]
