"""The errors of the strategy layer: a spec that does not parse, a plugin that failed while playing."""

from __future__ import annotations

import difflib

from ..errors import EscobaError
from ..i18n import translate as _


class StrategyError(EscobaError):
    """A strategy spec that does not parse: unknown name or parameter, bad value, missing plugin."""


class PluginError(StrategyError):
    """A plugin that failed while playing (raised, returned a wrong move, changed the state, exited).

    ``where`` is filled in by whoever knows the deal (``batch``: game and hand).
    """

    def __init__(self, plugin: str, what: str, seat: int | None = None, move: int | None = None,
                 where: str | None = None):
        self.plugin, self.what, self.seat, self.move, self.where = plugin, what, seat, move, where
        at = ", ".join(x for x in (where, _("seat {seat}").format(seat=seat) if seat is not None else None,
                                   _("move {n}").format(n=move) if move is not None else None) if x)
        head = _("strategy plugin `{name}`").format(name=plugin)
        super().__init__(head + (f" ({at})" if at else "") + f": {what}")

    def at(self, where: str) -> PluginError:
        """The same failure, placed in a deal (e.g. ``game 12 hand 3``)."""
        return PluginError(self.plugin, self.what, self.seat, self.move, where)


def suggestion(word: str, choices) -> str:
    """`` (did you mean X?)`` for the closest of ``choices``, or nothing."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    return _(" (did you mean {word}?)").format(word=close[0]) if close else ""
