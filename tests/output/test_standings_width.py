"""Issue 38's walk: a piped run's standings line was 110 to 164 columns (greedy vs random ... Elo ...), read at
COLUMNS=80 too; with a width said by COLUMNS its two parts go on lines of their own, wrapped at spaces, and the
text is the one line's again when joined. Without COLUMNS (a log) it stays one line (tests/output/test_standings.py)."""

import pytest
from click.testing import CliRunner

from escoba_sim.cli import main
from escoba_sim.output.console import standings_line, standings_text

RUNS = {"two": ["run", "-s", "greedy", "--vs", "maxoros", "-n", "200", "--seed", "3", "-j", "1"],
        "three": ["run", "-s", "greedy", "--vs", "maxoros", "--vs", "random", "-n", "120", "--seed", "2", "-j", "1"]}


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("kind", RUNS)
def test_a_piped_runs_standings_fit_the_columns_said(cli, monkeypatch, kind, lang):
    monkeypatch.setenv("COLUMNS", "80")
    r = cli(*RUNS[kind], lang=lang)
    assert r.exit_code == 0
    lines = r.stderr.splitlines()
    assert lines and max(len(line) for line in lines) <= 80, r.stderr
    assert any(line.startswith("  ") for line in lines)  # a standings line went on two lines or more


def test_the_folded_standings_are_the_line_again():
    import json

    final = json.loads(CliRunner().invoke(main, [*RUNS["three"], "--json"]).stdout)
    line = standings_line(final)
    assert len(line) > 80 and standings_text(final) == line and standings_text(final, 200) == line
    folded = standings_text(final, 80).splitlines()
    assert max(len(x) for x in folded) <= 80 and " ".join(" ".join(folded).split()) == " ".join(line.split())


def test_a_series_bar_weighs_each_run_by_its_cost():
    """A skill ladder's runs cost from microseconds (random vs greedy) to seconds (ismcts) a game: counted in
    games the bar's ETA jumped between 0:36 and 7:33 in one run (issue 37); it now counts each run's games
    weighted by its estimated cost (``RunSpec.deal_seconds``), and the counts shown are the run's own."""
    from escoba_sim.output.console import ProgressBar
    from escoba_sim.runs.spec import make_spec

    cheap = make_spec("random", ["greedy"], "ludoteka", 200, seed=1)
    dear = make_spec("greedy", ["endgame"], "ludoteka", 200, seed=1)  # either engine plays both
    bar = ProgressBar(cheap, enabled=False, runs=3)
    bar.plan([cheap, dear, dear])
    per_game = [s.deal_seconds() / s.rotations for s in (cheap, dear, dear)]
    assert bar.weights[1] / bar.weights[0] == pytest.approx(per_game[1] / per_game[0])
    assert sum(bar.weights) == pytest.approx(3)
    bar.start_run(2, "greedy vs endgame")
    assert bar.offset == pytest.approx((bar.weights[0] + bar.weights[1]) * 200)
    assert bar.weights[1] > bar.weights[0]  # the exact search's pairs cost more
