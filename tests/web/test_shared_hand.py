"""A hand shared as a link (web/shared.py): a saved record's notation, the hand a posted notation describes (the
same deal, moves and score as the record), and a one-line 4xx for every bad notation the page could be sent."""

import json
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from test_api import play_out  # noqa: E402

from escoba_sim.hands.notation import MAX_LENGTH, from_notation, to_notation  # noqa: E402
from escoba_sim.hands.record import record_for_hand  # noqa: E402
from escoba_sim.web.app import create_app  # noqa: E402


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(tmp_path / "hands", samples=50, max_games=3), base_url="http://127.0.0.1")


def played(client, rules="tradicional"):
    """A hand of the page played to its end, blowing whenever a blow is open (the notation carries blows)."""
    return play_out(client, client.post("/api/games", json={"rules": rules, "vs": "random"}).json(), blow_option=1)


def test_a_saved_hands_notation_opens_as_the_same_hand(client):
    state = played(client)
    name = state["records"][-1]
    record = json.loads(client.get(f"/records/{name}").content)
    r = client.get(f"/api/records/{name}/notation")
    assert r.status_code == 200, r.text
    notation = r.json()["notation"]
    assert r.json()["link"] == "#hand=" + notation
    assert notation == to_notation(record) and from_notation(notation) == record
    h = client.post("/api/hand", json={"notation": notation}).json()
    assert h["record"] == record and h["notation"] == notation
    assert h["deck"] == record["deck"].split() and h["score"] == record["score"] == state["score"]
    moves = [e for e in h["events"] if e["kind"] in ("lay", "capture", "blow")]
    assert [(e["seat"], e["card"], e["take"]) for e in moves] == [(m["player"], m["card"], m["take"])
                                                                  for m in record["moves"]]
    assert h["table"] == [] and h["over"] and h["problems"] == []
    assert h["seats"][0]["strategy"] == "person" and h["seats"][1]["strategy"] == "random"
    # the analysis of the record the server answered is that of the saved record
    a = client.post("/api/analyze?seat=all", json=h["record"]).json()
    assert a == client.get(f"/api/records/{name}/analysis?seat=all").json()


def test_an_unfinished_or_illegal_hand_opens_with_what_is_wrong(client):
    rec = record_for_hand("ludoteka", ["greedy", "random"], 3)
    rec["moves"] = rec["moves"][:5]
    del rec["score"]
    rec["unfinished"] = "quit"
    h = client.post("/api/hand", json={"notation": to_notation(rec)}).json()
    assert not h["over"] and h["unfinished"] == "quit" and "score" not in h and h["problems"]
    assert len([e for e in h["events"] if e["kind"] != "deal"]) == 5


@pytest.mark.parametrize("body,status,words", [
    ({}, 400, "notation"),
    ({"notation": 7}, 400, "notation"),
    ({"notation": "x" * (MAX_LENGTH + 500)}, 413, "longer"),
    ({"notation": "escoba1/evil.toml/d0/7o"}, 422, "cut short"),
    ({"notation": "escoba1/..%2Fevil.toml/d0/" + "7o" * 40 + "/-"}, 422, "rules"),
    ({"notation": "garbage"}, 422, "not a hand notation"),
])
def test_a_bad_notation_is_a_one_line_4xx(client, body, status, words):
    r = client.post("/api/hand", json=body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"] and "\n" not in r.json()["error"]


def test_a_bad_notation_is_said_in_the_pages_language(client):
    r = client.post("/api/hand?lang=es", json={"notation": "escoba1/ludoteka/d0/Xo/-"})
    assert r.status_code == 422 and "la baraja" in r.json()["error"], r.text


def test_another_sites_post_and_a_record_name_the_server_did_not_make_are_refused(client):
    r = client.post("/api/hand", json={"notation": "x"}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert client.get("/api/records/..%2Fetc%2Fpasswd/notation").status_code == 404
    assert client.get("/api/records/nosuch.json/notation").status_code == 404
