"""Every Python example in docs/ecosystem.md runs as written (OpenSpiel bot loop, PettingZoo loop,
vectorised random-policy loop) and prints what it says it prints."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys

import pytest
from helpers import REPO

DOC = REPO / "docs" / "ecosystem.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def _need(module: str):
    if os.environ.get("CI") == "true":  # CI installs the rl extra (through dev)
        return importlib.import_module(module)
    return pytest.importorskip(module)


def test_three_examples():
    assert len(BLOCKS) == 3
    assert "ISMCTSBot" in BLOCKS[0] and "agent_iter" in BLOCKS[1] and "EscobaVectorEnv" in BLOCKS[2]


@pytest.mark.parametrize("index,module,expect", [
    (0, "pyspiel", r"returns \[(-?\d+\.0), (-?\d+\.0)\] points per side \[\d+, \d+\]"),
    (1, "pettingzoo", r"player_0 reward -?\d+(\.\d+)? points per side \[\d+, \d+\]"),
    pytest.param(2, "gymnasium", r"\d+ hands, random policy vs greedy: [+-]\d+\.\d\d points per hand",
                 marks=pytest.mark.core("the vectorised environment")),
])
def test_example_runs(index, module, expect):
    _need(module)
    out = subprocess.run([sys.executable, "-c", BLOCKS[index]], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.returncode == 0, out.stderr
    assert re.search(expect, out.stdout), out.stdout


def test_readme_section_runs():
    for module in ("pyspiel", "pettingzoo", "gymnasium"):
        _need(module)
    readme = (DOC.parent.parent / "README.md").read_text()
    section = readme.split("## Use it from OpenSpiel / PettingZoo", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    code += "print(game.num_players(), env.unwrapped.rules, envs.num_envs)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "ludoteka", "4096"]
