"""The library names its parameters, not the command line's flags: a message string outside escoba_sim/cli/
that says ``--teams`` would read wrong to a Python caller and to the web page. A message names the parameter
with a ``Parameter`` placeholder (``EscobaError(template, teams=Parameter("teams"))``) and the command line
renders the flag (cli/errors.flag_of). Docstrings may name flags (they describe the commands)."""

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "escoba_sim"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")
# i18n.py reads --lang from argv itself (the language must be known before click parses anything); two texts
# that describe the command line to its reader: the usage line tune writes into best.toml ("use: --strategy
# NAME:best.toml") and the comparison summary's header on the terminal ("greedy (--strategy) vs ...")
ALLOWED = {"i18n.py", "tune.py", "output/console.py"}
# an argv element is a flag by nature: a resume Command's ("--trust-plugins", "--scheduler")
ARGV = re.compile(r"--[a-z][a-z-]+")


def flags_named(path: Path) -> list[str]:
    """``line: --flag`` for each string constant (docstrings aside) that names a flag."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [f"{node.lineno}: {' '.join(FLAG.findall(node.value))}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and FLAG.search(node.value) and not ARGV.fullmatch(node.value)]


def test_library_messages_name_parameters_not_flags():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "cli" or rel.as_posix() in ALLOWED:
            continue
        found += [f"{rel.as_posix()}:{line}" for line in flags_named(path)]
    assert not found, "name the parameter (Parameter placeholder), not the flag:\n" + "\n".join(found)


def test_the_scan_sees_a_flag_in_a_message_and_not_in_a_docstring(tmp_path):
    f = tmp_path / "m.py"
    f.write_text('"""Set --teams."""\n\n\ndef f():\n    """--vs here is prose."""\n'
                 '    raise ValueError("give --vs")\n    return ("resume", "--trust-plugins")\n')
    assert flags_named(f) == ["6: --vs"]
