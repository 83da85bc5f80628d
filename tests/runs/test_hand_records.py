"""runs.hand_records (--save-hands): every hand a run or tournament counted, as a hand record that replays to
the very result the run counted for its deal; resume neither duplicates nor loses records."""

import json
from collections import defaultdict

import numpy as np
import pytest

from escoba_sim.hands.record import replay_record
from escoba_sim.runs import runner
from escoba_sim.runs.aggregates import DealLayout
from escoba_sim.runs.folder import read_manifest, read_run_deals, run_spec_of
from escoba_sim.runs.hand_records import RECORDS, chunk_folder, done_file
from escoba_sim.runs.spec import make_spec
from escoba_sim.series.resume import resume_folder
from escoba_sim.series.tournament import tournament


def records_of(run_dir):
    return {p.relative_to(run_dir / RECORDS).as_posix(): p.read_bytes()
            for p in sorted((run_dir / RECORDS).rglob("*.json"))}


def check_against_the_deals(run_dir):
    """Each deal's records, summed per entrant over rotations and hands, equal the run's per-deal vector."""
    spec = run_spec_of(run_dir, read_manifest(run_dir))
    lay = DealLayout(spec.entrants)
    got = defaultdict(lambda: np.zeros(lay.size, np.int64))
    n = 0
    for p in (run_dir / RECORDS).glob("chunk-*/*.json"):
        rec = json.loads(p.read_text())
        st, problems = replay_record(rec)
        assert problems == [] and st.over, (p, problems)
        r = rec["strategies"] != list(spec.lineup(0))  # rotation 1: the seats swapped
        v = got[rec["game"]]
        v[lay.hands] += 1
        for side in rec["score"]:
            e = (side["side"] + r) % spec.entrants  # side j of rotation r is entrant (j + r) % E
            v[lay.points(e)] += side["total"]
        n += 1
    counted = len(list((run_dir / "deals").glob("chunk-*.parquet")))  # an SPRT stop counts the first ones only
    deals = np.concatenate([read_run_deals(run_dir, spec, k) for k in range(counted)])
    assert n == deals[:, lay.hands].sum() and set(got) == set(range(len(deals)))
    for d, v in got.items():
        assert v[lay.hands] == deals[d, lay.hands], d
        for e in range(spec.entrants):
            assert v[lay.points(e)] == deals[d, lay.points(e)], (d, e)
    return n


def test_a_tournament_saves_every_counted_hand_as_a_record_that_replays_to_the_counted_result(tmp_path):
    summary = tournament(["greedy", "maxoros", "random"], 24, tmp_path / "t", seed=11, chunk_size=4,
                         save_hands=True)
    assert read_manifest(tmp_path / "t")["save_hands"] is True
    for k in range(3):
        run_dir = tmp_path / "t" / "runs" / f"{k:02d}"
        n = check_against_the_deals(run_dir)
        done = [json.loads(f.read_text()) for f in sorted((run_dir / RECORDS).glob("*.done.json"))]
        assert [d["deals"] for d in done] == [4, 4, 4] and sum(d["records"] for d in done) == n
    assert summary["games_per_pair"] == 24


def test_resume_writes_the_missing_records_once(tmp_path):
    spec = make_spec("greedy", ["maxoros"], "ludoteka", 40, seed=4, chunk_size=5, save_hands=True, keep_deals=True)
    full = tmp_path / "full"
    runner.run(spec, full, hand_records=True)
    want = records_of(full)
    assert want and len([k for k in want if k.endswith(".done.json")]) == spec.n_chunks

    part = tmp_path / "part"
    runner.run(spec, part, only_chunks=[0, 1, 3], hand_records=True)  # interrupted: chunk 2 missing, so only 0 and 1 are counted
    assert {k.split("/")[0].split(".")[0] for k in records_of(part)} == {"chunk-000000", "chunk-000001"}
    # a run killed while it wrote chunk 1's records: some files, no done.json
    done_file(part, 1).unlink()
    for p in sorted(chunk_folder(part, 1).glob("d*.json"))[::2]:
        p.unlink()
    resume_folder(part)
    assert records_of(part) == want  # the same names and bytes: nothing lost, nothing twice
    check_against_the_deals(part)


def test_records_follow_an_sprt_that_stops_inside_a_chunk(tmp_path):
    from escoba_sim.runs.spec import Sprt

    spec = make_spec("greedy", ["random"], "ludoteka", 2000, seed=2, chunk_size=200, save_hands=True,
                     keep_deals=True, sprt=Sprt(elo0=0, elo1=200))
    res = runner.run(spec, tmp_path / "s", hand_records=True)
    assert res.summary["status"] == "stopped-by-sprt" and int(res.aggregates["clusters"][0]) < spec.deals
    assert check_against_the_deals(tmp_path / "s") == int(res.aggregates["hands"][0])


def test_records_only_when_asked(tmp_path):
    # the per-hand rows alone (the library's save_hands) stay as fast as the core: no reference replays
    spec = make_spec("greedy", ["maxoros"], "ludoteka", 20, seed=9, chunk_size=10, save_hands=True)
    runner.run(spec, tmp_path / "rows")
    assert (tmp_path / "rows" / "hands").is_dir() and not (tmp_path / "rows" / RECORDS).exists()


def test_run_cli_save_hands_writes_records_that_replay_and_analyze_read(cli, tmp_path):
    out = tmp_path / "r"
    assert cli("run", "-s", "greedy", "--vs", "maxoros", "-n", 8, "--seed", 5, "--out", out, "--save-hands",
               "-j", 1, "-q").exit_code == 0
    first = sorted((out / RECORDS).glob("chunk-*/*.json"))[-1]
    assert cli("replay", first).exit_code == 0
    rec = json.loads(first.read_text())  # trace shows the same hand from the seed, game and hand in its name
    a, b = rec["strategies"]
    shown = cli("trace", "-s", a, "--vs", b, "--seed", 5, "--game", rec["game"], "--hand-index", rec["hand"], "--json")
    assert json.loads(shown.stdout) == rec
    assert read_manifest(out)["hand_records"] is True


def test_hands_mode_records_are_one_hand_per_deal_and_rotation(tmp_path):
    spec = make_spec("greedy", ["maxoros"], "ludoteka", 30, seed=9, chunk_size=10, save_hands=True, hands=True,
                     keep_deals=True)
    runner.run(spec, tmp_path / "h", hand_records=True)
    names = [p.name for p in (tmp_path / "h" / RECORDS).glob("chunk-*/*.json")]
    assert len(names) == 30 and all(n.endswith("-h0.json") for n in names)
    assert check_against_the_deals(tmp_path / "h") == 30


# ------------------------------------------------------------------ issue 36, finding 11: deleted records

def _delete_some_records(run_dir, k=0):
    gone = sorted(chunk_folder(run_dir, k).glob("d*.json"))[1::3]
    for p in gone:
        p.unlink()
    return gone


def test_resume_of_a_finished_run_writes_its_deleted_records_again_and_report_refuses_until_then(tmp_path):
    from escoba_sim.output.report_folder import ReportError
    from escoba_sim.output.views import read_folder

    spec = make_spec("greedy", ["maxoros"], "ludoteka", 20, seed=4, chunk_size=5, save_hands=True, keep_deals=True)
    out = tmp_path / "r"
    runner.run(spec, out, hand_records=True)
    want = records_of(out)
    assert _delete_some_records(out, 1)
    with pytest.raises(ReportError, match=r"hand records of chunk 1 .*resume"):
        read_folder(out)
    resume_folder(out)
    assert records_of(out) == want  # the very names and bytes again
    read_folder(out)


def test_resume_of_a_finished_tournament_writes_its_deleted_records_again_and_report_refuses_until_then(
        tmp_path, cli):
    from escoba_sim.output.report_folder import ReportError
    from escoba_sim.output.views import read_folder

    tournament(["greedy", "random"], 12, tmp_path / "t", seed=3, chunk_size=4, save_hands=True)
    run_dir = tmp_path / "t" / "runs" / "00"
    want = records_of(run_dir)
    assert _delete_some_records(run_dir, 1)
    with pytest.raises(ReportError, match=r"runs/00: the hand records of chunk 1 .*resume .*t\b"):
        read_folder(tmp_path / "t")
    assert cli("report", tmp_path / "t").exit_code == 1
    assert cli("resume", tmp_path / "t", "-q").exit_code == 0
    assert records_of(run_dir) == want
    read_folder(tmp_path / "t")
    check_against_the_deals(run_dir)
