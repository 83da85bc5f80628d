"""Shared test setup: in CI the compiled core must be the active engine; hypothesis runs the
same examples every time (HYPOTHESIS_PROFILE=explore draws new ones); the ``core`` mark and test sizes by
engine; CLI helpers."""

import os
import signal
import subprocess
import time

import pytest
from hypothesis import settings

# The suite reads English whatever the machine's locale: the command line takes its language from the
# environment when escoba_sim.cli is imported (docs/translating.md); a test asks for Spanish explicitly.
os.environ["ESCOBA_SIM_LANG"] = "en"
# pytest imports readline, which exports the terminal's size (COLUMNS=80 without one) to the process's environment
# behind os.environ's back, so every child a test starts would see a width it was not given and wrap its errors
# (escoba_sim/cli/errors.py wraps them at a terminal or to COLUMNS); a test that wants a width sets COLUMNS itself
for _size in ("COLUMNS", "LINES"):
    if _size not in os.environ:
        os.unsetenv(_size)

settings.register_profile("repeatable", derandomize=True)  # CI and every local run test the same cases
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


def engine_sized(compiled: int, reference: int) -> int:
    """How many hands or games a test plays: ``compiled`` on the compiled core, ``reference`` when the
    reference engine plays (ESCOBA_SIM_PURE_PYTHON=1 or no core: about 1,000 times slower), so the
    suite passes in both modes within the timeout. native.ENGINE says which engine is in use."""
    from escoba_sim.native import ENGINE

    return compiled if ENGINE == "cython" else reference


def assert_reference_replays_core(rules, spec: str, seed: int, hands: int, players=None) -> None:
    """``spec`` in the even seats, greedy in the others: the reference engine, asking the compiled
    decisions step by step (and checking each is legal), plays the very hands the core's loop plays.
    ``players``: reference players that play ``spec`` in every seat instead (e.g. judges that also
    check each decision); the core then plays ``spec`` in every seat."""
    from escoba_sim import batch
    from escoba_sim.batch import make_player
    from escoba_sim.game import columns
    from escoba_sim.game.engine import play_hand

    if players is None:
        specs = [spec if s % 2 == 0 else "greedy" for s in range(rules.players)]
        players = [make_player(s) for s in specs]
    else:
        specs = [spec] * rules.players
    got = batch.play_hands(rules, specs, seed, 0, hands).hands
    for i in range(hands):
        st = play_hand(rules, players, seed, i, 0, dealer=i % rules.players)
        for k in columns.SIDE_COLUMNS:
            assert list(got[k][i]) == getattr(st.result, k), (rules.canonical(), spec, i, k)


def pytest_configure(config):
    config.addinivalue_line("markers", "core(what): needs the compiled core (ismcts, oracle, tune, the hint "
                            "evaluator, the vectorised environment, statistics of strategy behaviour); "
                            "skipped when the reference engine plays (ESCOBA_SIM_PURE_PYTHON=1)")


def pytest_collection_modifyitems(config, items):
    """``@pytest.mark.core("what")`` (on a test, a class or a module's ``pytestmark``) skips the test when
    the reference engine plays; on the compiled core it changes nothing."""
    try:  # not at the top: the engine loads after pytest_sessionstart (CI's ESCOBA_SIM_REQUIRE_CORE)
        from escoba_sim.native import ENGINE
    except ImportError:  # a core required but missing (CI): the collection errors already say so
        return
    if ENGINE == "cython":
        return
    from helpers import core_only_reason

    for item in items:
        mark = item.get_closest_marker("core")
        if mark is not None:
            what = mark.args[0] if mark.args else "the compiled core"
            item.add_marker(pytest.mark.skip(reason=core_only_reason(what)))


def pytest_sessionstart(session):
    if os.environ.get("CI") == "true" and os.environ.get("ESCOBA_SIM_PURE_PYTHON") != "1":
        os.environ.setdefault("ESCOBA_SIM_REQUIRE_CORE", "1")


@pytest.fixture
def cli():
    """Invoke the CLI in-process; exceptions propagate so bugs are not hidden as exit codes. English unless
    ``lang="es"``: then what the command says as it runs is Spanish (Click's messages too), though help texts,
    translated once as the commands are declared, stay English in-process (a subprocess under LANG=es_ES.UTF-8
    shows them in Spanish: tests/cli/test_spanish.py)."""
    from click.testing import CliRunner

    from escoba_sim import i18n
    from escoba_sim.cli import main

    runner = CliRunner()

    def invoke(*args, input=None, lang="en"):
        i18n.install_for_cli(lang)
        try:
            return runner.invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)
        finally:
            i18n.install_for_cli("en")

    return invoke


@pytest.fixture
def interrupt():
    """Start a CLI command in a subprocess and send it a signal once ``ready()`` holds
    (or after ``wait`` seconds); returns (returncode, stdout, stderr)."""

    def run(args, ready, *, sig=signal.SIGINT, env=None, wait=60, group=False):
        """``group``: the command leads a process group of its own and the signal goes to the whole group
        (its workers too), as `timeout` or a cancelled CI job sends it."""
        p = subprocess.Popen([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, start_new_session=group)
        try:
            deadline = time.time() + wait
            while time.time() < deadline and not ready():
                time.sleep(0.02)
            if group:
                os.killpg(p.pid, sig)
            else:
                p.send_signal(sig)
            out, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        return p.returncode, out, err

    return run
