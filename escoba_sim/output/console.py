"""Terminal output: the progress bar on stderr and the summary tables of run, compare and tournament on stdout
(a skill ladder's: ``skill_table``).

Every table fits the console's width (the terminal's, ``COLUMNS`` when set, 80 when piped): a table
wider than that is printed as several tables, each with the row names and as many value columns as
fit (``print_table``); an interval stands under its estimate; a number is never cut. Strategies are
named by short labels in tables; long specs are listed once in full.
"""

from __future__ import annotations

import math
import os
import sys
import textwrap
from typing import TYPE_CHECKING

from ..i18n import N_, ngettext
from ..i18n import translate as _
from .terminal import make_console

if TYPE_CHECKING:  # the names of annotations; the modules load where they are used
    from ..runs.runner import Progress
    from ..runs.spec import RunSpec


class ProgressBar:
    """A rich progress bar on stderr that advances as chunks finish (hands/s, ETA), with live standings.

    ``enabled``: the bar (a terminal); ``standings``: the standings of the chunks merged so far
    (``LiveStandings``): under the bar when it is shown, else one line on stderr every few chunks.
    ``runs`` > 1 makes one bar for a series of runs (a comparison, a tournament, a skill ladder): ``plan`` is
    told their specs, ``start_run(k, label)`` is called before run ``k``; its chunks then count after the earlier
    runs', each run weighted by its cost. The counts beside the bar are the current run's games (or hands).
    """

    def __init__(self, spec: RunSpec, enabled: bool, runs: int = 1, standings: bool = False):
        self.spec, self.enabled, self._p = spec, enabled, None
        self.runs, self.offset, self.run = runs, 0.0, 0
        # the bar and its ETA count cost, not games: each run's units weighted by its estimated CPU seconds per
        # game (``RunSpec.deal_seconds``), so that a series of cheap and dear pairs (random vs greedy, then
        # ismcts) has an ETA that does not jump between them; equal weights until ``plan`` says otherwise
        self.weights, self.played = [1.0] * runs, [spec.played] * runs
        self.live = LiveStandings(every=None if enabled else "auto") if standings else None

    def plan(self, specs: list[RunSpec]) -> None:
        """Every run's spec, before the first plays (``series.tables.run_series``): their relative costs."""
        if len(specs) != self.runs:
            return
        cost = [max(s.deal_seconds() / s.rotations, 1e-9) for s in specs]
        mean = sum(cost) / len(cost)
        self.weights = [c / mean for c in cost]
        self.played = [s.played for s in specs]
        if self._p is not None:
            self._p.update(self._task, total=sum(w * n for w, n in zip(self.weights, self.played)))

    def start_run(self, k: int, label: str) -> None:
        self.run = k
        self.offset = sum(w * n for w, n in zip(self.weights[:k], self.played[:k]))
        if self.live is not None:
            self.live.reset()
        if self._p is not None:
            self._p.update(self._task, completed=self.offset, description=f"[{k + 1}/{self.runs}] {label}",
                           count=f"0/{self.played[k]:,}")

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
            from rich.table import Column
            from rich.text import Text

            live = self.live

            class WithStandings(Progress):
                def get_renderables(self):  # rich's documented hook: the bar, then the standings under it
                    yield self.make_tasks_table(self.tasks)
                    if live is not None and live.text:
                        yield Text(live.text)  # plain: no number highlighting

            # the description gives way (an ellipsis) before the counts, the rate and the ETA, which stay whole
            self._p = WithStandings(TextColumn("{task.description}", table_column=Column(ratio=1, no_wrap=True,
                                                                                        overflow="ellipsis")),
                                    BarColumn(bar_width=12), TextColumn("{task.fields[count]}", table_column=Column(
                                        no_wrap=True)), TextColumn("{task.fields[rate]}", table_column=Column(
                                            no_wrap=True)), TextColumn(_("ETA")), TimeRemainingColumn(),
                                    console=Console(stderr=True), transient=False, expand=True)
            self._p.__enter__()
            self._task = self._p.add_task(word(UNIT_TEXT, self.spec.mode), total=self.spec.played * self.runs, rate="",
                                          count=f"0/{self.spec.played:,}")
        return self

    def __call__(self, p: Progress) -> None:
        if self.live is not None:
            self.live(p)
        if self._p is not None:
            rate = p.hands_computed / p.seconds if p.seconds > 0 else 0.0
            played = p.spec.played if p.spec is not None else self.spec.played
            self._p.update(self._task, completed=self.offset + self.weights[self.run] * p.units_done,
                           count=f"{p.units_done:,}/{played:,}", rate=_("{rate} hands/s").format(rate=f"{rate:,.0f}"))

    def __exit__(self, *exc) -> None:
        if self._p is not None:
            self._p.__exit__(*exc)


class LiveStandings:
    """Standings of a run while it plays, from the same summary the run ends with (``runs.summary``).

    Fed the runner's ``Progress`` after every chunk (``__call__``), it summarizes the chunks merged so
    far in index order, so its last standings are the final summary's (``standings_line``). With
    ``every`` None it keeps ``text`` for a live display (refreshed at most every ``refresh`` seconds,
    and always at the end); with ``every`` a number of merged chunks (``"auto"``: about ten lines a
    run) it writes one line to ``write`` (stderr) each time that many more chunks are merged, and at
    the end. Anything that makes run summaries (a series, a future command) can use
    ``standings_line`` alone.
    """

    LINES = 10  # lines per run with every="auto"

    def __init__(self, every: int | str | None = None, write=None, refresh: float = 0.25):
        self.every, self.refresh = every, refresh
        self.write = write or (lambda line: print(line, file=sys.stderr, flush=True))
        self.text = ""
        self.reset()

    def reset(self) -> None:
        """A new run of a series starts: count its chunks from zero."""
        self._shown = -1  # chunks merged at the last line or refresh
        self._at = 0.0

    def __call__(self, p: Progress) -> None:
        import time

        if p.spec is None or p.aggregates is None or p.chunks_merged == self._shown:
            return
        if self.every is None:
            now = time.monotonic()
            if not p.final and now - self._at < self.refresh:
                return
            self._at = now
            self._shown = p.chunks_merged
            self.text = "\n".join(standings_parts(self.summary(p)))
            return
        every = max(1, -(-p.chunks_total // self.LINES)) if self.every == "auto" else int(self.every)
        if p.final or p.chunks_merged // every > max(self._shown, 0) // every:
            self._shown = p.chunks_merged
            self.write(standings_text(self.summary(p), said_width()))

    @staticmethod
    def summary(p: Progress) -> dict:
        from ..runs.summary import summarize

        return summarize(p.spec, p.aggregates, p.chunks_merged, "running", p.sprt)


def standings_parts(summary: dict) -> list[str]:
    """A run summary's standings, fastchess-like, in two parts: who and how much (with W/D/L of the first
    strategy), then its score and Elo difference with 95% intervals and the SPRT's LLR when it is on."""
    s = summary
    unit = "games" if s["mode"] == "games" else "hands"
    names = table_labels([e["label"] for e in s["entrants"]])
    head = f"{' vs '.join(names)}  " + _count(s[unit], unit) + " " + _("({deals} deals)").format(deals=f"{s['deals']:,}")
    el = s.get("elo")
    if el is None:  # 3 or more sides: each one's share of games won (points per hand with --hands)
        if unit == "games":
            tail = [_("{name} won {share} {interval}").format(name=n, share=_fmt(e['games']['win_rate'], 3, True),
                                                              interval=_ci(e['games']['ci95'], 3, True))
                    for n, e in zip(names, s["entrants"])]
        else:
            tail = [_("{name} {mean} {interval} points/hand").format(name=n, mean=_fmt(e['points_per_hand']['mean']),
                                                                    interval=_ci(e['points_per_hand']['ci95']))
                    for n, e in zip(names, s["entrants"])]
        return [head, "  ".join(tail)]
    w, d, lo = el["wdl"]
    head += "  " + _("W/D/L") + f" {w:,}/{d:,}/{lo:,}"
    elo_lo, elo_hi = el["elo_ci95"] or (None, None)
    tail = _("score") + f" {_fmt(el['score'], 4)} {_ci(el['score_ci95'] or (None, None), 4)}  Elo {_signed(el['elo'])} " \
           f"[{_signed(elo_lo)}, {_signed(elo_hi)}]"
    sp = s.get("sprt")
    if sp:
        llr = sp["llr"] if isinstance(sp["llr"], str) else f"{sp['llr']:.2f}"
        tail += f"  LLR {llr} ({sp['lower']:.2f}, {sp['upper']:.2f})"  # the bounds in parentheses, as fastchess
    return [head, tail]


def standings_line(summary: dict) -> str:
    """``standings_parts`` on one line (what a piped run prints every few chunks, unless ``COLUMNS`` says a
    narrower width: ``standings_text``)."""
    return "  ".join(standings_parts(summary))


def said_width() -> int | None:
    """The width ``COLUMNS`` gives, or None when it gives none (a log: lines stay whole)."""
    try:
        width = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return None
    return width if width >= 20 else None


def standings_text(summary: dict, width: int | None = None) -> str:
    """``standings_line``; when it is wider than ``width`` (a piped run read with ``COLUMNS=80``: the line was
    110 to 164 columns) its two parts on lines of their own, wrapped at spaces (a number never split), the
    lines after the first indented by two."""
    line = standings_line(summary)
    if width is None or len(line) <= width:
        return line
    out: list[str] = []
    for i, part in enumerate(standings_parts(summary)):
        out += textwrap.wrap(part, width, initial_indent="  " if i else "", subsequent_indent="  ",
                             break_long_words=False, break_on_hyphens=False)
    return "\n".join(out)


# the words of a run's neutral values (summary.json keeps them in English), as a person reads them
UNIT_TEXT = {"games": N_("games"), "hands": N_("hands"), "deals": N_("deals")}
STATUS_TEXT = {"running": N_("running"), "interrupted": N_("interrupted"), "complete": N_("complete"),
               "incomplete": N_("incomplete"), "stopped-by-sprt": N_("stopped by the SPRT")}
PAIRING_TEXT = {"duplicate": N_("duplicate"), "independent": N_("independent")}
# a row of a run's table per position: its points as that position
POSITION_ROW = {"dealer": N_("as dealer"), "mano": N_("as mano"), "dealer side": N_("as the dealer's side"),
                "mano side": N_("as the mano's side")}
DECISION_TEXT = {"H1": N_("H1 accepted"), "H0": N_("H0 accepted")}


def word(table: dict, value) -> str:
    """A neutral value (a status, a unit) in the current language; an unknown one as it is."""
    return _(table[value]) if value in table else str(value)


def position_row(name: str) -> str:
    """``as mano``: the row of a position (``dealer+2``: the seats after the mano) in the current language."""
    if name.startswith("dealer+") and name[len("dealer+"):].isdigit():
        return _("as dealer+{seats}").format(seats=name[len("dealer+"):])
    return word(POSITION_ROW, name) if name in POSITION_ROW else _("as {position}").format(position=name)


def _count(n: int, unit: str) -> str:
    """``1,234 games`` in the current language (the number's digits never change)."""
    return f"{n:,} {word(UNIT_TEXT, unit)}"


def _signed(x) -> str:
    if x is None:
        return "-"
    return f"{round(x, 1) + 0.0:+.1f}"  # + 0.0: an even score is +0.0, not -0.0


def percent(number: str) -> str:
    """A percentage as the language writes it: ``47.2%``, in Spanish ``47.2 %`` (the catalogue's ``95 %``)."""
    return _("{number}%").format(number=number)


def _fmt(x, digits: int = 3, pct: bool = False, signed: bool = False) -> str:
    if x is None:
        return "-"
    if pct:
        d = max(digits - 2, 1)
        tiny = 10.0 ** -d  # the smallest step shown, in percent
        if 0 < 100 * x < tiny:  # 1 win in 20,001 games is not 0.0%
            return percent(f"<{tiny:.{d}f}")
        if 100 - tiny < 100 * x < 100:
            return percent(f">{100 - tiny:.{d}f}")
        return percent(f"{100 * x:.{d}f}")
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def _ci(d, digits: int = 3, pct: bool = False, signed: bool = False) -> str:
    lo, hi = d
    return f"[{_fmt(lo, digits, pct, signed)}, {_fmt(hi, digits, pct, signed)}]"


def _width(text: str) -> int:
    """The widest line of a cell, in terminal columns."""
    from rich.cells import cell_len

    return max((cell_len(line) for line in str(text).split("\n")), default=0)


def _longest_word(text: str) -> int:
    from rich.cells import cell_len

    return max((cell_len(w) for w in str(text).split()), default=0)


def print_table(con, title: str, heads: list[str], rows: list[list[str]], *, left: int = 1) -> None:
    """A table that fits the console: the first ``left`` columns name the rows (left-aligned, wrapped at
    spaces when needed), the others hold values (right-aligned, never wrapped or cut). A table wider
    than the console is printed as several tables, each repeating the naming columns with as many value
    columns as fit. Headers wrap at spaces; a long row name (no spaces) folds."""
    from rich.markup import escape
    from rich.table import Table

    width = con.width
    n = len(heads)
    # value columns: their widest cell, or their header's longest word (a header wraps at spaces)
    natural = [max([_width(r[j]) for r in rows] + [_longest_word(heads[j]) if j >= left else _width(heads[j])])
               for j in range(n)]
    full = [max(natural[j], _width(heads[j])) for j in range(n)]  # without wrapping the header
    values = list(range(left, n))
    names = list(range(left))
    frame = lambda cols: sum(natural[j] for j in cols) + 3 * len(cols) + 1  # noqa: E731  (borders and padding)
    name_w = {j: natural[j] for j in names}
    # the naming columns may wrap (at spaces, or fold a long name) down to what one value column leaves, and
    # to a quarter of the width when the table has to be split anyway (more value columns per part)
    room = width - frame([values[0]] if values else []) - 3 * len(names)
    if names and frame(names + values) > width:
        room = min(room, max(width // 4, 12) * len(names))
    if names and sum(natural[j] for j in names) > room:
        share = max(room // len(names), 6)
        name_w = {j: min(natural[j], share) for j in names}
    groups: list[list[int]] = []
    used = sum(name_w.values()) + 3 * len(names) + 1
    cur: list[int] = []
    for j in values:
        if cur and used + sum(natural[k] + 3 for k in cur) + natural[j] + 3 > width:
            groups.append(cur)
            cur = []
        cur.append(j)
    groups.append(cur)
    for g, cols in enumerate(groups):
        more = " " + _("(columns {part} of {parts})").format(part=g + 1, parts=len(groups)) if len(groups) > 1 else ""
        t = Table(title=escape(title + more) if title else None, title_justify="left")
        spare = width - (sum(name_w.values()) + sum(natural[j] for j in cols) + 3 * (len(names) + len(cols)) + 1)
        for j in names:
            t.add_column(escape(heads[j]), justify="left", max_width=name_w[j], overflow="fold")
        for j in cols:  # a header is kept on one line while the width allows
            w = natural[j]
            if full[j] > w and spare >= full[j] - w:
                w, spare = full[j], spare - (full[j] - w)
            t.add_column(escape(heads[j]), justify="right", no_wrap=False, min_width=w, max_width=w,
                         overflow="fold")
        for r in rows:
            t.add_row(*[escape(str(r[j])) for j in (*names, *cols)])
        con.print(t)


def _stack(est: str, ci: str) -> str:
    """An estimate with its interval under it (one table row, two lines): narrower than side by side."""
    return f"{est}\n{ci}"


def print_report(summary: dict, console=None) -> None:
    """The summary as tables on stdout: one row per measure, one column per strategy."""
    from rich.markup import escape

    from ..game.columns import COLUMN_TEXT, POINT_COLUMNS

    con = console or make_console()
    s = summary
    unit = "games" if s["mode"] == "games" else "hands"
    ents = s["entrants"]
    names = table_labels([e["label"] for e in ents])
    partial = s["status"] in ("interrupted", "incomplete")
    if partial:
        con.print("[bold]" + escape(_("PARTIAL RESULT")) + "[/bold]: " + escape(
            _("interrupted; the {used} of {planned} chunks finished in deal order ({deals} of {planned_deals} deals)")
            .format(used=s['chunks']['used'], planned=s['chunks']['planned'], deals=f"{s['deals']:,}",
                    planned_deals=f"{-(-s['planned'] // s['rotations']):,}")))
    players = (_("{players} players, teams") if s['teams'] else _("{players} players")).format(players=s['players'])
    con.print(f"[bold]{escape(' vs '.join(names))}[/bold]  " + escape(
        _("rules {rules} ({players})  seed {seed}").format(rules=s['rules'], players=players, seed=s['seed'])))
    for line in spec_lines(names, [e["strategy"] for e in ents]):
        con.print(escape(line))
    con.print(escape(_("{count} ({hands} hands, {deals} deals, {pairing} pairing with {rotations} rotations) of "
                       "{planned} planned; {status}; engine {engine}").format(
        count=_count(s[unit], unit), hands=f"{s['hands']:,}", deals=f"{s['deals']:,}",
        pairing=word(PAIRING_TEXT, s['pairing']), rotations=s['rotations'], planned=f"{s['planned']:,}",
        status=word(STATUS_TEXT, s['status']), engine=s['engine'])))
    rows: list[list[str]] = []

    def row(name, f):
        rows.append([name, *[f(e) for e in ents]])

    wdl = lambda h: f"{_fmt(h['win'], 3, True)}/{_fmt(h['draw'], 3, True)}/{_fmt(h['loss'], 3, True)}"  # noqa: E731
    if s["mode"] == "games":
        row(_("games won"), lambda e: _fmt(e["games"]["win_rate"], 3, True))
        row("  " + _("interval"), lambda e: _ci(e["games"]["ci95"], 3, True))
    row(_("points per hand"), lambda e: _fmt(e["points_per_hand"]["mean"]))
    row("  " + _("interval"), lambda e: _ci(e["points_per_hand"]["ci95"]))
    for c in POINT_COLUMNS:
        row("  " + _(COLUMN_TEXT[c]), lambda e, c=c: _fmt(e["categories"][c]))
    row(_("hands W/D/L"), lambda e: wdl(e["hands"]))
    for q, pos in enumerate(ents[0]["by_position"]):
        row(position_row(pos['name']),
            lambda e, q=q: _fmt(e["by_position"][q]["points_per_hand"]["mean"]))
        row("  " + _("interval"), lambda e, q=q: _ci(e["by_position"][q]["points_per_hand"]["ci95"]))
        row("  " + _("W/D/L"), lambda e, q=q: wdl(e["by_position"][q]["hands_result"]))
    print_table(con, _("Per strategy (95% CIs, the deal as unit)"), ["", *names], rows)
    rows = []
    for d in s["differences"]:
        p = d["points_per_hand"]
        rows.append([_("points/hand {a} - {b}").format(a=names[d['a']], b=names[d['b']]),
                     f"{_fmt(p['mean'], 4, signed=True)} {_ci(p['ci95'], 4, signed=True)}"])
    el = s.get("elo")
    if el and el["score"] is not None:
        rows.append([_("score of {name} ({unit})").format(name=names[0], unit=word(UNIT_TEXT, el['unit'])),
                     f"{_fmt(el['score'], 4)} {_ci(el['score_ci95'], 4)}"])
        rows.append([_("Elo difference"), f"{_fmt(el['elo'], 1, signed=True)} {_ci(el['elo_ci95'], 1, signed=True)}"])
        los = el["los"]  # a probability strictly between 0 and 1 unless every deal scored the same
        rows.append([_("likelihood of superiority"), percent("<0.1") if los < 0.001 and el["se"] else
                     percent(">99.9") if los > 0.999 and el["se"] else _fmt(los, 3, True)])
    if s.get("hands_per_game"):
        rows.append([_("hands per game"), _fmt(s["hands_per_game"]["mean"], 3)])
    rows.append([_("lucky-deal rate"), _fmt(s["lucky_deal_rate"], 4, True)])
    sp = s.get("sprt")
    if sp:
        rows.append([f"SPRT elo0={sp['elo0']:g} elo1={sp['elo1']:g}", sprt_verdict(sp)])
        rows.append([f"  alpha {sp['alpha']:g}, beta {sp['beta']:g}", word(DECISION_TEXT, sp["decision"]) if sp["decision"]
                     else _("undecided")])
        rows.append(["  " + _("{unit} played").format(unit=word(UNIT_TEXT, s['mode'])),
                     f"{sp.get(s['mode'], s[unit]):,} " + _("({deals} deals)").format(
                         deals=f"{sp.get('deals', s['deals']):,}")])
    perf = s.get("performance") or {}
    if perf.get("hands_per_second"):
        rows.append([_("hands/s (this session)"), f"{perf['hands_per_second']:,.0f}"])
    print_table(con, _("Comparison"), [_("measure"), _("value [95%]")], rows)


def sprt_verdict(sp: dict) -> str:
    """The SPRT's state in one phrase, naming the bound the LLR crossed (a summary's ``sprt``)."""
    llr = sp["llr"]
    value = {"inf": math.inf, "-inf": -math.inf}.get(llr, llr) if isinstance(llr, str) else float(llr)
    shown = llr if isinstance(llr, str) else _fmt(llr, 3)
    if value >= sp["upper"]:
        return _("LLR {llr} above the upper bound {upper}: H1 accepted").format(llr=shown, upper=f"{sp['upper']:.3f}")
    if value <= sp["lower"]:
        return _("LLR {llr} below the lower bound {lower}: H0 accepted").format(llr=shown, lower=f"{sp['lower']:.3f}")
    return _("LLR {llr} within the bounds [{lower}, {upper}]: undecided").format(
        llr=shown, lower=f"{sp['lower']:.3f}", upper=f"{sp['upper']:.3f}")


MAX_LABEL = 16  # a table column's strategy name at most; longer specs get a short name and are listed once


def table_labels(labels: list[str]) -> list[str]:
    """Short names for table columns: a label up to MAX_LABEL characters as is, else its strategy name
    and a number (``heuristic#2``), unique."""
    out = []
    for i, lab in enumerate(labels):
        if len(lab) <= MAX_LABEL:
            out.append(lab)
        else:
            base = lab.split(":")[0][:MAX_LABEL - 3]
            out.append(f"{base}#{i + 1}")
    return out


def spec_lines(names: list[str], specs: list[str]) -> list[str]:
    """``name = full spec`` once for every strategy whose table name is not its full spec."""
    return [f"  {n} = {s}" for n, s in zip(names, specs) if n != s]


# a 3-player tournament or ladder: what its pairs play (series.lineups)
THREE_PLAYERS_LINE = N_("3 players: each pair A-B plays (A, B, B) and (B, A, A) (docs/skill.md)")


def print_tournament(summary: dict, console=None) -> None:
    """A tournament on stdout: ratings with intervals, the crosstable matrix (score and points per hand
    difference per pair), and games with W/D/L per pair."""
    from rich.markup import escape

    con = console or make_console()
    s = summary
    labels = s.get("labels") or [r["label"] for r in s["ratings"]]
    names = dict(zip(labels, table_labels(labels)))
    con.print("[bold]" + escape(_("tournament")) + "[/bold] " + escape(
        _("of {count} strategies  rules {rules}  seed {seed}  {games} games per pair (duplicate deals)").format(
            count=len(labels), rules=s['rules'], seed=s['seed'], games=f"{s['games_per_pair']:,}")))
    if s.get("three_players"):
        con.print(escape(_(THREE_PLAYERS_LINE)))
    for line in spec_lines(list(names.values()), s["strategies"]):
        con.print(escape(line))
    score = {e["label"]: e for e in s.get("estimates", []) if e["metric"] == "win_rate"}
    rows = []
    for r in sorted(s["ratings"], key=lambda r: -r["estimate"]):
        sc = score.get(r["label"])
        rows.append([names[r["label"]], f"{r['estimate']:+.1f}", _ci((r["lo"], r["hi"]), 1, signed=True),
                     f"{_fmt(sc['estimate'], 3, True)} {_ci((sc['lo'], sc['hi']), 3, True)}" if sc else "-"])
    print_table(con, _("Ratings (Bradley-Terry, Elo scale, mean 0; 95% CI, the deal as unit)"),
                [_("strategy"), _("rating"), _("95% CI"), _("score vs all")], rows)
    cell = {(p["row"], p["col"]): p for p in s["pairs"]}
    rows = [[names[r], *[(f"{cell[r, c]['score']:.3f}\n{cell[r, c]['points_diff']:+.3f}" if (r, c) in cell else "")
                         for c in labels]] for r in labels]
    print_table(con, _("Crosstable: the row's game score against the column (0 to 1), and under it its points per "
                       "hand minus the column's"), ["", *[names[c] for c in labels]], rows)
    rows = []
    for p in s["pairs"]:
        if labels.index(p["row"]) > labels.index(p["col"]):
            continue  # each pair once, from the first-named strategy's side
        rows.append([names[p['row']] + "\n" + _("vs") + " " + names[p['col']], f"{p['games']:,}",
                     f"{p['won']:,}/{p['drawn']:,}/{p['lost']:,}",
                     _stack(f"{p['score']:.4f}", _ci((p["score_lo"], p["score_hi"]), 4)),
                     _stack(f"{p['points_diff']:+.4f}", _ci((p["points_diff_lo"], p["points_diff_hi"]), 4, signed=True))])
    print_table(con, _("Pairs (95% CIs under each value)"),
                [_("pair"), _("games"), _("W/D/L"), _("score"), _("points per hand diff")], rows)


def _compare_cell(r: dict | None, signed: bool) -> str:
    if r is None:
        return "–"
    f = "{:+.4f}" if signed else "{:.4f}"
    lo = "–" if r["lo"] is None else f.format(r["lo"])
    hi = "–" if r["hi"] is None else f.format(r["hi"])
    return _stack(f.format(r["estimate"]), f"[{lo}, {hi}]")


def print_compare(summary: dict, console=None) -> None:
    """The terminal report of a comparison: estimates per ruleset, then each variant's paired difference
    against the reference, as tables of one row per ruleset in metric groups (games; points per hand by
    category, one table per player; escobas per hand of all sides; how often each majority ties).

    A variant that gave every deal the reference's result (``summary["no_effect"]``) is marked ``*`` in the
    estimates, and said once with its reason in place of its rows of differences, which are all 0."""
    from rich.markup import escape

    from ..game.columns import POINT_COLUMNS, category_text
    from ..series.compare import (
        ESCOBA_METRICS,
        GAME_METRICS,
        ROW_TEXT,
        TIE_METRICS,
        describe_metric,
        no_effect_text,
        sevens_rules,
    )

    con = console or make_console()
    labels = summary["labels"]
    short = table_labels(labels)  # column heads; long specs are listed once in full
    ref = summary["rulesets"][0]["label"]
    con.print(escape(ngettext("seed {seed}, {games} games per ruleset, {chunks} chunk; {interval}",
                              "seed {seed}, {games} games per ruleset, {chunks} chunks; {interval}",
                              summary['chunks']).format(
        seed=summary['seed'], games=f"{summary['games_per_ruleset']:,}", chunks=summary['chunks'],
        interval=_(summary['interval']))))
    con.print(escape(_("players: {first} (--strategy) vs {others} (--vs); reference ruleset: {reference}").format(
        first=short[0], others=' vs '.join(short[1:]), reference=ref)))
    for line in spec_lines(short, summary["strategies"]):
        con.print(escape(line))
    flagged = {x["label"]: no_effect_text(summary, x) for x in summary.get("no_effect") or []}
    heads_of = {"hands_per_game": _("hands per game"), "seat_advantage": _("seat advantage (mano - dealer, points/hand)"),
                "win_rate": _("game win rate of {first}").format(first=short[0])}
    for table, signed in (("estimates", False), ("effects", True)):
        got: dict[str, dict[str, dict]] = {}
        for r in summary[table]:
            got.setdefault(r["label"], {})[r["metric"]] = r
        order = [rs["label"] for rs in summary["rulesets"] if rs["label"] in got]
        if not order:
            continue
        con.print()
        con.print("[bold]" + escape(_("Estimates per ruleset (95% CI under each value)") if table == "estimates"
                                    else _("Paired differences: each variant minus {reference} (same deals; 95% "
                                           "CI under each value)").format(reference=ref)) + "[/bold]")
        name_head = _("ruleset") if table == "estimates" else _("variant")

        def name(label):
            return f"{label} *" if label in flagged else label

        shown = [x for x in order if not (table == "effects" and x in flagged)]  # their rows would be all zeros
        if table == "effects" and flagged:
            for label, reason in flagged.items():
                con.print(escape("* " + _("{label}: no effect on any deal (every difference is exactly 0): {reason}")
                                 .format(label=label, reason=reason)))
        if not shown:
            continue

        def zero(r):
            return r is None or (r["estimate"] == 0 and r["lo"] in (0, None) and r["hi"] in (0, None))

        def group(title, metrics, head):
            # a quantity that is 0 everywhere (bonuses of a ruleset without them) is left out
            present = [m for m in metrics if any(m in got[x] for x in shown) and not all(zero(got[x].get(m))
                                                                                       for x in shown)]
            if not present:
                return
            rows = [[name(x), *[_compare_cell(got[x].get(m), signed) for m in present]] for x in shown]
            print_table(con, title, [name_head, *[head(m) for m in present]], rows)

        group(_("Games"), GAME_METRICS, lambda m: heads_of.get(m) or describe_metric(m, short, sevens_rules(summary))[0])
        for who, sh in zip(labels, short):
            cats = [f"{c}:{who}" for c in (*POINT_COLUMNS, "total")]
            group(_("Points per hand by category, {player}").format(player=sh), cats,
                  lambda m: _(category_text(m.partition(":")[0], sevens_rules(summary))))
        group(_("Escobas per hand (all sides)"), ESCOBA_METRICS, lambda m: _(ROW_TEXT.get(m, m)))
        group(_("How often each majority ties (share of hands)"), TIE_METRICS, lambda m: _(ROW_TEXT.get(m, m)))


def fold_at_commas(line: str, width: int) -> list[str]:
    """A ``name = spec`` line folded after a comma of the spec when it is wider than ``width``."""
    out, cur = [], ""
    for piece in line.split(","):
        if cur and len(cur) + 1 + len(piece) > width:
            out.append(cur + ",")
            cur = "      " + piece
        else:
            cur = cur + "," + piece if cur else piece
    return out + [cur]
