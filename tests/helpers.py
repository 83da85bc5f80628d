"""Helpers shared by test modules (fixtures live in conftest.py): paths and the engine-differential checks."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import strategies as st

from escoba_sim import batch, native
from escoba_sim.game import columns
from escoba_sim.game.rules import CAPTURE, DEAL, LUCKY_DEAL, SEVENS, TIES, Ruleset

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
EXAMPLE_PLUGIN = REPO / "examples" / "lowcard.py"


def chromium() -> str:
    """The system's Chromium for the browser tests (.ci/run installs it). Outside CI a missing browser skips
    the test; in CI (CI=true) it fails instead, so the check can never silently disappear."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed; .ci/run must install it before the tests")
    pytest.skip("chromium is not installed (apt-get install chromium)")


def core_only_reason(what: str) -> str:
    """The one skip reason of a test that needs the compiled core (README.md, Engines; the ``core`` mark,
    tests/conftest.py, and ``needs_core`` give it)."""
    return f"{what}: core-only, skipped on the reference engine (ESCOBA_SIM_PURE_PYTHON=1)"


def needs_core(what: str) -> None:
    """Skip the running test, with the ``core`` mark's reason, when the reference engine plays; for a test
    that finds out only as it runs (one parameter of several) that it needs the compiled core."""
    if native.ENGINE != "cython":
        pytest.skip(core_only_reason(what))


def assert_same(ref: columns.Batch, got: columns.Batch, where: str) -> None:
    """Field by field, so a failure names the column and the first differing hand."""
    for part in ("hands", "games"):
        a, b = getattr(ref, part), getattr(got, part)
        if a is None or b is None:
            assert a is None and b is None, f"{where}: {part} present in one engine only"
            continue
        assert list(a) == list(b), f"{where}: {part} keys differ: {list(a)} vs {list(b)}"
        for k in a:
            assert a[k].dtype == b[k].dtype, f"{where}: {part}.{k} dtype {a[k].dtype} vs {b[k].dtype}"
            assert a[k].shape == b[k].shape, f"{where}: {part}.{k} shape {a[k].shape} vs {b[k].shape}"
            if not np.array_equal(a[k], b[k]):
                rows = np.nonzero((a[k] != b[k]).reshape(len(a[k]), -1).any(axis=1))[0]
                i = rows[0]
                pytest.fail(f"{where}: {part}.{k} differs at row {i} (of {len(rows)} rows): "
                            f"reference {a[k][i]} vs core {b[k][i]}")
    assert ref == got


def compare_hands(rules: Ruleset, strategies, seed: int, first: int, count: int) -> None:
    needs_core("the differential check against the compiled core")
    ref = batch.py_play_hands(rules, list(strategies), seed, first, count)
    got = native.core.play_hands(rules, list(strategies), seed, first, count)
    assert_same(ref, got, f"{rules} {strategies} seed={seed} hands {first}..{first + count - 1}")


def compare_games(rules: Ruleset, strategies, seed: int, first: int, count: int) -> None:
    needs_core("the differential check against the compiled core")
    ref = batch.py_play_games(rules, list(strategies), seed, first, count)
    got = native.core.play_games(rules, list(strategies), seed, first, count)
    assert_same(ref, got, f"{rules} {strategies} seed={seed} games {first}..{first + count - 1}")


@st.composite
def rulesets(draw):
    players = draw(st.sampled_from((2, 3, 4, 6)))
    teams = draw(st.booleans()) if players in (4, 6) else False
    hand_size = draw(st.integers(1, 40 // players))
    table_size = draw(st.integers(0, 40 - players * hand_size))
    capture = draw(st.sampled_from(CAPTURE))
    soplar = draw(st.booleans()) if capture == "optional" else False
    return Ruleset(players=players, teams=teams, hand_size=hand_size, table_size=table_size,
                   lucky_deal=draw(st.sampled_from(LUCKY_DEAL)), capture=capture, soplar=soplar,
                   deal=draw(st.sampled_from(DEAL)), sevens=draw(st.sampled_from(SEVENS)),
                   ties=draw(st.sampled_from(TIES)), bonus_all_oros=draw(st.integers(0, 3)),
                   bonus_all_sevens=draw(st.integers(0, 3)), target=draw(st.integers(0, 31)))


def one_error(result, code=None) -> str:
    """The one ``Error: ...`` line a refused command printed (exit 1 or 2, or ``code``), no traceback."""
    assert result.exit_code in ((1, 2) if code is None else (code,)), (result.exit_code, result.output)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error")]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    assert len(lines) <= 3, result.stderr
    return errors[0]


def skill_metric(summary: dict, label: str, name: str) -> dict:
    """One row of a skill summary: ruleset ``label``'s ``name`` (skill_share, rating_spread, ...)."""
    return next(r for r in summary["skill"] if r["label"] == label and r["metric"] == name)


def play_games_at_table(rules, opponent: str, person: str, games: int, seed: int, out: Path, *,
                        save: bool = False) -> list[tuple[list[int], int | None]]:
    """``person`` (a strategy spec standing in for a person) plays seat 0 of ``games`` games against
    ``opponent`` through play's own Table (hands.table, the path of `play` and the page), saving every hand
    as they do with ``save``; each game's final scores by side and its winning side."""
    from escoba_sim.game.rng import SplitMix64
    from escoba_sim.hands.table import Table

    table = Table(rules, [None, opponent], seed, out)
    me, rng = batch.make_player(person), SplitMix64(seed)
    results = []
    for g in range(games):
        table.new_game()
        for hand in range(1000):
            table.deal(g, hand)
            table.advance()
            while True:
                kind, options = table.decision()
                if kind == "over":
                    break
                if kind == "blow":
                    table.blow(me.choose_blow(table.st, options[1:], rng))
                else:
                    table.play(me.choose_move(table.st, options, rng))
            if save:
                table.save()
            if table.game_over:
                break
        results.append((list(table.scores), table.winner()))
    return results
