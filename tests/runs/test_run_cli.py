"""`escoba-sim run` and `resume` through the CLI: clean JSON on stdout, one-line errors, Ctrl-C and resume."""

import json
import os
import shutil
import signal
import subprocess

import pytest
from click.testing import CliRunner

from escoba_sim.cli import main
from escoba_sim.runs.runner import run
from escoba_sim.runs.spec import make_spec


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def strip(summary):
    return {k: v for k, v in summary.items() if k != "performance"}


def test_json_on_stdout_only():
    r = invoke("run", "-s", "greedy", "--vs", "maxoros", "--hands", "-n", "20", "--seed", "3", "-j", "1", "--json",
               "--chunk", "4")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["hands"] == 20 and s["seed"] == 3 and s["status"] == "complete"
    spec = make_spec("greedy", ["maxoros"], None, 20, hands=True, seed=3, chunk_size=4)
    assert strip(s) == strip(run(spec).summary)


def test_seed_is_drawn_and_printed_on_stderr():
    r = invoke("run", "-s", "greedy", "--vs", "random", "--hands", "-n", "3", "-j", "1", "--json")
    assert r.exit_code == 0
    s = json.loads(r.stdout)
    assert f"seed {s['seed']}" in r.stderr
    assert "rounded up to 4" in r.stderr


def test_table_report_and_multiplayer():
    r = invoke("run", "-s", "greedy", "--vs", "random", "--vs", "maxoros", "--hands", "-n", "6", "--seed", "1",
               "-j", "1", "-r", "tradicional")
    assert r.exit_code == 0
    assert "greedy vs random vs maxoros" in r.stdout and "as dealer+2" in r.stdout
    assert "points/hand random - maxoros" in r.stdout


def test_teams_report():
    r = invoke("run", "-s", "greedy", "--vs", "random", "--teams", "-r", "cardgames(players=4)", "--hands",
               "-n", "4", "--seed", "1", "-j", "1", "--json")
    s = json.loads(r.stdout)
    assert s["teams"] and s["players"] == 4
    assert s["entrants"][0]["seats_in_rotation_0"] == [0, 2]


@pytest.mark.parametrize("args,message", [
    (["-n", "1.5"], "not a whole number"),
    (["-n", "lots"], "not a count"),
    (["-n", "0"], "must be positive"),
    (["--strategy", "gredy"], "did you mean greedy"),
    (["--vs", "maxoro"], "did you mean maxoros"),
    (["-r", "ludotek"], "did you mean ludoteka"),
    (["-r", "ludoteka(ties=maybe)"], "ties"),
    (["-r", "ludoteka(players=4)"], "rules are for 4 players"),
    (["-r", "nothere/rules.toml"], "cannot read rules file"),
    (["--teams"], "--teams needs 4 or 6"),
    (["--sprt", "elo0=1"], "needs both"),
    (["--sprt", "elo0=0,elo1=20", "--alpha", "0.7"], "--alpha"),
    (["--save-hands"], "--save-hands needs --out"),
    (["--pairing", "triple"], "triple"),
    (["--seed", "-1"], "seed"),
])
def test_bad_input_one_line_error(args, message):
    base = {"--strategy": "greedy", "--vs": "maxoros"}
    argv = ["run"]
    for k, v in base.items():
        if k not in args:
            argv += [k, v]
    argv += ["--hands", "-j", "1"] + args
    r = invoke(*argv)
    assert r.exit_code != 0
    assert message in r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and message in errors[0]
    assert r.stdout == ""


def test_invalid_toml(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("capture = [oops\n")
    r = invoke("run", "-s", "greedy", "--vs", "maxoros", "-r", f, "--hands", "-n", "2")
    assert r.exit_code == 2 and "not valid TOML" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_out_folder_errors_keep_the_run(tmp_path):
    out = tmp_path / "o"
    ok = invoke("run", "-s", "greedy", "--vs", "maxoros", "--hands", "-n", "4", "--seed", "1", "-j", "1",
                "--out", out, "--json")
    assert ok.exit_code == 0
    before = sorted(p.name for p in (out / "chunks").iterdir())
    same = invoke("run", "-s", "greedy", "--vs", "maxoros", "--hands", "-n", "4", "--seed", "1", "-j", "1", "--out", out)
    assert same.exit_code == 1 and f"escoba-sim resume {out}" in same.stderr
    other = invoke("run", "-s", "greedy", "--vs", "random", "--hands", "-n", "4", "--seed", "1", "-j", "1", "--out", out)
    assert other.exit_code == 1 and "different run" in other.stderr
    assert sorted(p.name for p in (out / "chunks").iterdir()) == before
    blocked = tmp_path / "file"
    blocked.write_text("")
    r = invoke("run", "-s", "greedy", "--vs", "maxoros", "--hands", "-n", "4", "--out", blocked / "x")
    assert r.exit_code == 1 and "--out" in r.stderr
    again = invoke("resume", out, "--json", "-j", "1")
    assert again.exit_code == 0 and strip(json.loads(again.stdout)) == strip(json.loads(ok.stdout))
    missing = invoke("resume", tmp_path / "none")
    assert missing.exit_code == 1 and "no run here" in missing.stderr


def test_progress_goes_to_stderr(capsys):
    from escoba_sim.output.console import ProgressBar

    spec = make_spec("greedy", ["maxoros"], None, 8, hands=True, seed=1, chunk_size=2)
    with ProgressBar(spec, enabled=True) as bar:
        run(spec, on_chunk=bar)
    cap = capsys.readouterr()
    assert cap.out == "" and "hands/s" in cap.err


@pytest.mark.skipif(shutil.which("escoba-sim") is None, reason="the console script is not installed")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_keeps_chunks_and_resume_matches(tmp_path, sig, interrupt):
    out = tmp_path / "o"
    args = ["escoba-sim", "run", "-s", "greedy", "--vs", "random", "--hands", "-n", "3000", "--seed", "7",
            "--chunk", "50", "-j", "1", "-q", "--out", str(out)]
    # the reference engine is slow enough (~1,000 hands/s) for the signal to land mid-run
    env = {**os.environ, "ESCOBA_SIM_PURE_PYTHON": "1", "ESCOBA_SIM_REQUIRE_CORE": "0"}
    code, _, err = interrupt(args, lambda: len(list((out / "chunks").glob("chunk-*.parquet"))) >= 2, sig=sig,
                             env=env)
    assert code == 128 + sig, err  # 130 for Ctrl-C, 143 for SIGTERM
    assert f"escoba-sim resume {out}" in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    saved = len(list((out / "chunks").glob("chunk-*.parquet")))
    assert 2 <= saved < 30
    r = subprocess.run(["escoba-sim", "resume", str(out), "--json", "-j", "2"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    spec = make_spec("greedy", ["random"], None, 3000, hands=True, seed=7, chunk_size=50)
    assert strip(json.loads(r.stdout)) == strip(run(spec).summary)
    assert json.loads(r.stdout)["performance"]["hands_computed"] == 3000 - saved * 100


def test_win_rate_interval_of_a_rotated_run_stays_within_0_and_1(cli):
    """3 players rotate seats (the deal model, not Wilson): random wins no game, and its interval is the one-sided
    [0, 1.96^2 / (deals + 1.96^2)] (it printed [-0.0%, <0.1%]); every entrant's interval holds its rate."""
    r = cli("run", "-s", "random", "--vs", "greedy", "--vs", "greedy", "-r", "tradicional", "-n", "60", "--seed", "1",
            "--json")
    s = json.loads(r.output)
    for e in s["entrants"]:
        g = e["games"]
        assert g["interval"] == "deal"
        assert 0.0 <= g["ci95"][0] <= g["win_rate"] <= g["ci95"][1] <= 1.0 and g["ci95"][1] > g["ci95"][0]
    rnd = s["entrants"][0]["games"]
    assert rnd["won"] == 0 and rnd["ci95"][1] == pytest.approx(1.959964 ** 2 / (s["deals"] + 1.959964 ** 2))


@pytest.mark.parametrize("strategy,vs,verdict", [
    ("greedy", "random", "above the upper bound"),  # greedy is far stronger: H1 (elo >= 20)
    ("random", "greedy", "below the lower bound"),  # and far weaker: H0 (elo <= 0)
])
def test_sprt_verdict_line_names_the_crossed_bound(strategy, vs, verdict):
    r = invoke("run", "-s", strategy, "--vs", vs, "-n", "4000", "--seed", "3", "--sprt", "elo0=0,elo1=20", "-q")
    s = json.loads(invoke("run", "-s", strategy, "--vs", vs, "-n", "4000", "--seed", "3", "--sprt",
                          "elo0=0,elo1=20", "-q", "--json").stdout)["sprt"]
    assert r.exit_code == 0 and s["decision"]
    bound = s["upper"] if verdict.startswith("above") else s["lower"]
    line = next(x for x in r.stdout.splitlines() if "SPRT elo0=0 elo1=20" in x)
    assert f"LLR {s['llr']:.3f} {verdict} {bound:.3f}: H{1 if bound > 0 else 0} accepted" in line
    assert " in [" not in line


@pytest.mark.skipif(shutil.which("escoba-sim") is None, reason="the console script is not installed")
@pytest.mark.parametrize("command", [
    ["run", "-s", "greedy", "--vs", "random", "--hands", "-n", "3000", "--chunk", "50"],
    ["skill", "--ladder", "random,greedy,maxoros", "-n", "3000"],  # a series: one pool for all its runs
])
def test_a_stop_sent_to_the_whole_process_group_is_a_stop_not_a_dead_worker(tmp_path, interrupt, command):
    """`timeout` and a cancelled CI job signal the process group, workers included: the dead workers were
    reported as a failed chunk ("a worker process died") instead of an interrupted run."""
    out = tmp_path / "o"
    args = ["escoba-sim", *command, "--seed", "7", "-j", "2", "--out", str(out)]
    env = {**os.environ, "ESCOBA_SIM_PURE_PYTHON": "1", "ESCOBA_SIM_REQUIRE_CORE": "0"}
    code, _, err = interrupt(args, lambda: any(out.rglob("chunk-*.parquet")), sig=signal.SIGTERM, env=env,
                             group=True)
    assert code == 128 + signal.SIGTERM, err
    assert "worker process died" not in err and f"escoba-sim resume {out}" in err
