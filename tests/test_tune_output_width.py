"""Issue 38's walk: what ``tune`` prints at its end fits 80 columns: the tuned spec, one word of 106 columns
(``heuristic:cards=...,keep=...``), is folded after its commas (as skill lists its specs)."""

import pytest


@pytest.mark.core("tune plays its candidates on the compiled core")
@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_tuned_spec_is_folded_at_its_commas(cli, monkeypatch, tmp_path, lang):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(tmp_path)
    r = cli("tune", "heuristic", "--vs", "greedy", "--evals", "4", "--games", "100", "-j", "1", "--out", "t",
            lang=lang)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, r.stdout
    start = next(i for i, line in enumerate(lines) if line.startswith(("tuned: heuristic:", "ajustada: heuristic:")))
    spec = lines[start].split(": ", 1)[1] + "".join(line.strip() for line in lines[start + 1:start + 3]
                                                    if line.startswith("      "))
    assert spec.count("=") == 7 and not spec.endswith(",")  # every weight, the spec whole again
