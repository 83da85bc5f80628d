"""Every repository path and module that the prose names exists: the comments and docstrings of the code
(escoba_sim/, csrc/, tests/, benchmarks/, analysis/, examples/), the docs (docs/*.md, the READMEs) and the CI
script (.ci/run). A module that moves leaves no stale name behind (the MOVED aliases of escoba_sim/__init__.py
keep old module paths importable, so an import alone would never notice).

What counts as a name: a path whose first folder is one of the repository's (``escoba_sim/game/rules.py``,
``csrc/escoba_hand.h``, ``benchmarks/``) or one of the package's (``runs/folder.py``, read inside escoba_sim/);
a dotted module ``escoba_sim.x.y`` (a trailing attribute must be defined there); and, in code spans and
comments, a dotted name inside the package such as ``runs.aggregates.DealLayout``. URLs are not names, and
neither are strings other than docstrings (help texts give example file names such as ``results/run1``)."""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from pathlib import Path

import pytest
from helpers import REPO

PACKAGE = REPO / "escoba_sim"
# the repository's own top folders: a path starting with one of them names a file of the repository
ROOTS = ("escoba_sim", "csrc", "tests", "benchmarks", "analysis", "docs", "examples", ".ci")
# the package's subpackages: `runs/folder.py` or `runs.folder` names escoba_sim/runs/folder.py
SUBPACKAGES = tuple(sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()))
# the package's modules and subpackages, for relative dotted names (`batch.make_player`, `runs.aggregates`)
TOP_MODULES = tuple(sorted({*SUBPACKAGES, *(p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_"))}
                           - {"env"}))  # `env.step(...)` in the docs is an environment, not the subpackage

URL = re.compile(r"\b[a-z][a-z+.-]*://\S+")
# a path: an optional leading `./`, then folder/...; stops at what cannot be in a file name of this repository
PATH = re.compile(r"(?<![\w./-])(?:\./)?((?:\.ci|[A-Za-z_][\w-]*)/[\w./*-]*)")
# a file named without its folder: some file of the repository has that name. Only names of the package's
# own modules and C headers count (`strategies.py`, `escoba_tables.h`): help texts name users' files
# (`path.py:Class`), and C comments name system headers (`signal.h`).
MODULE_STEMS = {p.stem for p in PACKAGE.rglob("*.py*")} | set(SUBPACKAGES)
BARE = re.compile(r"(?<![\w./-])((?:" + "|".join(sorted(MODULE_STEMS)) + r")\.(?:py|pyx|pxd)|escoba_\w+\.h)\b(?![\w/-])")
DOTTED = re.compile(r"(?<![\w.])(escoba_sim(?:\.\w+)+)")
RELATIVE = re.compile(r"(?<![\w.])((?:" + "|".join(TOP_MODULES) + r")(?:\.[A-Za-z_]\w*)+)")
EXTENSIONS = {".py", ".pyx", ".pxd", ".h", ".c", ".md", ".toml", ".cfg", ".in", ".txt", ".json", ".j2", ".html",
              ".css", ".js", ".po", ".pot", ".png", ".svg", ".csv", ".parquet", ".mo"}


def prose_files() -> list[Path]:
    code = [p for root in ("escoba_sim", "csrc", "tests", "benchmarks", "analysis", "examples")
            for p in (REPO / root).rglob("*") if p.suffix in {".py", ".pyx", ".pxd", ".h", ".c"}
            and "build" not in p.relative_to(REPO).parts]
    code = [p for p in code if not (p.suffix == ".c" and p.with_suffix(".pyx").exists())]  # Cython's output
    docs = [*(REPO / "docs").glob("*.md"), *REPO.glob("*.md"), *(REPO / "benchmarks").glob("*.md"),
            *(REPO / "analysis").glob("*.md"), REPO / ".ci" / "run", REPO / "pyproject.toml", REPO / "setup.py"]
    return sorted({*code, *docs})


def python_prose(text: str) -> list[tuple[int, str]]:
    """(line, text) of a Python or Cython module's comments and docstrings (every triple-quoted string of a
    .pyx: Cython's syntax is not Python's)."""
    found: list[tuple[int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                found.append((tok.start[0], tok.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found += [(i, m.group()) for i, line in enumerate(text.splitlines(), 1) for m in re.finditer(r"#.*", line)]
    try:
        tree = ast.parse(text)
    except SyntaxError:  # a .pyx
        for m in re.finditer(r'"""(.*?)"""', text, re.S):
            found.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
        return found
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.append((first.lineno, first.value.value))
    return found


def c_prose(text: str) -> list[tuple[int, str]]:
    return [(text.count("\n", 0, m.start()) + 1, m.group()) for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, re.S)]


def prose_of(path: Path) -> list[tuple[int, str]]:
    text = path.read_text()
    if path.suffix in {".py", ".pyx", ".pxd"}:
        return python_prose(text)
    if path.suffix in {".h", ".c"}:
        return c_prose(text)
    if path.name in {"run", "pyproject.toml"}:  # shell and TOML: their comments
        return [(i, line[line.index("#"):]) for i, line in enumerate(text.splitlines(), 1) if "#" in line]
    return [(1, text)]


def path_exists(name: str, where: Path) -> bool:
    first = name.split("/")[0]
    if any(c in name for c in "<>{}") or any(part == ".." or part.isupper() for part in name.split("/")):
        return True  # a placeholder (`runs/NN/deals/`), not a file
    bases = [REPO] if first in ROOTS else []
    if first in SUBPACKAGES:
        bases.append(PACKAGE)
    if first in {"data", "results", "templates", "static", "locale"}:  # beside the file that names it
        bases += [where.parent, *where.parents]
    if "*" in name:  # a pattern: it matches some file
        return any(any(base.glob(name)) for base in bases)
    return any((base / name).exists() for base in bases)


def names_a_path(name: str) -> bool:
    """Whether ``name`` reads as a path of the repository (rather than, say, `win/lose` or an output folder)."""
    first, *rest = name.split("/")
    if first in ROOTS:
        return True
    # a package path needs a file or folder of the package after it: `runs/` alone could be any folder
    return first in SUBPACKAGES and bool(rest) and (Path(rest[-1]).suffix in EXTENSIONS or rest[-1] == "")


def module_exists(dotted: str) -> bool:
    """``escoba_sim.runs.folder`` or ``escoba_sim.runs.folder.read_manifest``: a module file, then at most
    attributes defined in it. The MOVED aliases do not count: they are the old paths."""
    parts = dotted.split(".")
    if parts[-1] in {"py", "pyx", "pxd", "po", "pot", "mo", "toml"}:
        # a file name (`escoba_sim.pot`, `files.py`): some file of the repository has it
        return any(True for _ in REPO.rglob(dotted.rpartition(".")[0].rpartition(".")[2] + "." + parts[-1]))
    for n in range(len(parts), 1, -1):
        rel = PACKAGE.joinpath(*parts[1:n])
        if rel.with_suffix(".py").exists() or rel.with_suffix(".pyx").exists() or (rel / "__init__.py").exists():
            break
    else:
        return parts == ["escoba_sim"] or _attribute_of("escoba_sim", parts[1:])
    return n == len(parts) or _attribute_of(".".join(parts[:n]), parts[n:])


def _attribute_of(module: str, attrs: list[str]) -> bool:
    try:
        obj = importlib.import_module(module)
    except ImportError:  # an optional dependency (pyspiel, starlette): the file exists, that is enough
        return True
    import escoba_sim

    if obj is escoba_sim and attrs[0] in escoba_sim.MOVED:
        return False
    for attr in attrs:
        if obj is None:  # a thing loaded when available (`native.core` under ESCOBA_SIM_PURE_PYTHON=1)
            return True
        if not hasattr(obj, attr):
            return False
        obj = getattr(obj, attr)
    return True


def code_spans(text: str) -> list[str]:
    """The parts of prose where a dotted name is surely code: `spans` of Markdown and ``spans`` of
    reStructuredText (in a plain sentence `series.kind` or `batch.hands` may well be a variable)."""
    return re.findall(r"``?([^`\n]+)``?", text)


FILE_NAMES = {p.name for p in REPO.rglob("*") if ".git" not in p.parts}

def stale_names(path: Path, rel: str) -> list[tuple[int, str]]:
    """(line, name) of every name in ``path``'s prose that names no file or module of the repository."""
    found = []
    markdown = path.suffix == ".md"
    for line, text in prose_of(path):
        text = URL.sub(" ", text)

        def at(m: re.Match) -> int:  # a Markdown file is one text: count its lines; a comment has its own
            return line + text.count("\n", 0, m.start()) if markdown else line

        found += [(at(m), m.group(1).rstrip(".-")) for m in PATH.finditer(text)
                  if names_a_path(m.group(1).rstrip(".-")) and not path_exists(m.group(1).rstrip(".-"), path)]
        found += [(at(m), m.group(1)) for m in BARE.finditer(text) if m.group(1) not in FILE_NAMES]
        found += [(at(m), m.group(1).rstrip(".")) for m in DOTTED.finditer(text)
                  if not module_exists(m.group(1).rstrip("."))]
        found += [(line, m.group(1)) for span in code_spans(text) for m in RELATIVE.finditer(span)
                  if not module_exists(f"escoba_sim.{m.group(1)}")]
    return found


def relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


# this file names stale paths on purpose (its examples and the list above)
SCANNED = [p for p in prose_files() if p != Path(__file__).resolve()]


@pytest.mark.parametrize("path", SCANNED, ids=relative)
def test_every_named_path_and_module_exists(path):
    rel = relative(path)
    stale = [f"{rel}:{line}: {name}" for line, name in stale_names(path, rel)]
    assert stale == [], "named in prose but not in the repository (moved or renamed?)"


def test_a_planted_stale_name_is_found_and_urls_and_help_examples_are_not(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('"""See escoba_sim/game/no_such_module.py, escoba_sim.runs.nowhere and game/rules.py."""\n'
                       "# csrc/escoba_gone.h holds it; https://example.org/escoba_sim/gone.py does not count\n"
                       "# `runs.aggregates.NoSuchLayout` does not exist either, `runs.aggregates.DealLayout` does;\n"
                       "# strategies.py is a package now, rng.py is game/rng.py, runs/NN/deals/ is a placeholder\n"
                       'HELP = "writes results/run1/summary.json and escoba_sim/not_a_docstring.py"\n'
                       "def f():\n"
                       '    """--plugin path.py:Class, an escoba_sim.rules module (escoba_sim.MOVED)."""\n')
    assert sorted(stale_names(planted, "planted.py")) == [
        (1, "escoba_sim.runs.nowhere"), (1, "escoba_sim/game/no_such_module.py"), (2, "csrc/escoba_gone.h"),
        (3, "runs.aggregates.NoSuchLayout"), (4, "strategies.py"), (7, "escoba_sim.rules")]
