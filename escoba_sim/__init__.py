"""escoba-sim: a simulator and strategy-analysis tool for Escoba del 15.

The packages, from the bottom layer up (docs/architecture.md): ``game`` (cards, rules, the reference
engine, result columns), ``strategies``, ``native`` (the compiled core), ``batch`` (engine dispatch),
``hands`` and ``env``, ``runs``, ``series``, ``tune`` and ``bench``, ``output``, ``cli``.

The names in ``__all__`` are the library's public API; each is imported on first use, so
``import escoba_sim`` stays cheap (the command line imports it before anything else).
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings

__version__ = "0.1.0"

# public name -> the module that defines it
_PUBLIC = {
    "Ruleset": "game.rules", "parse_rules": "game.rules", "PRESETS": "game.rules", "RulesError": "game.rules",
    "parse_cards": "game.cards", "card_str": "game.cards",
    "HandState": "game.engine", "Move": "game.engine", "play_hand": "game.engine", "play_game": "game.engine",
    "Batch": "game.columns",
    "parse_strategy": "strategies", "StrategySpec": "strategies", "StrategyError": "strategies",
    "play_hands": "batch", "play_games": "batch", "make_player": "batch",
    "analyze_record": "hands.review", "replay_record": "hands.record",
    "run": "runs.runner", "resume": "runs.runner", "make_spec": "runs.spec", "RunSpec": "runs.spec",
    "build_variants": "series.compare", "resume_folder": "series.resume",
    "write_report": "output.report",
}
__all__ = ["__version__", *_PUBLIC]

# Module paths of earlier versions: each is the very module at its new home (the same object, so
# monkeypatching and isinstance checks see one module), imported with a DeprecationWarning naming that home
# so that code written against an old path learns the new one.
MOVED = {
    "cards": "game.cards", "rng": "game.rng", "rules": "game.rules", "engine": "game.engine",
    "record": "hands.record", "evaluate": "hands.evaluate", "openspiel": "env.openspiel",
    "stats": "runs.stats", "compare": "series.compare", "tournament": "series.tournament",
    "report": "output.report",
}


def __getattr__(name: str):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _MovedModule(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``escoba_sim.<old>`` for a module in MOVED and hands back the module at its new home, warning
    (DeprecationWarning) the first time the old path is imported."""

    def find_spec(self, fullname, path=None, target=None):
        prefix, _, old = fullname.partition(".")
        if prefix != __name__ or old not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        new = f"{__name__}.{MOVED[spec.name.partition('.')[2]]}"
        # stacklevel 2 is the importing line: the warnings module skips the import system's own frames
        warnings.warn(f"{spec.name} has moved: import {new} instead", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module):
        # the import system gave the module the alias' spec: give it its own back
        module.__spec__ = module.__spec__.loader_state


if not any(isinstance(f, _MovedModule) for f in sys.meta_path):
    sys.meta_path.append(_MovedModule())
