"""A pair of strategies as one two-sided game under any ruleset a tournament or skill ladder plays: the runs a
pair plays, and how a 3-player pair's runs become the two-sided per-deal vectors the series tables read.

Two players, or two teams of 2 or 3: the pair (A, B) is one run, A against B. Three players without teams:
the pair plays, on the same deals, the lineups (A, B, B) and (B, A, A), each with all its seat rotations (as
``escoba-sim run -s A --vs B --vs B`` does), ``ceil(n / 2)`` games each, so ``-n`` still counts the pair's
games. Both lineups' per-deal vectors of a deal are summed into one ``DealLayout(2)`` vector (``two_sided``):
side 0 is every seat A holds, side 1 every seat B holds. So A's game score against B (games won by an A
seat over games played, both lineups) is the mean of A's own score in (A, B, B) and 1 minus B's own score in
(B, A, A), as ``run`` reports each entrant (a game has one winner, the strictly highest total: no draws):
with A = B it is exactly 1/2 in expectation whatever the seats' structure, and on every deal when the
strategy is deterministic (both lineups are then the same games). Points, escobas and hands add up the
same way. The positions keep the dealer (last to play) and the mano (first to play); the middle seat's
hands are in no position column, so a seat advantage read from them is mano minus dealer (docs/skill.md).
"""

from __future__ import annotations

import numpy as np

from ..game.columns import SIDE_COLUMNS
from ..game.rules import Ruleset
from ..runs.aggregates import DealLayout, add_padded
from ..runs.spec import RunSpec, make_spec

THREE_PLAYER_SIDES = ((0, 1, 1), (1, 0, 0))  # a 3-player pair's lineups: each entrant's side (0: A, 1: B)
# what a 3-player series' summary.json says its two-sided numbers are (English, as every summary field)
THREE_PLAYER_PAIRS = {
    "lineups": "each pair (A, B) plays the lineups (A, B, B) and (B, A, A) on the same deals, each with all its "
               "seat rotations and ceil(n / 2) games; runs/NN in the manifest's pairs order, each with its lineup",
    "score": "A's score against B: games won by an A seat over games played, both lineups together: the mean of "
             "A's own win share in (A, B, B) and 1 minus B's own win share in (B, A, A) (a game is won by the one "
             "strictly highest total: no draws); exactly 1/2 in expectation for equal strategies",
    "points_diff": "all A seats' points minus all B seats' points, per hand played by the pair (both lineups)",
    "categories": "a strategy's points per hand of one seat: its seats' points over the hands its seats played",
    "seat_advantage": "points per hand of the mano (first to play) minus the dealer's (last to play); the middle "
                      "seat is in neither",
    "games_to_win": "a match alternates the two lineups; its length is counted as for independent games at the "
                    "pair's win share over both lineups (slightly long: alternating lineups vary less)",
}


def runs_per_pair(rules: Ruleset) -> int:
    """1 for a two-sided ruleset (2 players, or teams), 2 for 3 players without teams."""
    return len(THREE_PLAYER_SIDES) if rules.players == 3 and not rules.teams else 1


def pair_specs(a: str, b: str, rules: Ruleset, n: int, **kwargs) -> list[RunSpec]:
    """The runs pair (a, b) plays: ``[a against b]``, or ``[(a, b, b), (b, a, a)]`` with ``ceil(n / 2)``
    games each under 3 players; ``kwargs`` as ``make_spec``'s (a seed for both). May raise RunError."""
    if runs_per_pair(rules) == 1:
        return [make_spec(a, [b], rules, n, players_fixed=True, **kwargs)]
    return [make_spec(x, [y, y], rules, -(-n // 2), players_fixed=True, **kwargs) for x, y in ((a, b), (b, a))]


def lineup_text(spec: RunSpec) -> str:
    """``(random, greedy, greedy)``: a 3-player run's entrants, for a person; empty for a two-sided run."""
    if spec.entrants == 2:
        return ""
    from ..strategies import parse_strategy

    return "(" + ", ".join(parse_strategy(s).short for s in spec.strategies) + ")"


def two_sided(deals: list[np.ndarray]) -> np.ndarray:
    """A pair's per-deal vectors (deals x ``DealLayout(2).size``) from its runs' (one run: unchanged).

    Three players: ``deals`` are (A, B, B)'s and (B, A, A)'s vectors of the same deals (rows in deal order);
    each entrant's games won, points by category and hands as dealer and as mano go to its strategy's side,
    hands and games add up. Every column is a sum of the lineups' integer columns, so the deal model's sums
    and cross products of the result are exact.
    """
    if len(deals) == 1:
        return deals[0]
    three, two = DealLayout(3), DealLayout(2)
    out = np.zeros((len(deals[0]), two.size), np.int64)
    for v, sides in zip(deals, THREE_PLAYER_SIDES):
        out[:, two.hands] += v[:, three.hands]
        out[:, two.games] += v[:, three.games]
        for e, side in enumerate(sides):
            out[:, two.won(side)] += v[:, three.won(e)]
            for k in range(len(SIDE_COLUMNS)):
                out[:, two.points(side, k)] += v[:, three.points(e, k)]
            for q in (0, 1):  # dealer and mano; the middle seat (position 2) has no two-sided column
                out[:, two.pos_hands(side, q)] += v[:, three.pos_hands(e, q)]
                out[:, two.pos_total(side, q)] += v[:, three.pos_total(e, q)]
    return out


def two_sided_totals(totals: list[dict]) -> dict:
    """A pair's merged aggregates from its runs' (one run: unchanged), as a two-sided run's: ``points`` and
    ``points_hist`` per side (the histogram counts a side's seat-hands), ``hands``, ``games``,
    ``game_hands_hist``; and ``side_hands``, the hands each side's seats played (a side's points per hand
    of one seat are ``points / side_hands``), present only for 3 players."""
    if len(totals) == 1:
        return totals[0]
    K = len(SIDE_COLUMNS)
    points = np.zeros((2, K), np.int64)
    side_hands = np.zeros(2, np.int64)
    hist = np.zeros((2, 0), np.int64)
    games_hist = np.zeros(0, np.int64)
    for t, sides in zip(totals, THREE_PLAYER_SIDES):
        for e, side in enumerate(sides):
            points[side] += t["points"][e]
            side_hands[side] += int(t["hands"][0])
            row = np.zeros((2, t["points_hist"].shape[1]), np.int64)
            row[side] = t["points_hist"][e]
            hist = add_padded(hist, row)
        games_hist = add_padded(games_hist, t["game_hands_hist"])
    return {"points": points, "side_hands": side_hands, "points_hist": hist,
            "hands": np.array([sum(int(t["hands"][0]) for t in totals)]),
            "games": np.array([sum(int(t["games"][0]) for t in totals)]), "game_hands_hist": games_hist}
