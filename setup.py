"""Build the optional compiled core; without a compiler the package stays pure Python.

ESCOBA_SIM_PURE_PYTHON=1 skips the extension entirely. With gcc the core is built profile-guided
(ProfileGuidedBuildExt below: 4-6% fewer instructions per hand, benchmarks/README.md, fourth pass;
ESCOBA_SIM_PGO=0 builds it plainly).
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

ROOT = os.path.dirname(os.path.abspath(__file__))
# no fused multiply-add: heuristic scores must round exactly as in Python
BASE_FLAGS = ["-O3", "-ffp-contract=off"]
# -fno-profile-values (both stages): an instrumented target_clones resolver would record its value
# profile in thread-local storage while the loader still resolves the module (a crash at import);
# the value profile changed no instruction count of the hand loop (callgrind, benchmarks/README.md)
GENERATE_FLAGS = ["-fprofile-generate", "-fno-profile-values"]
# -fprofile-partial-training: code the workload never ran (the non-POPCNT loop on a POPCNT build
# machine, rare rules) is compiled as without a profile instead of for size, so it cannot get slower
USE_FLAGS = ["-fprofile-use", "-fno-profile-values", "-fprofile-correction", "-fprofile-partial-training",
             "-Wno-missing-profile"]
TRAINING_MODULE = "escoba_sim._pgo_training"  # the workload: see its docstring
TRAINING_TIMEOUT = 600


class ProfileGuidedError(Exception):
    """A step of the profile-guided build failed: the plain build is made instead."""


def _note(message: str) -> None:
    print(f"escoba-sim: {message}", file=sys.stderr, flush=True)


class ProfileGuidedBuildExt(build_ext):
    """With gcc: build instrumented, run the training workload, rebuild with its profile.

    Both stages compile into one temporary directory (gcc finds each object's profile by the
    object's path, and no .gcda file reaches the source tree, build/ or a wheel). Any failure
    falls back to the plain build: a build never fails because of the profile.
    """

    def build_extensions(self):
        if not any(self._outdated(ext) for ext in self.extensions) and not self.force:
            return super().build_extensions()  # up to date: nothing to compile
        why_not = self._why_not_profile_guided()
        if why_not:
            _note(f"building the compiled core without profile guidance ({why_not})")
            return super().build_extensions()
        try:
            self._build_profile_guided()
        except ProfileGuidedError as e:
            _note(f"the profile-guided build failed ({e}); building the compiled core without it")
            self.force = True
            super().build_extensions()

    def _outdated(self, ext) -> bool:
        target = self.get_ext_fullpath(ext.name)
        if not os.path.exists(target):
            return True
        built = os.path.getmtime(target)
        return any(os.path.exists(f) and os.path.getmtime(f) > built for f in [*ext.sources, *ext.depends])

    def _why_not_profile_guided(self) -> str | None:
        if os.environ.get("ESCOBA_SIM_PGO", "1") == "0":
            return "ESCOBA_SIM_PGO=0"
        if self.compiler.compiler_type != "unix":
            return f"the {self.compiler.compiler_type} compiler is not gcc"
        cc = list(self.compiler.compiler_so)
        try:
            # gcc defines __GNUC__ and not __clang__ (clang and icc define __GNUC__ too)
            macros = subprocess.run(cc + ["-dM", "-E", "-x", "c", os.devnull], capture_output=True, text=True,
                                    timeout=60).stdout
        except (OSError, subprocess.SubprocessError) as e:
            return f"cannot ask {cc[0]} what it is: {e}"
        if "__GNUC__" not in macros or "__clang__" in macros or "__INTEL_COMPILER" in macros:
            return f"{cc[0]} is not gcc"
        return None

    def _build_profile_guided(self) -> None:
        saved = self.build_lib, self.build_temp, self.force
        work = tempfile.mkdtemp(prefix="escoba-sim-pgo-")
        try:
            self.build_temp, self.force = os.path.join(work, "temp"), True
            self.build_lib = os.path.join(work, "lib")
            self._compile_all(GENERATE_FLAGS, ["-fprofile-generate"])
            self._train(self.build_lib)
            profiles = [f for _, _, files in os.walk(self.build_temp) for f in files if f.endswith(".gcda")]
            if len(profiles) < len(self.extensions):
                raise ProfileGuidedError(f"the training left {len(profiles)} profiles for {len(self.extensions)} modules")
            self.build_lib = saved[0]
            self._compile_all(USE_FLAGS, [])
            _note(f"compiled core built profile-guided ({len(profiles)} profiles)")
        finally:
            self.build_lib, self.build_temp, self.force = saved
            shutil.rmtree(work, ignore_errors=True)

    def _compile_all(self, compile_flags: list[str], link_flags: list[str]) -> None:
        for ext in self.extensions:
            saved = ext.extra_compile_args, ext.extra_link_args
            ext.extra_compile_args = [*saved[0], *compile_flags]
            ext.extra_link_args = [*saved[1], *link_flags]
            try:
                self.build_extension(ext)
            except (CCompilerError, BaseError, OSError) as e:
                raise ProfileGuidedError(f"{ext.name} with {' '.join(compile_flags)}: {e}") from e
            finally:
                ext.extra_compile_args, ext.extra_link_args = saved

    def _train(self, lib: str) -> None:
        # the instrumented modules next to a copy of the package's Python code
        shutil.copytree(os.path.join(ROOT, "escoba_sim"), os.path.join(lib, "escoba_sim"), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "*.html", "__pycache__"))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [lib, os.environ.get("PYTHONPATH")])),
                   PYTHONDONTWRITEBYTECODE="1")
        env.pop("ESCOBA_SIM_PURE_PYTHON", None)
        try:
            run = subprocess.run([sys.executable, "-m", TRAINING_MODULE, lib], cwd=lib, env=env, capture_output=True,
                                 text=True, timeout=TRAINING_TIMEOUT)
        except (OSError, subprocess.SubprocessError) as e:
            raise ProfileGuidedError(f"the training run: {e}") from e
        if run.returncode != 0:
            last = (run.stderr.strip().splitlines() or ["no output"])[-1]
            raise ProfileGuidedError(f"the training run exited with {run.returncode}: {last}")
        _note(run.stdout.strip())


ext_modules = []
C_HEADERS = sorted(glob.glob("csrc/*.h"))
CORE_MODULES = ["escoba_sim._core.common", "escoba_sim._core.play", "escoba_sim._core.search",
                "escoba_sim._core.aggregates", "escoba_sim._core.hooks", "escoba_sim._vec"]
if os.environ.get("ESCOBA_SIM_PURE_PYTHON") != "1" and os.path.exists("escoba_sim/_core/play.pyx"):
    try:
        from Cython.Build import cythonize
    except ImportError:
        cythonize = None
    if cythonize is not None:
        ext_modules = cythonize(
            # depends: a changed C header rebuilds the extension, and the headers ship in the sdist
            # (all of them: a header missing from the list was missing from the sdist, and a wheel built
            # from that sdist had no compiled core)
            # the core, one module per concept (escoba_sim/_core/__init__.py gathers them), and the
            # vectorised environment's stepping loop (escoba_sim/env/vector.py)
            [Extension(name, [name.replace(".", "/") + ".pyx"], include_dirs=["csrc"], depends=C_HEADERS,
                       extra_compile_args=BASE_FLAGS) for name in CORE_MODULES],
            compiler_directives={"language_level": 3, "boundscheck": False, "wraparound": False,
                                 "cdivision": True, "initializedcheck": False},
        )
        # cythonize() drops Extension(optional=True): set it again so a failed compile falls back
        for ext in ext_modules:
            ext.optional = True

setup(ext_modules=ext_modules, cmdclass={"build_ext": ProfileGuidedBuildExt})
