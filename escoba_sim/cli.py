"""The ``escoba-sim`` command line: parses options and delegates to the library.

No game logic lives here. Shared option types (counts such as ``1e6``,
rulesets, strategies) are defined once below and reused by every command;
progress goes to stderr so that ``--json`` output on stdout stays parseable.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import sys

import click

from . import __version__


class CountType(click.ParamType):
    """A positive whole count written as ``1000``, ``1_000_000``, ``1e6`` or ``2.5e5``, at most ``batch.MAX_COUNT``.

    The text is read exactly (decimal, never a float), so ``1e400`` or a count
    past 2^53 is judged as written and a huge one is refused before anything is built.
    """

    name = "count"

    def convert(self, value, param, ctx):
        import decimal

        from .batch import MAX_COUNT

        if isinstance(value, int) and not isinstance(value, bool):
            d = decimal.Decimal(value)
        else:
            text = str(value).strip().replace("_", "")
            if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,9})?", text):
                self.fail(f"`{_shown(value)}` is not a count (examples: 1000, 1_000_000, 1e6, 2.5e5)", param, ctx)
            d = decimal.Decimal(text)
        if d <= 0:
            self.fail(f"`{_shown(value)}` must be positive", param, ctx)
        if d > MAX_COUNT:
            self.fail(f"`{_shown(value)}` is more than escoba-sim plays in one run (at most "
                      f"{MAX_COUNT:.0e}, about 30 years of one core)".replace("e+", "e"), param, ctx)
        if d != d.to_integral_value():
            self.fail(f"`{_shown(value)}` is not a whole number", param, ctx)
        return int(d)


def _shown(value, width: int = 60) -> str:
    """A value for an error line: long input is cut, so the message stays one readable line."""
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[:width - 3] + "..."


class RulesType(click.ParamType):
    """A preset, ``preset(field=value,...)`` or a TOML file, parsed into a Ruleset."""

    name = "rules"

    def convert(self, value, param, ctx):
        from .rules import Ruleset, RulesError, parse_rules

        if isinstance(value, Ruleset):
            return value
        try:
            return parse_rules(value)
        except RulesError as e:
            self.fail(str(e), param, ctx)


class StrategyType(click.ParamType):
    """A strategy spec (greedy, heuristic:oros=2, heuristic:w.toml, file.py:Class); converts to its canonical string."""

    name = "strategy"

    def convert(self, value, param, ctx):
        from .strategies import StrategyError, check_strategy

        try:
            return check_strategy(value)
        except StrategyError as e:
            self.fail(str(e), param, ctx)


COUNT, RULES, STRATEGY = CountType(), RulesType(), StrategyType()


def scheduler_option(f):
    """``--scheduler``: the one definition shared by run, resume, compare and tournament."""
    return click.option(
        "--scheduler", metavar="tcp://HOST:PORT|local",
        help="Play the chunks on a Dask cluster: its scheduler's address, or `local` for an embedded one "
             "(needs the dask extra). Results are the same; --jobs then sets chunks in flight (2 per job, "
             "default: the cluster's threads) or, with `local`, the worker processes.")(f)


def emit_json(data) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False))


def fail(message: str, code: int = 1):
    """Print a one-line error on stderr and exit non-zero."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


def _version_message() -> str:
    from .batch import ENGINE

    return f"escoba-sim {__version__} (engine: {ENGINE}, Python {sys.version.split()[0]})"


def _print_version(ctx, param, value):
    if value and not ctx.resilient_parsing:
        click.echo(_version_message())
        ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and which engine (cython or python) is active.")
def main():
    """Simulate Escoba del 15 and compare strategies and rule variants.

    Example: escoba-sim run --strategy greedy --vs maxoros -n 1e6
    """


# --- commands are added below, one section per concept; each only parses and delegates ---


# --- hands you can read and check: trace, replay, moves, rules (record.py does the work) ---

def _load_record_file(path: str):
    """Read a hand record from a file or ``-`` (stdin); one-line errors, exit 2 (nothing was checked)."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        fail(f"{path}: cannot read the record ({e.strerror or e})", 2)
    except UnicodeDecodeError:
        fail(f"{path}: not a text file; a hand record is JSON", 2)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"{path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})", 2)
    except RecursionError:
        fail(f"{path}: not a hand record (JSON nested too deeply)", 2)


@main.command()
@click.option("--strategy", "-s", type=STRATEGY, required=True, help="Strategy of seat 0.")
@click.option("--vs", type=STRATEGY, multiple=True, required=True,
              help="Strategy of the next seat; repeat it for 3, 4 or 6 players.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1),
              help="Run seed (0 to 2^64-1); without --seed or --deck one is drawn and printed.")
@click.option("--game", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Game index in the run (0 to 2^64-1).")
@click.option("--hand", "hand_index", type=click.IntRange(min=0), default=0, show_default=True,
              help="Hand index within the game (below the engine's limit of hands per game).")
@click.option("--deck", help='A known deal instead of a shuffled one: all 40 cards in dealing order, "7o Rb 3c ...".')
@click.option("--dealer", type=click.IntRange(min=0),
              help="Dealer seat (default: (game + hand) % players with --seed, 0 with --deck).")
@click.option("--rules", "-r", "ruleset", type=RULES, default="ludoteka", show_default=True,
              help="Preset, preset(field=value,...) or a TOML file.")
@click.option("--json", "as_json", is_flag=True, help="Print the hand record (JSON) instead of the play-by-play.")
@click.option("--analyze", "with_analysis", is_flag=True,
              help="Show the evaluator's value of each play, the best move and the loss (as `analyze`); "
                   "with --json, an `analysis` field.")
@click.option("--samples", type=COUNT, default=None, help="With --analyze: deals per decision (default 4000).")
def trace(strategy, vs, seed, game, hand_index, deck, dealer, ruleset, as_json, with_analysis, samples):
    """Play one hand and print it play by play, or as a hand record.

    \b
    Examples:
      escoba-sim trace --strategy greedy --vs random --seed 7
      escoba-sim trace -s greedy --vs maxoros --seed 7 --json > hand.json
      escoba-sim trace -s greedy --vs greedy --vs random -r 'tradicional(players=3)' --seed 1
      escoba-sim trace -s greedy --vs maxoros --deck "7o Rb 3c ..." --dealer 1
      escoba-sim trace -s ismcts --vs greedy --seed 7 --analyze

    The same --seed/--game/--hand as a batch run shows the very hand the run
    played. With --deck, --seed (default 0) only feeds the random strategy.
    """
    from .cards import parse_cards
    from .engine import MAX_HANDS_PER_GAME
    from .record import check_deck, format_trace, play_record

    if hand_index >= MAX_HANDS_PER_GAME:
        fail(f"--hand: {hand_index} is past the last hand a game can have ({MAX_HANDS_PER_GAME - 1})", 2)

    strategies = [strategy, *vs]
    if len(strategies) != ruleset.players:
        fail(f"{ruleset.canonical()} is played by {ruleset.players} players: give --strategy and "
             f"{ruleset.players - 1} --vs (got {len(strategies)} strategies); change the player count "
             f"with --rules, e.g. 'ludoteka(players={len(strategies)})'")
    cards = None
    if deck is not None:
        try:
            cards = parse_cards(deck, distinct=True)
            check_deck(cards, "--deck")
        except ValueError as e:
            fail(str(e) if str(e).startswith("--deck") else f"--deck: {e}")
        if seed is None:
            seed = 0
        if dealer is None:
            dealer = 0
    elif seed is None:
        import secrets

        seed = secrets.randbits(64)
        click.echo(f"seed {seed} (drawn at random; pass --seed {seed} to see this hand again)", err=True)
    if dealer is not None and dealer >= ruleset.players:
        fail(f"--dealer: {dealer} is not a seat (0 to {ruleset.players - 1} with {ruleset.players} players)")
    from .strategies import PluginError, StrategyError

    try:  # the reference engine plays; a core-only strategy (ismcts) decides through the compiled core
        _, record = play_record(ruleset, strategies, seed, game, hand_index, dealer=dealer, deck=cards)
    except PluginError as e:
        fail(str(e))
    except StrategyError as e:
        fail(str(e))
    notes = None
    if with_analysis:
        from .analyze import analyze_record, trace_notes
        from .evaluate import DEFAULT_SAMPLES, EvaluationError

        try:
            an = analyze_record(record, samples=samples or DEFAULT_SAMPLES)
        except EvaluationError as e:
            fail(str(e))
        record["analysis"] = an.to_json()
        notes = trace_notes(an)
    if as_json:
        emit_json(record)
    else:
        click.echo(format_trace(record, notes))


@main.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict, problems and score as JSON.")
def replay(file, as_json):
    """Check a hand record move by move under its ruleset and print the score.

    FILE is a JSON hand record (as written by `trace --json`), or - for stdin.
    Exit status: 0 legal and complete, 1 an illegal move or another problem
    (reported with the move number, the seat and the reason), 2 not a readable
    hand record.

    \b
    Example:
      escoba-sim trace -s greedy --vs random --seed 3 --json | escoba-sim replay -
    """
    from .record import RecordError, format_score, replay_record, score_json

    data = _load_record_file(file)
    try:
        st, problems = replay_record(data)
    except RecordError as e:
        fail(f"{file}: {e}", 2)
    score = score_json(st.rules, st.result) if st.over and st.result is not None else None
    if as_json:
        emit_json({"ok": not problems, "rules": st.rules.canonical(), "moves": len(data["moves"]),
                   "problems": [p.as_dict() for p in problems], "score": score})
    else:
        if problems:
            for p in problems:
                click.echo(f"ILLEGAL {p}" if p.move is not None else f"PROBLEM {p}")
        else:
            click.echo(f"{file}: {len(data['moves'])} moves, all legal under {st.rules.canonical()}")
        if score is not None:
            click.echo("")
            click.echo(format_score(st.rules, score, data.get("strategies")))
    if problems:
        sys.exit(1)


@main.command()
@click.option("--hand", "hand_text", required=True, help='The cards in hand, e.g. "5b 7o".')
@click.option("--table", "table_text", default="", help='The cards on the table, e.g. "1o 4c Rb" (empty by default).')
@click.option("--rules", "-r", "ruleset", type=RULES, default="ludoteka", show_default=True,
              help="Preset, preset(field=value,...) or a TOML file (capture decides what is legal).")
@click.option("--json", "as_json", is_flag=True, help="Print the moves as JSON.")
def moves(hand_text, table_text, ruleset, as_json):
    """List the legal moves of a hand at a table: cards taken and escobas.

    \b
    Example:
      escoba-sim moves --table "1o 4c Rb" --hand "5b 7o"
    """
    from .cards import CardError, card_str, cards_str, parse_cards, value
    from .record import legal_moves_for

    try:
        hand = parse_cards(hand_text)
    except CardError as e:
        fail(f"--hand: {e}")
    try:
        table = parse_cards(table_text)
    except CardError as e:
        fail(f"--table: {e}")
    try:
        legal = legal_moves_for(ruleset, hand, table)
    except ValueError as e:
        fail(str(e))
    if as_json:
        emit_json({"rules": ruleset.canonical(), "hand": cards_str(sorted(hand)), "table": cards_str(sorted(table)),
                   "moves": [{"card": card_str(m.card), "take": [card_str(c) for c in m.take],
                              "capture": bool(m.take), "escoba": m.escoba} for m in legal]})
        return
    click.echo(f"hand {cards_str(sorted(hand))}  table {cards_str(sorted(table)) or '(empty)'}  "
               f"rules {ruleset.canonical()} (capture={ruleset.capture})")
    for m in legal:
        if m.take:
            total = " + ".join(str(value(c)) for c in (m.card, *m.take))
            click.echo(f"  {card_str(m.card):<3} takes {cards_str(m.take):<16} ({total} = 15)"
                       + ("  ESCOBA" if m.escoba else ""))
        else:
            click.echo(f"  {card_str(m.card):<3} lays")


# --- a person at the table (play.py) and what the evaluator makes of a hand (analyze.py, evaluate.py) ---

def _terminal_io(colour: bool):
    """(ask, say) on stdin/stdout: line editing on a terminal; piped input is echoed after its prompt so
    that a transcript reads like a session; ``colour`` keeps the styles even when stdout is not a terminal."""
    interactive = sys.stdin.isatty()
    if interactive:
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (gives input() line editing and history)

    def ask(prompt: str):
        if interactive:
            try:
                return input(prompt)
            except EOFError:
                return None
        line = sys.stdin.readline()
        if not line:
            return None
        click.echo(prompt + line.rstrip("\n"))
        return line

    return ask, lambda text: click.echo(text, color=colour)


@main.command()
@click.option("--vs", type=STRATEGY, multiple=True, required=True,
              help="The computer's strategy (any spec, plugins too); repeat it for 3 or 4 players.")
@click.option("--teams", is_flag=True, help="Four players in two teams: you and a computer partner (seat 2) "
                                            "against seats 1 and 3.")
@click.option("--partner", type=STRATEGY, help="With --teams: your partner's strategy (default: the first --vs).")
@click.option("--rules", "-r", "rules_text", default="ludoteka", show_default=True,
              help="Preset, preset(field=value,...) or a TOML file; the player count follows --vs unless set here.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="Seed of the deals; without it one is drawn and printed.")
@click.option("-n", "count", type=COUNT, default="1", show_default=True, help="Games to play (hands with --hands).")
@click.option("--hands", "hands_mode", is_flag=True, help="-n counts single hands instead of games to the target.")
@click.option("--out", "-o", type=click.Path(file_okay=False), default="escoba-play", show_default=True,
              help="Folder for the hand records (one JSON file per hand).")
@click.option("--samples", type=COUNT, default=None,
              help="Deals of the unseen cards per hint (default: the evaluator's, 4000).")
@click.option("--color/--no-color", "colour", default=None,
              help="Cards in colour by suit (default: when the output is a terminal).")
def play(vs, teams, partner, rules_text, seed, count, hands_mode, out, samples, colour):
    """Play Escoba against the computer in the terminal; every hand is saved as a hand record.

    Type a move by its number, or by its cards: `5o` plays the 5 of oros (its
    only move), `5o Rc` names the cards it takes, `5o -` lays it. Keys: `?` the
    3 best moves by the evaluator (from your information only), `u` takes back
    your last move and the computer's replies, `q` quits (the hand in play is
    saved as unfinished). Under soplar rules you are offered to blow when the
    computer lays a card that could have captured.

    \b
    Examples:
      escoba-sim play --vs ismcts
      escoba-sim play --vs heuristic -r tradicional --seed 7 --hands -n 3
      escoba-sim play --vs greedy --vs maxoros              # three players
      escoba-sim play --vs greedy --teams --partner ismcts  # two teams of two
      escoba-sim analyze escoba-play/7-g0-h0.json           # where points were lost
    """
    from pathlib import Path

    from .evaluate import DEFAULT_SAMPLES
    from .play import Session, seat_specs
    from .rules import RulesError, parse_rules
    from .strategies import StrategyError, parse_strategy

    for spec in (*vs, *([partner] if partner else [])):
        if parse_strategy(spec).cheats:
            fail(f"`{parse_strategy(spec).short}` cheats (it reads every hand, yours included, and the stock): "
                 "it is a yardstick for analysis, not an opponent")

    try:
        rules = parse_rules(rules_text)
    except RulesError as e:
        fail(f"--rules: {e}")
    if teams:
        if len(vs) > 2:
            fail("--teams: give one --vs (both opponents) or two (seat 1, seat 3)")
        rules = rules.replace(players=4, teams=True)
    elif partner:
        fail("--partner needs --teams")
    elif not _players_named(rules_text) and rules.players != 1 + len(vs):
        try:
            rules = parse_rules(rules.replace(players=1 + len(vs)))
        except RulesError as e:
            fail(f"{len(vs)} --vs: {e}")
    elif len(vs) > 1 and len(vs) != rules.players - 1:
        fail(f"{rules.canonical()} is played by {rules.players} players: give one --vs (every computer seat) "
             f"or {rules.players - 1}")
    if seed is None:
        import secrets

        seed = secrets.randbits(64)
        click.echo(f"seed {seed} (drawn at random; pass --seed {seed} to see these deals again)", err=True)
    colour = sys.stdout.isatty() if colour is None else colour
    ask, say = _terminal_io(colour)
    try:
        session = Session(seat_specs(rules, list(vs), partner), seed, Path(out), ask=ask, say=say, colour=colour,
                          samples=samples or DEFAULT_SAMPLES)
    except StrategyError as e:
        fail(str(e))
    say(f"rules {rules.canonical()}; you are seat 0; "
        + ", ".join(session.seats.name(s) for s in range(1, rules.players)))
    try:
        session.play(count, hands_mode)
    except OSError as e:
        fail(f"{out}: cannot save the hand record ({e.strerror or e})")


@main.command()
@click.argument("record")
@click.option("--seat", "seats", type=click.IntRange(min=0), multiple=True,
              help="Analyse only this seat's decisions (repeatable; default: every seat).")
@click.option("--samples", type=COUNT, default=None,
              help="Deals of the unseen cards per decision (default: the evaluator's, 4000).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Seed of the searches (decision k searches with a seed mixed from it and k).")
@click.option("--json", "as_json", is_flag=True, help="Print every decision and the totals as JSON.")
def analyze(record, seats, samples, seed, as_json):
    """Value every decision of a hand record: move played, best move, expected loss in points, marks.

    RECORD is a hand record (from `play`, `trace --json` or written by hand),
    or - for stdin. Each decision is valued from the decider's information
    only (its hand, the table, every card played), by the evaluator
    (docs/evaluate.md): exact when nothing is hidden, else a search over
    deals of the unseen cards. Losses of 0.2, 0.5 and 1.0 points are marked
    inaccuracy, mistake and blunder.

    \b
    Examples:
      escoba-sim trace -s greedy --vs greedy --seed 3 --json > hand.json
      escoba-sim analyze hand.json
      escoba-sim analyze escoba-play/7-g0-h0.json --seat 0 --json
    """
    from .analyze import AnalysisError, analyze_record, format_analysis
    from .evaluate import DEFAULT_SAMPLES, EvaluationError

    data = _load_record_file(record)
    progress = None
    if sys.stderr.isatty():
        def progress(done, total):
            click.echo(f"\ranalysing: decision {done} of {total}", err=True, nl=done == total)
    try:
        an = analyze_record(data, seats=list(seats) or None, samples=samples or DEFAULT_SAMPLES, seed=seed,
                            on_decision=progress)
    except AnalysisError as e:
        fail(f"{record}: {e}", 2)
    except EvaluationError as e:
        fail(str(e))
    if as_json:
        emit_json(an.to_json())
    else:
        click.echo(format_analysis(an, record))


@main.group("rules")
def rules_cmd():
    """List the presets and show a ruleset field by field."""


@rules_cmd.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the presets and their fields as JSON.")
def rules_list(as_json):
    """List the presets, their source rule text and what sets them apart.

    \b
    Example:
      escoba-sim rules list
    """
    from .rules import DEFAULT_PRESET, FIELD_NAMES, PRESET_SOURCES, PRESETS, format_value

    if as_json:
        emit_json({name: {"source": PRESET_SOURCES[name], "default": name == DEFAULT_PRESET,
                          "fields": r.as_dict()} for name, r in PRESETS.items()})
        return
    shown = [f for f in FIELD_NAMES if len({getattr(r, f) for r in PRESETS.values()}) > 1] + ["players"]
    click.echo(f"{'preset':<13}" + "".join(f"{f:<12}" for f in shown))
    for name, r in PRESETS.items():
        click.echo(f"{name:<13}" + "".join(f"{format_value(getattr(r, f)):<12}" for f in shown))
    click.echo("")
    for name in PRESETS:
        click.echo(f"{name:<13}{PRESET_SOURCES[name]}" + ("  [default]" if name == DEFAULT_PRESET else ""))


@main.command("strategies")
@click.option("--json", "as_json", is_flag=True, help="Print every built-in with its parameters as JSON.")
def strategies_cmd(as_json):
    """List the built-in strategies, their parameters and defaults, and which engine plays them.

    A strategy spec is NAME, NAME:key=value,... , NAME:weights.toml or
    path/to/file.py:ClassName (docs/strategies.md).

    \b
    Example:
      escoba-sim strategies
      escoba-sim run -s heuristic:oros=2,risk=10 --vs greedy -n 1e5
    """
    from .batch import engine_for
    from .strategies import BUILTINS, parse_strategy

    def engine(name):
        e = engine_for([parse_strategy(name)])
        return "-" if e == "python" and BUILTINS[name].reference is None else e  # core-only, core not built

    if as_json:
        emit_json({n: {"help": d.help, "engine": engine(n), "canonical": parse_strategy(n).canonical,
                       "cheats": d.cheats, "params": {k: {"default": p.default, "help": p.help} for k, p in d.params.items()}}
                   for n, d in BUILTINS.items()})
        return
    for n, d in BUILTINS.items():
        click.echo(f"{n:<11}{d.help}  [{engine(n)}{', cheats' if d.cheats else ''}]")
        for k, p in d.params.items():
            click.echo(f"{'':<13}{k}={p.default:g}  {p.help}")


@rules_cmd.command("show")
@click.argument("ruleset", type=RULES)
@click.option("--json", "as_json", is_flag=True, help="Print the fields, canonical string and digest as JSON.")
def rules_show(ruleset, as_json):
    """Show every field of RULESET with its value, its preset and its canonical string.

    RULESET is a preset, preset(field=value,...) or a TOML file.

    \b
    Examples:
      escoba-sim rules show tradicional
      escoba-sim rules show 'cardgames(players=4,teams=yes)' --json
    """
    from .rules import FIELD_NAMES, PRESET_SOURCES, PRESETS, format_value

    canonical = ruleset.canonical()
    preset = canonical.split("(")[0]
    base = PRESETS[preset]
    if as_json:
        emit_json({"canonical": canonical, "digest": ruleset.digest(), "preset": preset,
                   "source": PRESET_SOURCES[preset], "fields": ruleset.as_dict()})
        return
    click.echo(f"{'canonical':<18}{canonical}")
    click.echo(f"{'digest':<18}{ruleset.digest()}")
    click.echo(f"{'preset':<18}{preset}: {PRESET_SOURCES[preset]}")
    click.echo("")
    for f in FIELD_NAMES:
        v = getattr(ruleset, f)
        note = "" if v == getattr(base, f) else f"  (preset: {format_value(getattr(base, f))})"
        click.echo(f"{f:<18}{format_value(v)}{note}")


# --- strategy-vs-strategy batches: run, resume (runner.py runs the loop) ---

@contextlib.contextmanager
def _executor(scheduler: str | None, jobs: int | None, quiet: bool = False):
    """Yield (executor, jobs): None and the local job count, or a Dask executor (cluster.py) closed afterwards."""
    import os

    if scheduler is None:
        yield None, jobs or os.cpu_count() or 1
        return
    from click.core import ParameterSource

    from .cluster import ClusterError, connect, explain

    given = click.get_current_context().get_parameter_source("jobs") is ParameterSource.COMMANDLINE
    try:
        executor = connect(scheduler, jobs if given else None)
    except ClusterError as e:
        fail(str(e))
    stopping = True  # unless the command ends normally: then the cluster's work is done
    try:
        if not quiet:
            click.echo(f"Dask scheduler {executor.client.scheduler.address}: {executor.jobs} worker threads", err=True)
        try:
            yield executor, (jobs if given else executor.jobs)
            stopping = False
        except Exception as e:
            message = explain(e)
            if message is None:
                raise
            fail(message)
    except SystemExit as e:
        if e.code in (130, 143) and getattr(executor, "cluster", None) is not None:
            # Ctrl-C: finished chunks are saved and the line saying so is printed. An orderly close
            # of the embedded cluster (scheduler and nannies live in this process) and its
            # finalizers take seconds, more on a loaded machine; nothing is left to do, so its
            # worker processes are ended and so is this process.
            executor.kill_local_workers()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(e.code)
        raise
    finally:
        if stopping:
            executor.shutdown(wait=False, cancel_futures=True)
        else:
            executor.shutdown(wait=True)


@contextlib.contextmanager
def _stops_cleanly(continue_with: str | None, as_json: bool = False):
    """Ctrl-C or SIGTERM keeps the finished chunks and exits 130 with one line saying how to continue
    (``continue_with`` None: nothing is kept, so the summary of the finished chunks is printed, marked partial)."""
    from .executor import exit_code, stop_on_signals
    from .runner import RunInterrupted
    from .runspec import RunError

    nothing_kept = " (nothing was saved: use --out DIR to keep finished chunks)"
    try:
        with stop_on_signals():
            yield
    except RunInterrupted as e:
        where = f"; {e.done} of {e.total} chunks of this run are saved in {e.out}. Continue with: {continue_with}" \
            if e.out is not None else nothing_kept
        if e.out is None and e.summary is not None and e.summary["deals"]:
            from .console import print_report

            emit_json(e.summary) if as_json else print_report(e.summary)
        click.echo(f"Interrupted{where}", err=True)
        sys.exit(exit_code())
    except KeyboardInterrupt:  # between runs of a series, or before a run started: finished work is on disk
        click.echo(f"Interrupted. Continue with: {continue_with}" if continue_with else f"Interrupted{nothing_kept}",
                   err=True)
        sys.exit(exit_code())
    except RunError as e:
        fail(str(e))


def _same_command() -> str:
    """This command line again: a compare or tournament folder continues where it stopped."""
    return shlex.join(["escoba-sim", *sys.argv[1:]])


def _run_and_report(start, *, as_json: bool, quiet: bool, spec, out) -> None:
    """Run with a progress bar on stderr; report on stdout; Ctrl-C keeps finished chunks (exit 130)."""
    from .console import ProgressBar, print_report
    from .runfolder import resume_command

    with _stops_cleanly(resume_command(out, spec) if out is not None else None, as_json):
        with ProgressBar(spec, enabled=not quiet and sys.stderr.isatty()) as bar:
            result = start(bar)
    if as_json:
        emit_json(result.summary)
    else:
        print_report(result.summary)


def _players_named(text: str | None) -> bool:
    """Whether a --rules spec (or the TOML file it names) sets the player count explicitly."""
    if not text:
        return False
    from pathlib import Path

    p = Path(text)
    try:
        is_file = p.is_file()
    except (OSError, ValueError):  # a name too long to be a file, a NUL byte: a spec, not a file
        is_file = False
    if is_file:
        try:
            return bool(re.search(r"^\s*players\s*=", p.read_text(encoding="utf-8"), re.M))
        except (OSError, ValueError):  # unreadable or not UTF-8: parse_rules says so
            return False
    return bool(re.search(r"\bplayers\s*=", text))


@main.command()
@click.option("--strategy", "-s", type=STRATEGY, required=True, help="Strategy of the first entrant (seat 0).")
@click.option("--vs", type=STRATEGY, multiple=True, required=True,
              help="An opposing strategy; repeat it for 3, 4 or 6 players (or use --teams).")
@click.option("-n", "count", type=COUNT, default="10000", show_default=True,
              help="Games played in total (hands with --hands): 1e6, 2.5e5, 1_000_000. Rounded up to whole rotations.")
@click.option("--rules", "-r", "rules_text", default="ludoteka", show_default=True,
              help="Preset, preset(field=value,...) or a TOML file; the player count follows the strategies unless set here.")
@click.option("--teams", is_flag=True, help="Two teams (4 or 6 players from --rules): seats 0,2,4 play --strategy, the others --vs.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="Run seed; without it one is drawn and printed.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores). Results do not depend on it.")
@click.option("--hands", "hands_mode", is_flag=True, help="-n counts single hands instead of games.")
@click.option("--pairing", type=click.Choice(["duplicate", "independent"]), default="duplicate", show_default=True,
              help="duplicate: every deal is played once per seat rotation (removes card luck).")
@click.option("--out", "-o", type=click.Path(file_okay=False), help="Keep manifest, per-chunk Parquet and summary.json here (resumable).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option("--save-hands", is_flag=True, help="With --out: keep every hand's row (Parquet per chunk).")
@click.option("--sprt", help="Stop early by a GSPRT on paired results, e.g. elo0=0,elo1=20 (checked after every deal).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="SPRT false-positive rate.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="SPRT false-negative rate.")
@click.option("--chunk", "chunk", type=COUNT, help="Deals per chunk (default: a 16th of the deals, between 250 and 50,000 with --hands or 12,500 for games).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@scheduler_option
def run(strategy, vs, count, rules_text, teams, seed, jobs, hands_mode, pairing, out, as_json, save_hands, sprt,
        alpha, beta, chunk, quiet, scheduler):
    """Play strategies against each other and report win rates, points and Elo with intervals.

    \b
    Examples:
      escoba-sim run --strategy greedy --vs maxoros -n 1e6
      escoba-sim run -s greedy --vs random --hands -n 2.5e5 --seed 7 --json
      escoba-sim run -s greedy --vs maxoros --vs random -r tradicional
      escoba-sim run -s greedy --vs random --teams -r 'cardgames(players=4)'
      escoba-sim run -s greedy --vs maxoros -n 1e7 --sprt elo0=0,elo1=20 --out runs/g-m
      escoba-sim run -s greedy --vs maxoros -n 1e9 --out runs/big --scheduler tcp://10.0.0.5:8786

    Duplicate pairing plays each deal once per rotation of the seats, so -n
    maps to ceil(n / rotations) deals. The same --seed gives the same result
    for any --jobs, and `escoba-sim resume DIR` finishes an interrupted --out run.
    """
    from .rules import RulesError, parse_rules
    from .runner import run as run_chunks
    from .runspec import RunError, Sprt, make_spec

    if save_hands and not out:
        fail("--save-hands needs --out DIR (the hands are written there)")
    try:
        rules = parse_rules(rules_text)
    except RulesError as e:
        fail(f"--rules: {e}")
    try:
        sprt_spec = Sprt.parse(sprt, alpha, beta) if sprt else None
        spec = make_spec(strategy, vs, rules, count, hands=hands_mode, teams=teams,
                         players_fixed=rules.players != 2 or _players_named(rules_text), pairing=pairing,
                         seed=seed, chunk_size=chunk or 0, sprt=sprt_spec, save_hands=save_hands)
    except (RunError, RulesError) as e:
        fail(str(e))
    if seed is None:
        click.echo(f"seed {spec.seed} (drawn at random; pass --seed {spec.seed} to repeat this run)", err=True)
    if spec.played != count:
        click.echo(f"note: -n {count:,} rounded up to {spec.played:,} ({spec.deals:,} deals x {spec.rotations} rotations)",
                   err=True)
    argv = ["run", *sys.argv[2:]] if len(sys.argv) > 1 and sys.argv[1] == "run" else []
    with _executor(scheduler, jobs, quiet) as (executor, jobs):
        _run_and_report(lambda bar: run_chunks(spec, out, jobs=jobs, executor=executor, on_chunk=bar, argv=argv),
                        as_json=as_json, quiet=quiet, spec=spec, out=out)


@main.command()
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--trust-plugins", is_flag=True,
              help="Run the strategy plugins (Python files) the folder's manifest names. Without it a folder "
                   "never runs code: resuming a plugin's run is refused.")
@scheduler_option
def resume(directory, jobs, as_json, quiet, trust_plugins, scheduler):
    """Finish a run, comparison or tournament kept in DIRECTORY; the result equals an uninterrupted one's.

    Chunks are checked against the run's fingerprint and checksum; a damaged,
    missing or foreign chunk is played again.

    \b
    Example:
      escoba-sim resume runs/g-m
      escoba-sim resume compare-12345
      escoba-sim resume runs/big --scheduler tcp://10.0.0.5:8786
    """
    from pathlib import Path

    from .runfolder import read_manifest, run_spec_of
    from .runner import run as run_chunks
    from .runspec import RunError
    from .strategies import StrategyError, plugins_in

    try:
        manifest = read_manifest(Path(directory))
    except RunError as e:
        fail(str(e))
    kind = manifest.get("kind") if isinstance(manifest, dict) else None
    if kind in ("compare", "tournament"):
        try:
            plugins = plugins_in(manifest.get("strategies") or [])
        except (StrategyError, TypeError) as e:
            fail(f"{directory}: the manifest's strategies are not valid ({e})")
        if plugins and not trust_plugins:
            fail(f"{directory} was played with the strategy plugin `{plugins[0]}`, code named by the folder, not "
                 f"by you; read it, then continue with: escoba-sim resume --trust-plugins {shlex.quote(str(directory))}")
        _series(kind, manifest, directory, jobs=jobs, as_json=as_json, quiet=quiet, scheduler=scheduler,
                continue_with=f"escoba-sim resume {shlex.quote(str(directory))}")
        return
    try:
        spec = run_spec_of(Path(directory), manifest)
    except RunError as e:
        fail(str(e))
    with _executor(scheduler, jobs, quiet) as (executor, jobs):
        _run_and_report(lambda bar: run_chunks(spec, directory, jobs=jobs, executor=executor, on_chunk=bar,
                                               resume=True, trust_plugins=trust_plugins),
                        as_json=as_json, quiet=quiet, spec=spec, out=directory)


# --- rule comparisons, tournaments and reports (compare.py, tournament.py, report.py do the work) ---

def _series(kind: str, args: dict, out, *, jobs, as_json, quiet, scheduler, continue_with: str) -> None:
    """Play (or finish) a comparison or tournament with one progress bar, then print its summary.

    ``args`` holds what defines it, as its manifest keeps it: strategies, n, seed, chunk_size and
    the rulesets (compare) or rules (tournament).
    """
    from .console import ProgressBar, compare_lines, print_tournament
    from .compare import CompareError, Variant, compare as run_compare
    from .rules import RulesError, parse_rules
    from .runspec import RunError, make_spec
    from .tournament import TournamentError, tournament as run_tournament

    try:
        if kind == "compare":
            variants = args["variants"] if "variants" in args else [
                Variant(r["label"], parse_rules(r["rules"])) for r in args["rulesets"]]
            runs = len(variants)
            first = make_spec(args["strategies"][0], args["strategies"][1:], variants[0].rules, args["n"],
                              seed=args["seed"], players_fixed=True, chunk_size=args.get("chunk_size", 0))
        else:
            runs = len(args["strategies"]) * (len(args["strategies"]) - 1) // 2
            first = make_spec(args["strategies"][0], args["strategies"][1:2], parse_rules(args["rules"]), args["n"],
                              seed=args["seed"], players_fixed=True, chunk_size=args.get("chunk_size", 0))
    except (RulesError, RunError) as e:
        fail(str(e))
    except (KeyError, TypeError, ValueError) as e:
        fail(f"{out}: the manifest does not describe a {kind} ({e})")
    argv = args.get("argv") or sys.argv[1:]
    try:
        with _executor(scheduler, jobs, quiet) as (executor, jobs), _stops_cleanly(continue_with), \
                ProgressBar(first, enabled=not quiet and sys.stderr.isatty(), runs=runs) as bar:
            def on_run(k, what):
                label = what.label if kind == "compare" else " vs ".join(what.labels())
                bar.start_run(k, label)
                if not bar.enabled and not quiet:
                    click.echo(f"[{k + 1}/{runs}] {label}", err=True)
            common = dict(seed=args["seed"], jobs=jobs, argv=argv, on_run=on_run, executor=executor,
                          chunk_size=args.get("chunk_size", 0), on_chunk=bar)
            if kind == "compare":
                summary = run_compare(variants, args["strategies"][0], args["strategies"][1], args["n"], out, **common)
            else:
                summary = run_tournament(list(args["strategies"]), args["n"], out, rules=args["rules"], **common)
    except (CompareError, TournamentError) as e:
        fail(str(e))
    if as_json:
        emit_json(summary)
        return
    if kind == "compare":
        for line in compare_lines(summary):
            click.echo(line)
    else:
        print_tournament(summary)
    click.echo(f"\nresults kept in {out} (summary.json, tables/); charts: escoba-sim report {shlex.quote(str(out))}")


def _series_folder(kind: str, out: str | None, seed: int | None) -> tuple[str, int]:
    """``--out`` or a folder the command names (``compare-SEED``), and the seed (drawn when not given)."""
    import secrets

    if seed is None:
        seed = secrets.randbits(64)
        click.echo(f"seed {seed} (drawn at random; pass --seed {seed} to repeat this {kind})", err=True)
    if out is None:
        out = f"{kind}-{seed}"
        click.echo(f"results go to {out}/ (choose another folder with --out)", err=True)
    return out, seed


@main.command()
@click.option("--rules", "-r", "rules_list", type=RULES, multiple=True,
              help="A ruleset to compare (repeat it); with --vary, the one base ruleset (default ludoteka).")
@click.option("--vary", multiple=True, metavar="FIELD=V1,V2",
              help="Vary one field of the base ruleset, e.g. lucky_deal=escobas,off (repeatable).")
@click.option("--design-effects", is_flag=True,
              help="Vary every effect the design names: lucky_deal, ties, sevens, capture, target.")
@click.option("--strategy", "-s", type=STRATEGY, default="greedy", show_default=True, help="First player's strategy.")
@click.option("--vs", type=STRATEGY, default="maxoros", show_default=True, help="Second player's strategy.")
@click.option("-n", "count", type=COUNT, default="10000", show_default=True, help="Games per ruleset (e.g. 1e5).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="One seed for every ruleset (the same deals).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores).")
@click.option("--out", "-o", type=click.Path(file_okay=False),
              help="Output folder, resumable (default: compare-SEED in the current folder).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@scheduler_option
def compare(rules_list, vary, design_effects, strategy, vs, count, seed, jobs, out, as_json, quiet, scheduler):
    """Compare rulesets on the same deals: estimates per ruleset and paired differences vs the first.

    \b
    Examples:
      escoba-sim compare --rules ludoteka --rules cardgames -n 1e4
      escoba-sim compare --vary lucky_deal=escobas,off --vary ties=shared,none -n 1e4 --out cmp2
      escoba-sim compare --design-effects -n 1e4 --out effects
    """
    from .compare import DESIGN_EFFECTS, CompareError, build_variants

    vary = list(vary) + (list(DESIGN_EFFECTS) if design_effects else [])
    try:
        variants = build_variants(list(rules_list), vary)
    except CompareError as e:
        fail(str(e))
    out, seed = _series_folder("compare", out, seed)
    _series("compare", {"variants": variants, "strategies": [strategy, vs], "n": count, "seed": seed}, out,
            jobs=jobs, as_json=as_json, quiet=quiet, scheduler=scheduler,
            continue_with=f"escoba-sim resume {shlex.quote(str(out))}")


@main.command()
@click.argument("strategies", nargs=-1, required=True, type=STRATEGY)
@click.option("-n", "count", type=COUNT, default="10000", show_default=True, help="Games per pair (e.g. 1e5).")
@click.option("--rules", "-r", "ruleset", type=RULES, default="ludoteka", show_default=True, help="Ruleset.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="One seed for every pair (the same deals).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores).")
@click.option("--out", "-o", type=click.Path(file_okay=False),
              help="Output folder, resumable (default: tournament-SEED in the current folder).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@scheduler_option
def tournament(strategies, count, ruleset, seed, jobs, out, as_json, quiet, scheduler):
    """Every pair of strategies on the same duplicate deals: crosstable and Bradley-Terry ratings.

    \b
    Example:
      escoba-sim tournament greedy maxoros random -n 1e4
    """
    if len(strategies) < 2:
        fail("a tournament needs two or more strategies")
    out, seed = _series_folder("tournament", out, seed)
    _series("tournament", {"strategies": list(strategies), "n": count, "seed": seed, "rules": ruleset}, out,
            jobs=jobs, as_json=as_json, quiet=quiet, scheduler=scheduler,
            continue_with=f"escoba-sim resume {shlex.quote(str(out))}")


@main.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--out", "-o", type=click.Path(file_okay=False), help="Where to write (default: DIRECTORY/report).")
def report(directory, out):
    """Charts (PNG and SVG) and one self-contained HTML page for a run, compare or tournament folder.

    \b
    Example:
      escoba-sim report cmp && chromium cmp/report/index.html
    """
    from .report import ReportError, write_report
    from .runspec import RunError

    try:
        page = write_report(directory, out)
    except (ReportError, RunError) as e:
        fail(str(e))
    except OSError as e:
        where = e.filename or out or f"{directory}/report"
        fail(f"cannot write the report to {where} ({e.strerror or e}); choose another --out")
    click.echo(str(page))


# --- tune: CMA-ES over a built-in strategy's parameters (tune.py) ---

@main.command()
@click.argument("strategy", type=STRATEGY)
@click.option("--rules", "-r", "ruleset", type=RULES, default="ludoteka", show_default=True, help="Ruleset.")
@click.option("--vs", "pool", type=STRATEGY, multiple=True, default=("greedy",), show_default=True,
              help="An opponent of the pool (repeat for several); the score is the mean margin over the pool.")
@click.option("--param", "params", multiple=True, metavar="NAME",
              help="Tune only this parameter (repeat; default: every non-integer parameter).")
@click.option("--evals", type=COUNT, default="200", show_default=True,
              help="Evaluations in all (rounded up to whole generations).")
@click.option("--games", type=COUNT, default="20000", show_default=True,
              help="Deals per evaluation and opponent, each played once per side.")
@click.option("--check", type=COUNT, help="Fresh deals of the final check (default: 2 x --games).")
@click.option("--popsize", type=click.IntRange(min=2), help="Candidates per generation (default: CMA-ES's own).")
@click.option("--sigma", type=click.FloatRange(min=0, min_open=True), default=0.3, show_default=True,
              help="Initial step, as a share of each starting value (at least 1).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True, help="Seed (deals and CMA-ES).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes.")
@click.option("--out", "-o", type=click.Path(file_okay=False), required=True,
              help="Output folder: every evaluation, summary.json, best.toml (run again to resume).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@scheduler_option
def tune(strategy, ruleset, pool, params, evals, games, check, popsize, sigma, seed, jobs, out, as_json, scheduler):
    """Tune a strategy's parameters with CMA-ES on duplicate deals (needs the tune extra).

    Every candidate of a generation plays the same deals against the pool, so
    their scores differ by play, not luck. Ends with a check on fresh deals,
    tuned against the starting parameters, and writes OUT/best.toml.

    \b
    Example:
      escoba-sim tune heuristic --vs greedy --evals 300 --games 2e4 --out tune1 -j 2
      escoba-sim run -s heuristic:tune1/best.toml --vs heuristic -n 1e5
    """
    from pathlib import Path

    from .tune import TuneError, make_tune_spec, tune as run_tune

    def progress(p):
        b = p.best
        left = f"; about {p.seconds_left:.0f} s left" if p.seconds_left is not None else ""
        click.echo(f"generation {p.generation}/{p.generations} ({p.evals_done}/{p.evals_total} evaluations): best so "
                   f"far {b['score']:+.4f} [{b['lo']:+.4f}, {b['hi']:+.4f}] points per hand "
                   f"(generation {b['generation'] + 1}, candidate {b['candidate'] + 1}){left}", err=True)

    try:
        spec = make_tune_spec(strategy, rules=ruleset, pool=pool, evals=evals, games=games, seed=seed, sigma=sigma,
                              popsize=popsize, params=params, check=check)
        with _executor(scheduler, jobs, quiet=as_json) as (executor, jobs), _stops_cleanly(_same_command()):
            summary = run_tune(spec, out, jobs=jobs if scheduler is None else 1, executor=executor,
                               on_generation=progress)
    except TuneError as e:
        fail(str(e))
    if as_json:
        emit_json(summary)
        return
    c = summary["check"]
    click.echo(f"tuned: {summary['tuned']}")
    click.echo(f"check on {c['deals']} fresh deals (seed {c['seed']}): tuned minus start "
               f"{c['points_per_hand']:+.4f} [{c['lo']:+.4f}, {c['hi']:+.4f}] points per hand (95%)")
    click.echo(f"wrote {Path(out) / 'best.toml'}: use --strategy {spec.start.name}:{Path(out) / 'best.toml'}")


# --- bench: hands per second of the compiled core and the reference engine ---

def _finite(ctx, param, value):
    """click's FloatRange lets nan through (every comparison with nan is false)."""
    import math

    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number of seconds", ctx, param)
    return value


@main.command()
@click.option("--rules", "-r", "ruleset", type=RULES, default="ludoteka", show_default=True, help="Ruleset.")
@click.option("--seconds", type=click.FloatRange(0.01, 3600), default=2.0, show_default=True, callback=_finite,
              help="Time per measurement for the compiled core (the reference gets a quarter, at least 1 s).")
@click.option("--json", "as_json", is_flag=True, help="Print the measurements as JSON on stdout.")
def bench(ruleset, seconds, as_json):
    """Hands per second on one core: greedy-maxoros, greedy-greedy and random-random, core vs reference.

    \b
    Example:
      escoba-sim bench --seconds 3 --json
    """
    from . import __version__
    from .batch import ENGINE
    from .bench import bench_table, format_table

    engines = ("cython", "python") if ENGINE == "cython" else ("python",)
    if ENGINE != "cython":
        click.echo("the compiled core is not loaded: measuring the reference engine only", err=True)
    rows = bench_table(ruleset, seconds=seconds, python_seconds=max(1.0, seconds / 4), engines=engines)
    if as_json:
        emit_json({"version": __version__, "engine": ENGINE, "rules": str(ruleset), "rows": rows})
        return
    click.echo(f"escoba-sim {__version__}, rules {ruleset}, one core, hands per second")
    click.echo(format_table(rows))
