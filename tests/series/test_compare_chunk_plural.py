"""Issue 38's walk: a comparison of one chunk said ``1 chunks`` (``1 bloques`` in Spanish)."""

import pytest


@pytest.mark.parametrize("lang, said", [("en", "100 games per ruleset, 1 chunk;"),
                                        ("es", "100 partidas por reglamento, 1 bloque;")])
def test_one_chunk_is_singular(cli, monkeypatch, tmp_path, lang, said):
    monkeypatch.chdir(tmp_path)
    r = cli("compare", "-r", "ludoteka", "-r", "tradicional", "-n", "100", "--chunk", "100", "--seed", "1", "--out", "c",
            lang=lang)  # one chunk on either engine (the reference engine cuts smaller ones by default)
    assert r.exit_code == 0, r.output
    assert said in " ".join(r.stdout.split())
