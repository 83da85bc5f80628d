"""The package's layout (docs/architecture.md): imports run down the layers, no module imports another's
private names, and the public API and the earlier documented module paths resolve."""

import ast
import importlib
import re
import sys

import pytest
from helpers import REPO

import escoba_sim

PACKAGE = REPO / "escoba_sim"
# docs/architecture.md, bottom first; modules on one layer do not import each other
LAYERS = [["i18n", "errors"], ["files", "stops"], ["folders"], ["game"], ["strategies"], ["native", "_core", "_vec"], ["batch", "lineup"], ["hands", "env"], ["runs"],
          ["series"], ["tune", "bench", "_pgo_training"], ["output"], ["web"], ["cli"]]
LAYER = {unit: i for i, units in enumerate(LAYERS) for unit in units}


def unit_of(module: str) -> str | None:
    """``escoba_sim.runs.folder`` -> ``runs``; the package itself (``escoba_sim``: ``__version__``) -> None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def module_name(path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path):
    """(imported module, names, line) for every import in a module, lazy ones included, made absolute."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    if path.suffix == ".pyx":  # Cython: the Python-level `from . import` lines are plain Python (lazy ones too)
        code = [line.split("#", 1)[0].strip() for line in path.read_text().splitlines()]
        text = "\n".join(line if re.match(r"from \.[\w.]* import [^(]*$", line) else "" for line in code)  # lines kept
    else:
        text = path.read_text()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module
            for alias in node.names:
                full = f"{target}.{alias.name}"  # `from . import engine` imports a module
                if importlib.util.find_spec(full.split(".")[0]) and _is_module(full):
                    yield full, [], node.lineno
                else:
                    yield target, [alias.name], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno


def _is_module(name: str) -> bool:
    if not name.startswith("escoba_sim."):
        return False
    rel = PACKAGE.joinpath(*name.split(".")[1:])
    return rel.is_dir() or rel.with_suffix(".py").exists() or rel.with_suffix(".pyx").exists()


SOURCES = sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyx")])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_down_the_layers_and_take_no_private_names(path):
    here = unit_of(module_name(path))
    if here is None:  # escoba_sim/__init__.py: the public API, imported lazily
        return
    for target, names, line in imports_of(path):
        if not target.startswith("escoba_sim"):
            continue
        there = unit_of(target)
        where = f"{path.relative_to(REPO)}:{line} imports {target}"
        if there is None:
            assert names == ["__version__"], f"{where}: only __version__ comes from the package itself"
            continue
        assert there in LAYER, f"{where}: `{there}` is on no layer of docs/architecture.md"
        assert LAYER[there] < LAYER[here] or there == here, f"{where}: an import up or across the layers"
        private = [n for n in names if n.startswith("_")]
        assert not private, f"{where}: private names {private}"


def test_every_public_name_resolves():
    assert escoba_sim.__all__[0] == "__version__"
    for name in escoba_sim.__all__:
        assert getattr(escoba_sim, name) is not None, name
    with pytest.raises(AttributeError):
        escoba_sim.no_such_name  # noqa: B018


@pytest.mark.parametrize("old", sorted(escoba_sim.MOVED))
def test_earlier_module_paths_are_the_modules_at_their_new_homes(old, monkeypatch):
    new = f"escoba_sim.{escoba_sim.MOVED[old]}"
    monkeypatch.delitem(sys.modules, f"escoba_sim.{old}", raising=False)  # import the old path afresh
    monkeypatch.delattr(escoba_sim, old, raising=False)
    with pytest.warns(DeprecationWarning, match=rf"^escoba_sim\.{old} has moved: import {re.escape(new)} instead$"):
        moved = importlib.import_module(f"escoba_sim.{old}")
    home = importlib.import_module(new)
    assert moved is home and moved.__name__ == home.__spec__.name == f"escoba_sim.{escoba_sim.MOVED[old]}"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the old paths, on purpose
def test_the_plugin_base_class_and_openspiel_keep_their_documented_paths():
    from escoba_sim.engine import Strategy  # docs/strategies.md of earlier versions

    from escoba_sim.game.engine import Strategy as at_home

    assert Strategy is at_home
    pytest.importorskip("pyspiel")
    import escoba_sim.openspiel  # registers the game with OpenSpiel (docs/ecosystem.md of earlier versions)

    assert escoba_sim.openspiel.__name__ == "escoba_sim.env.openspiel"
