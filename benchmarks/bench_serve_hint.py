"""Hint latency on the page (``escoba-sim serve``) against ``play``'s ``?`` (issue 28: within 100 ms).

For each seed, the first decision of hand 0 (you deal, so the computer has played once) is hinted twice:
- play: a ``hands.play.Session`` whose prompt answers ``?`` -- the time from the answer to the next prompt,
  i.e. the evaluator plus play's formatting, as a person at the terminal waits for it;
- page: ``POST /api/games/ID/hint`` to a real uvicorn server on 127.0.0.1 over a kept-alive HTTP connection,
  for the game dealt with the same seed (the same position, the same evaluator seed, so the same work),
  timed from the request to the parsed JSON answer.
Both run in this process's machine with the same ``--samples``; it prints the median and 90th percentile of
each and of the per-seed difference, and exits 1 when the median difference passes ``--limit`` ms.

    python benchmarks/bench_serve_hint.py --seeds 40
    python benchmarks/bench_serve_hint.py --seeds 40 --rules tradicional --vs ismcts
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import uvicorn

from escoba_sim.hands.evaluate import DEFAULT_SAMPLES
from escoba_sim.hands.play import Session
from escoba_sim.lineup import table_seats
from escoba_sim.web import app as web_app
from escoba_sim.web import games


def play_hint_seconds(rules: str, vs: str, seed: int, samples: int, out: Path) -> float:
    marks: list[float] = []
    answers = iter(["?"])

    def ask(prompt: str):
        marks.append(time.perf_counter())
        return next(answers, None)

    Session(table_seats(rules, [vs]), seed, out, ask=ask, say=lambda line: None, samples=samples).play(1, True)
    return marks[1] - marks[0]


def page_hint_seconds(conn: http.client.HTTPConnection, store: games.GameStore, rules: str, vs: str,
                      seed: int) -> float:
    game = games.WebGame(f"bench{seed}", {"rules": rules, "vs": vs}, store.out, store.samples, seed=seed)
    store.games[game.id] = game  # the same deal as play's (game 0, hand 0, seed)
    start = time.perf_counter()
    conn.request("POST", f"/api/games/{game.id}/hint", body=b"{}", headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    body = json.loads(response.read())
    took = time.perf_counter() - start
    if response.status != 200:
        sys.exit(f"the page answered {response.status}: {body}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--rules", default="ludoteka")
    parser.add_argument("--vs", default="greedy")
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--limit", type=float, default=100.0, help="ms of median difference allowed")
    args = parser.parse_args()

    out = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    app = web_app.create_app(out / "page", samples=args.samples)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    store = app.state.games  # each benchmark game is seated at a known seed (a page's new game draws one)
    conn = http.client.HTTPConnection("127.0.0.1", port)

    play_ms, page_ms = [], []
    play_hint_seconds(args.rules, args.vs, 0, args.samples, out / "term")  # warm both paths once
    page_hint_seconds(conn, store, args.rules, args.vs, 0)
    for seed in range(1, args.seeds + 1):  # alternated, so that the machine's load falls on both alike
        play_ms.append(1000 * play_hint_seconds(args.rules, args.vs, seed, args.samples, out / "term"))
        page_ms.append(1000 * page_hint_seconds(conn, store, args.rules, args.vs, seed))
    server.should_exit = True
    diff = [b - a for a, b in zip(play_ms, page_ms)]

    def p90(xs):
        return sorted(xs)[max(0, int(0.9 * len(xs)) - 1)]

    print(f"hint latency, {args.seeds} positions ({args.rules}, vs {args.vs}, {args.samples} deals per hint)")
    print(f"{'':<22}{'median ms':>10}{'p90 ms':>10}")
    for name, xs in (("play (?)", play_ms), ("page (POST .../hint)", page_ms), ("page - play", diff)):
        print(f"{name:<22}{statistics.median(xs):>10.1f}{p90(xs):>10.1f}")
    ok = statistics.median(diff) <= args.limit
    print(f"target: the page within {args.limit:.0f} ms of play (median difference): {'met' if ok else 'MISSED'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
