"""Issue 38's last terminal rough edges, each test named after what failed before: a series started again into
its own folder, a bad --scheduler, a long list of strategy choices."""

import json
import shutil

import pytest

from tests.helpers import one_error

SERIES = {
    "tournament": ["tournament", "greedy", "random", "maxoros", "-n", "20", "--seed", "5", "--chunk", "10"],
    "compare": ["compare", "-r", "ludoteka", "-r", "cardgames", "-r", "tradicional", "-n", "20", "--seed", "5",
                "--chunk", "10"],
    "skill": ["skill", "--ladder", "random,greedy,maxoros", "-n", "20", "--seed", "5", "--no-scorecard"],
}
WORDS = {"tournament": "tournament", "compare": "comparison", "skill": "skill ladder"}


@pytest.mark.parametrize("kind", list(SERIES))
def test_a_series_started_again_into_its_folder_is_refused_and_points_to_resume(cli, tmp_path, kind):
    """Before, the same command again printed `[1/3] ...` as if playing and reprinted the finished series (exit 0),
    where `run` refuses its own folder and says to resume it."""
    out = tmp_path / "s"
    args = [*SERIES[kind], "--out", out]
    assert cli(*args).exit_code == 0
    again = cli(*args)
    error = one_error(again, code=1)  # run's exit code for its own folder: a folder, not a usage error
    assert f"{out} already holds this {WORDS[kind]}, finished" in error, error
    assert f"escoba-sim resume {out}" in error and f"escoba-sim report {out}" in error, error
    assert "[1/" not in again.stderr and again.stdout == ""

    # interrupted (a run not played yet): the same command refuses, saying what is done, and resume finishes it
    shutil.rmtree(out / "runs" / "02")
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["results"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    error = one_error(cli(*args), code=1)
    assert "(2 of 3 runs finished); continue it with: escoba-sim resume" in error, error
    assert not (out / "runs" / "02" / "manifest.json").exists()  # the refusal played nothing
    resumed = cli("resume", out)
    assert resumed.exit_code == 0, resumed.output
    assert "[3/3]" in resumed.stderr and "finished" in one_error(cli(*args), code=1)

    # other arguments into the same folder: refused as before, naming --out
    other = [a if a != "20" else "40" for a in args]
    assert f"{out} already holds a different {WORDS[kind]}; choose another --out" in one_error(cli(*other), code=1)


def test_a_series_started_again_is_refused_in_spanish(cli, tmp_path):
    out = tmp_path / "s"
    args = [*SERIES["tournament"], "--out", out]
    assert cli(*args).exit_code == 0
    error = one_error(cli(*args, lang="es"))
    assert f"{out} ya contiene este torneo, terminado" in error and f"escoba-sim resume {out}" in error, error


@pytest.mark.parametrize("value", ["garbage", "tcp://host-without-port", "tcp://127.0.0.1:99999", " "])
@pytest.mark.parametrize("command", [["run", "-s", "greedy", "--vs", "random", "-n", "2", "--seed", "1"],
                                     ["tournament", "greedy", "random", "-n", "2", "--seed", "1"]])
def test_a_scheduler_that_is_no_address_is_a_usage_error(cli, monkeypatch, tmp_path, command, value):
    """Before, `--scheduler garbage` exited 1 after Dask tried to connect ("missing port number"): a value the
    option cannot take is a usage error (README, "Exit codes")."""
    monkeypatch.chdir(tmp_path)
    error = one_error(cli(*command, "--scheduler", value), code=2)
    assert error.startswith("Error: --scheduler") and "give tcp://HOST:PORT or local" in error, error
    assert not list(tmp_path.iterdir())  # refused before any folder was made
