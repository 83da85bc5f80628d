"""One exit-code convention, Click's (README, "Exit codes"): 2 for a usage error -- an option or argument
the command cannot take (a bad value, an unknown ruleset or strategy, a malformed card, a missing or
single value where two are needed) -- and 1 for everything else (a folder, a file, a run that failed).
Before, `run -r nope` exited 1 where `tournament -r nope` exited 2, and so did the others below."""

import pytest

from tests.helpers import one_error

RUN = ["run", "-s", "greedy", "--vs", "random", "-n", "2"]


@pytest.mark.parametrize("args,words", [
    ([*RUN, "-r", "nope"], "unknown preset"),
    (["tournament", "greedy", "random", "-n", "2", "-r", "nope"], "unknown preset"),
    (["tournament", "greedy", "-n", "2"], "two or more strategies"),
    (["moves", "--hand", "zz"], "--hand"),
    (["moves", "--hand", "1o", "--table", "zz"], "--table"),
    (["trace", "-s", "greedy", "--vs", "random", "--deck", "zz"], "--deck"),
    (["compare", "-r", "tradicional", "-n", "2"], "two or more --rules"),
    (["compare", "-r", "tradicional", "-r", "tradicional", "-n", "2"], "all the same"),
    ([*RUN, "--save-hands"], "--save-hands needs --out"),
    ([*RUN, "--teams", "-r", "ludoteka(players=3)"], "--teams"),
    (["skill", "--ladder", "random", "-n", "2"], "two or more strategies"),
    (["skill", "--ladder", "random,nope", "-n", "2"], "unknown strategy"),
    ([*RUN, "--vs", "random", "--vs", "random", "--vs", "random"], "2, 3, 4 or 6 players"),
])
def test_a_usage_error_exits_2(cli, monkeypatch, tmp_path, args, words):
    monkeypatch.chdir(tmp_path)  # a series that did start would write its folder here
    error = one_error(cli(*args), code=2)
    assert words in error, error


def test_an_error_that_is_not_a_usage_error_exits_1(cli, tmp_path):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    # a folder the command cannot use is not a usage error, though --out names it
    assert "--out" in one_error(cli(*RUN, "-o", taken), code=1)
    assert one_error(cli("resume", tmp_path / "none"), code=1)
