"""README.md's example outputs are what the commands print today: the `-n 2e4 --seed 3` paragraph (the deal
as the unit) and the tournament's live standings had gone stale (issue 38). Both commands, at the README's
sizes, take a few seconds."""

import json
import os
import re
import subprocess
import sys

import pytest
from helpers import REPO

README = (REPO / "README.md").read_text()


def _escoba(*args, cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "ESCOBA_SIM_LANG": "en"}
    return subprocess.run([sys.executable, "-m", "escoba_sim.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120, check=True)


def test_the_readme_paragraph_on_the_deal_as_unit_gives_what_the_run_prints(tmp_path):
    said = re.search(r"`escoba-sim run -s\s+greedy --vs maxoros -n 2e4 --seed 3` scores greedy (\S+) \[(\S+), (\S+)\]"
                     r"\s+over ([\d,]+) deals \(([\d,]+) lost twice, ([\d,]+) split, ([\d,]+) won twice\): se\s+(\S+),",
                     README)
    assert said, "the README's paragraph on the deal as the unit"
    elo = json.loads(_escoba("run", "-s", "greedy", "--vs", "maxoros", "-n", "2e4", "--seed", "3", "--json",
                             cwd=tmp_path).stdout)["elo"]
    lost, _, split, _, won = elo["score_histogram"]
    lo, hi = elo["score_ci95"]
    assert said.groups() == (f"{elo['score']:.4f}", f"{lo:.4f}", f"{hi:.4f}", f"{elo['clusters']:,}", f"{lost:,}",
                             f"{split:,}", f"{won:,}", f"{elo['se']:.5f}")


# its live standings come one about every tenth of the chunks, and the reference engine's runs are cut in smaller
# chunks (sized for its speed), so its lines fall at other counts: the README shows the compiled core's
@pytest.mark.core("the README's standings, printed at the compiled core's chunks")
def test_the_readme_tournament_standings_are_what_the_tournament_prints(tmp_path):
    block = README.split("`escoba-sim tournament greedy maxoros random -n 2000 --seed 5 -j 1 2>&1 >/dev/null | cat`:",
                         1)[1].split("```")[1]
    shown = [line for line in block.strip().splitlines() if line != "..."]
    printed = _escoba("tournament", "greedy", "maxoros", "random", "-n", "2000", "--seed", "5", "-j", "1",
                      cwd=tmp_path).stderr.splitlines()
    assert shown[0] == printed[0]  # the first line as the README shows it
    assert [line for line in shown if line not in printed] == []
