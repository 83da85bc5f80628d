"""Issue 36, finding 9: a run's manifest edited, damaged or removed inside a finished series folder (a skill
ladder, a tournament, a comparison). ``report`` refuses such a folder and says to resume it; ``resume`` then
writes the run's manifest again from the series' own (the old one kept as manifest.json.damaged), keeps the
run's chunks that are its own and plays the rest, so the two agree and the results are those the series had."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import engine_sized

from escoba_sim.output.report_folder import ReportError
from escoba_sim.output.views import read_folder

N = engine_sized(40, 8)
SERIES = {"tournament": ["tournament", "random", "greedy"],
          "skill": ["skill", "--ladder", "random,greedy"],
          "compare": ["compare", "-r", "ludoteka", "-r", "robo", "-s", "greedy", "--vs", "random"]}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    from click.testing import CliRunner

    from escoba_sim.cli import main

    base = tmp_path_factory.mktemp("edited")
    for kind, args in SERIES.items():
        r = CliRunner().invoke(main, [*args, "-n", str(N), "--seed", "7", "-j", "1", "-q", "--out",
                                      str(base / kind)], catch_exceptions=False)
        assert r.exit_code == 0, r.output
    return base


def _edit_strategies(path):
    m = json.loads(path.read_text())
    m["spec"]["strategies"] = list(reversed(m["spec"]["strategies"]))
    path.write_text(json.dumps(m))


def _edit_seed(path):
    m = json.loads(path.read_text())
    m["spec"]["seed"] += 1
    m["seed"] += 1
    path.write_text(json.dumps(m))


EDITS = {"strategies": _edit_strategies, "seed": _edit_seed, "not-json": lambda p: p.write_text("{oops"),
         "removed": lambda p: p.unlink()}


@pytest.mark.parametrize("kind", list(SERIES))
@pytest.mark.parametrize("edit", list(EDITS))
def test_resume_rebuilds_an_edited_run_of_a_finished_series_so_that_report_reads_it(finished, tmp_path, cli, kind,
                                                                                     edit):
    d = shutil.copytree(finished / kind, tmp_path / kind)
    before = json.loads((d / "summary.json").read_text())
    run = d / "runs" / "00" / "manifest.json"
    EDITS[edit](run)
    with pytest.raises(ReportError) as refused:
        read_folder(d)  # report: refused, saying to resume the series
    assert f"escoba-sim resume {d}" in str(refused.value)
    r = cli("resume", d, "-q", "--json")
    assert r.exit_code == 0, r.output
    read_folder(d)  # report and resume now agree
    assert json.loads(run.read_text())["status"] == "complete"
    assert (run.with_name("manifest.json.damaged").exists()) == (edit != "removed")
    after = json.loads((d / "summary.json").read_text())
    for volatile in ("performance",):
        before.pop(volatile, None), after.pop(volatile, None)
    assert after == before  # the series' own results, not the edited run's


def test_an_untouched_finished_series_resumes_without_writing_a_run_again(finished, tmp_path, cli):
    d = shutil.copytree(finished / "tournament", tmp_path / "t")
    run = d / "runs" / "00" / "manifest.json"
    kept = run.read_bytes()
    assert cli("resume", d, "-q").exit_code == 0
    assert run.read_bytes() == kept and not run.with_name("manifest.json.damaged").exists()
