"""The page's luck ledger and score sheet through the API: a finished hand's ledger (``/api/records/NAME/ledger``)
adds up from the expected margin before the deal to the hand's result, for the very record the page saved;
bad names are 404s; the game's score sheet (``sheet`` in the state) has one row per hand whose points sum to
the game's scores, and the hands' ledgers sum to the game's points margin."""

import json
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from escoba_sim.web import app as web_app  # noqa: E402
from escoba_sim.web.app import create_app  # noqa: E402

SAMPLES = 120  # deals per value: the ledger's sums are checked, not its numbers
PARTS = ("luck", "decisions", "others", "residual", "solver")


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(tmp_path / "hands", samples=SAMPLES), base_url="http://127.0.0.1")


def new_game(client, **kw):
    r = client.post("/api/games", json={"rules": "ludoteka", "vs": "greedy", **kw})
    assert r.status_code == 200, r.text
    return r.json()


def play_out(client, state, pick=0):
    """The hand to its end: the ``pick``-th legal move (mod their number) each time, never blowing."""
    while not state["hand_over"]:
        gid = state["id"]
        if state["decision"] == "blow":
            r = client.post(f"/api/games/{gid}/blow", json={"option": 0})
        else:
            o = state["options"][pick % len(state["options"])]
            r = client.post(f"/api/games/{gid}/move", json={"card": o["card"], "take": o["take"]})
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def margin(score, side):
    totals = [row["total"] for row in score]
    return totals[side] - max(t for s, t in enumerate(totals) if s != side)


def total_of(led):
    return led["expected"]["value"] + sum(led[p]["value"] for p in PARTS)


@pytest.mark.core("the hint evaluator")
def test_the_ledger_of_a_played_hand_adds_up_to_its_result(client, tmp_path):
    state = play_out(client, new_game(client), pick=1)
    name = state["records"][-1]
    r = client.get(f"/api/records/{name}/ledger")
    assert r.status_code == 200, r.text
    led = r.json()
    record = json.loads((tmp_path / "hands" / name).read_text())
    assert led["seat"] == record["strategies"].index("person") == 0
    assert led["finished"] and led["result"] == margin(record["score"], led["side"])
    assert led["result"] == margin(state["score"], 0)
    # before the deal, then each part, to the result (each part rounded to 4 places in the JSON)
    assert total_of(led) == pytest.approx(led["result"], abs=1e-3)
    assert led["adds_up"] and led["samples"] == SAMPLES
    kinds = [e["kind"] for e in led["entries"]]
    assert kinds[0] == "deal" and "round" in kinds and "decision" in kinds
    assert led["luck"]["value"] == pytest.approx(sum(e["value"] for e in led["entries"]
                                                     if e["kind"] in ("deal", "round", "draw")), abs=1e-3)
    assert len(led["entries"][0]["cards"]) == 3  # the cards dealt to the person
    # asked again (the game's end asks for every hand): the same ledger
    assert client.get(f"/api/records/{name}/ledger").json() == led
    # another seat's ledger: the other side's margin
    other = client.get(f"/api/records/{name}/ledger?seat=1").json()
    assert other["seat"] == 1 and other["result"] == -led["result"]


def test_bad_names_and_seats_are_refused(client, tmp_path):
    (tmp_path / "hands").mkdir(exist_ok=True)
    (tmp_path / "secret.json").write_text("{}")
    for name in ("..%2Fsecret.json", "secret.json", "1-g0-h0.json", "%2Fetc%2Fpasswd", "1-g0-h0.txt"):
        r = client.get(f"/api/records/{name}/ledger")
        assert r.status_code == 404, name
        assert "error" in r.json()
    (tmp_path / "hands" / "5-g0-h0.json").write_text('{"format": "nothing"}')
    r = client.get("/api/records/5-g0-h0.json/ledger")
    assert r.status_code == 422 and r.json()["error"]
    state = play_out(client, new_game(client))
    name = state["records"][-1]
    assert client.get(f"/api/records/{name}/ledger?seat=x").status_code == 400
    r = client.get(f"/api/records/{name}/ledger?seat=7")
    assert r.status_code == 422 and "seat 7" in r.json()["error"]
    # another site's page may not make the server compute one
    r = client.get(f"/api/records/{name}/ledger", headers={"Origin": "http://evil.example"})
    assert r.status_code == 403


def test_a_full_ledger_pool_is_a_503_and_moves_still_answer(client):
    """Its workers busy and as many requests waiting as it takes: the next is refused, a move is not."""
    state = new_game(client)
    client.app.state.pools.busy["ledger"] = web_app.WORK["ledger"][1] + web_app.WAITING["ledger"]
    r = client.get("/api/records/1-g0-h0.json/ledger")
    assert r.status_code == 503 and r.headers["retry-after"]
    o = state["options"][0]
    assert client.post(f"/api/games/{state['id']}/move", json={"card": o["card"], "take": o["take"]}).status_code == 200


@pytest.mark.core("the hint evaluator")
def test_ledgers_past_the_workers_wait_their_turn(client):
    """The page asks at every hand's end: a request that finds the workers busy waits (up to WAITING of them)."""
    state = play_out(client, new_game(client))
    client.app.state.pools.busy["ledger"] = web_app.WORK["ledger"][1]  # every worker counted busy, none waiting
    r = client.get(f"/api/records/{state['records'][-1]}/ledger")
    assert r.status_code == 200, r.text
    assert r.json()["finished"]


@pytest.mark.core("the hint evaluator")
def test_the_score_sheet_sums_to_the_game_and_the_ledgers_to_its_margin(client, tmp_path):
    state = new_game(client)
    for k in range(40):
        state = play_out(client, state, pick=k)
        assert len(state["sheet"]) == state["hand_number"]
        if state["game_over"]:
            break
        r = client.post(f"/api/games/{state['id']}/next", json={})
        assert r.status_code == 200, r.text
        state = r.json()
        assert not state["hand_over"] and len(state["sheet"]) == state["hand_number"] - 1
    assert state["game_over"]
    sheet = state["sheet"]
    assert [row["hand"] for row in sheet] == list(range(1, len(sheet) + 1))
    assert [row["record"] for row in sheet] == state["records"]
    scores = [s["score"] for s in state["sides"]]
    assert max(scores) >= state["target"]
    for side in range(2):
        assert sum(row["sides"][side]["points"] for row in sheet) == scores[side]
        running = 0
        for row in sheet:
            running += row["sides"][side]["points"]
            assert row["sides"][side]["running"] == running
    # each row is what the hand's saved record says (the sheet reads nothing the records do not hold)
    for row in sheet:
        rec = json.loads((tmp_path / "hands" / row["record"]).read_text())
        for s, side in zip(rec["score"], row["sides"]):
            assert (side["cards"], side["oros"], side["sevens"], side["escobas"], side["lucky_escobas"],
                    side["points"]) == (s["cards_taken"], s["oros_taken"], s["sevens_taken"], s["escobas"],
                                        s["lucky_escobas"], s["total"])
            assert side["lucky_escobas"] <= side["escobas"]  # the lucky deal's escobas are counted inside
    # the game's ledger: the hands' ledgers sum to the game's points margin
    ledgers = [client.get(f"/api/records/{row['record']}/ledger").json() for row in sheet]
    assert sum(led["result"] for led in ledgers) == scores[0] - scores[1]
    assert sum(total_of(led) for led in ledgers) == pytest.approx(scores[0] - scores[1], abs=1e-2)


def test_the_pages_finished_game_is_one_game_of_history(client, tmp_path):
    """The page keeps a person's hands in its folder for `escoba-sim history`: a game played to the target
    there is one game of the history, with the page's scores and result, its opponent rated."""
    from escoba_sim.hands.history import history_of
    from escoba_sim.strategies.levels import rating_of

    state = new_game(client, vs="level:3")
    for k in range(40):
        state = play_out(client, state, pick=k)
        if state["game_over"]:
            break
        state = client.post(f"/api/games/{state['id']}/next", json={}).json()
    assert state["game_over"]
    h = history_of(tmp_path / "hands", luck=False)
    (game,) = h.games
    scores = [s["score"] for s in state["sides"]]
    assert game.scores == scores and [x.name for x in game.hands] == state["records"]
    assert game.won == (1.0 if scores[0] > scores[1] else 0.0)
    assert h.rated == {"ludoteka": [(rating_of("level:3").estimate, game.won)]}
