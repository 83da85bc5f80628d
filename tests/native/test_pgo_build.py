"""The profile-guided build (setup.py): its training workload and its choice of compiler.

A broken workload would not fail any build: setup.py falls back to the plain build with one line on
stderr, and every install would quietly lose the profile. So the workload is run here against the
compiled core, and checked to reach every built-in strategy.
"""

from __future__ import annotations

import os
import runpy
import stat
import types
from pathlib import Path

import pytest
import setuptools
from helpers import REPO

from escoba_sim import _pgo_training
from escoba_sim.native import core as _core
from escoba_sim.strategies import BUILTINS, parse_strategy

ROOT = REPO


def _specs() -> list[str]:
    return [s for _, pairing, _ in _pgo_training.MAIN + _pgo_training.SEARCH for s in pairing] + _pgo_training.CHEAP


def test_workload_covers_every_builtin_strategy():
    names = {parse_strategy(s).name for s in _specs()}
    assert names == set(BUILTINS), f"not trained: {set(BUILTINS) - names}"


@pytest.mark.core("the profile-guided build's training")
def test_workload_runs_on_the_compiled_core():
    done = _pgo_training.train(str(Path(_core.__file__).resolve().parent.parent))
    assert done["main"] == sum(n for _, _, n in _pgo_training.MAIN)
    assert done["variants"] > 0 and done["games"] > 0 and done["search"] > 0
    assert done["evaluate"] > 0 and done["vec_steps"] > 0


@pytest.mark.core("the profile-guided build's training")
def test_workload_refuses_a_core_from_elsewhere(tmp_path):
    with pytest.raises(RuntimeError, match="not from"):
        _pgo_training.train(str(tmp_path))


@pytest.fixture
def build_ext_command(monkeypatch):
    """setup.py's build_ext command class, loaded without running setup()."""
    monkeypatch.setattr(setuptools, "setup", lambda **kw: None)
    monkeypatch.chdir(ROOT)
    cls = runpy.run_path(str(ROOT / "setup.py"), run_name="setup_under_test")["ProfileGuidedBuildExt"]
    return cls(setuptools.Distribution())


def _why_not(cmd, compiler_so, compiler_type="unix"):
    cmd.compiler = types.SimpleNamespace(compiler_type=compiler_type, compiler_so=compiler_so)
    return cmd._why_not_profile_guided()


def test_gcc_is_recognised_and_others_fall_back(build_ext_command, tmp_path, monkeypatch):
    gcc = "gcc"
    if os.system("gcc --version > /dev/null 2>&1") != 0:
        pytest.skip("no gcc on this machine")
    monkeypatch.delenv("ESCOBA_SIM_PGO", raising=False)
    assert _why_not(build_ext_command, [gcc, "-pthread", "-O3"]) is None
    # clang defines __GNUC__ too: a gcc that also says __clang__ must count as clang
    fake = tmp_path / "clang"
    fake.write_text(f'#!/bin/sh\n{gcc} "$@" && echo "#define __clang__ 1"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    assert _why_not(build_ext_command, [str(fake)]) == f"{fake} is not gcc"
    assert "cannot ask" in _why_not(build_ext_command, [str(tmp_path / "no-such-cc")])
    assert _why_not(build_ext_command, None, "msvc") == "the msvc compiler is not gcc"
    monkeypatch.setenv("ESCOBA_SIM_PGO", "0")
    assert _why_not(build_ext_command, [gcc]) == "ESCOBA_SIM_PGO=0"
