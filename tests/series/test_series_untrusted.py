"""Issue 25: every file a comparison's or tournament's result depends on carries a checksum:
deal files as chunk files do (resume plays a bad one again, report refuses in one line), the result
tables and summary.json against the manifest; a full disk in a tournament says to resume the
tournament, not one of its runs."""

from __future__ import annotations

import errno
import json
import shutil

import numpy as np
import polars as pl
import pytest
from conftest import engine_sized
from helpers import one_error

from escoba_sim.folders import CHECKSUM_KEY, FINGERPRINT_KEY
from escoba_sim.runs import chunk

# 4 chunks a run: 1,000 deals in the default 250 on the compiled core, 100 deals in chunks of 25 on the reference
N = engine_sized(2000, 200)
CHUNK = [] if engine_sized(1, 0) else ["--chunk", "25"]


@pytest.fixture(scope="module")
def series(tmp_path_factory):
    """A finished comparison and tournament (4 chunks per run), their JSON output, and a copy-maker."""
    from click.testing import CliRunner

    from escoba_sim.cli import main

    base = tmp_path_factory.mktemp("series")
    made = {}
    for kind, args in (("compare", ["compare", "-r", "ludoteka", "-r", "robo"]),
                       ("tournament", ["tournament", "greedy", "random", "maxoros"])):
        r = CliRunner().invoke(main, [*args, "-n", str(N), *CHUNK, "--seed", "5", "--out", str(base / kind), "-q",
                                      "--json"], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        made[kind] = json.loads(r.stdout)

    def copy(kind, to):
        shutil.copytree(base / kind, to)
        return to

    return made, copy


def _times_three(path):
    """Multiply every value of one deal file by three, keeping its metadata (as the hostile pass did)."""
    meta = pl.read_parquet_metadata(path)
    df = pl.read_parquet(path)
    df = df.with_columns([(pl.col(c) * 3).cast(df[c].dtype) for c in df.columns if c != "deal"])
    df.write_parquet(path, metadata={k: v for k, v in meta.items() if k.startswith("escoba_sim.")})


@pytest.mark.parametrize("kind", ["compare", "tournament"])
def test_an_edited_deal_file_is_played_again_on_resume_and_refused_by_report(series, tmp_path, cli,
                                                                                        kind):
    made, copy = series
    out = copy(kind, tmp_path / kind)
    p = out / "runs" / "01" / "deals" / "chunk-000002.parquet"
    _times_three(p)
    line = one_error(cli("report", out))  # report checks the runs behind the tables too
    assert "runs/01/deals/chunk-000002.parquet" in line and "checksum" in line
    assert line.endswith(f"escoba-sim resume {out}")
    r = cli("resume", out, "-q", "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout) == made[kind]  # the very result of the untouched series
    assert "playing chunk 2 again" in r.stderr and (p.parent / (p.name + ".damaged")).exists()


@pytest.mark.parametrize("kind", ["compare", "tournament"])
def test_a_deal_file_missing_or_from_another_chunk_is_played_again(series, tmp_path, cli, kind):
    made, copy = series
    out = copy(kind, tmp_path / kind)
    deals = out / "runs" / "00" / "deals"
    shutil.copy(deals / "chunk-000000.parquet", deals / "chunk-000001.parquet")  # valid file, wrong chunk
    (out / "runs" / "01" / "deals" / "chunk-000003.parquet").unlink()
    r = cli("resume", out, "-q", "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout) == made[kind]


def test_deal_files_carry_the_fingerprint_and_checksum(series, tmp_path):
    _, copy = series
    from escoba_sim.runs.folder import read_deals, read_run_spec

    out = copy("compare", tmp_path / "c")
    _, spec = read_run_spec(out / "runs" / "00")
    p = out / "runs" / "00" / "deals" / "chunk-000001.parquet"
    meta = pl.read_parquet_metadata(p)
    assert meta[FINGERPRINT_KEY] == spec.fingerprint(1) and len(meta[CHECKSUM_KEY]) == 64
    v = read_deals(p, spec, 1)
    first, count = spec.chunk_range(1)
    assert v.shape[0] == count and v.dtype == np.int64


@pytest.mark.parametrize("kind", ["compare", "tournament"])
def test_report_refuses_edited_or_truncated_result_files_in_one_line(series, tmp_path, cli, kind):
    _, copy = series
    out = copy(kind, tmp_path / kind)
    # a table edited (values tripled), a table truncated, a summary retyped: each named, with the fix
    t = sorted((out / "tables").glob("*.parquet"))[0]
    df = pl.read_parquet(t)
    df.with_columns([pl.col(c) * 3 for c, dt in df.schema.items() if dt.is_numeric()]).write_parquet(t)
    line = one_error(cli("report", out))
    assert t.name in line and "checksum" in line and f"escoba-sim resume {out}" in line
    assert cli("resume", out, "-q").exit_code == 0  # resume rebuilds the results from the verified runs
    assert cli("report", out).exit_code == 0
    t.write_bytes(t.read_bytes()[:50])
    assert t.name in one_error(cli("report", out))
    assert cli("resume", out, "-q").exit_code == 0
    s = json.loads((out / "summary.json").read_text())
    s["seed"] = "<b>not a seed</b>"
    s["strategies"] = 7
    (out / "summary.json").write_text(json.dumps(s))
    assert "summary.json" in one_error(cli("report", out))


@pytest.mark.parametrize("kind", ["compare", "tournament"])
def test_a_series_folder_of_the_earlier_format_is_refused_in_one_line(series, tmp_path, cli, kind):
    _, copy = series
    out = copy(kind, tmp_path / kind)
    m = json.loads((out / "manifest.json").read_text())
    m.pop("format")
    m.pop("results")
    (out / "manifest.json").write_text(json.dumps(m))
    assert "earlier escoba-sim" in one_error(cli("resume", out, "-q"))
    assert "earlier escoba-sim" in one_error(cli("report", out))


def test_a_full_disk_in_a_tournament_says_to_resume_the_tournament(tmp_path, cli, monkeypatch):
    real = chunk.write_deals
    calls = []

    def full(*args):
        calls.append(args)
        if len(calls) == 7:  # the second pair's third chunk
            raise OSError(errno.ENOSPC, "No space left on device", str(args[3]))
        real(*args)

    monkeypatch.setattr(chunk, "write_deals", full)
    out = tmp_path / "t"
    line = one_error(cli("tournament", "greedy", "random", "maxoros", "-n", N, *CHUNK, "--seed", "5", "--out", out,
                         "-q", "-j", "1"))
    assert "No space left on device" in line
    assert line.endswith(f"escoba-sim resume {out}") and "runs/" not in line.rsplit("resume", 1)[1]
    monkeypatch.setattr(chunk, "write_deals", real)
    assert cli("resume", out, "-q").exit_code == 0
