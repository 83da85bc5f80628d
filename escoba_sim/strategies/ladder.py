"""The ladder of levels: what each rung plays (a base strategy and a share of random choices in 1000).

The one home of the rungs; the strategy language (``registry``: ``level:n=N``) and the strategies
(``reference.LevelStrategy``, the core's ``esc_level_move``) read them here, and ``levels`` gives them their
measured ratings. It imports nothing of the package, so the registry and the ratings can both build on it.
"""

from __future__ import annotations

from dataclasses import dataclass

LEVEL = "level"


@dataclass(frozen=True)
class Level:
    """One rung: its number, its base strategy (a canonical spec) and its share of random choices in 1000."""

    n: int
    base: str
    random_share: int

    @property
    def spec(self) -> str:
        return f"{LEVEL}:n={self.n}"


# Weakest first, chosen from a pilot tournament (ludoteka, 400 games per pair: greedy +480 over random,
# heuristic +633, ismcts:iters=20 +707, ismcts:iters=100 +729, ismcts +770): the random shares fill the gap
# between random and greedy; iters=100 was too close to its neighbours to be a rung. The strongest, the
# default ismcts, costs about 14 ms a hand and stays within the page's bounds.
LEVELS: tuple[Level, ...] = (
    Level(1, "greedy", 650),
    Level(2, "greedy", 350),
    Level(3, "greedy", 0),
    Level(4, "heuristic", 0),
    Level(5, "ismcts:iters=20", 0),
    Level(6, "ismcts", 0),
)
