"""Live standings (output.console.LiveStandings): lines when piped, under the bar on a terminal, the last
equal to the final summary, nothing extra with --quiet or --json."""

import json
import os
import re
import sys

import pytest
from click.testing import CliRunner
from conftest import engine_sized

from escoba_sim.cli import main
from escoba_sim.output.console import LiveStandings, standings_line
from escoba_sim.runs.runner import run
from escoba_sim.runs.spec import make_spec

ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")
N, CHUNK = engine_sized(4000, 400), engine_sized(250, 25)  # 8 chunks
RUN = ["run", "-s", "greedy", "--vs", "maxoros", "-n", str(N), "--seed", "3", "--chunk", str(CHUNK), "-j", "1"]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def standings(stderr: str) -> list[str]:
    return [x for x in stderr.splitlines() if re.search(r"W/D/L [\d,]+/", x)]


def test_piped_run_prints_standings_every_few_chunks_and_the_last_is_the_final_summary():
    r = invoke(*RUN)
    final = json.loads(invoke(*RUN, "--json").stdout)
    lines = standings(r.stderr)
    assert r.exit_code == 0
    # 8 chunks of CHUNK deals (2 games each), a line every ceil(8 / 10) = 1 merged chunk
    assert len(lines) == final["chunks"]["planned"] == 8
    assert [int(re.search(r"([\d,]+) games", x).group(1).replace(",", "")) for x in lines] == \
        [2 * CHUNK * k for k in range(1, 9)]
    assert lines[-1] == standings_line(final)
    el = final["elo"]
    assert f"score {el['score']:.4f} [{el['score_ci95'][0]:.4f}, {el['score_ci95'][1]:.4f}]" in lines[-1]
    assert f"{el['score']:.4f} [{el['score_ci95'][0]:.4f}, {el['score_ci95'][1]:.4f}]" in r.stdout  # the table's


@pytest.mark.parametrize("flag", ["--quiet", "--json"])
def test_quiet_and_json_print_no_standings(flag):
    r = invoke(*RUN, flag)
    assert r.exit_code == 0 and standings(r.stderr) == [] and standings(r.stdout) == []


def test_standings_with_an_sprt_show_its_llr():
    r = invoke(*RUN, "--sprt", "elo0=-40,elo1=0")
    final = json.loads(invoke(*RUN, "--sprt", "elo0=-40,elo1=0", "--json").stdout)
    last = standings(r.stderr)[-1]
    sp = final["sprt"]
    assert last == standings_line(final)
    assert f"LLR {sp['llr']:.2f} ({sp['lower']:.2f}, {sp['upper']:.2f})" in last


def test_every_n_chunks_and_a_last_line():
    spec = make_spec("greedy", ["maxoros"], None, 2000, hands=True, seed=1, chunk_size=100)  # 10 chunks
    got: list[str] = []
    result = run(spec, on_chunk=LiveStandings(every=3, write=got.append))
    assert [int(re.search(r"\(([\d,]+) deals\)", x).group(1).replace(",", "")) for x in got] == [300, 600, 900, 1000]
    assert got[-1] == standings_line(result.summary)


def test_tournament_piped_shows_each_pairs_standings(tmp_path):
    n = engine_sized(1000, 100)  # n / 2 deals a pair in 4 chunks
    r = invoke("tournament", "greedy", "maxoros", "random", "-n", n, "--seed", "2", "--out", tmp_path / "t",
               "-j", "1", "--chunk", engine_sized(125, 13))
    lines = standings(r.stderr)
    assert r.exit_code == 0
    for pair in ("greedy vs maxoros", "greedy vs random", "maxoros vs random"):
        mine = [x for x in lines if x.startswith(pair + " ")]
        assert len(mine) == 4 and f"{n:,} games" in mine[-1]


def test_terminal_run_shows_standings_under_the_bar():
    pexpect = pytest.importorskip("pexpect")
    cmd = [sys.executable, "-c", "from escoba_sim.cli import main; main()", *RUN[:5], "-n", engine_sized("2e4", "400"),
           "--seed", "3", "--chunk", engine_sized("500", "10"), "-j", "1", "--sprt", "elo0=-40,elo1=0"]
    child = pexpect.spawn(cmd[0], cmd[1:], env=dict(os.environ, TERM="xterm", COLUMNS="80"), encoding="utf-8",
                          timeout=120, dimensions=(40, 80))
    child.expect(pexpect.EOF)
    child.close()
    seen = ANSI.sub("", child.before)
    assert child.exitstatus == 0
    assert "greedy vs maxoros" in seen and "W/D/L" in seen
    assert re.search(r"score 0\.\d{4} \[0\.\d{4}, 0\.\d{4}\]  Elo [+-]\d+\.\d \[[+-]\d+\.\d, [+-]\d+\.\d\]"
                     r"  LLR -?\d+\.\d\d \(-2\.94, 2\.94\)", seen)


def test_three_sides_show_each_ones_share_of_games_won():
    args = ["run", "-s", "greedy", "--vs", "maxoros", "--vs", "random", "-n", engine_sized(600, 120), "--seed", "2",
            "-j", "1"]
    r = invoke(*args)
    final = json.loads(invoke(*args, "--json").stdout)
    lines = [x for x in r.stderr.splitlines() if x.startswith("greedy vs maxoros vs random ")]
    assert r.exit_code == 0 and lines and lines[-1] == standings_line(final)
    for e in final["entrants"]:
        assert f"{e['label']} won {100 * e['games']['win_rate']:.1f}% [" in lines[-1]
