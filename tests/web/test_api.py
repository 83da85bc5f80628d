"""The page's API (escoba_sim/web) through Starlette's TestClient: games by requests, the same hints as
`play`, saved records that outlive the server, and a clear 4xx for every bad request (a bad move, a forged
or huge record, a plugin or a file named by a request, another site's form, a wrong Host)."""

import json
import re
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette 1.x would rather have httpx2; httpx is what its TestClient runs on
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from escoba_sim.game.cards import parse_card  # noqa: E402
from escoba_sim.game.engine import Move  # noqa: E402
from escoba_sim.hands.play import Session  # noqa: E402
from escoba_sim.hands.record import replay_record  # noqa: E402
from escoba_sim.lineup import table_seats  # noqa: E402
from escoba_sim.web import games  # noqa: E402
from escoba_sim.web.app import MAX_BODY, create_app  # noqa: E402

SAMPLES = 300  # deals per hint in these tests: the numbers are compared, not judged


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(tmp_path / "hands", samples=SAMPLES, max_games=3), base_url="http://127.0.0.1")


def new_game(client, **kw):
    r = client.post("/api/games", json={"rules": "ludoteka", "vs": "greedy", **kw})
    assert r.status_code == 200, r.text
    return r.json()


def play_out(client, state, blow_option=0):
    """Play the hand to its end, always the first move; at a blow, option ``blow_option`` (0: not blowing)."""
    while not state["hand_over"]:
        gid = state["id"]
        if state["decision"] == "blow":
            r = client.post(f"/api/games/{gid}/blow", json={"option": blow_option})
        else:
            o = state["options"][0]
            r = client.post(f"/api/games/{gid}/move", json={"card": o["card"], "take": o["take"]})
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def test_a_hand_played_by_requests_is_saved_as_a_legal_record_that_outlives_the_server(client, tmp_path):
    state = new_game(client)
    assert state["decision"] == "move" and len(state["hand"]) == 3 and state["players"] == 2
    state = play_out(client, state)
    assert state["score"] and len(state["records"]) == 1
    name = state["records"][0]
    r = client.get(f"/records/{name}")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record = r.json()
    final, problems = replay_record(record)  # the very JSON `replay` and `analyze` read
    assert not problems and final.over
    assert record["strategies"][0] == "person"
    assert sum(row["total"] for row in record["score"]) == sum(s["score"] for s in state["sides"])
    # a new server on the same folder (a restart) lists and serves the record
    again = TestClient(create_app(tmp_path / "hands", samples=SAMPLES), base_url="http://127.0.0.1")
    assert again.get("/api/records").json()["records"] == [name]
    assert again.get(f"/records/{name}").json() == record


@pytest.mark.core("the hint evaluator")
def test_analysis_of_a_finished_hand_gives_each_decision_with_its_position(client):
    state = play_out(client, new_game(client))
    r = client.get(f"/api/records/{state['records'][0]}/analysis?seat=0")
    assert r.status_code == 200, r.text
    an = r.json()
    assert an["decisions"] and {d["seat"] for d in an["decisions"]} == {0}
    chosen = [d for d in an["decisions"] if not d["forced"]]
    assert chosen
    for d in chosen:
        assert d["loss"] >= -1e-9 and d["best"] and d["value_best"] and "mark" in d
    first = an["decisions"][0]["position"]
    assert first["hand"] == sorted(first["hand"], key=parse_card) and len(first["hand"]) == 3


@pytest.mark.core("the hint evaluator")
def test_the_hint_is_plays_hint_for_the_same_deal(client, tmp_path):
    """The page and `play` (hands.play.Session) value the same position with the same seed: the same numbers."""
    game = games.WebGame("g", {"rules": "ludoteka", "vs": "greedy"}, tmp_path / "web", SAMPLES, seed=11)
    hint = game.hint()
    said = []
    answers = iter(["?"])
    session = Session(table_seats("ludoteka", ["greedy"]), 11, tmp_path / "term", ask=lambda p: next(answers, None),
                      say=said.append, samples=SAMPLES)
    session.play(1, hands_mode=True)
    lines = [line for line in said if re.match(r"\s+\d\) ", line) and ("±" in line or "exact" in line)]
    assert len(lines) == len(hint["options"]) > 0
    for line, option in zip(lines, hint["options"]):
        assert option["label"] in line and line.rstrip().endswith(option["text"])


def test_take_back_restores_the_position_before_the_persons_last_move(client):
    state = new_game(client)
    gid, before = state["id"], state
    assert not state["can_undo"]
    o = state["options"][-1]
    after = client.post(f"/api/games/{gid}/move", json={"card": o["card"], "take": o["take"]}).json()
    assert after["can_undo"]
    back = client.post(f"/api/games/{gid}/undo", json={}).json()
    for key in ("hand", "table", "stock", "options", "events", "sides"):
        assert back[key] == before[key], key
    r = client.post(f"/api/games/{gid}/undo", json={})
    assert r.status_code == 409 and "nothing to take back" in r.json()["error"]


def test_games_in_several_tabs_keep_their_own_state_and_memory_is_bounded(client):
    a, b = new_game(client), new_game(client, vs="maxoros")
    o = a["options"][0]
    client.post(f"/api/games/{a['id']}/move", json={"card": o["card"], "take": o["take"]})
    assert client.get(f"/api/games/{b['id']}").json() == b
    assert client.get(f"/api/games/{a['id']}").json()["hand"] != a["hand"]
    new_game(client), new_game(client)  # max_games=3: the least recently used (b) goes
    r = client.get(f"/api/games/{b['id']}")
    assert r.status_code == 404 and "new one" in r.json()["error"]
    assert client.get(f"/api/games/{a['id']}").status_code == 200
    # b's hand had begun (you deal hand 0, so the computer played first) but the person never moved in it:
    # nothing of it is worth a file (tests/web/test_limits.py: a flood of new games writes none)
    assert client.get("/api/records").json()["records"] == []


def test_a_server_that_stops_saves_the_hands_in_play_as_unfinished(tmp_path):
    with TestClient(create_app(tmp_path / "hands", samples=SAMPLES), base_url="http://127.0.0.1") as client:
        state = new_game(client)
        o = state["options"][0]
        client.post(f"/api/games/{state['id']}/move", json={"card": o["card"], "take": o["take"]})
    saved = list((tmp_path / "hands").glob("*-unfinished.json"))
    assert len(saved) == 1
    record = json.loads(saved[0].read_text())
    assert record["unfinished"].startswith("interrupted") and record["moves"]
    _, problems = replay_record(record)
    assert [p.move for p in problems] == [None]  # only "unfinished", no illegal move


def test_four_players_in_teams_and_blows_under_tradicional(client):
    state = new_game(client, rules="tradicional", teams=True)
    assert state["players"] == 4 and state["teams"] and len(state["sides"]) == 2
    assert state["sides"][0]["seats"] == [0, 2]
    # a blow request when no blow is open is refused; a hand played to its end (offered blows declined) is legal
    assert client.post(f"/api/games/{state['id']}/blow", json={"option": 0}).status_code == 409
    final = play_out(client, state)
    _, problems = replay_record(client.get(f"/records/{final['records'][0]}").json())
    assert not problems


def test_a_blow_offered_to_the_person_can_be_taken(tmp_path):
    """Find a deal of tradicional where the computer lays a card that could capture, and blow it."""
    for seed in range(200):
        game = games.WebGame("g", {"rules": "tradicional", "vs": "random"}, tmp_path, SAMPLES, seed=seed)
        while not game.st.over and game.decision()[0] == "move":
            _, options = game.decision()
            game.play({"card": _code(options[0].card), "take": [_code(c) for c in options[0].take]})
        if game.decision()[0] == "blow":
            break
    else:
        pytest.fail("no deal offered a blow in 200 seeds")
    kind, options = game.decision()
    taken = len(game.st.moves)
    game.blow({"option": 1})
    assert game.st.moves[taken].soplar and game.state()["events"][-1]["kind"] == "blow"
    game.undo()  # a blow of this turn is taken back alone
    assert len(game.st.moves) == taken and game.decision()[0] == "blow"


def _code(card: int) -> str:
    from escoba_sim.game.cards import card_str

    return card_str(card)


@pytest.mark.parametrize("body, status, words", [
    ({"card": "0o"}, 400, "card"),  # no such card
    ({"card": 5}, 400, "card"),
    ({"card": "1o", "take": "Rc"}, 400, "a move is"),
    ({"card": "1o", "take": ["1o"] * 11}, 400, "a move is"),
    ("5o", 400, "a move is"),
])
def test_a_malformed_move_is_a_400(client, body, status, words):
    gid = new_game(client)["id"]
    r = client.post(f"/api/games/{gid}/move", json=body)
    assert r.status_code == status and words in r.json()["error"]


def test_an_illegal_move_is_a_409_that_says_why(client):
    state = new_game(client)
    not_mine = next(c for c in ("1o", "2o", "3o", "4o", "5o") if c not in state["hand"] and c not in state["table"])
    r = client.post(f"/api/games/{state['id']}/move", json={"card": not_mine, "take": []})
    assert r.status_code == 409 and "your hand" in r.json()["error"]
    # a card of the hand with a take that is not one of its captures
    card = state["hand"][0]
    wrong = [c for c in ("1o", "2o", "3o", "4o", "5o", "6o") if c not in state["table"]][:2]
    r = client.post(f"/api/games/{state['id']}/move", json={"card": card, "take": wrong})
    assert r.status_code == 409 and r.json()["error"]


@pytest.mark.parametrize("body, words", [
    ({"rules": "evil.toml"}, "file"),  # a file named by a request is never opened
    ({"rules": "ludoteka(players=7)"}, "players"),
    ({"vs": "examples/lowcard.py:LowCard"}, "plugin"),
    ({"vs": "oracle"}, "cheats"),
    ({"vs": "nosuch"}, "unknown strategy"),
    ({"teams": "yes"}, "teams"),
    ({"rules": "x" * 500}, "short line"),
    ([1, 2], "JSON object"),
])
def test_a_bad_new_game_is_a_400(client, body, words, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evil.toml").write_text('preset = "ludoteka"\n')
    request = {"rules": "ludoteka", "vs": "greedy", **body} if isinstance(body, dict) else body
    r = client.post("/api/games", json=request)
    assert r.status_code == 400, r.text
    assert words in r.json()["error"]
    assert "Traceback" not in r.text


@pytest.mark.core("the hint evaluator")  # /api/analyze values the decisions
def test_a_forged_record_runs_no_code_and_opens_no_file(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "ran"
    (tmp_path / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('x')\nclass Evil: pass\n")
    state = play_out(client, new_game(client))
    record = client.get(f"/records/{state['records'][0]}").json()
    forged = {**record, "strategies": ["evil.py:Evil", "evil.py:Evil"]}
    r = client.post("/api/analyze?seat=0", json=forged)
    assert r.status_code == 200, r.text  # the names are text: analysed, never loaded
    assert not marker.exists()
    for bad, words in (({**record, "rules": "evil.toml"}, "file"), ({**record, "moves": record["moves"][::-1]}, ""),
                       ({**record, "deck": "1o 1o"}, "deck"), ({"format": "other"}, "format"), (["x"], "object")):
        r = client.post("/api/analyze", json=bad)
        assert r.status_code == 422, (bad, r.text)
        assert words in r.json()["error"]
    assert not marker.exists()


def test_a_huge_deep_or_non_json_body_is_refused(client):
    big = json.dumps({"pad": "x" * (MAX_BODY + 1)})
    r = client.post("/api/analyze", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "KiB" in r.json()["error"]
    r = client.post("/api/analyze", content="[" * 100 + "]" * 100, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "deep" in r.json()["error"]
    r = client.post("/api/analyze", content="{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "JSON" in r.json()["error"]
    r = client.post("/api/analyze", content=b"\xff\xfe", headers={"content-type": "application/json"})
    assert r.status_code == 400
    # another site's form posts form data, never JSON: refused before anything runs
    form = {"content-type": "application/x-www-form-urlencoded"}
    r = client.post("/api/games", content="rules=ludoteka", headers=form)
    assert r.status_code == 415


def test_unknown_names_are_404s_and_no_path_escapes_the_folder(client, tmp_path):
    assert client.get("/api/games/nosuch").status_code == 404
    assert client.post("/api/games/nosuch/hint", json={}).status_code == 404
    assert client.get("/cards/9x.svg").status_code == 404
    assert client.get("/nowhere").json() == {"error": "not found"}
    (tmp_path / "secret.json").write_text("{}")
    for name in ("..%2Fsecret.json", "secret.json", "1-g0-h0.json", "%2Fetc%2Fpasswd"):
        r = client.get(f"/records/{name}")
        assert r.status_code == 404, name
        assert client.get(f"/api/records/{name}/analysis").status_code == 404
    r = client.get("/api/games")  # a GET where only POST goes
    assert r.status_code == 405 and "method" in r.json()["error"]


def test_a_request_for_another_host_name_is_refused(tmp_path):
    """A page of another site cannot reach the local server by rebinding its own name to 127.0.0.1."""
    client = TestClient(create_app(tmp_path), base_url="http://evil.example")
    assert client.get("/").status_code == 400


def test_the_page_speaks_the_browsers_language_and_the_switch_sticks(client):
    es = client.get("/", headers={"accept-language": "es-ES,es;q=0.9"})
    assert 'lang="es"' in es.text and "Nueva partida" in es.text and "New game" not in es.text
    words = json.loads(re.search(r'<script type="application/json" id="words">(.*?)</script>', es.text).group(1))
    assert words["no_blow"] == "no soplar"
    en = client.get("/", headers={"accept-language": "en-US"})
    assert 'lang="en"' in en.text and "New game" in en.text
    switched = client.get("/?lang=en", headers={"accept-language": "es"})
    assert "New game" in switched.text and switched.cookies.get("lang") == "en"
    assert "New game" in client.get("/", headers={"accept-language": "es"}).text  # the cookie wins now
    assert "Content-Security-Policy" in es.headers


def test_cards_are_svg_with_their_suit_and_the_figures_names():
    from escoba_sim.web import cards

    codes = cards.all_codes()
    assert len(codes) == 40 and len({cards.card_svg(c) for c in codes}) == 40
    assert "sota" in cards.card_svg("So") and "caballo" in cards.card_svg("Cc") and "rey" in cards.card_svg("Rb")
    for s, code in enumerate(("1o", "1c", "1e", "1b")):
        assert cards.COLOURS[s][0] in cards.card_svg(code)
    assert Move  # the engine's moves are what the page posts


@pytest.mark.parametrize("headers,cookies,words", [
    ({"accept-language": "es-ES,es;q=0.9"}, {}, "no hay nada que deshacer"),
    ({"accept-language": "en-GB"}, {"lang": "es"}, "no hay nada que deshacer"),  # the page's switch wins
    ({"accept-language": "es"}, {"lang": "en"}, "nothing to take back"),
])
def test_an_error_is_said_in_the_pages_language(client, headers, cookies, words):
    gid = new_game(client)["id"]
    client.cookies.clear()
    for name, value in cookies.items():
        client.cookies.set(name, value)
    r = client.post(f"/api/games/{gid}/undo", json={}, headers=headers)
    assert r.status_code == 409 and words in r.json()["error"]
    r = client.get("/api/nowhere", headers=headers)
    assert r.status_code == 404 and r.json()["error"] == ("no encontrado" if "deshacer" in words else "not found")


@pytest.mark.core("the hand reading")
def test_the_hint_says_what_the_other_seat_probably_holds_in_the_pages_language(client, monkeypatch):
    from escoba_sim.web import games

    # a known deal: on some deals seat 1's first move says little, and the hint says that instead
    monkeypatch.setattr(games, "draw_seed", lambda: 1)
    state = new_game(client)  # seat 0 deals the first hand: seat 1 has played once when the person is asked
    gid = state["id"]
    hint = client.post(f"/api/games/{gid}/hint", json={}).json()
    seat = hint["reading"]["seats"][0]
    assert hint["reading"]["reader"] == 0 and seat["seat"] == 1 and seat["read"] and len(seat["moves"]) == 1
    assert all(0 <= v["p"] <= 1 for v in seat["values"].values())
    assert hint["reading_text"] and "seat 1 probably holds, from its move since the deal:" in hint["reading_text"]
    spanish = client.post(f"/api/games/{gid}/hint?lang=es", json={}).json()
    assert "asiento 1 probablemente tiene, por su jugada desde el reparto:" in spanish["reading_text"]
    assert spanish["reading"] == hint["reading"]  # numbers and card codes: the same in every language


def test_a_refused_new_game_is_said_in_the_pages_language(client):
    # issue 38: the library's refusals (an unknown preset, a bad field, an impossible deal) reached the Spanish
    # page in English; each request's work now runs in its page's language (i18n.in_thread)
    for body, spanish in (({"rules": "nope", "vs": "greedy"}, "predefinido desconocido `nope`"),
                          ({"rules": "ludoteka(sevens=x)", "vs": "greedy"}, "no es ninguno de majority, all"),
                          ({"rules": "robo(hand_size=10)", "vs": "greedy", "teams": True}, "pero la baraja tiene 40")):
        es = client.post("/api/games?lang=es", json=body)
        en = client.post("/api/games?lang=en", json=body)
        assert es.status_code == en.status_code == 400
        assert spanish in es.json()["error"], es.json()
        assert spanish not in en.json()["error"] and en.json()["error"] != es.json()["error"]


def test_a_language_chosen_in_one_thread_leaves_the_others_alone():
    import threading

    from escoba_sim import i18n

    seen = []
    inside, done = threading.Event(), threading.Event()

    def wait():
        inside.set()
        done.wait(5)

    def spanish():
        seen.append(i18n.in_thread("es", lambda: (wait(), i18n.current())[1]))

    t = threading.Thread(target=spanish)
    t.start()
    inside.wait(5)
    seen.append(i18n.current())
    done.set()
    t.join()
    assert seen == ["en", "es"] and i18n.current() == "en"
