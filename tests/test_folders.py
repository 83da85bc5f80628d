"""The one checksummed-folder module (escoba_sim/folders.py) that a run's, a series' and a tune's folder go
through: a damaged file is set aside, a file of another folder (another fingerprint) is refused, and the
places that cannot be a folder are refused in the same words, naming the parameter ``out`` for a Python caller
and ``--out`` on the command line; a resume line is argv, turned into a series' own for a run of a series."""

from __future__ import annotations

import click
import numpy as np
import pytest
from helpers import needs_core

from escoba_sim import folders
from escoba_sim.cli.errors import render
from escoba_sim.errors import EscobaError
from escoba_sim.runs import folder as runfolder
from escoba_sim.runs import runner
from escoba_sim.runs.spec import RunError, make_spec


def as_cli(error: EscobaError) -> str:
    """What the command line says of ``error`` inside a command with ``--out`` (as run, compare and tune have)."""
    @click.command()
    @click.option("--out", "-o")
    def cmd(out):
        raise SystemExit(render(error))

    with pytest.raises(SystemExit) as said:
        cmd.main(["--out", "x"], standalone_mode=False)
    return str(said.value)


# --- the module itself ----------------------------------------------------------------------------------

def test_a_damaged_file_is_set_aside_with_one_warning_not_lost(tmp_path, capsys):
    p = tmp_path / "g0000-c00.json"
    p.write_text("{not json")
    folders.set_aside(p, "unreadable", "evaluating it")
    assert not p.exists() and (tmp_path / "g0000-c00.json.damaged").read_text() == "{not json"
    warning = capsys.readouterr().err
    assert warning.count("\n") == 1 and "g0000-c00.json.damaged" in warning and "evaluating it again" in warning


def test_a_run_sets_aside_past_a_folder_in_the_way_and_a_tune_leaves_the_file(tmp_path, capsys):
    for strict in (True, False):
        p = tmp_path / f"chunk-{strict}.parquet"
        p.write_text("damaged")
        (tmp_path / f"{p.name}.damaged").mkdir()  # a folder of the aside's name, in the way
        (tmp_path / f"{p.name}.damaged" / "x").write_text("")
        folders.set_aside(p, "unreadable", "playing chunk 0", warn=False, strict=strict)
        if strict:  # a run's chunk: the folder in the way goes, the damaged file is kept
            assert not p.exists() and (tmp_path / f"{p.name}.damaged").read_text() == "damaged"
        else:  # left where it is, to be overwritten by the new file
            assert p.read_text() == "damaged" and (tmp_path / f"{p.name}.damaged").is_dir()
    assert capsys.readouterr().err == ""  # warn=False: the caller warns


def test_a_record_sealed_for_another_folder_or_place_is_not_taken():
    record = folders.seal(folders.fingerprint({"spec": 1}), "g0001-c00", {"score": 0.5})
    assert folders.is_sealed(folders.fingerprint({"spec": 1}), "g0001-c00", record)
    assert not folders.is_sealed(folders.fingerprint({"spec": 2}), "g0001-c00", record)  # another folder's
    assert not folders.is_sealed(folders.fingerprint({"spec": 1}), "g0001-c01", record)  # moved
    assert not folders.is_sealed(folders.fingerprint({"spec": 1}), "g0001-c00", {**record, "score": 0.9})  # edited


def test_a_sealed_parquet_file_of_another_fingerprint_or_with_edited_rows_is_refused(tmp_path):
    import polars as pl

    df = pl.DataFrame({"deal": np.arange(3, dtype=np.int64)})
    digest = lambda d: folders.columns_checksum((c, d[c].to_numpy().tobytes()) for c in d.columns)  # noqa: E731
    p = tmp_path / "f.parquet"
    folders.write_sealed_parquet(df, p, "fp-a", digest(df), tmp_path)
    assert folders.read_sealed_parquet(p, "fp-a", ["deal"], digest, "deal file").equals(df)
    with pytest.raises(folders.Damaged, match="fingerprint differs"):
        folders.read_sealed_parquet(p, "fp-b", ["deal"], digest, "deal file")
    edited = df.with_columns(pl.col("deal") + 1)
    edited.write_parquet(p, metadata={folders.FINGERPRINT_KEY: "fp-a", folders.CHECKSUM_KEY: digest(df)})
    with pytest.raises(folders.Damaged, match="checksum differs"):
        folders.read_sealed_parquet(p, "fp-a", ["deal"], digest, "deal file")


# --- the three kinds of folder, through it ----------------------------------------------------------------

def small_run(n: int = 200):
    return make_spec("greedy", ["random"], "ludoteka", n, seed=3, chunk_size=100)


def test_a_run_chunk_of_another_run_is_refused_by_its_fingerprint(tmp_path):
    spec, other = small_run(), make_spec("greedy", ["random"], "ludoteka", 200, seed=4, chunk_size=100)
    runner.run(other, tmp_path / "other")
    with pytest.raises(folders.Damaged, match="fingerprint differs"):
        runfolder.read_chunk(tmp_path / "other" / "chunks" / runfolder.chunk_name(0), spec, 0)


def test_a_damaged_tune_evaluation_is_set_aside_through_the_module(tmp_path, monkeypatch):
    pytest.importorskip("cma")
    from escoba_sim import tune

    needs_core("tune")
    spec = tune.make_tune_spec("heuristic", evals=2, games=20, seed=5, popsize=2, check=20, params=("risk",))
    out = tmp_path / "t"
    tune.tune(spec, out)
    first = sorted((out / "evals").glob("*.json"))[0]
    first.write_text(first.read_text().replace('"score": ', '"score": 1'))  # an edited score
    aside = []
    monkeypatch.setattr(folders, "set_aside", lambda p, why, what: aside.append((p.name, why)))
    tune.tune(spec, out)
    assert aside == [(first.name, "changed after it was written, or not this tune's (its checksum differs)")]


def run_kind(kind: str, out):
    """Start a run, a comparison or a tune in ``out``."""
    if kind == "run":
        runfolder.prepare_out(out, small_run())
    elif kind == "compare":
        from escoba_sim.series.compare import build_variants, compare

        compare(build_variants(["ludoteka"], ["target=15,21"]), "greedy", "random", 100, out, seed=1)
    else:
        pytest.importorskip("cma")
        from escoba_sim import tune

        tune.tune(tune.make_tune_spec("heuristic", evals=2, games=20, popsize=2, params=("risk",)), out)


@pytest.mark.parametrize("kind", ["run", "compare", pytest.param("tune", marks=pytest.mark.core("tune"))])
def test_every_kind_of_folder_refuses_a_file_and_a_foreign_folder_in_the_same_words(tmp_path, kind):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(EscobaError) as raised:
        run_kind(kind, a_file)
    err = raised.value
    assert err.parameter == "out" and str(err) == f"out {a_file}: exists and is not a folder"
    assert as_cli(err) == f"--out {a_file}: exists and is not a folder"

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(EscobaError) as raised:
        run_kind(kind, foreign)
    assert raised.value.parameter == "out"
    assert str(raised.value).startswith(f"out {foreign}: the folder is not empty and holds no ")
    assert as_cli(raised.value).startswith(f"--out {foreign}: the folder is not empty and holds no ")
    # nothing written but the lock a series takes before it looks
    assert (foreign / "notes.txt").read_text() == "mine" and {p.name for p in foreign.iterdir()} - {".lock"} == {"notes.txt"}


# --- the command that continues the work ------------------------------------------------------------------

def test_a_run_says_how_to_continue_it_as_argv_and_a_run_of_a_series_names_the_series(tmp_path):
    out = tmp_path / "run"
    spec = small_run()
    runner.run(spec, out)
    assert spec.n_chunks >= 1
    (out / "chunks" / runfolder.chunk_name(0)).unlink()
    with pytest.raises(RunError) as raised:
        runfolder.read_run_chunks(out, spec)
    err = raised.value
    assert err.resume == ("resume", str(out)) and err.folder == out
    assert str(err) == f"{out}: chunk 0 is missing; finish it with: escoba-sim resume {out}"

    with runfolder.continued_by(out, ("resume", str(tmp_path))), pytest.raises(RunError) as raised:
        runfolder.read_run_chunks(out, spec)
    assert raised.value.resume == ("resume", str(tmp_path))
    assert str(raised.value).endswith(f"finish it with: escoba-sim resume {tmp_path}")
    assert runfolder.resume_command(out, spec) == ("resume", str(out))  # outside, the run's own again
