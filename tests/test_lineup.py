"""The line-up's one home (escoba_sim/lineup.py): a run's sides, trace's seats and a person's table are fitted
and checked there, with messages naming library parameters; the command line names its flags."""

import pytest

from escoba_sim.game.rules import parse_rules, read_rules
from escoba_sim.lineup import LineupError, check_one_per_seat, fit_sides
from escoba_sim.runs.spec import RunError, make_spec


def test_the_player_count_follows_the_entrants_unless_the_text_sets_it():
    assert fit_sides(read_rules("ludoteka"), ["greedy", "random", "maxoros"]).players == 3
    with pytest.raises(LineupError) as e:  # the text set 2 players: three entrants do not fit
        fit_sides(read_rules("ludoteka(players=2)"), ["greedy", "random", "maxoros"])
    assert e.value.parameter == "vs"
    assert str(e.value) == "the rules are for 2 players but 3 strategies were given (strategy plus 2 vs)"
    # a ruleset given parsed sets no field: only a count other than 2 is fixed
    assert fit_sides(read_rules(parse_rules("ludoteka(players=2)")), ["a", "b", "c"]).players == 3
    with pytest.raises(LineupError):
        fit_sides(read_rules(parse_rules("ludoteka(players=3)")), ["a", "b"])


def test_teams_take_two_sides_on_four_or_six_seats():
    rules = fit_sides(read_rules("ludoteka(players=4)"), ["greedy", "random"], teams=True)
    assert (rules.players, rules.teams) == (4, True)
    with pytest.raises(LineupError) as e:
        fit_sides(read_rules("ludoteka"), ["greedy", "random"], teams=True)
    assert e.value.parameter == "teams"
    assert "teams needs 4 or 6 players" in str(e.value) and "rules 'ludoteka(players=4,teams=yes)'" in str(e.value)
    with pytest.raises(LineupError, match="exactly two strategies"):
        fit_sides(read_rules("ludoteka(players=4)"), ["greedy", "random", "maxoros"], teams=True)


def test_make_spec_fits_its_table_there_and_reads_the_text_as_written():
    assert make_spec("greedy", ["random", "maxoros"], "ludoteka", 10, seed=1).rules.players == 3
    with pytest.raises(RunError) as e:  # the same refusal, as the run's error, its parameter kept
        make_spec("greedy", ["random", "maxoros"], "ludoteka(players=2)", 10, seed=1)
    assert e.value.parameter == "vs" and "strategy plus 2 vs" in str(e.value)
    assert make_spec("greedy", ["random", "maxoros"], read_rules("ludoteka(players=2)"), 10, seed=1,
                     players_fixed=False).rules.players == 3


def test_trace_seats_one_strategy_per_seat():
    check_one_per_seat(parse_rules("ludoteka(players=3)"), ["greedy", "random", "maxoros"])
    with pytest.raises(LineupError, match="got 2 strategies"):  # too few, as too many
        check_one_per_seat(parse_rules("ludoteka(players=3)"), ["greedy", "random"])
    with pytest.raises(LineupError) as e:
        check_one_per_seat(parse_rules("ludoteka"), ["greedy", "random", "maxoros"])
    assert str(e.value) == ("ludoteka is played by 2 players: give strategy and 1 vs (got 3 strategies); change the "
                            "player count with rules, e.g. 'ludoteka(players=3)'")


def test_the_command_line_names_its_flags(cli):
    result = cli("trace", "-s", "greedy", "--vs", "random", "--vs", "random", "--seed", "1")
    assert result.exit_code == 2  # usage errors (README, "Exit codes")
    assert result.output.strip().endswith(
        "ludoteka is played by 2 players: give --strategy and 1 --vs (got 3 strategies); change the player count "
        "with --rules, e.g. 'ludoteka(players=3)'")
    result = cli("run", "-s", "greedy", "--vs", "random", "--vs", "maxoros", "-r", "ludoteka(players=2)", "-n", "10")
    assert result.exit_code == 2
    assert "the rules are for 2 players but 3 strategies were given (--strategy plus 2 --vs)" in result.output
