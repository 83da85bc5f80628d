"""Issue 38: a hint and the later analysis of the same hand named different best moves for the same position: play's
hint searched with ``hint_seed`` (the hand's play stream and the position), ``analyze`` with ``decision_seed(0, k)``.
Now the analysis of a record that names its deal's seed searches each decision as its hint did: with as many samples
both give the same values, spreads and best move at every decision the person had (the page's hint and its
analysis too)."""

import json
import warnings

import pytest

from escoba_sim.game.rules import parse_rules
from escoba_sim.hands.evaluate import decision_seed
from escoba_sim.hands.review import analyze_record
from escoba_sim.hands.table import Table

pytestmark = pytest.mark.core("hints and analyses come from the evaluator, which runs in the compiled core")

SAMPLES = 200  # few: the values are compared exactly, not judged


def _values(ev):
    return [(o.move, o.value, o.spread) for o in ev.options], ev.best, ev.method


def _play_with_hints(rules, seed, tmp_path):
    """A hand at a Table (the person in seat 0 against greedy) with a hint at every decision; the hints and the
    saved record."""
    table = Table(parse_rules(rules), [None, "greedy"], seed, tmp_path, samples=SAMPLES, single_hand=True)
    table.deal(0, 0)
    table.advance()
    hints = []
    while not table.st.over:
        kind, options = table.decision()
        hints.append(table.hint().evaluation)
        if kind == "blow":
            table.blow(options[-1])  # a blow when one is open: its decision is hinted and analysed too
            table.advance()
        else:
            table.play(options[len(options) // 2])
    return hints, json.loads(table.save().read_text())


@pytest.mark.parametrize("rules, seed", [("ludoteka", 7), ("tradicional", 3), ("cardgames", 12), ("tradicional", 21)])
def test_a_played_positions_hint_equals_the_analysis_of_its_record(rules, seed, tmp_path):
    hints, record = _play_with_hints(rules, seed, tmp_path)
    analysis = analyze_record(record, seats=[0], samples=SAMPLES)  # the defaults: no seed given
    assert analysis.hint_seeds and analysis.seed == seed
    assert len(analysis.decisions) == len(hints) > 3
    for hint, decision in zip(hints, analysis.decisions):
        assert hint.seed == decision.evaluation.seed
        assert _values(hint) == _values(decision.evaluation)
    # a seed given searches from it instead (decision_seed), as before
    seeded = analyze_record(record, samples=SAMPLES, seed=5)
    assert not seeded.hint_seeds and seeded.seed == 5
    assert [d.evaluation.seed for d in seeded.decisions] == [decision_seed(5, k) for k in range(len(seeded.decisions))]


def test_the_pages_hint_equals_the_pages_analysis_of_the_saved_record(tmp_path):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from escoba_sim.web.app import create_app

    client = TestClient(create_app(tmp_path / "hands", samples=SAMPLES), base_url="http://127.0.0.1")
    state = client.post("/api/games", json={"rules": "ludoteka", "vs": "greedy"}).json()
    hints = []
    while not state["hand_over"]:
        gid = state["id"]
        hints.append(client.post(f"/api/games/{gid}/hint", json={}).json())
        o = state["options"][0]
        if state["decision"] == "blow":
            state = client.post(f"/api/games/{gid}/blow", json={"option": 0}).json()
        else:
            state = client.post(f"/api/games/{gid}/move", json={"card": o["card"], "take": o["take"]}).json()
    name = state["records"][0]
    analysis = client.get(f"/api/records/{name}/analysis?seat=0").json()
    decisions = analysis["decisions"]
    assert len(decisions) == len(hints) > 3
    for hint, decision in zip(hints, decisions):
        assert hint["method"] == decision["method"]
        if decision["forced"]:
            continue
        best = hint["options"][0]  # the hint ranks the options, best first
        assert (best["label"], best["text"]) == (decision["best"], decision["value_best"]), (hint, decision)
        played = [o["text"] for o in hint["options"] if o["label"] == decision["played"]]
        assert played in ([], [decision["value_played"]])
