"""series.resume: any output folder finished by its kind, and a comparison or tournament rebuilt from its arguments."""

import json
import re
import shutil

import pytest
from conftest import engine_sized
from helpers import EXAMPLE_PLUGIN

from escoba_sim.game.rules import parse_rules
from escoba_sim.runs.runner import run
from escoba_sim.runs.spec import RunError, make_spec
from escoba_sim.series.compare import build_variants, compare
from escoba_sim.series.resume import ResumeError, folder_kind, open_folder, plan_series, play_series, resume_folder
from escoba_sim.series.tournament import tournament


def strip(summary):
    return {k: v for k, v in summary.items() if k not in ("performance", "argv")}


def test_folder_kind():
    assert folder_kind({"kind": "compare"}) == "compare"
    assert folder_kind({"kind": "tournament"}) == "tournament"
    assert folder_kind({"kind": "weird"}) == "run"
    assert folder_kind({}) == "run"


def test_resume_a_run_folder_equals_an_uninterrupted_run(tmp_path):
    spec = make_spec("greedy", ["random"], None, 400, hands=True, seed=3, chunk_size=50)
    run(spec, tmp_path / "r", only_chunks=[0, 2])
    folder = open_folder(tmp_path / "r")
    assert folder.kind == "run" and folder.series is None and folder.spec == spec
    assert strip(folder.finish()) == strip(run(spec).summary)


def test_resume_a_comparison_and_a_tournament(tmp_path):
    variants = build_variants([], ["ties=shared,none"])
    n = engine_sized(300, 60)
    want = compare(variants, "greedy", "maxoros", n, tmp_path / "c", seed=4)
    shutil.rmtree(tmp_path / "c" / "runs" / "01")
    assert open_folder(tmp_path / "c").series.runs == 2
    labels = []
    assert resume_folder(tmp_path / "c", on_run=lambda k, label: labels.append((k, label))) == want
    assert labels == [(0, "ludoteka"), (1, "ties=none")]

    want = tournament(["greedy", "maxoros", "random"], n, tmp_path / "t", seed=4)
    shutil.rmtree(tmp_path / "t" / "runs" / "02")
    labels = []
    assert resume_folder(tmp_path / "t", on_run=lambda k, label: labels.append(label)) == want
    assert labels == ["greedy vs maxoros", "greedy vs random", "maxoros vs random"]


def test_a_series_from_its_arguments_equals_the_library_call(tmp_path):
    got = play_series(plan_series("tournament", {"strategies": ["greedy", "maxoros"], "n": 300, "seed": 5,
                                                "rules": parse_rules("ludoteka")}, tmp_path / "a"))
    assert strip(got) == strip(tournament(["greedy", "maxoros"], 300, tmp_path / "b", seed=5))


def test_a_series_plugin_is_refused_unless_trusted(tmp_path):
    compare(build_variants([], ["ties=shared,none"]), f"{EXAMPLE_PLUGIN}:LowCard", "greedy", 40, tmp_path / "c", seed=1)
    with pytest.raises(ResumeError, match="code named by the folder, not by you; read it, then continue with: "
                                          "escoba-sim resume --trust-plugins"):
        open_folder(tmp_path / "c")
    assert open_folder(tmp_path / "c", trust_plugins=True).kind == "compare"


def test_a_manifest_that_does_not_describe_a_series(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"kind": "compare", "strategies": ["greedy", "maxoros"]}))
    with pytest.raises(ResumeError, match=r"the manifest does not describe a compare \('rulesets'\)"):
        open_folder(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"kind": "compare", "strategies": 5}))
    with pytest.raises(ResumeError, match="the manifest's strategies are not valid"):
        open_folder(tmp_path)
    with pytest.raises(RunError, match="no run here"):
        open_folder(tmp_path / "nowhere")
    with pytest.raises(ResumeError, match="not a comparison or tournament"):
        plan_series("run", {}, tmp_path)


def test_default_folder_names_are_short_and_never_reuse_a_folder(tmp_path):
    from datetime import datetime

    from escoba_sim.series.resume import default_folder

    when = datetime(2026, 12, 1, 23, 15, 42)
    assert default_folder("compare", 17, tmp_path, when) == "compare-17"  # a chosen seed finds its folder again
    assert default_folder("tournament", None, tmp_path, when) == "tournament-2026-12-01-2315"
    (tmp_path / "tournament-2026-12-01-2315").mkdir()
    (tmp_path / "tournament-2026-12-01-2315-2").write_text("")  # a file or a link takes the name too
    assert default_folder("tournament", None, tmp_path, when) == "tournament-2026-12-01-2315-3"


def test_a_tournament_without_seed_writes_a_readable_folder_that_keeps_the_seed(cli, tmp_path, monkeypatch):
    # issue 26: each run without --seed left a new tournament-<19 digits>/ behind
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        assert cli("tournament", "greedy", "random", "-n", 8, "--quiet").exit_code == 0
    folders = sorted(p.name for p in tmp_path.iterdir())
    assert len(folders) == 2 and len(set(folders)) == 2
    for name in folders:
        assert re.fullmatch(r"tournament-\d{4}-\d\d-\d\d-\d{4}(-2)?", name), name
        seed = json.loads((tmp_path / name / "manifest.json").read_text())["seed"]
        assert isinstance(seed, int) and str(seed) not in name
