"""Issue 38: the skill ladder's head fits 80 columns with any seed: a seed of 20 digits (as one drawn at random)
made the Spanish line ``semilla N, 100 partidas por pareja y reglamento (repartos duplicados)`` 88 columns."""

import pytest

BIG = 2**64 - 1  # 20 digits


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_skill_head_fits_80_columns_with_a_20_digit_seed(cli, monkeypatch, tmp_path, lang):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(tmp_path)  # a short folder name: a long path cannot fit any width
    r = cli("skill", "--ladder", "random,greedy", "-n", "40", "--seed", BIG, "--out", "s", lang=lang)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert any(str(BIG) in line for line in lines)  # the seed whole
    assert max(len(line) for line in lines) <= 80, r.stdout
