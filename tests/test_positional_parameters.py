"""No function in escoba_sim/ takes more than 8 positional parameters: a long call is spelled by name
(the click commands' callbacks are keyword-only; click passes every option by name)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "escoba_sim"
MOST = 8


def too_many(path: Path, root: Path = PACKAGE) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            positional = len(node.args.posonlyargs) + len(node.args.args)
            if positional > MOST:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({positional})")
    return found


def test_no_function_takes_more_than_eight_positional_parameters():
    found = [line for p in sorted(PACKAGE.rglob("*.py"))
             for line in too_many(p)]
    assert not found, "take these by keyword (`*,`):\n" + "\n".join(found)


def test_the_check_sees_a_long_signature(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f(a, b, c, d, e, g, h, i, j):\n    pass\n\n\ndef k(a, *, b, c, d, e, g, h, i, j):\n    pass\n")
    assert too_many(f, tmp_path) == ["m.py:1 f (9)"]
