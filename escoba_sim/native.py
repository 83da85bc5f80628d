"""Loads the compiled extensions once: the core (``_core``) and the vectorised environment's loop (``_vec``).

``ESCOBA_SIM_PURE_PYTHON=1`` leaves the core unloaded (the reference engine plays everything);
``ESCOBA_SIM_REQUIRE_CORE=1`` makes a core that does not load an error instead of a silent fallback.
``ENGINE`` names the engine in use (``cython`` or ``python``).
"""

from __future__ import annotations

import importlib
import os

PURE_ENV, REQUIRE_ENV = "ESCOBA_SIM_PURE_PYTHON", "ESCOBA_SIM_REQUIRE_CORE"


class CoreUnavailable(ImportError):
    pass


def load_compiled(module: str, what: str):
    """The compiled extension ``escoba_sim.<module>``, or None when it is not built; with
    ESCOBA_SIM_REQUIRE_CORE=1 a failed import is an error naming ``what`` it is."""
    try:
        return importlib.import_module(f"{__package__}.{module}")
    except ImportError as e:
        if os.environ.get(REQUIRE_ENV) == "1":
            raise CoreUnavailable(f"the {what} is required ({REQUIRE_ENV}=1) but did not load: {e}") from e
        return None


def _load_core():
    if os.environ.get(PURE_ENV) == "1":
        if os.environ.get(REQUIRE_ENV) == "1":
            raise CoreUnavailable(f"{PURE_ENV}=1 and {REQUIRE_ENV}=1 contradict each other")
        return None
    return load_compiled("_core", "compiled core")


# the compiled core module, or None: the reference engine plays everything
core = _load_core()
ENGINE = "cython" if core is not None else "python"
