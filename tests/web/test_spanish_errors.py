"""Issue 38: every error the page's server returns is said in the request's language. A Spanish page (its
``lang`` cookie, ``?lang=es`` or its browser's Accept-Language) reads Spanish for every kind of bad request: JSON
that does not parse (json's own reason included), too deep, too large, a field missing or of the wrong kind, a
value the library refuses (whose whole reason reaches the page, never cut short with "...")."""

import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from escoba_sim.strategies.registry import BUILTINS  # noqa: E402
from escoba_sim.web.app import MAX_BODY, create_app  # noqa: E402

JSON = {"content-type": "application/json"}
# English a Spanish reader must not meet in an error (the words of the messages that were left in English)
ENGLISH = ("the request", "not valid", "Expecting", "nested", "missing", "unknown", "must be", "larger",
           "Extra data", "is not a number", "digits", "delimiter")


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(tmp_path / "hands", samples=50), base_url="http://127.0.0.1")


def _error(response, status):
    assert response.status_code == status, response.text
    return response.json()["error"]


BAD = [  # (what is sent, the status, a piece of the Spanish answer)
    (b'{"rules": ', 400, "la petición: no es JSON válido (línea 1, columna 11: se esperaba un valor)"),
    (b'{"rules" 1}', 400, "se esperaban dos puntos"),
    (b'{} x', 400, "sobra texto tras el valor"),
    (b'{"a": NaN}', 400, "NaN no es un número"),
    (b'{"a": 1e999}', 400, "1e999 no es un número finito"),
    (b'{"a": ' + b"9" * 5000 + b"}", 400, "un entero de más de 4300 cifras"),
    (b"[" * 40 + b"]" * 40, 400, "la petición: anidado a más de 16 niveles"),
    (b'{"a": "' + b"x" * (MAX_BODY + 10) + b'"}', 413, "la petición ocupa más de"),
    (b'{"rules": "ludoteka", "vs": 3}', 400, "`vs` debe ser una línea corta de texto"),
    (b'{"rules": "nada", "vs": "greedy"}', 400, "predefinido desconocido `nada`"),
    (b'{"rules": "ludoteka", "teams": "x"}', 400, "`teams` debe ser true o false"),
]


@pytest.mark.parametrize("body, status, spanish", BAD, ids=[b[2][:24] for b in BAD])
def test_a_bad_new_game_is_refused_in_spanish(client, body, status, spanish):
    client.cookies.set("lang", "es")
    said = _error(client.post("/api/games", content=body, headers=JSON), status)
    assert spanish in said
    assert not [word for word in ENGLISH if word in said], said


def test_the_same_requests_are_refused_in_english_without_a_spanish_choice(client):
    said = _error(client.post("/api/games", content=b'{"rules": ', headers=JSON), 400)
    assert said == "the request: not valid JSON (line 1, column 11: Expecting value)"


def test_an_unknown_opponent_names_every_strategy_in_spanish_not_cut_short(client):
    said = _error(client.post("/api/games?lang=es", json={"rules": "ludoteka", "vs": "nonsense"}), 400)
    assert said.startswith("estrategia desconocida `nonsense`")
    assert "..." not in said and said.endswith("ruta/al/archivo.py:NombreDeClase")
    assert all(name in said for name in BUILTINS)


def test_a_bad_record_a_bad_move_and_a_bad_notation_are_refused_in_spanish(client):
    spanish = {"accept-language": "es-ES,es;q=0.9"}
    said = _error(client.post("/api/analyze", json={"x": 1}, headers=spanish), 422)
    assert said.startswith("falta el campo `rules`")
    said = _error(client.post("/api/analyze", json={"rules": "zzz"}, headers=spanish), 422)
    assert "predefinido desconocido `zzz`" in said
    game = client.post("/api/games", json={"rules": "ludoteka", "vs": "greedy"}, headers=spanish).json()
    said = _error(client.post(f"/api/games/{game['id']}/move", json={"card": "zz", "take": []}, headers=spanish), 400)
    assert "el palo debe ser" in said
    said = _error(client.post(f"/api/games/{game['id']}/move", json={}, headers=spanish), 400)
    assert said == "`card` debe ser una carta como 5o o Rc"
    said = _error(client.post("/api/hand", json={"notation": "zzz"}, headers=spanish), 422)
    assert said.startswith("no es la notación de una mano")
    assert _error(client.get("/api/analyze", headers=spanish), 405) == "esta dirección no admite ese método"
