"""`history`: a folder of a person's hands summed into games, figures per hand with intervals, the luck
ledger's parts and a performance rating, each checked against the records read independently."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import play_games_at_table

from escoba_sim.cli import main
from escoba_sim.game import engine
from escoba_sim.game.rules import PRESETS
from escoba_sim.hands import history as history_module
from escoba_sim.hands.history import history_of
from escoba_sim.hands.luck import ledger_of, review_hand
from escoba_sim.strategies.levels import performance_rating, rating_of

SAMPLES = 60  # the ledgers' deals per decision here: cheap, and the parts add up at any size


def play_folder(out: Path, opponent: str, games: int, seed: int, person: str = "heuristic", rules="ludoteka"):
    """``person`` (a spec standing in for a person) plays ``games`` games at play's own Table, saving every
    hand as play does; returns each game's final scores by side, as the table kept them."""
    return [scores for scores, _winner in play_games_at_table(PRESETS[rules], opponent, person, games, seed, out,
                                                              save=True)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("history") / "escoba-play"
    finals = play_folder(out, "level:2", 3, 11)
    return out, finals


def test_games_scores_and_results_match_the_table(folder):
    out, finals = folder
    h = history_of(out, luck=False)
    assert len(h.games) == 3 and h.skipped == 0
    assert [g.scores for g in h.games] == finals
    assert len(h.hands) == len(list(out.glob("*.json")))
    for g, final in zip(h.games, finals):
        assert [x.hand for x in g.hands] == list(range(len(g.hands)))
        assert g.won == (1.0 if engine.game_winner(final, 15) == 0 else 0.0)
    # points per hand: the mean and its interval over the hands, recomputed from the files
    margins = []
    for p in out.glob("*.json"):
        score = json.loads(p.read_text())["score"]
        margins.append(score[0]["total"] - score[1]["total"])
    fig = h.figure("margin")
    m = sum(margins) / len(margins)
    se = math.sqrt(sum((x - m) ** 2 for x in margins) / (len(margins) - 1) / len(margins))
    assert fig.mean == pytest.approx(m) and fig.hi - fig.lo == pytest.approx(2 * 1.959963984540054 * se)


def test_the_performance_rating_is_the_games_against_rated_opponents(folder):
    out, _finals = folder
    h = history_of(out, luck=False)
    q = rating_of("level:2").estimate
    expected = performance_rating([(q, g.won) for g in h.games])
    assert h.ratings == {"ludoteka": expected} and len(h.rated["ludoteka"]) == 3
    assert h.to_json()["performance_ratings"] == [
        {"rules": "ludoteka", "estimate": round(expected.estimate, 4), "lo": round(expected.lo, 4),
         "hi": round(expected.hi, 4), "games": 3}]


def test_each_ruleset_has_a_rating_of_its_own(folder, tmp_path):
    """Two rulesets' ratings are on scales of their own (random = 0 under each): never mixed into one."""
    out, _finals = folder
    mine = tmp_path / "two"
    shutil.copytree(out, mine)
    play_folder(mine, "level:2", 2, 12, rules="tradicional")
    h = history_of(mine, luck=False)
    assert set(h.ratings) == {"ludoteka", "tradicional"}
    trad = [(rating_of("level:2", "tradicional").estimate, g.won) for g in h.games if g.rules.canonical() == "tradicional"]
    assert len(trad) == 2 and h.ratings["tradicional"] == performance_rating(trad)
    text = history_module.format_history(h)
    assert "ludoteka: performance rating" in text and "tradicional: performance rating" in text


@pytest.mark.core("the luck ledger's values come from the evaluator, which runs in the compiled core")
def test_the_ledger_parts_add_up_to_each_hand_and_are_analyzes(folder):
    out, _finals = folder
    h = history_of(out, samples=SAMPLES, seed=5)
    for x in h.hands:
        assert x.expected + x.luck + x.decisions + x.others + x.noise == pytest.approx(x.margin, abs=1e-9)
    first = h.hands[0]
    led = ledger_of(json.loads((out / first.name).read_text()), 0, samples=SAMPLES, seed=5)
    assert (first.luck, first.decisions) == (led.part("luck")[0], led.part("decisions")[0])
    g = h.games[0]
    assert g.total("luck") == pytest.approx(sum(x.luck for x in g.hands))
    # by default each hand is searched as analyze searches it by default (as its hints were)
    last = history_of(out, samples=SAMPLES).hands[-1]
    review = review_hand(json.loads((out / last.name).read_text()), seats=[0], samples=SAMPLES)
    assert (last.luck, last.decisions) == (review.ledgers[0].part("luck")[0], review.ledgers[0].part("decisions")[0])


def test_files_that_are_not_a_persons_finished_hands_are_skipped(folder, tmp_path):
    out, _finals = folder
    mine = tmp_path / "mixed"
    shutil.copytree(out, mine)
    some = json.loads(next(iter(sorted(mine.glob("*.json")))).read_text())
    (mine / "1-g0-h0.json").write_text("not json")
    (mine / "2-g0-h0.json").write_text(json.dumps({**some, "strategies": ["greedy", "greedy"]}))  # no person
    (mine / "3-g0-h0.json").write_text(json.dumps({**some, "moves": some["moves"][:-1]}))  # not finished
    (mine / "4-g0-h0.json").write_text(json.dumps({**some, "strategies": ["person", "evil.py:Boom"]}))
    (mine / "5-g0-h0.json").symlink_to(next(iter(mine.glob("11-*.json"))))
    (mine / "notes.txt").write_text("ignored: not a record's name")
    h = history_of(mine, luck=False)
    assert h.skipped == 3  # the junk, the one without a person, the unfinished one (the symlink is not read)
    assert len(h.games) == 4  # the three games, and the hand against a file strategy (its own game)
    text = history_module.format_history(h)
    assert "evil.py:Boom" in text  # named as it is, never opened


def test_the_same_seed_played_again_is_a_new_game(tmp_path):
    out = tmp_path / "again"
    first = play_folder(out, "random", 1, 3)
    second = play_folder(out, "random", 1, 3, person="greedy")  # same seed, hands saved as -2
    h = history_of(out, luck=False)
    assert [g.scores for g in h.games] == first + second


@pytest.mark.core("the luck ledger's values come from the evaluator, which runs in the compiled core")
def test_an_interruption_keeps_the_ledgers_done(folder, monkeypatch):
    out, _finals = folder
    calls = []
    real = history_module.ledger_of

    def stops_at_the_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(history_module, "ledger_of", stops_at_the_third)
    h = history_of(out, samples=SAMPLES)
    assert h.interrupted and h.figure("luck").hands == 2 and h.figure("margin").hands == len(h.hands)


@pytest.mark.core("the luck ledger's values come from the evaluator, which runs in the compiled core")
@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_command_fits_80_columns_in_both_languages(folder, lang):
    out, _finals = folder
    # a process of its own: the language is chosen as the commands are declared
    r = subprocess.run([sys.executable, "-m", "escoba_sim.cli", "--lang", lang, "history", str(out), "--samples",
                        str(SAMPLES)], capture_output=True, text=True, env={**os.environ, "COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert sum(1 for line in lines if line.startswith("  1. ")) == 1
    if lang == "es":
        assert "partidas" in lines[0] and "suerte" in r.stdout


def test_the_command_json_and_errors(folder, tmp_path):
    out, finals = folder
    r = CliRunner().invoke(main, ["history", str(out), "--no-luck", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["games"] == 3 and [g["scores"] for g in data["games_list"]] == finals
    assert data["per_hand"]["luck"] is None and data["luck"] is False
    r = CliRunner().invoke(main, ["history", str(tmp_path / "missing")])
    assert r.exit_code == 1 and "FOLDER" in r.output and "--folder" not in r.output
    empty = tmp_path / "empty"
    empty.mkdir()
    r = CliRunner().invoke(main, ["history", str(empty)])
    assert r.exit_code == 0 and "0 games" in r.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_a_fifo_with_a_records_name_is_not_read(folder, tmp_path):
    out, _finals = folder
    mine = tmp_path / "fifo"
    shutil.copytree(out, mine)
    os.mkfifo(mine / "9-g0-h0.json")  # reading it would block forever
    h = history_of(mine, luck=False)
    assert len(h.games) == 3
