"""Strategy plugins: loading a user's class (``path.py:Class`` or an entry point) and guarding every call.

A plugin is imported only when a player is made of it (docs/run.md, the plugin trust rule). The engine
sees a plugin through ``GuardedPlugin``, which turns every way a plugin can fail into one ``PluginError``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import sys
from typing import Any

from ..game.engine import HandState, Move
from ..game.rng import SplitMix64
from ..i18n import translate as _
from .errors import PluginError, StrategyError, suggestion

ENTRY_POINT_GROUP = "escoba_sim.strategies"


def plugin_output():
    """Where a plugin's prints go while it runs: stderr, so stdout (``--json``, a hand record) stays the tool's."""
    return contextlib.redirect_stdout(sys.stderr)


def entry_point(name: str):
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    return found[0] if found else None


@functools.lru_cache(maxsize=64)
def plugin_class(plugin: str):
    """Load a plugin class once per process: ``path.py:Class`` or ``entry-point:NAME``."""
    if plugin.startswith("entry-point:"):
        ep = entry_point(plugin.removeprefix("entry-point:"))
        if ep is None:
            raise StrategyError(_("no `{group}` entry point named `{name}`").format(group=ENTRY_POINT_GROUP, name=plugin))
        try:
            with plugin_output():
                cls = ep.load()
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            raise StrategyError(_("strategy plugin `{name}` failed to import: {error}").format(
                name=plugin, error=_describe(e))) from None
    else:
        path, _sep, cls_name = plugin.rpartition(":")
        if not os.path.isfile(path):
            raise StrategyError(_("strategy plugin `{name}` does not exist").format(name=path))
        mod_name = "escoba_plugin_" + hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        try:
            with plugin_output():
                spec.loader.exec_module(module)
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # SystemExit too: a plugin does not end the program
            raise StrategyError(_("strategy plugin `{name}` failed to import: {error}").format(
                name=path, error=_describe(e))) from None
        cls = getattr(module, cls_name, None)
        if cls is None:
            names = [n for n in vars(module) if not n.startswith("_")]
            raise StrategyError(_("`{path}` has no `{name}`").format(path=path, name=cls_name)
                                + suggestion(cls_name, names))
    if not isinstance(cls, type):
        raise StrategyError(_("plugin `{name}` must name a class, not {what}").format(
            name=plugin, what=f"{type(cls).__name__} {_short_repr(cls)}"))
    if not callable(getattr(cls, "choose_move", None)):
        raise StrategyError(_("plugin `{name}` must define choose_move(state, moves, rng)").format(name=plugin))
    if not callable(getattr(cls, "choose_blow", None)):
        # a plugin that never blows need not say so
        cls = type(cls.__name__, (cls,), {"choose_blow": lambda self, st, blows, rng: None})
    return cls


def _describe(e: BaseException) -> str:
    """An exception in one line (a plugin's message may span several)."""
    if isinstance(e, SystemExit):
        return _("it called {call}").format(call=f"sys.exit({e.code!r})")
    text = " ".join(str(e).split())
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _snapshot(st: HandState) -> tuple:
    """What a strategy may read of a hand; it must be the same after the strategy has decided."""
    return (tuple(map(tuple, st.hands)), tuple(st.table), tuple(st.stock), tuple(st.piles), tuple(st.escobas),
            tuple(st.lucky_escobas), len(st.moves), st.to_play, st.pending_blow, st.last_capturer, st.over)


class GuardedPlugin:
    """A plugin as the engine sees it: each decision is checked, and any failure is one ``PluginError``.

    The plugin gets its own copy of the move list; what it returns must be one of
    those moves, and the hand must be exactly as it was (a strategy only reads
    it). Exceptions and ``sys.exit`` inside the plugin become a PluginError that
    names the plugin, the seat, the move number and the reason; Ctrl-C passes through.
    """

    def __init__(self, label: str, player):
        self.label, self.player = label, player
        self.name = str(getattr(player, "name", label))

    @classmethod
    def create(cls, label: str, plugin_class) -> GuardedPlugin:
        try:
            with plugin_output():
                player = plugin_class()
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            raise PluginError(label, _("cannot make a player: {call} failed ({reason}); a plugin class takes no "
                                       "arguments").format(call=f"{plugin_class.__name__}()", reason=_describe(e))) \
                from None
        return cls(label, player)

    def _decide(self, method: str, st: HandState, options: list[Move], rng: SplitMix64, may_pass: bool):
        seat, number = st.to_play, len(st.moves) + 1
        before = _snapshot(st)
        try:
            with plugin_output():
                choice = getattr(self.player, method)(st, list(options), rng)
                # the move by value, read from the plugin's object (a property may run its code)
                key = _move_key(choice) if isinstance(choice, Move) else None
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            how = (_("{method} called {call}").format(method=method, call=f"sys.exit({e.code!r})")
                   if isinstance(e, SystemExit) else _("{method} raised {error}").format(method=method,
                                                                                         error=_describe(e)))
            raise PluginError(self.label, how, seat, number) from None
        if _snapshot(st) != before:
            raise PluginError(self.label, _("{method} changed the hand's state (a strategy may only read it)").format(
                method=method), seat, number)
        if choice is None and may_pass:
            return None
        # compared field by field on plain values, never through the object's own __eq__ (a Move subclass
        # whose __eq__ is always true would pass `in`); the engine gets the legal Move itself
        found = next((m for m in options if key is not None and _move_key(m) == key), None)
        if found is None:
            if type(choice) is Move:
                got = _("{move} (not one of the {n} legal moves)").format(move=choice, n=len(options))
            elif isinstance(choice, Move):
                got = (_("a {kind} (a Move subclass) that is not one of the {n} legal moves by value").format(
                    kind=type(choice).__name__, n=len(options))
                       + ("" if key is not None else _(": its fields are not plain numbers")))
            else:
                got = _("{kind} {value}, not a Move").format(kind=type(choice).__name__, value=_short_repr(choice))
            raise PluginError(self.label, _("{method} returned {value}").format(method=method, value=got), seat,
                              number)
        return found

    def choose_move(self, st: HandState, moves: list[Move], rng: SplitMix64) -> Move:
        return self._decide("choose_move", st, moves, rng, may_pass=False)

    def choose_blow(self, st: HandState, blows: list[Move], rng: SplitMix64) -> Move | None:
        return self._decide("choose_blow", st, blows, rng, may_pass=True)


def _move_key(m: Move) -> tuple | None:
    """A move's fields as plain values (int, tuple of ints, bool), or None when a field is anything else."""
    player, card, take, escoba, soplar = m.player, m.card, m.take, m.escoba, m.soplar
    if type(player) is not int or type(card) is not int or type(take) is not tuple \
            or type(escoba) is not bool or type(soplar) is not bool or not all(type(c) is int for c in take):
        return None
    return (player, card, take, escoba, soplar)


def _short_repr(x: Any) -> str:
    try:
        r = repr(x)
    except Exception:
        r = "?"
    return r if len(r) <= 40 else r[:37] + "..."
