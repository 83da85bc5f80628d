"""Build the optional compiled core; without a compiler the package stays pure Python.

ESCOBA_SIM_PURE_PYTHON=1 skips the extension entirely.
"""

import os

from setuptools import Extension, setup

ext_modules = []
if os.environ.get("ESCOBA_SIM_PURE_PYTHON") != "1" and os.path.exists("escoba_sim/_core.pyx"):
    try:
        from Cython.Build import cythonize
    except ImportError:
        cythonize = None
    if cythonize is not None:
        ext_modules = cythonize(
            # depends: a changed C header rebuilds the extension, and the headers ship in the sdist
            [Extension("escoba_sim._core", ["escoba_sim/_core.pyx"], include_dirs=["csrc"],
                       depends=["csrc/escoba_rng.h", "csrc/escoba_tables.h", "csrc/escoba_hand.h",
                                "csrc/escoba_strategies.h", "csrc/escoba_ismcts.h", "csrc/escoba_core.h",
                                "csrc/escoba_evaluate.h"],
                       # no fused multiply-add: heuristic scores must round exactly as in Python
                       extra_compile_args=["-O3", "-ffp-contract=off"])],
            compiler_directives={"language_level": 3, "boundscheck": False, "wraparound": False,
                                 "cdivision": True, "initializedcheck": False},
        )
        # cythonize() drops Extension(optional=True): set it again so a failed compile falls back
        for ext in ext_modules:
            ext.optional = True

setup(ext_modules=ext_modules)
