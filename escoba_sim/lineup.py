"""The line-up: who sits at the table, from the rules as written (``game.rules.read_rules``: whether the text
set the player count), the strategies, teams and a partner. The one home of fitting them to seats and checking
them, for every command that plays:

- ``fit_sides``: a run's entrants, one per side (``runs.spec.make_spec``: run, compare, tournament, skill);
- ``check_one_per_seat``: one strategy per seat (``trace``, a hand played seat by seat);
- ``table_seats``: a person's table (``play``, the page), and ``seat_specs`` each computer seat's strategy.

The engines' own checks (``batch``, the compiled core) only guard their inputs' lengths against a caller that
bypassed these; they decide nothing.

Errors are ``LineupError`` naming the parameter at fault by its library name (``Parameter("vs")``); the
command line renders it as its flag (``--vs``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import EscobaError, Parameter
from .game.rules import GivenRules, RulesError, Ruleset, parse_rules, read_rules
from .i18n import translate as _
from .strategies import parse_strategy
from .strategies.levels import strategy_label

PERSON_SEAT = 0


class LineupError(EscobaError):
    """The table asked for cannot be set (a cheating opponent, rules and seats that do not fit); one line."""


def fit_sides(given: GivenRules, entrants: Sequence[str], *, teams: bool = False,
              players_fixed: bool | None = None) -> Ruleset:
    """The ruleset a run of ``entrants`` (one per side) plays: with ``teams`` (or rules with teams) two
    entrants on 4 or 6 seats; otherwise one seat each, the player count following the entrants unless it is
    fixed (``players_fixed``; by default when the text set it or the rules are not the 2-player default).
    Raises ``LineupError`` naming the parameter at fault."""
    r = given.rules
    if players_fixed is None:
        players_fixed = r.players != 2 or "players" in given.written
    if teams or r.teams:
        if len(entrants) != 2:
            raise LineupError(_("{teams} needs exactly two strategies (one per side), got {count}"),
                              parameter="teams", teams=Parameter("teams"), count=len(entrants))
        if r.players not in (4, 6):
            raise LineupError(_("{teams} needs 4 or 6 players: set them in the rules, e.g. {rules_parameter} "
                                "'{rules}'"), parameter="teams", teams=Parameter("teams"),
                              rules_parameter=Parameter("rules"), rules=r.replace(players=4, teams=True).canonical())
        return r.replace(teams=True)
    if r.players == len(entrants):
        return r
    if players_fixed:
        hint = " " + _("(add {teams} for two teams)") if len(entrants) == 2 and r.players in (4, 6) else ""
        raise LineupError(_("the rules are for {players} players but {count} strategies were given "
                            "({strategy} plus {opponents} {vs})") + hint, parameter="vs",
                          players=r.players, count=len(entrants), opponents=len(entrants) - 1,
                          strategy=Parameter("strategy"), vs=Parameter("vs"), teams=Parameter("teams"))
    if len(entrants) not in (2, 3, 4, 6):  # a table of one seat per entrant: as many seats as the rules allow
        raise LineupError(_("{count} strategies were given ({strategy} plus {opponents} {vs}): a table seats 2, 3, "
                            "4 or 6 players"), parameter="vs", count=len(entrants), opponents=len(entrants) - 1,
                          strategy=Parameter("strategy"), vs=Parameter("vs"))
    return parse_rules(r.replace(players=len(entrants)))  # validates the player count


def check_one_per_seat(rules: Ruleset, strategies: Sequence[str]) -> None:
    """One strategy per seat of ``rules`` (a hand played seat by seat: ``trace``), the first as ``strategy``
    and the others as ``vs``; a LineupError says how many to give, or how to change the player count."""
    if len(strategies) != rules.players:
        raise LineupError(_("{rules} is played by {players} players: give {strategy} and {others} {vs} (got {given} "
                            "strategies); change the player count with {rules_parameter}, e.g. "
                            "'ludoteka(players={given})'"), parameter="vs", rules=rules.canonical(),
                          players=rules.players, others=rules.players - 1, given=len(strategies),
                          strategy=Parameter("strategy"), vs=Parameter("vs"), rules_parameter=Parameter("rules"))


@dataclass
class Seats:
    """Who plays each seat: the person (None) or a strategy spec."""

    rules: Ruleset
    specs: list[str | None]

    def name(self, seat: int) -> str:
        if self.specs[seat] is None:
            return _("you")
        return _("seat {seat} ({strategy})").format(seat=seat, strategy=strategy_label(self.specs[seat], self.rules))

    def side_name(self, side: int) -> str:
        seats = [s for s in range(self.rules.players) if self.rules.side_of(s) == side]
        if len(seats) == 1:
            return _("you") if self.specs[seats[0]] is None else strategy_label(self.specs[seats[0]], self.rules)
        return " + ".join(_("you") if self.specs[s] is None else f"{s}:{strategy_label(self.specs[s], self.rules)}"
                          for s in seats)


def seat_specs(rules: Ruleset, vs: list[str], partner: str | None = None) -> Seats:
    """Seat 0 is the person; the others play ``vs``: one spec plays every computer seat, one per computer seat
    plays them in seat order (1, 2, ...), and with teams one per opponent plays the opponents' seats (1, 3)
    while the partner (seat 2, and 4) plays ``partner`` (default: the first ``vs``). Any other count is a
    LineupError: a strategy given is never dropped."""
    computer = list(range(1, rules.players))
    opponents = [s for s in computer if rules.side_of(s) != rules.side_of(PERSON_SEAT)]
    if not vs:
        raise LineupError(_("give the computer's strategy with {vs}"), parameter="vs", vs=Parameter("vs"))
    if len(vs) == len(computer) and len(vs) > 1 and partner is None:
        return Seats(rules, [None, *vs])
    if len(vs) != 1 and len(vs) != len(opponents):
        fits = _(" or ").join(dict.fromkeys(str(n) for n in (1, len(opponents), len(computer)) if n))
        raise LineupError(_("{rules} seats {computer} computer players ({opponents} against you): give {fits} {vs}, "
                            "not {given}"), parameter="vs", rules=rules.canonical(), computer=len(computer),
                          opponents=len(opponents), fits=fits, vs=Parameter("vs"), given=len(vs))
    specs: list[str | None] = [None]
    for seat in computer:
        if seat in opponents:
            k = opponents.index(seat)
            specs.append(vs[k] if len(vs) > 1 else vs[0])
        else:
            specs.append(partner or vs[0])
    return Seats(rules, specs)


def table_seats(rules_text: str | GivenRules | None, vs: list[str], *, teams: bool = False,
                partner: str | None = None) -> Seats:
    """The seats of a sitting: the ruleset ``rules_text`` names, fitted to the computer seats, and who plays each.

    Without ``teams`` the player count follows ``vs`` (one computer seat per spec) unless
    ``rules_text`` sets it, and then one ``vs`` plays every computer seat; with ``teams`` four
    players sit in two teams, the person and ``partner`` (default: the first ``vs``) against one or
    two ``vs``. A strategy that cheats (reads hidden cards) is refused as an opponent or partner.
    Raises ``LineupError`` with one line naming the parameter at fault.
    """
    for spec in (*vs, *([partner] if partner else [])):
        if parse_strategy(spec).cheats:
            raise LineupError(_("`{strategy}` cheats (it reads every hand, yours included, and the stock): it is a "
                                "yardstick for analysis, not an opponent"), strategy=parse_strategy(spec).short)
    try:
        given = rules_text if isinstance(rules_text, GivenRules) else read_rules(rules_text)
    except RulesError as e:
        raise LineupError("{name}: {error}", parameter="rules", name=Parameter("rules"), error=str(e)) from None
    rules = given.rules
    if teams:
        if len(vs) > 2:
            raise LineupError(_("{teams}: give one {vs} (both opponents) or two (seat 1, seat 3)"), parameter="vs",
                              teams=Parameter("teams"), vs=Parameter("vs"))
        try:
            rules = rules.replace(players=4, teams=True)
        except RulesError as e:  # the rules' deal does not fit four hands (robo(hand_size=10))
            raise LineupError(_("{name} with {teams}: {error}"), parameter="rules", name=Parameter("rules"),
                              teams=Parameter("teams"), error=str(e)) from None
    elif partner:
        raise LineupError(_("{partner} needs {teams}"), parameter="partner", partner=Parameter("partner"),
                          teams=Parameter("teams"))
    elif "players" not in given.written and rules.players != 1 + len(vs):
        try:
            rules = parse_rules(rules.replace(players=1 + len(vs)))
        except RulesError as e:
            raise LineupError("{count} {name}: {error}", parameter="vs", count=len(vs), name=Parameter("vs"),
                              error=str(e)) from None
    elif len(vs) > 1 and len(vs) != rules.players - 1:
        raise LineupError(_("{rules} is played by {players} players: give one {vs} (every computer seat) or "
                            "{others}"), parameter="vs", rules=rules.canonical(), players=rules.players,
                          vs=Parameter("vs"), others=rules.players - 1)
    return seat_specs(rules, list(vs), partner)
