"""The commands about one hand: trace, replay and moves (hand records, ``hands.record``), play (a person
at the table, ``hands.play``) and analyze (the evaluator's review, ``hands.review``)."""

from __future__ import annotations

import contextlib
import sys

import click

from ..i18n import ngettext
from ..i18n import translate as _
from .errors import USAGE, fail, render
from .options import (
    COUNT,
    SAMPLES,
    emit_json,
    fitted,
    json_option,
    out_option,
    partner_option,
    rules_option,
    seed_option,
    strategy_option,
    teams_option,
    terminal_width,
    vs_option,
)


def load_record_file(path: str):
    """The hand record a FILE argument gives, and the name to call it by: a file or ``-`` (stdin) holding JSON or
    the notation (``hands.notation``), or the notation itself (or a link holding it) when no file has that name.
    One-line errors, exit 2 (nothing was checked).

    The file is read as untrusted input (``files``: a regular file, its size, depth and numbers bounded)."""
    import os

    from ..files import UntrustedFile, read_text
    from ..hands.notation import looks_like_notation, read_record_text
    from ..hands.record import RecordError

    name = path
    try:
        if path == "-":
            text = sys.stdin.read()
        elif looks_like_notation(path) and not os.path.lexists(path):
            text, name = path, _("the notation")
        else:
            text = read_text(path)
    except UntrustedFile as e:
        fail(_("cannot read the record {reason}").format(reason=render(e)), USAGE)
    except ValueError as e:  # a NUL byte in the name
        fail(_("{path}: cannot read the record ({reason})").format(path=path, reason=render(e)), USAGE)
    except UnicodeDecodeError:
        fail(_("{path}: not a text file; a hand record is JSON or the notation").format(path=path), USAGE)
    try:
        return read_record_text(text, str(name)), name
    except UntrustedFile as e:
        fail(e, USAGE)
    except RecordError as e:
        fail(f"{name}: {render(e)}", USAGE)


@click.command(help=_("""Play one hand and print it play by play, or as a hand record.

\b
Examples:
  escoba-sim trace --strategy greedy --vs random --seed 7
  escoba-sim trace -s greedy --vs maxoros --seed 7 --json > hand.json
  escoba-sim trace -s greedy --vs greedy --vs random \\
      -r 'tradicional(players=3)' --seed 1
  escoba-sim trace -s greedy --vs maxoros --dealer 1 --deck \\
      "7e Cc 3o 4b 4c 4o 5o 4e Sc Se 3c 3e 2e 6e \\
       Ro 6c 1b Cb 6b Rc 2o 7c 1c 3b 5e Ce 2b 5c \\
       Re Sb 1e 7b 6o Co Rb 5b 1o So 2c 7o"
  escoba-sim trace -s ismcts --vs greedy --seed 7 --analyze
  escoba-sim trace -s greedy --vs random --seed 7 --notation

The same --seed/--game/--hand-index as a batch run shows the very hand the run
played. With --deck, --seed (default 0) only feeds the random strategy."""))
@strategy_option(_("Strategy of seat 0."), required=True)
@vs_option(_("Strategy of the next seat; repeat it for 3, 4 or 6 players."), multiple=True, required=True)
@seed_option(_("Run seed (0 to 2^64-1); without --seed or --deck one is drawn and printed."))
@click.option("--game", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help=_("Game index in the run (0 to 2^64-1)."))
@click.option("--hand-index", "hand_index", type=click.IntRange(min=0), default=0, show_default=True,
              help=_("Hand index within the game (below the engine's limit of hands per game)."))
@click.option("--hand", "old_hand_index", type=click.IntRange(min=0), hidden=True)  # the old spelling (deprecated: `--hand` is cards in `moves`)
@click.option("--deck", help=_('A known deal instead of a shuffled one: all 40 cards in dealing order, "7o Rb 3c ...".'))
@click.option("--dealer", type=click.IntRange(min=0),
              help=_("Dealer seat (default: (game + hand) % players with --seed, 0 with --deck)."))
@rules_option(_("Preset, preset(field=value,...) or a TOML file."))
@json_option(_("Print the hand record (JSON) instead of the play-by-play."))
@click.option("--notation", "as_notation", is_flag=True,
              help=_("Print the hand as one line of notation (docs/records.md) instead of the play-by-play."))
@click.option("--analyze", "with_analysis", is_flag=True,
              help=_("Show the evaluator's value of each play, the best move and the loss (as `analyze`), and "
                     "what the player read of the other hands; with --json, an `analysis` field."))
@click.option("--samples", type=SAMPLES, default=None, help=_("With --analyze: deals per decision (default 4000)."))
def trace(*, strategy, vs, seed, game, hand_index, old_hand_index, deck, dealer, ruleset, as_json, as_notation,
          with_analysis, samples):
    # the help text is the command's (above), translated
    from ..game.cards import parse_cards
    from ..game.engine import MAX_HANDS_PER_GAME
    from ..hands.record import check_deck, format_trace, play_record
    from ..lineup import check_one_per_seat

    if as_notation and (as_json or with_analysis):
        fail(_("--notation prints the hand alone: it goes with neither --json nor --analyze"), USAGE)
    option = "--hand-index"
    if old_hand_index is not None:  # the old spelling still works, with a note
        click.echo(_("note: trace's --hand is now --hand-index (--hand still works, for now)"), err=True)
        option, hand_index = "--hand", old_hand_index
    if hand_index >= MAX_HANDS_PER_GAME:
        fail(_("{option}: {index} is past the last hand a game can have ({last})").format(
            option=option, index=hand_index, last=MAX_HANDS_PER_GAME - 1), USAGE)

    strategies = [strategy, *vs]
    check_one_per_seat(ruleset, strategies)
    cards = None
    if deck is not None:
        try:
            cards = parse_cards(deck, distinct=True)
            check_deck(cards, "--deck")
        except ValueError as e:
            said = render(e)  # check_deck's names the flag it was given; a card's does not
            fail(said if said.startswith("--deck") else f"--deck: {said}", USAGE)
        if seed is None:
            seed = 0
        if dealer is None:
            dealer = 0
    elif seed is None:
        from ..game.rng import draw_seed

        seed = draw_seed()
        click.echo(_("seed drawn at random; to see this hand again: --seed {seed}").format(seed=seed),
                   err=True)
    if dealer is not None and dealer >= ruleset.players:
        fail(_("--dealer: {dealer} is not a seat (0 to {last} with {players} players)").format(
            dealer=dealer, last=ruleset.players - 1, players=ruleset.players), USAGE)
    # the reference engine plays; a core-only strategy (ismcts) decides through the compiled core
    _state, record = play_record(ruleset, strategies, seed, game, hand_index, dealer=dealer, deck=cards)
    notes = None
    if with_analysis:
        from ..hands.evaluate import DEFAULT_SAMPLES
        from ..hands.review import analyze_record, trace_notes

        an = analyze_record(record, samples=samples or DEFAULT_SAMPLES)
        record["analysis"] = an.to_json()
        notes = trace_notes(an, width=terminal_width())
    if as_notation:
        from ..hands.notation import to_notation

        click.echo(to_notation(record))
    elif as_json:
        emit_json(record)
    else:
        click.echo(format_trace(record, notes, width=terminal_width()))


@click.command(help=_("""Check a hand record move by move under its ruleset and print the score.

FILE is a hand record: a JSON file (as written by `trace --json`), a file
holding the one-line notation (`trace --notation`, docs/records.md), the
notation itself or a link holding it (a page's Share link), or - for stdin.
Exit status: 0 legal and complete, 1 an illegal move or another problem
(reported with the move number, the seat and the reason), 2 not a readable
hand record.

\b
Examples:
  escoba-sim trace -s greedy --vs random --seed 3 --json | escoba-sim replay -
  escoba-sim replay hand.json --notation      # the record as one line"""))
@click.argument("file")
@json_option(_("Print the verdict, problems and score as JSON."))
@click.option("--notation", "as_notation", is_flag=True,
              help=_("Print the record as one line of notation instead (problems on stderr, with exit 1)."))
def replay(file, as_json, as_notation):
    # the help text is the command's (above), translated
    from ..hands.notation import to_notation
    from ..hands.record import RecordError, format_score, replay_record, score_json

    if as_json and as_notation:
        fail(_("--json and --notation print two different things: give one"), USAGE)
    data, file = load_record_file(file)
    try:
        st, problems = replay_record(data)
        line = to_notation(data) if as_notation else None
    except RecordError as e:
        fail(f"{file}: {render(e)}", USAGE)
    score = score_json(st.rules, st.result) if st.over and st.result is not None else None
    if as_notation:
        click.echo(line)
        for p in problems:
            click.echo((_("ILLEGAL {problem}") if p.move is not None else _("PROBLEM {problem}")).format(problem=p),
                       err=True)
    elif as_json:
        emit_json({"ok": not problems, "rules": st.rules.canonical(), "moves": len(data["moves"]),
                   "problems": [p.as_dict() for p in problems], "score": score})
    else:
        if problems:
            for p in problems:
                click.echo((_("ILLEGAL {problem}") if p.move is not None else _("PROBLEM {problem}")).format(
                    problem=p))
        else:
            click.echo(ngettext("{file}: {n} move, legal under {rules}", "{file}: {n} moves, all legal under {rules}",
                                len(data["moves"])).format(file=file, n=len(data["moves"]), rules=st.rules.canonical()))
        if score is not None:
            click.echo("")
            click.echo(format_score(st.rules, score, data.get("strategies")))
    if problems:
        sys.exit(1)


@click.command(help=_("""List the legal moves of a hand at a table: cards taken and escobas.

\b
Example:
  escoba-sim moves --table "1o 4c Rb" --hand "5b 7o\""""))
@click.option("--hand", "hand_text", required=True, help=_('The cards in hand, e.g. "5b 7o".'))
@click.option("--table", "table_text", default="", help=_('The cards on the table, e.g. "1o 4c Rb" (empty by default).'))
@rules_option(_("Preset, preset(field=value,...) or a TOML file (capture decides what is legal)."))
@json_option(_("Print the moves as JSON."))
def moves(hand_text, table_text, ruleset, as_json):
    # the help text is the command's (above), translated
    from ..game.cards import CardError, card_str, cards_str, parse_cards, value
    from ..hands.record import legal_moves_for

    try:
        hand = parse_cards(hand_text)
    except CardError as e:
        fail(f"--hand: {render(e)}", USAGE)
    try:
        table = parse_cards(table_text)
    except CardError as e:
        fail(f"--table: {render(e)}", USAGE)
    try:
        legal = legal_moves_for(ruleset, hand, table)
    except CardError as e:  # the cards of --hand and --table do not make a position: a usage error too
        fail(e, USAGE)
    if as_json:
        emit_json({"rules": ruleset.canonical(), "hand": cards_str(sorted(hand)), "table": cards_str(sorted(table)),
                   "moves": [{"card": card_str(m.card), "take": [card_str(c) for c in m.take],
                              "capture": bool(m.take), "escoba": m.escoba} for m in legal]})
        return
    click.echo(_("hand {hand}  table {table}  rules {rules} (capture={capture})").format(
        hand=cards_str(sorted(hand)), table=cards_str(sorted(table)) or _("(empty)"), rules=ruleset.canonical(),
        capture=ruleset.capture))
    for m in legal:
        if m.take:
            total = " + ".join(str(value(c)) for c in (m.card, *m.take))
            click.echo("  " + _("{card} takes {cards} ({total} = 15)").format(
                card=f"{card_str(m.card):<3}", cards=f"{cards_str(m.take):<16}", total=total)
                + ("  " + _("ESCOBA") if m.escoba else ""))
        else:
            click.echo("  " + _("{card} lays").format(card=f"{card_str(m.card):<3}"))


def terminal_io(colour: bool):
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

    return ask, lambda text: click.echo(fitted(text), color=colour)  # no line wider than the terminal


@click.command(help=_("""Play Escoba against the computer in the terminal; every hand is saved as a hand record.

Type a move by its number, or by its cards: `5o` plays the 5 of oros (its
only move), `5o Rc` names the cards it takes, `5o -` lays it. Keys: `?` the
3 best moves by the evaluator (from your information only), `u` takes back
your last move and the computer's replies, `q` quits (the hand in play is
saved as unfinished; so is it on Ctrl-C, SIGTERM or an error, with one line
and exit 130, 143 or 1). Under soplar rules you are offered to blow when the
computer lays a card that could have captured.

\b
Examples:
  escoba-sim play --vs ismcts
  escoba-sim play --vs level:3                          # a rated opponent
  escoba-sim play --vs heuristic -r tradicional --seed 7 --hands -n 3
  escoba-sim play --vs greedy --vs maxoros              # three players
  escoba-sim play --vs greedy --teams --partner ismcts  # two teams of two
  escoba-sim analyze escoba-play/7-g0-h0.json  # where points were lost"""))
@vs_option(_("The computer's strategy (any spec, plugins too); repeat it for 3 or 4 players: one per "
             "computer seat, in seat order (with --teams: one per opponent)."), multiple=True, required=True)
@teams_option(_("Four players in two teams: you and a computer partner (seat 2) against seats 1 and 3."))
@partner_option(_("With --teams: your partner's strategy (default: the first --vs)."))
@rules_option(_("Preset, preset(field=value,...) or a TOML file; the player count follows --vs unless set here."),
              text=True)
@seed_option(_("Seed of the deals; without it one is drawn and printed."))
@click.option("-n", "count", type=COUNT, default="1", show_default=True,
              help=_("Games to play (hands with --hands)."))
@click.option("--hands", "hands_mode", is_flag=True, help=_("-n counts single hands instead of games to the target."))
@out_option(_("Folder for the hand records (one JSON file per hand)."), default="escoba-play", show_default=True)
@click.option("--samples", type=SAMPLES, default=None,
              help=_("Deals of the unseen cards per hint (default: the evaluator's, 4000)."))
@click.option("--color/--no-color", "colour", default=None,
              help=_("Cards in colour by suit (default: when the output is a terminal)."))
def play(*, vs, teams, partner, rules_text, seed, count, hands_mode, out, samples, colour):
    # the help text is the command's (above), translated
    from pathlib import Path

    from ..hands.evaluate import DEFAULT_SAMPLES
    from ..hands.play import Session
    from ..lineup import table_seats

    seats = table_seats(rules_text, list(vs), teams=teams, partner=partner)
    rules = seats.rules
    check_out_folder(out)
    if seed is None:
        from ..game.rng import draw_seed

        seed = draw_seed()
        click.echo(_("seed drawn at random; to see these deals again: --seed {seed}").format(seed=seed),
                   err=True)
    colour = sys.stdout.isatty() if colour is None else colour
    ask, say = terminal_io(colour)
    session = Session(seats, seed, Path(out), ask=ask, say=say, colour=colour, samples=samples or DEFAULT_SAMPLES)
    say(_("rules {rules}; you are seat 0; {others}").format(
        rules=rules.canonical(), others=", ".join(session.seats.name(s) for s in range(1, rules.players))))
    play_keeping_the_hand(session, count, hands_mode)


def check_out_folder(out: str) -> None:
    """Refuse, before a hand is dealt, an ``--out`` where no record could be saved: a file, or a folder (or the
    nearest existing parent of one to be made) that cannot be written. Nothing is created here."""
    import os
    from pathlib import Path

    p = Path(out)
    if p.exists() and not p.is_dir():
        fail(_("--out {out}: not a folder (a file of that name exists); the hand records could not be saved").format(
            out=out))
    existing = p
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        fail(_("--out {out}: {path} is not a folder; the hand records could not be saved").format(
            out=out, path=existing))
    if not os.access(existing, os.W_OK | os.X_OK):
        fail(_("--out {out}: {path} is not writable; the hand records could not be saved").format(
            out=out, path=existing))


def play_keeping_the_hand(session, count: int, hands_mode: bool) -> None:
    """Play the sitting; an error or a signal ends it with one line on stderr naming the record of the hand in
    play (saved as unfinished by the session): exit 1 for an error, 130 for Ctrl-C, 143 for SIGTERM."""
    from ..hands.table import SaveFailed
    from ..runs.signals import exit_code, stop_on_signals

    def kept(e: BaseException) -> str:
        if session.unfinished is not None:
            return _("; the hand so far is saved as {path}").format(path=session.unfinished)
        notes = getattr(e, "__notes__", None)
        return f"; {notes[0]}" if notes else ""

    try:
        with stop_on_signals():
            session.play(count, hands_mode)
    except KeyboardInterrupt as e:  # Ctrl-C or SIGTERM (stop_on_signals raises it for both)
        if sys.stdin.isatty():
            click.echo("", err=True)  # off the prompt's line, where the terminal echoed ^C
        click.echo(_("Interrupted") + kept(e), err=True)
        sys.exit(exit_code())
    except SaveFailed:  # before ValueError's clause: nothing was kept, so the line is the error's own (reporting)
        raise
    except OSError as e:  # the terminal went away (a closed pipe, EIO)
        fail(f"{type(e).__name__}: {e.strerror or e}{kept(e)}")
    except ValueError as e:  # a plugin's failure (PluginError) and every one-line error of the library
        fail(" ".join(render(e).split()) + kept(e))
    except Exception as e:  # a bug: still one line, and the hand is kept
        text = " ".join(str(e).split())[:200]
        fail(_("unexpected {error} (please report it)").format(
            error=type(e).__name__ + (": " + text if text else "")) + kept(e))


@click.command(help=_("""Value every decision of a hand record: move played, best move, expected loss in points, marks.

RECORD is a hand record (from `play`, `trace --json` or written by hand),
the one-line notation or a file holding it, or - for stdin. Each decision
is valued from the decider's information only (its hand, the table, every
card played), by the evaluator (docs/evaluate.md): exact when nothing is
hidden, else a search over deals of the unseen cards. Losses of 0.2, 0.5
and 1.0 points are marked inaccuracy, mistake and blunder. The luck ledger
then says what the cards gave or took (the deal and every card that
arrived, against the average of what could have arrived), what the
decisions lost and what the others' play did, adding up to the result
(for the person's seat of a record from play or the page, else for each
seat; --no-luck leaves it out).

\b
Examples:
  escoba-sim trace -s greedy --vs greedy --seed 3 --json > hand.json
  escoba-sim analyze hand.json
  escoba-sim analyze escoba-play/7-g0-h0.json --seat 0 --json"""))
@click.argument("record")
@click.option("--seat", "seats", type=click.IntRange(min=0), multiple=True,
              help=_("Analyse only this seat's decisions (repeatable; default: every seat)."))
@click.option("--samples", type=SAMPLES, default=None,
              help=_("Deals of the unseen cards per decision (default: the evaluator's, 4000)."))
@seed_option(_("Seed of the searches: decision k searches with a seed mixed from it and k (default: a record "
              "that names its deal's seed is searched as play's and the page's hints were, so that they agree; "
              "any other from seed 0)."))
@click.option("--reading", "with_reading", is_flag=True,
              help=_("Under each decision, what the decider read of the other hands from their moves this round "
                     "(--json always has it, in a `reading` field)."))
@click.option("--luck/--no-luck", "with_luck", default=True, show_default=True,
              help=_("The luck ledger: what the cards, the decisions and the others' play gave or took."))
@json_option(_("Print every decision and the totals as JSON."))
def analyze(record, seats, samples, seed, with_reading, with_luck, as_json):
    # the help text is the command's (above), translated
    from ..hands.evaluate import DEFAULT_SAMPLES
    from ..hands.luck import format_ledger, review_hand
    from ..hands.review import AnalysisError, format_analysis

    data, record = load_record_file(record)
    progress = None
    if sys.stderr.isatty():
        def progress(done, total):
            click.echo("\r" + _("analysing: decision {done} of {total}").format(done=done, total=total), err=True,
                       nl=done == total)
    try:
        review = review_hand(data, seats=list(seats) or None, samples=samples or DEFAULT_SAMPLES, seed=seed,
                             luck=with_luck, on_decision=progress)
    except AnalysisError as e:
        fail(f"{record}: {render(e)}", USAGE)
    if as_json:
        emit_json(review.to_json())
    else:
        width = terminal_width()
        click.echo(format_analysis(review.analysis, record, width=width, reading=with_reading))
        for led in review.ledgers:
            click.echo("")
            click.echo("\n".join(format_ledger(led, review.analysis.rules, review.analysis.strategies, width)))


@click.command(help=_("""Sum a folder of your hands (from `play` or the page): games, results, luck and loss.

FOLDER holds the hand records (default: escoba-play, play's folder). For
each game in the order played: the opponent, hands, score and result; per
hand, with 95% CIs: the points, and the luck ledger's parts (what the
cards gave, what your decisions lost, what the others' play did; `analyze`
gives one hand's); a line per day; and your performance rating from the games
played to the end against rated opponents (`level:N`, docs/strategies.md),
on the levels' scale. Files that are not finished hands of a person are
counted and skipped. Ctrl-C during the ledgers prints what is done.

\b
Examples:
  escoba-sim history
  escoba-sim history escoba-play --no-luck
  escoba-sim history escoba-play --samples 4000 --json"""))
@click.argument("folder", default="escoba-play")
@click.option("--luck/--no-luck", "with_luck", default=True, show_default=True,
              help=_("Each hand's luck ledger (about a second of CPU per hand at the default samples)."))
@click.option("--samples", type=SAMPLES, default=1000, show_default=True,
              help=_("With --luck: deals of the unseen cards per decision (analyze's default is 4000)."))
@seed_option(_("Seed of the ledgers' searches (default: analyze's, so that a hand's figures are analyze's at the "
              "same samples)."))
@json_option(_("Print the games, the figures and the rating as JSON."))
def history(folder, with_luck, samples, seed, as_json):
    # the help text is the command's (above), translated
    from ..hands.history import HistoryError, format_history, history_of

    progress = None
    if sys.stderr.isatty() and with_luck:
        def progress(done, total):
            click.echo("\r" + _("luck ledgers: hand {done} of {total}").format(done=done, total=total), err=True,
                       nl=done == total)
    try:
        h = history_of(folder, luck=with_luck, samples=samples, seed=seed, on_hand=progress)
    except HistoryError as e:
        fail(e)  # a folder it cannot use: exit 1
    if as_json:
        emit_json(h.to_json())
    else:
        click.echo(format_history(h, width=terminal_width()))
    if h.interrupted:
        sys.exit(130)
