"""The page's web app (``escoba-sim serve``): a Starlette application and the uvicorn server that runs it.

Routes: ``/`` the page (English or Spanish: ``?lang=``, then the ``lang`` cookie the switch sets, then
the browser's ``Accept-Language``), ``/cards/CODE.svg`` the card images, ``/static/`` the script and
style, ``/api/...`` the games (JSON in, JSON out; ``games.WebGame``), the saved records and their
analysis, and ``/records/NAME`` a record's download. Every error is a JSON ``{"error": one line}``
with a 4xx (5xx only for a failure of the server itself), never a traceback. Bodies are bounded, POSTs
must be JSON (so that no other site's form can post to the page), and the Host header must name the
server (no DNS rebinding onto a local service).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import webbrowser
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import __version__, files, i18n
from ..game.cards import CardError
from ..hands.evaluate import DEFAULT_SAMPLES
from ..i18n import N_
from . import cards, games
from .words import page_words

HERE = Path(__file__).resolve().parent
MAX_BODY = 256 * 1024  # a hand record is a few kilobytes; a game request a few bytes
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8015
DEFAULT_OUT = "escoba-play"  # as play's --out: the page's hands sit beside the terminal's
HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Content-Security-Policy": "default-src 'self'; img-src 'self'; object-src 'none'; "
                                      "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"}


def _templates(lang: str) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                             extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(i18n.translation(lang), newstyle=True)
    return env


def error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=HEADERS)


def said(request: Request, message: str) -> str:
    """A message of ours in the page's language."""
    return i18n.translation(page_language(request)).gettext(message)


def page_language(request: Request) -> str:
    for choice in (request.query_params.get("lang"), request.cookies.get("lang")):
        code = i18n.normalize(choice) if choice and len(choice) < 20 else None
        if code:
            return code
    return i18n.from_accept_language(request.headers.get("accept-language"))


async def read_json(request: Request) -> Any:
    """The request's JSON body: at most MAX_BODY bytes (413 past it), UTF-8, bounded depth."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise games.WebError(N_("send JSON (Content-Type: application/json)"), 415)
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise games.WebError(N_("the request is larger than {size} KiB"), 413, size=MAX_BODY // 1024)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise games.WebError(N_("the request is larger than {size} KiB"), 413, size=MAX_BODY // 1024)
    if not body:
        return {}
    try:
        return files.parse_json(body.decode("utf-8"), "the request", max_depth=16, finite=True)
    except UnicodeDecodeError:
        raise games.WebError(N_("the request is not UTF-8 text"), 400) from None
    except files.UntrustedFile as e:
        raise games.WebError(files.first_line(e), 400) from None


def _seat_query(request: Request) -> list[int] | None:
    raw = request.query_params.get("seat")
    if raw is None or raw == "all":
        return None
    if not raw.isdigit() or len(raw) > 2:
        raise games.WebError(N_("`seat` must be a seat number or all"))
    return [int(raw)]


def create_app(out: str | Path = DEFAULT_OUT, *, samples: int = DEFAULT_SAMPLES, max_games: int = games.MAX_GAMES,
               hosts: list[str] | None = None) -> Starlette:
    """The app; ``out`` is the folder of the hand records, ``samples`` the evaluator's deals per decision
    (hints and analysis), ``hosts`` the Host names it answers (default: the loopback names)."""
    out = Path(out)
    store = games.GameStore(out, max_games, samples)
    envs = {lang: _templates(lang) for lang in i18n.LANGUAGES}

    def json_route(handler):
        """A JSON endpoint whose WebErrors become their 4xx; the work runs in a worker thread."""
        async def endpoint(request: Request) -> Response:
            try:
                data = await read_json(request) if request.method == "POST" else None
                result = await run_in_threadpool(handler, request, data)
            except games.WebError as e:
                return error(e.said(page_language(request)), e.status)
            return JSONResponse(result, headers=HEADERS)
        return endpoint

    def game_action(action: str):
        def handler(request: Request, data: Any) -> dict[str, Any]:
            game = store.get(request.path_params["game_id"])
            with game.lock:
                if action == "hint":
                    return game.hint(page_language(request))
                if action in ("play", "blow"):
                    getattr(game, action)(data)
                elif action != "state":
                    getattr(game, action)()
                return game.state()
        return json_route(handler)

    def new_game(request: Request, data: Any) -> dict[str, Any]:
        game = store.new(data)
        with game.lock:
            return game.state()

    def record_list(request: Request, data: Any) -> dict[str, Any]:
        return {"records": games.saved_records(out)[:200]}

    def record_analysis(request: Request, data: Any) -> dict[str, Any]:
        raw = games.read_record(out, request.path_params["name"])
        try:
            record = files.parse_json(raw.decode("utf-8"), "the record", finite=True)
        except (UnicodeDecodeError, files.UntrustedFile):
            raise games.WebError(N_("the saved record is not a hand record"), 422) from None
        return games.analyze(record, _seat_query(request), samples)

    def upload_analysis(request: Request, data: Any) -> dict[str, Any]:
        return games.analyze(data, _seat_query(request), samples)

    async def page(request: Request) -> Response:
        lang = page_language(request)
        html = envs[lang].get_template("index.html").render(
            lang=lang, languages=i18n.LANGUAGES, words=page_words(lang), rulesets=games.rulesets(),
            opponents=games.opponents(), version=__version__)
        response = HTMLResponse(html, headers=HEADERS)
        if request.query_params.get("lang") == lang:
            response.set_cookie("lang", lang, max_age=365 * 24 * 3600, samesite="strict")
        return response

    async def card_image(request: Request) -> Response:
        try:
            svg = cards.card_svg(request.path_params["code"])
        except CardError:
            return error(said(request, N_("no such card")), 404)
        return Response(svg, media_type="image/svg+xml", headers={**HEADERS, "Cache-Control": "max-age=86400"})

    async def download(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            data = games.read_record(out, name)
        except games.WebError as e:
            return error(e.said(page_language(request)), e.status)
        return Response(data, media_type="application/json",
                        headers={**HEADERS, "Content-Disposition": f'attachment; filename="{name}"'})

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        return error(said(request, N_("not found") if status == 404 else N_("this address does not take that method")),
                     status)

    async def failed(request: Request, exc: Exception) -> Response:
        return error(said(request, N_("the server failed on this request; it is still running")), 500)

    routes = [
        Route("/", page),
        Route("/cards/{code}.svg", card_image),
        Route("/api/games", json_route(new_game), methods=["POST"]),
        Route("/api/games/{game_id}", game_action("state")),
        *(Route(f"/api/games/{{game_id}}/{name}", game_action(action), methods=["POST"])
          for name, action in (("move", "play"), ("blow", "blow"), ("undo", "undo"), ("hint", "hint"),
                               ("next", "next_hand"))),
        Route("/api/records", json_route(record_list)),
        Route("/api/records/{name}/analysis", json_route(record_analysis)),
        Route("/api/analyze", json_route(upload_analysis), methods=["POST"]),
        Route("/records/{name}", download),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    allowed = hosts or ["127.0.0.1", "localhost", "[::1]", "testserver"]
    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        store.close()  # the hands in play are saved as unfinished records

    app = Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed)],
                    exception_handlers={404: not_found, 405: not_found, 500: failed}, lifespan=lifespan)
    app.state.games = store  # for a benchmark or a test that seats a game at a known seed
    return app


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, out: str | Path = DEFAULT_OUT, *,
          open_browser: bool = False, samples: int = DEFAULT_SAMPLES, on_ready=None) -> None:
    """Run the page until Ctrl-C. Binds ``host`` (loopback by default: another address only when asked);
    ``on_ready(url)`` is called once the address is bound. A busy port or a bad address is an OSError."""
    import uvicorn

    out = Path(out)
    hosts = ["127.0.0.1", "localhost", "[::1]"] + ([] if host in ("127.0.0.1", "localhost") else ["*"])
    app = create_app(out, samples=samples, hosts=hosts)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    # bound here, before uvicorn starts, so that a busy port or a bad address is one OSError for the caller
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    if on_ready is not None:
        on_ready(url)
    if open_browser:
        threading.Timer(1.0, webbrowser.open, (url,)).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])
