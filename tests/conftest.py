"""Shared test setup: in CI the compiled core must be the active engine."""

import os

import pytest


def pytest_sessionstart(session):
    if os.environ.get("CI") == "true" and os.environ.get("ESCOBA_SIM_PURE_PYTHON") != "1":
        os.environ.setdefault("ESCOBA_SIM_REQUIRE_CORE", "1")


@pytest.fixture
def cli():
    """Invoke the CLI in-process; exceptions propagate so bugs are not hidden as exit codes."""
    from click.testing import CliRunner

    from escoba_sim.cli import main

    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)

    return invoke
