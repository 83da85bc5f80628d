"""The page's web app (``escoba-sim serve``): a Starlette application and the uvicorn server that runs it.

Routes: ``/`` the page (English or Spanish: ``?lang=``, then the ``lang`` cookie the switch sets, then
the browser's ``Accept-Language``), ``/cards/CODE.svg`` the card images, ``/static/`` the script and
style, ``/api/...`` the games (JSON in, JSON out; ``games.WebGame``), the saved records, their
analysis, luck ledger and notation, a shared hand read from its notation (``shared.py``), and ``/records/NAME`` a record's
download. Every error is a JSON ``{"error": one line}`` with a 4xx (5xx only for a failure of the server
itself, or 503 with ``Retry-After`` when it is busy), never a traceback. Bodies are bounded in size and read time, POSTs must be JSON (so that no other site's
form can post to the page), a request another site sends to a route that changes or computes something
is refused (``Origin``, ``Sec-Fetch-Site``), and the Host header must name the server (no DNS rebinding
onto a local service). Work that searches (a computer's move, a hint, an analysis) runs in a worker
thread of its own pool under a wall budget (``stops.Stop``), ended early when the client goes away or the
server stops; ``serve`` adds the connection guard (``guard.py``) and the signals.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import os
import socket
import threading
import webbrowser
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jinja2
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import __version__, files, i18n
from ..errors import EscobaError, Parameter
from ..game.cards import CardError
from ..hands.evaluate import DEFAULT_SAMPLES
from ..i18n import N_
from ..i18n import translate as _
from ..stops import Stop, Stopped, running_under
from . import cards, games, guard, shared
from .words import page_words

HERE = Path(__file__).resolve().parent
MAX_BODY = 256 * 1024  # a hand record is a few kilobytes; a game request a few bytes
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8015
DEFAULT_OUT = "escoba-play"  # as play's --out: the page's hands sit beside the terminal's
BODY_SECONDS = 10  # a request's body must arrive within this (408 past it)
LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"]
# The wall budget of each kind of work (seconds; the compiled searches stop at it) and how many run at once:
# the computer's moves beside the person's requests, hints and analyses each on at most half the cores, so
# that static files, new games and moves keep answering while analyses run. Past a pool's size: 503.
CORES = os.cpu_count() or 1
# The ledger (a few seconds of one core per hand) has its pool apart from the analyses', so that the chart the
# page asks for at every hand's end never makes a person's analysis wait, nor the other way round.
# The page asks for a ledger at every hand's end, unasked by the person: past its workers a few requests wait their
# turn (WAITING; their wall budget counts the wait) before one is refused with a 503.
WORK = {"play": (10.0, max(4, 2 * CORES)), "hint": (20.0, max(1, CORES // 2)), "analysis": (30.0, max(1, CORES // 2)),
        "ledger": (60.0, max(1, CORES // 2))}
WAITING = {"ledger": 4}
RETRY_AFTER = "5"
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

    async def read() -> None:
        async for chunk in request.stream():
            body.extend(chunk)
            if len(body) > MAX_BODY:
                raise games.WebError(N_("the request is larger than {size} KiB"), 413, size=MAX_BODY // 1024)

    try:
        await asyncio.wait_for(read(), BODY_SECONDS)
    except TimeoutError:
        raise games.WebError(N_("the request's body did not arrive within {seconds} s"), 408,
                             seconds=BODY_SECONDS) from None
    if not body:
        return {}
    try:
        # parsed in the page's language: what is wrong with the JSON (its line and column, json's reason, a
        # number too long) is said by files.parse_json as it finds it, so it reaches a Spanish page in Spanish
        return i18n.in_thread(page_language(request), lambda: files.parse_json(
            body.decode("utf-8"), _("the request"), max_depth=16, finite=True))
    except UnicodeDecodeError:
        raise games.WebError(N_("the request is not UTF-8 text"), 400) from None
    except files.UntrustedFile as e:
        raise games.WebError.of(e, 400) from None


def _seat_query(request: Request) -> list[int] | None:
    raw = request.query_params.get("seat")
    if raw is None or raw == "all":
        return None
    if not (1 <= len(raw) <= 2 and all(c in "0123456789" for c in raw)):  # not isdigit: '²' is a digit to it
        raise games.WebError(N_("`seat` must be a seat number or all"))
    return [int(raw)]


def cross_site(request: Request) -> bool:
    """Whether another site sent the request (a page elsewhere posting, or fetching an analysis blind): the
    browser's ``Sec-Fetch-Site``, else an ``Origin`` that is not this server's."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site.lower() not in ("same-origin", "none"):
        return True
    origin = request.headers.get("origin")
    if origin is None:
        return False
    try:
        parts = urlsplit(origin)
    except ValueError:
        return True
    return parts.scheme not in ("http", "https") or parts.netloc.lower() != request.headers.get("host", "").lower()


def host_name(header: str) -> str:
    """The name of a Host header without its port: ``[::1]:8015`` -> ``[::1]``, ``Localhost.:80`` ->
    ``localhost``."""
    h = header.strip().lower()
    if h.startswith("["):
        return h[:h.find("]") + 1] if "]" in h else h
    return h.rpartition(":")[0].rstrip(".") if ":" in h else h.rstrip(".")


class HostCheck:
    """Answers only requests whose Host is one of ``allowed`` (``*``: any), so that a page of another site
    cannot rebind its own name onto this server (400 otherwise)."""

    def __init__(self, app, allowed: list[str]):
        self.app, self.any = app, "*" in allowed
        self.allowed = {host_name(h) if h.startswith("[") or h.count(":") <= 1 else f"[{h}]" for h in allowed}

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket") and not self.any:
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if host_name(host) not in self.allowed:
                request = Request(scope)
                response = error(said(request, N_("this server does not answer to that host name")), 400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class Pools:
    """The worker pools of ``WORK`` and the stops of the work in them: ``stop_all`` (the server stops)
    ends every search at once, and every later one as it starts."""

    def __init__(self):
        self.pools = {kind: ThreadPoolExecutor(size, thread_name_prefix=f"escoba-{kind}")
                      for kind, (_seconds, size) in WORK.items()}
        self.busy = dict.fromkeys(WORK, 0)
        self.stops: set[Stop] = set()
        self.stopping = False

    def stop_all(self) -> None:
        self.stopping = True
        for stop in list(self.stops):
            stop.set()

    def close(self) -> None:
        self.stop_all()
        for pool in self.pools.values():
            pool.shutdown(wait=False, cancel_futures=True)

    async def run(self, kind: str, request: Request, work):
        """``work()`` in a thread of ``kind``'s pool under its wall budget; a client that disconnects stops
        it. A full pool is a 503 (``Retry-After``); a budget spent is a 503 too, the game as before."""
        seconds, size = WORK[kind]
        if self.busy[kind] >= size + WAITING.get(kind, 0):
            busy = games.WebError(BUSY[kind], 503)
            busy.retry_after = RETRY_AFTER
            raise busy
        stop = Stop(deadline_seconds=seconds)
        if self.stopping:
            stop.set()
        self.busy[kind] += 1
        self.stops.add(stop)

        def under_stop():
            with running_under(stop):
                return work()

        async def watch() -> None:  # the client going away ends its work
            while True:
                message = await request.receive()
                if message["type"] == "http.disconnect":
                    stop.set()
                    return

        watcher = asyncio.ensure_future(watch())
        try:
            return await asyncio.get_running_loop().run_in_executor(self.pools[kind], under_stop)
        except Stopped:
            raise games.WebError(STOPPED[kind], 503, seconds=int(seconds)) from None
        finally:
            watcher.cancel()
            self.stops.discard(stop)
            self.busy[kind] -= 1


STOPPED = {"play": N_("the computer's move took longer than the server allows ({seconds} s), or the server is "
                      "stopping: your move is taken back"),
           "hint": N_("the hint took longer than the server allows ({seconds} s), or the server is stopping"),
           "analysis": N_("the analysis took longer than the server allows ({seconds} s), or the server is stopping: "
                          "analyse one seat, or a shorter hand"),
           "ledger": N_("the luck ledger took longer than the server allows ({seconds} s), or the server is stopping")}
BUSY = {"play": N_("the server is busy with other games: try again in a few seconds"),
        "hint": N_("the server is busy with other hints: try again in a few seconds"),
        "analysis": N_("the server is busy with other analyses: try again in a few seconds"),
        "ledger": N_("the server is busy with other luck ledgers: try again in a few seconds")}


def create_app(out: str | Path = DEFAULT_OUT, *, samples: int = DEFAULT_SAMPLES, max_games: int = games.MAX_GAMES,
               hosts: list[str] | None = None, client_games: int = games.CLIENT_GAMES) -> Starlette:
    """The app; ``out`` is the folder of the hand records, ``samples`` the evaluator's deals per decision
    (hints and analysis), ``hosts`` the Host names it answers (default: the loopback names; ``*`` any),
    ``max_games`` and ``client_games`` the games kept in memory in all and per client address. Hands a
    server that died left in the folder's journal are saved as records first."""
    out = Path(out)
    store = games.GameStore(out, max_games, samples, client_games)
    envs = {lang: _templates(lang) for lang in i18n.LANGUAGES}
    pools = Pools()

    def json_route(handler, kind: str = "play", guarded: bool = True):
        """A JSON endpoint whose WebErrors become their 4xx; the work runs in a worker thread of ``kind``'s
        pool; ``guarded``: another site's request is refused (403)."""
        async def endpoint(request: Request) -> Response:
            try:
                if guarded and cross_site(request):
                    raise games.WebError(N_("a request from another site is refused"), 403)
                data = await read_json(request) if request.method == "POST" else None
                # the work speaks the page's language: a library's refusal (an unknown preset) comes back in it
                result = await pools.run(kind, request, functools.partial(i18n.in_thread, page_language(request),
                                                                           handler, request, data))
            except games.WebError as e:
                response = error(e.said(page_language(request)), e.status)
                if getattr(e, "retry_after", None):  # a full pool: when to ask again
                    response.headers["Retry-After"] = e.retry_after
                return response
            return JSONResponse(result, headers=HEADERS)
        return endpoint

    def game_action(action: str):
        def handler(request: Request, data: Any) -> dict[str, Any]:
            game = store.get(request.path_params["game_id"])
            with game.lock:
                game.flush()  # a record whose save failed is tried again
                if action == "hint":
                    return game.hint(page_language(request))
                if action in ("play", "blow"):
                    getattr(game, action)(data)
                elif action != "state":
                    getattr(game, action)()
                return game.state()
        return json_route(handler, "hint" if action == "hint" else "play")

    def client_of(request: Request) -> str:
        return request.client.host if request.client else "local"

    def new_game(request: Request, data: Any) -> dict[str, Any]:
        game = store.new(data, client_of(request))
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

    def record_ledger(request: Request, data: Any) -> dict[str, Any]:
        seats = _seat_query(request)
        return games.ledger(games.read_record(out, request.path_params["name"]), seats[0] if seats else None, samples)

    def upload_analysis(request: Request, data: Any) -> dict[str, Any]:
        return games.analyze(data, _seat_query(request), samples)

    def record_notation(request: Request, data: Any) -> dict[str, Any]:
        return shared.notation_of(games.read_record(out, request.path_params["name"]))

    def open_hand(request: Request, data: Any) -> dict[str, Any]:
        return shared.shared_hand(data)

    async def page(request: Request) -> Response:
        lang = page_language(request)
        html = envs[lang].get_template("index.html").render(
            lang=lang, languages=i18n.LANGUAGES, words=page_words(lang), rulesets=games.rulesets(),
            opponents=i18n.in_thread(lang, games.opponents), version=__version__)
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
            if cross_site(request):
                raise games.WebError(N_("a request from another site is refused"), 403)
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
        Route("/api/records/{name}/analysis", json_route(record_analysis, "analysis")),
        Route("/api/records/{name}/ledger", json_route(record_ledger, "ledger")),
        Route("/api/analyze", json_route(upload_analysis, "analysis"), methods=["POST"]),
        Route("/api/records/{name}/notation", json_route(record_notation)),
        Route("/api/hand", json_route(open_hand), methods=["POST"]),
        Route("/records/{name}", download),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    allowed = hosts or [*LOOPBACK_NAMES, "testserver"]

    @contextlib.asynccontextmanager
    async def lifespan(app):
        try:
            yield
        finally:
            pools.close()  # every search ends at once
            store.close()  # the hands in play are saved as unfinished records

    app = Starlette(routes=routes, middleware=[Middleware(HostCheck, allowed=allowed)],
                    exception_handlers={404: not_found, 405: not_found, 500: failed}, lifespan=lifespan)
    app.state.games = store  # for a benchmark or a test that seats a game at a known seed
    app.state.pools = pools  # serve's signal handler stops their work
    return app


class ServeError(EscobaError):
    """The server cannot start as asked (no address, a network address without the names it answers); one
    line naming the parameter."""


def listening_address(host: str, port: int, allow_hosts: list[str] | None) -> tuple[tuple, int, list[str], bool]:
    """Where ``serve`` binds and what it answers: (socket address, family, the Host names allowed, whether
    any name is). Every loopback spelling (``127.0.0.1``, ``127.1``, ``127.0.0.2``, ``::1``, ``localhost``)
    keeps the loopback names (and ``allow_hosts``, a local proxy's, say); another address needs ``allow_hosts``
    (``*``: any name, said as open).
    A name that does not resolve is an OSError; an empty ``host`` or a network one without names a
    ServeError."""
    if not isinstance(host, str) or not host.strip():
        raise ServeError(_("{host}: give an address to listen on (127.0.0.1 for this machine only, 0.0.0.0 for "
                           "every network)"), parameter="host", host=Parameter("host"))
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    family, sockaddr = info[0], info[4]
    ip = ipaddress.ip_address(sockaddr[0].split("%")[0])
    literal = f"[{ip}]" if ip.version == 6 else str(ip)
    names = [*LOOPBACK_NAMES, literal, host.strip().lower() if ":" not in host else f"[{host.strip('[]')}]"]
    if ip.is_loopback and not allow_hosts:
        return sockaddr, family, list(dict.fromkeys(names)), False
    if not allow_hosts:
        raise ServeError(_("{host} {address} listens beyond this machine: give {allow_host} with each name people "
                           "will type in the address bar (or {allow_host} '*' to answer any name, which lets other "
                           "sites' pages reach the server through DNS rebinding)"), parameter="allow_hosts",
                         host=Parameter("host"), address=host, allow_host=Parameter("allow_hosts"))
    if "*" in allow_hosts:
        return sockaddr, family, ["*"], True
    return sockaddr, family, list(dict.fromkeys([*names, *(h.strip().lower() for h in allow_hosts)])), False


def open_in_browser(url: str, on_no_browser=None) -> bool:
    """Open ``url`` in the default browser; when there is none (a server, a container), ``on_no_browser(url)``
    is told, so that the person knows to open it themselves."""
    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened and on_no_browser is not None:
        on_no_browser(url)
    return opened


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, out: str | Path = DEFAULT_OUT, *,
          open_browser: bool = False, samples: int = DEFAULT_SAMPLES, on_ready=None,
          allow_hosts: list[str] | None = None, on_no_browser=None) -> None:
    """Run the page until Ctrl-C or SIGTERM (both end every search and save every hand in play at once).
    Binds ``host`` (loopback by default: another address only when asked, and then with the Host names it
    answers, ``allow_hosts``); ``on_ready(url, open_to_any)`` is called once the address is bound
    (``open_to_any``: any Host name is answered), ``on_no_browser(url)`` when ``open_browser`` finds no browser
    to open. A busy port or a bad address is an OSError; an address
    that cannot be used as asked a ServeError."""
    import uvicorn

    out = Path(out)
    sockaddr, family, hosts, open_to_any = listening_address(host, port, allow_hosts)
    app = create_app(out, samples=samples, hosts=hosts)
    ip, name = sockaddr[0], host.strip()
    shown = "127.0.0.1" if ip in ("0.0.0.0", "::") else f"[{name.strip('[]')}]" if ":" in name else name
    url = f"http://{shown}:{port}/"
    # bound here, before uvicorn starts, so that a busy port or a bad address is one OSError for the caller
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(sockaddr)
    except OSError:
        sock.close()
        raise
    if on_ready is not None:
        on_ready(url, open_to_any)
    if open_browser:
        threading.Timer(1.0, open_in_browser, (url, on_no_browser)).start()
    guard.quiet_accept_errors()
    config = uvicorn.Config(app, log_level="warning", http=guard.guarded_protocol(), timeout_keep_alive=5,
                            timeout_graceful_shutdown=1, h11_max_incomplete_event_size=16 * 1024)
    pools = app.state.pools

    class Server(uvicorn.Server):
        """uvicorn's server, whose SIGTERM or Ctrl-C first stops every search (they end within milliseconds),
        so that the shutdown that saves the hands in play never waits for one."""

        def handle_exit(self, sig, frame) -> None:
            pools.stop_all()
            super().handle_exit(sig, frame)

    Server(config).run(sockets=[sock])
