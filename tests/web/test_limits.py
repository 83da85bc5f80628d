"""The page's limits and refusals (issue 36), through Starlette's TestClient: an opponent over the page's search
budget is a 422 naming the bound, a computer's move past its wall budget is taken back (503), a full pool is a
503 with Retry-After, another site's requests are 403s, every loopback spelling keeps the Host check, a
failed save stays pending and is tried again without a path in any reply, a flood of new games writes no
file and evicts nobody else's game, and the two 500s of the third pass are 4xx."""

import json
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from escoba_sim.web import app as web_app  # noqa: E402
from escoba_sim.web import games  # noqa: E402
from escoba_sim.web.app import ServeError, create_app, listening_address  # noqa: E402

SAMPLES = 200


def client_for(out: Path, address: str = "127.0.0.1", **kw) -> TestClient:
    return TestClient(create_app(out, samples=SAMPLES, **kw), base_url="http://127.0.0.1", client=(address, 50000))


def new_game(client, **kw):
    r = client.post("/api/games", json={"rules": "ludoteka", "vs": "greedy", **kw})
    assert r.status_code == 200, r.text
    return r.json()


def move(client, state, k=0):
    o = state["options"][k]
    r = client.post(f"/api/games/{state['id']}/move", json={"card": o["card"], "take": o["take"]})
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("vs, key, limit", [("ismcts:iters=100000,stop=0,exact=12,leaf=40", "iters", "20,000"),
                                            ("ismcts:exact=12", "exact", "8"), ("ismcts:leaf=40", "leaf", "12"),
                                            ("endgame:max_cards=12", "max_cards", "8")])
def test_an_opponent_over_the_pages_search_budget_is_a_422_naming_the_bound(tmp_path, vs, key, limit):
    r = client_for(tmp_path).post("/api/games", json={"vs": vs})
    assert r.status_code == 422
    message = r.json()["error"]
    assert f"`{key}` up to {limit}" in message and "\n" not in message


@pytest.mark.core("ismcts")
def test_an_opponent_at_the_pages_bounds_plays(tmp_path):
    state = new_game(client_for(tmp_path), vs="ismcts:iters=20000,exact=8,leaf=12")
    assert state["decision"] == "move"


@pytest.mark.core("ismcts")
def test_a_computer_move_past_its_wall_budget_takes_the_persons_move_back(tmp_path, monkeypatch):
    client = client_for(tmp_path)
    state = new_game(client, vs="ismcts:stop=0")
    monkeypatch.setitem(web_app.WORK, "play", (0.0, 4))  # a budget of no time: the search stops at once
    o = state["options"][0]
    r = client.post(f"/api/games/{state['id']}/move", json={"card": o["card"], "take": o["take"]})
    assert r.status_code == 503 and "taken back" in r.json()["error"]
    monkeypatch.setitem(web_app.WORK, "play", (10.0, 4))
    assert client.get(f"/api/games/{state['id']}").json() == state  # as before the move, not half applied
    assert move(client, state)["hand"] != state["hand"]


def test_a_full_analysis_pool_is_a_503_with_retry_after_and_moves_still_answer(tmp_path):
    client = client_for(tmp_path)
    state = new_game(client)
    pools = client.app.state.pools
    pools.busy["analysis"] = web_app.WORK["analysis"][1]  # every analysis worker taken
    r = client.post("/api/analyze", json={})
    assert r.status_code == 503 and r.headers["retry-after"].isdigit() and "busy" in r.json()["error"]
    assert move(client, state)["hand"] != state["hand"]


@pytest.mark.parametrize("headers", [{"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"},
                                     {"sec-fetch-site": "same-site"}, {"origin": "null"}])
def test_another_sites_requests_that_change_or_compute_are_403s(tmp_path, headers):
    client = client_for(tmp_path)
    state = new_game(client)
    assert client.post("/api/games", json={}, headers=headers).status_code == 403
    o = state["options"][0]
    assert client.post(f"/api/games/{state['id']}/move", json={"card": o["card"], "take": o["take"]},
                       headers=headers).status_code == 403
    for path in ("/api/records", "/api/records/1-g0-h0.json/analysis", "/records/1-g0-h0.json",
                 f"/api/games/{state['id']}"):
        r = client.get(path, headers=headers)
        assert r.status_code == 403 and "another site" in r.json()["error"], path
    assert client.get("/", headers=headers).status_code == 200  # the page and its files stay linkable
    assert client.get("/static/page.css", headers=headers).status_code == 200


def test_the_pages_own_requests_pass_the_origin_check(tmp_path):
    client = client_for(tmp_path)
    same = {"origin": "http://127.0.0.1", "sec-fetch-site": "same-origin"}
    state = client.post("/api/games", json={}, headers=same).json()
    assert client.get(f"/api/games/{state['id']}", headers=same).status_code == 200
    assert client.get("/api/records", headers={"sec-fetch-site": "none"}).status_code == 200  # typed in


@pytest.mark.parametrize("host", ["127.0.0.1", "127.1", "127.0.0.2", "::1", "localhost"])
def test_every_loopback_spelling_keeps_the_host_check(tmp_path, host):
    try:
        _address, _family, hosts, open_to_any = listening_address(host, 8015, None)
    except OSError:
        pytest.skip(f"{host} does not resolve here")
    assert not open_to_any and "*" not in hosts
    app = create_app(tmp_path, hosts=hosts)
    assert TestClient(app, base_url="http://evil.example").get("/").status_code == 400
    assert TestClient(app, base_url="http://evil.example:8015").get("/api/records").status_code == 400
    assert TestClient(app, base_url="http://127.0.0.1:8015").get("/").status_code == 200
    assert TestClient(app, base_url="http://localhost:8015").get("/").status_code == 200


def test_a_network_address_needs_the_names_it_answers_and_an_empty_one_is_refused(tmp_path):
    for host in ("", "  "):
        with pytest.raises(ServeError, match="give an address"):
            listening_address(host, 8015, None)
    with pytest.raises(ServeError, match="allow_hosts"):
        listening_address("0.0.0.0", 8015, None)
    _a, _f, hosts, open_to_any = listening_address("0.0.0.0", 8015, ["escoba.lan"])
    assert not open_to_any and "escoba.lan" in hosts and "*" not in hosts
    app = create_app(tmp_path, hosts=hosts)
    assert TestClient(app, base_url="http://escoba.lan:8015").get("/").status_code == 200
    assert TestClient(app, base_url="http://evil.example:8015").get("/").status_code == 400
    assert listening_address("0.0.0.0", 8015, ["*"])[2:] == (["*"], True)
    assert "proxy.local" in listening_address("127.0.0.1", 8015, ["proxy.local"])[2]  # a local proxy's name


@pytest.mark.parametrize("seat", ["²", "①", "٣", "-1", "1.0", "", "123"])
def test_a_seat_that_is_not_ascii_digits_is_a_400(tmp_path, seat):
    r = client_for(tmp_path).post(f"/api/analyze?seat={seat}", json={})
    assert r.status_code == 400 and "`seat`" in r.json()["error"]


def test_a_teams_game_whose_deal_does_not_fit_four_hands_is_a_400_with_the_reason(tmp_path):
    r = client_for(tmp_path).post("/api/games", json={"rules": "robo(hand_size=10)", "teams": True})
    assert r.status_code == 400
    assert "deck holds 40" in r.json()["error"] and "\n" not in r.json()["error"]


def play_to_the_end(client, state):
    while not state["hand_over"]:
        if state["decision"] == "blow":
            r = client.post(f"/api/games/{state['id']}/blow", json={"option": 0})
            assert r.status_code == 200, r.text
            state = r.json()
        else:
            state = move(client, state)
    return state


def test_a_failed_save_keeps_the_record_pending_tells_the_page_and_is_saved_once_the_folder_works(tmp_path):
    out = tmp_path / "hands"
    client = client_for(out)
    state = new_game(client)
    state = move(client, state)
    aside = tmp_path / "aside"
    out.mkdir(parents=True, exist_ok=True)
    out.rename(aside)
    out.write_text("not a folder")  # mkdir: [Errno 17] File exists
    state = play_to_the_end(client, state)
    assert state["unsaved"] == 1 and state["records"] == []
    body = json.dumps(state)
    assert str(tmp_path) not in body and "Errno" not in body
    out.unlink()
    aside.rename(out)
    state = client.get(f"/api/games/{state['id']}").json()  # the next request tries again
    assert state["unsaved"] == 0 and len(state["records"]) == 1
    assert (out / state["records"][0]).is_file()


def test_a_record_whose_save_keeps_failing_outlives_the_server_in_the_journal(tmp_path, monkeypatch):
    out = tmp_path / "hands"

    def failing(*a, **kw):
        raise games.SaveFailed("no room", cause=OSError(28, "No space left on device"))

    with client_for(out) as client:
        monkeypatch.setattr(games, "write_record", failing)  # records fail; the journal beside them works
        state = play_to_the_end(client, move(client, new_game(client)))
        assert state["unsaved"] == 1
    assert not list(out.glob("*.json")) and len(list((out / games.JOURNAL).glob("*.json"))) == 1
    monkeypatch.undo()
    app = create_app(out, samples=SAMPLES)  # a restart on the same folder saves what the journal held
    assert app.state.games.recovered and list(out.glob("*-g0-h0.json"))
    assert not list((out / games.JOURNAL).glob("*.json"))


def test_a_flood_of_new_games_writes_no_file_and_keeps_other_clients_games(tmp_path):
    out = tmp_path / "hands"
    person = client_for(out, "10.0.0.1", max_games=8, client_games=4)
    app = person.app
    mine = move(person, new_game(person))
    flood = TestClient(app, base_url="http://127.0.0.1", client=("10.0.0.2", 50000))
    for _ in range(40):
        assert flood.post("/api/games", json={}).status_code == 200
    assert person.get(f"/api/games/{mine['id']}").json() == mine  # not pushed out
    assert not list(out.glob("*.json")) if out.exists() else True  # nobody moved in the flood's games
    assert sum(g.client == "10.0.0.2" for g in app.state.games.games.values()) == 4


def test_past_the_total_a_new_game_is_a_429_when_every_game_is_in_use(tmp_path):
    out = tmp_path / "hands"
    first = client_for(out, "10.0.0.1", max_games=2, client_games=2)
    app = first.app
    for address in ("10.0.0.1", "10.0.0.2"):
        c = TestClient(app, base_url="http://127.0.0.1", client=(address, 50000))
        move(c, new_game(c))
    late = TestClient(app, base_url="http://127.0.0.1", client=("10.0.0.3", 50000))
    r = late.post("/api/games", json={})
    assert r.status_code == 429 and "full" in r.json()["error"]


def test_a_client_past_its_hourly_records_is_a_429(tmp_path, monkeypatch):
    client = client_for(tmp_path)
    monkeypatch.setattr(games, "RECORDS_PER_HOUR", 1)
    play_to_the_end(client, new_game(client))
    r = client.post("/api/games", json={})
    assert r.status_code == 429 and "this hour" in r.json()["error"]


def test_a_nearly_full_disk_is_a_507(tmp_path, monkeypatch):
    monkeypatch.setattr(games, "MIN_FREE_BYTES", 1 << 62)
    r = client_for(tmp_path).post("/api/games", json={})
    assert r.status_code == 507 and "disk" in r.json()["error"]
