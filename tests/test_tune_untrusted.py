"""Issue 25: a tune folder is checked, not trusted, its options are bounded, and a failed start leaves nothing
that blocks the corrected command."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("cma")
from helpers import one_error

from escoba_sim.tune import TuneError, make_tune_spec, tune

pytestmark = pytest.mark.core("tune")


def small(**kw):
    args = dict(evals=8, games=60, seed=5, popsize=4, check=60, params=("risk", "escoba"))
    args.update(kw)
    return make_tune_spec("heuristic", **args)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished tune and its summary, and a copy-maker for tampering."""
    import shutil

    base = tmp_path_factory.mktemp("tune") / "t"
    summary = tune(small(), base)

    def copy(to):
        shutil.copytree(base, to)
        return to

    return summary, copy


def _edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("change", [
    lambda e: e.update(score=e["score"] + 100),  # a flattering score
    lambda e: e.update(score="high"),  # a text score
    lambda e: e.update(lo=-1e308, hi=1e308),
    lambda e: e.pop("vs"),
])
def test_an_edited_evaluation_is_evaluated_again(finished, tmp_path, capfd, change):
    summary, copy = finished
    out = copy(tmp_path / "t")
    p = out / "evals" / "g0000-c01.json"
    original = p.read_text()
    _edit(p, change)
    again = tune(small(), out)
    assert again == summary  # the tuned weights, the history and the check are the untouched tune's
    assert p.read_text() == original and (out / "evals" / "g0000-c01.json.damaged").exists()
    err = capfd.readouterr().err
    assert f"warning: {p} is" in err and "evaluating it again" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("content", ["[1, 2]", '"score"', '{"score": NaN}'])
def test_an_evaluation_that_is_not_an_object_is_evaluated_again(finished, tmp_path, content):
    summary, copy = finished
    out = copy(tmp_path / "t")
    (out / "evals" / "g0001-c02.json").write_text(content)
    assert tune(small(), out) == summary


def test_an_edited_check_is_played_again(finished, tmp_path, capfd):
    summary, copy = finished
    out = copy(tmp_path / "t")
    _edit(out / "check.json", lambda c: c.update(points_per_hand=5.0, lo=4.0, hi=6.0))
    assert tune(small(), out) == summary
    assert "check.json is changed after it was written" in capfd.readouterr().err
    assert "+5.0000" not in (out / "best.toml").read_text()
    (out / "check.json").write_text("[]")
    assert tune(small(), out) == summary


def test_an_evaluation_from_another_place_is_not_taken(finished, tmp_path):
    summary, copy = finished
    out = copy(tmp_path / "t")
    a, b = out / "evals" / "g0001-c00.json", out / "evals" / "g0001-c01.json"
    a.write_text(b.read_text())  # a valid evaluation file, moved: its checksum binds its place
    assert tune(small(), out) == summary


def test_a_manifest_that_is_not_an_object_or_not_valid_is_one_line(finished, tmp_path, cli):
    _, copy = finished
    out = copy(tmp_path / "t")
    args = ["tune", "heuristic", "--param", "risk", "--param", "escoba", "--evals", "8", "--games", "60",
            "--seed", "5", "--popsize", "4", "--check", "60", "--out", out]
    (out / "manifest.json").write_text("[1, 2, 3]")
    assert "not a tune manifest" in one_error(cli(*args))
    (out / "manifest.json").write_text('{"kind": "tune", "spec": 7}')
    assert "different tune" in one_error(cli(*args))
    (out / "manifest.json").write_text('{"kind": "tune", "spec": ' + "[" * 5000 + "]" * 5000 + "}")
    assert "nested" in one_error(cli(*args))


def test_a_tune_folder_of_the_earlier_format_is_refused_in_one_line(finished, tmp_path):
    _, copy = finished
    out = copy(tmp_path / "t")
    _edit(out / "manifest.json", lambda m: m.pop("format"))
    with pytest.raises(TuneError, match="earlier escoba-sim"):
        tune(small(), out)


@pytest.mark.parametrize("args, message", [
    (["--sigma", "inf"], "--sigma"),
    (["--sigma", "1e300"], "--sigma"),
    (["--games", "1"], "--games"),
    (["--check", "1"], "--check"),
])
def test_unworkable_tune_options_are_refused_and_no_infinity_is_written(cli, tmp_path, args,
                                                                                          message):
    out = tmp_path / "t"
    assert message in one_error(cli("tune", "heuristic", "--param", "risk", "--evals", "2", "--popsize", "2",
                                    "--games", "20", *args, "--out", out))
    assert not out.exists()


def test_tune_out_on_a_folder_it_cannot_write_is_one_line(cli, tmp_path):
    (tmp_path / "file").write_text("")
    for out in ("/sys/escoba-sim-tune-test", tmp_path / "file" / "sub"):
        assert "cannot write" in one_error(cli("tune", "heuristic", "--param", "risk", "--evals", "2",
                                               "--popsize", "2", "--games", "20", "--out", out))


def test_tuned_opponent_without_parameters_for_the_ruleset_is_one_line_and_leaves_no_manifest(cli,
                                                                                                       tmp_path):
    out = tmp_path / "t"
    common = ["--param", "risk", "--evals", "2", "--popsize", "2", "--games", "20", "--check", "20", "--out", out]
    line = one_error(cli("tune", "heuristic", "--vs", "heuristic:tuned", "-r", "robo(target=15)", *common))
    assert "heuristic:tuned" in line and "robo(target=15)" in line
    assert not (out / "manifest.json").exists()
    # the corrected command runs (a folder a failed start left with nothing computed does not block it)
    out.mkdir(exist_ok=True)
    (out / "evals").mkdir(exist_ok=True)
    (out / "manifest.json").write_text(json.dumps({"kind": "tune", "spec": {"strategy": "something else"}}))
    r = cli("tune", "heuristic", "--vs", "heuristic:tuned", "-r", "robo", *common)
    assert r.exit_code == 0, r.stderr
    assert (out / "best.toml").exists()
