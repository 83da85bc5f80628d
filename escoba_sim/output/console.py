"""Terminal output: the progress bar on stderr and the summary tables of run, compare and tournament on stdout.

Tables keep their layout when piped: a console that is not a terminal gets a
wide virtual width, so rich never wraps a row at 80 columns (``make_console``).
Strategies are named by short labels in tables; long specs are listed once in full.
"""

from __future__ import annotations

import math
import sys

from ..game.columns import COLUMN_TEXT, POINT_COLUMNS
from ..runs.runner import Progress
from ..runs.spec import RunSpec

PIPE_WIDTH = 400  # columns when stdout is not a terminal: wide enough for any table, never wrapped


def make_console(stderr: bool = False):
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, width=None if stream.isatty() else PIPE_WIDTH, soft_wrap=not stream.isatty())


class ProgressBar:
    """A rich progress bar on stderr that advances as chunks finish (hands/s, ETA), with live standings.

    ``enabled``: the bar (a terminal); ``standings``: the standings of the chunks merged so far
    (``LiveStandings``): under the bar when it is shown, else one line on stderr every few chunks.
    ``runs`` > 1 makes one bar for a series of equal runs (a comparison, a tournament):
    call ``start_run(k, label)`` before run ``k``; its chunks then count after the earlier runs'.
    """

    def __init__(self, spec: RunSpec, enabled: bool, runs: int = 1, standings: bool = False):
        self.spec, self.enabled, self._p = spec, enabled, None
        self.runs, self.offset = runs, 0
        self.live = LiveStandings(every=None if enabled else "auto") if standings else None

    def start_run(self, k: int, label: str) -> None:
        self.offset = k * self.spec.played
        if self.live is not None:
            self.live.reset()
        if self._p is not None:
            self._p.update(self._task, completed=self.offset, description=f"[{k + 1}/{self.runs}] {label}")

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
            from rich.text import Text

            live = self.live

            class WithStandings(Progress):
                def get_renderables(self):  # rich's documented hook: the bar, then the standings under it
                    yield self.make_tasks_table(self.tasks)
                    if live is not None and live.text:
                        yield Text(live.text)  # plain: no number highlighting

            self._p = WithStandings(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                    TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                                    console=Console(stderr=True), transient=False)
            self._p.__enter__()
            self._task = self._p.add_task(self.spec.mode, total=self.spec.played * self.runs, rate="")
        return self

    def __call__(self, p: Progress) -> None:
        if self.live is not None:
            self.live(p)
        if self._p is not None:
            rate = p.hands_computed / p.seconds if p.seconds > 0 else 0.0
            self._p.update(self._task, completed=self.offset + p.units_done, rate=f"{rate:,.0f} hands/s")

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
            self.write(standings_line(self.summary(p)))

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
    head = f"{' vs '.join(names)}  {s[unit]:,} {unit} ({s['deals']:,} deals)"
    el = s.get("elo")
    if el is None:  # 3 or more sides: each one's share of games won (points per hand with --hands)
        if unit == "games":
            tail = [f"{n} won {_fmt(e['games']['win_rate'], 3, True)} {_ci(e['games']['ci95'], 3, True)}"
                    for n, e in zip(names, s["entrants"])]
        else:
            tail = [f"{n} {_fmt(e['points_per_hand']['mean'])} {_ci(e['points_per_hand']['ci95'])} points/hand"
                    for n, e in zip(names, s["entrants"])]
        return [head, "  ".join(tail)]
    w, d, lo = el["wdl"]
    head += f"  W/D/L {w:,}/{d:,}/{lo:,}"
    elo_lo, elo_hi = el["elo_ci95"] or (None, None)
    tail = f"score {_fmt(el['score'], 4)} {_ci(el['score_ci95'] or (None, None), 4)}  Elo {_signed(el['elo'])} " \
           f"[{_signed(elo_lo)}, {_signed(elo_hi)}]"
    sp = s.get("sprt")
    if sp:
        llr = sp["llr"] if isinstance(sp["llr"], str) else f"{sp['llr']:.2f}"
        tail += f"  LLR {llr} ({sp['lower']:.2f}, {sp['upper']:.2f})"  # the bounds in parentheses, as fastchess
    return [head, tail]


def standings_line(summary: dict) -> str:
    """``standings_parts`` on one line (what a piped run prints every few chunks)."""
    return "  ".join(standings_parts(summary))


def _signed(x) -> str:
    if x is None:
        return "-"
    return f"{round(x, 1) + 0.0:+.1f}"  # + 0.0: an even score is +0.0, not -0.0


def _fmt(x, digits: int = 3, pct: bool = False) -> str:
    if x is None:
        return "-"
    if pct:
        d = max(digits - 2, 1)
        tiny = 10.0 ** -d  # the smallest step shown, in percent
        if 0 < 100 * x < tiny:  # 1 win in 20,001 games is not 0.0%
            return f"<{tiny:.{d}f}%"
        if 100 - tiny < 100 * x < 100:
            return f">{100 - tiny:.{d}f}%"
        return f"{100 * x:.{d}f}%"
    return f"{x:.{digits}f}"


def _ci(d: dict, digits: int = 3, pct: bool = False) -> str:
    lo, hi = d
    return f"[{_fmt(lo, digits, pct)}, {_fmt(hi, digits, pct)}]"


def print_report(summary: dict, console=None) -> None:
    """The summary as rich tables on stdout: one row per measure, one column per strategy."""
    from rich.markup import escape
    from rich.table import Table

    con = console or make_console()
    s = summary
    unit = "games" if s["mode"] == "games" else "hands"
    ents = s["entrants"]
    names = table_labels([e["label"] for e in ents])
    partial = s["status"] in ("interrupted", "incomplete")
    if partial:
        con.print(f"[bold]PARTIAL RESULT[/bold]: interrupted; the {s['chunks']['used']} of {s['chunks']['planned']} "
                  f"chunks finished in deal order ({s['deals']:,} of {-(-s['planned'] // s['rotations']):,} deals)")
    con.print(f"[bold]{escape(' vs '.join(names))}[/bold]  rules {escape(s['rules'])} "
              f"({s['players']} players{', teams' if s['teams'] else ''})  seed {s['seed']}")
    for line in spec_lines(names, [e["strategy"] for e in ents]):
        con.print(escape(line))
    con.print(f"{s[unit]:,} {unit} ({s['hands']:,} hands, {s['deals']:,} deals, {s['pairing']} pairing with "
              f"{s['rotations']} rotations) of {s['planned']:,} planned; {s['status']}; engine {s['engine']}")
    t = Table(title="Per strategy (95% intervals, the deal as unit)", title_justify="left")
    t.add_column("", no_wrap=True)
    for name in names:
        t.add_column(escape(name), justify="right", no_wrap=True)

    def row(name, f):
        t.add_row(name, *[f(e) for e in ents])

    wdl = lambda h: f"{_fmt(h['win'], 3, True)}/{_fmt(h['draw'], 3, True)}/{_fmt(h['loss'], 3, True)}"  # noqa: E731
    if s["mode"] == "games":
        row("games won", lambda e: _fmt(e["games"]["win_rate"], 3, True))
        row("  interval", lambda e: _ci(e["games"]["ci95"], 3, True))
    row("points per hand", lambda e: _fmt(e["points_per_hand"]["mean"]))
    row("  interval", lambda e: _ci(e["points_per_hand"]["ci95"]))
    for c in POINT_COLUMNS:
        row(f"  {COLUMN_TEXT[c]}", lambda e, c=c: _fmt(e["categories"][c]))
    row("hands W/D/L", lambda e: wdl(e["hands"]))
    for q, pos in enumerate(ents[0]["by_position"]):
        row(f"as {pos['name']}", lambda e, q=q: _fmt(e["by_position"][q]["points_per_hand"]["mean"]))
        row("  interval", lambda e, q=q: _ci(e["by_position"][q]["points_per_hand"]["ci95"]))
        row("  W/D/L", lambda e, q=q: wdl(e["by_position"][q]["hands_result"]))
    con.print(t)
    t = Table(title="Comparison", title_justify="left")
    t.add_column("measure", no_wrap=True)
    t.add_column("value [95%]", justify="right", no_wrap=True)
    for d in s["differences"]:
        p = d["points_per_hand"]
        t.add_row(escape(f"points/hand {names[d['a']]} - {names[d['b']]}"), f"{_fmt(p['mean'], 4)} {_ci(p['ci95'], 4)}")
    el = s.get("elo")
    if el and el["score"] is not None:
        t.add_row(escape(f"score of {names[0]} ({el['unit']})"), f"{_fmt(el['score'], 4)} {_ci(el['score_ci95'], 4)}")
        t.add_row("Elo difference", f"{_fmt(el['elo'], 1)} {_ci(el['elo_ci95'], 1)}")
        los = el["los"]  # a probability strictly between 0 and 1 unless every deal scored the same
        t.add_row("likelihood of superiority", "<0.1%" if los < 0.001 and el["se"] else
                  ">99.9%" if los > 0.999 and el["se"] else _fmt(los, 3, True))
    if s.get("hands_per_game"):
        t.add_row("hands per game", _fmt(s["hands_per_game"]["mean"], 3))
    t.add_row("lucky-deal rate", _fmt(s["lucky_deal_rate"], 4, True))
    sp = s.get("sprt")
    if sp:
        t.add_row(f"SPRT elo0={sp['elo0']:g} elo1={sp['elo1']:g}", sprt_verdict(sp))
        t.add_row(f"  alpha {sp['alpha']:g}, beta {sp['beta']:g}", sp["decision"] or "undecided")
        t.add_row(f"  {s['mode']} played", f"{sp.get(s['mode'], s[unit]):,} ({sp.get('deals', s['deals']):,} deals)")
    perf = s.get("performance") or {}
    if perf.get("hands_per_second"):
        t.add_row("hands/s (this session)", f"{perf['hands_per_second']:,.0f}")
    con.print(t)


def sprt_verdict(sp: dict) -> str:
    """The SPRT's state in one phrase, naming the bound the LLR crossed (a summary's ``sprt``)."""
    llr = sp["llr"]
    value = {"inf": math.inf, "-inf": -math.inf}.get(llr, llr) if isinstance(llr, str) else float(llr)
    shown = llr if isinstance(llr, str) else _fmt(llr, 3)
    if value >= sp["upper"]:
        return f"LLR {shown} above the upper bound {sp['upper']:.3f}: H1 accepted"
    if value <= sp["lower"]:
        return f"LLR {shown} below the lower bound {sp['lower']:.3f}: H0 accepted"
    return f"LLR {shown} within the bounds [{sp['lower']:.3f}, {sp['upper']:.3f}]: undecided"


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


def print_tournament(summary: dict, console=None) -> None:
    """A tournament on stdout: ratings with intervals, the crosstable matrix (score and points per hand
    difference per pair), and games with W/D/L per pair."""
    from rich.markup import escape
    from rich.table import Table

    con = console or make_console()
    s = summary
    labels = s.get("labels") or [r["label"] for r in s["ratings"]]
    names = dict(zip(labels, table_labels(labels)))
    con.print(f"[bold]tournament[/bold] of {len(labels)} strategies  rules {escape(s['rules'])}  seed {s['seed']}  "
              f"{s['games_per_pair']:,} games per pair (duplicate deals)")
    for line in spec_lines(list(names.values()), s["strategies"]):
        con.print(escape(line))
    t = Table(title="Ratings (Bradley-Terry, Elo scale, mean 0; 95% interval, the deal as unit)", title_justify="left")
    for c in ("strategy", "rating", "95% interval", "score vs all"):
        t.add_column(c, justify="left" if c == "strategy" else "right", no_wrap=True)
    score = {e["label"]: e for e in s.get("estimates", []) if e["metric"] == "win_rate"}
    for r in sorted(s["ratings"], key=lambda r: -r["estimate"]):
        sc = score.get(r["label"])
        t.add_row(escape(names[r["label"]]), f"{r['estimate']:+.1f}", f"[{r['lo']:+.1f}, {r['hi']:+.1f}]",
                  f"{_fmt(sc['estimate'], 3, True)} {_ci((sc['lo'], sc['hi']), 3, True)}" if sc else "-")
    con.print(t)
    cell = {(p["row"], p["col"]): p for p in s["pairs"]}
    t = Table(title="Crosstable: the row's game score against the column, and its points per hand minus "
                    "the column's", title_justify="left")
    t.add_column("", no_wrap=True)
    for c in labels:
        t.add_column(escape(names[c]), justify="right", no_wrap=True)
    for r in labels:
        t.add_row(escape(names[r]), *[(f"{cell[r, c]['score']:.3f}\n{cell[r, c]['points_diff']:+.3f}"
                                       if (r, c) in cell else "") for c in labels])
    con.print(t)
    t = Table(title="Pairs (95% intervals)", title_justify="left")
    for c in ("pair", "games", "W/D/L", "score", "points per hand diff"):
        t.add_column(c, justify="left" if c == "pair" else "right", no_wrap=True)
    for p in s["pairs"]:
        if labels.index(p["row"]) > labels.index(p["col"]):
            continue  # each pair once, from the first-named strategy's side
        t.add_row(escape(f"{names[p['row']]} vs {names[p['col']]}"), f"{p['games']:,}",
                  f"{p['won']:,}/{p['drawn']:,}/{p['lost']:,}",
                  f"{p['score']:.4f} {_ci((p['score_lo'], p['score_hi']), 4)}",
                  f"{p['points_diff']:+.4f} {_ci((p['points_diff_lo'], p['points_diff_hi']), 4)}")
    con.print(t)


def _compare_cell(r: dict | None, signed: bool) -> str:
    if r is None:
        return "–"
    f = "{:+.4f}" if signed else "{:.4f}"
    lo = "–" if r["lo"] is None else f.format(r["lo"])
    hi = "–" if r["hi"] is None else f.format(r["hi"])
    return f"{f.format(r['estimate'])} [{lo}, {hi}]"


def compare_lines(summary: dict) -> list[str]:
    """The terminal report of a comparison: per ruleset, quantities grouped and named with their units.

    Estimates per ruleset first, then each variant's paired difference against the
    reference; within each: games, points per hand by category (one column per
    player), escobas per hand of all sides, and how often each majority ties.
    """
    from ..game.columns import CATEGORY_TEXT
    from ..series.compare import ESCOBA_METRICS, GAME_METRICS, ROW_TEXT, TIE_METRICS, describe_metric

    labels = summary["labels"]
    short = table_labels(labels)  # column heads; long specs are listed once in full
    ref = summary["rulesets"][0]["label"]
    lines = [f"seed {summary['seed']}, {summary['games_per_ruleset']:,} games per ruleset, "
             f"{summary['chunks']} chunks; {summary['interval']}",
             f"players: {short[0]} (--strategy) vs {' vs '.join(short[1:])} (--vs); reference ruleset: {ref}",
             *spec_lines(short, summary["strategies"])]
    for kind, signed in (("estimates", False), ("effects", True)):
        rows: dict[str, dict[str, dict]] = {}
        for r in summary[kind]:
            rows.setdefault(r["label"], {})[r["metric"]] = r
        lines.append("")
        lines.append("== estimates per ruleset (95% interval) ==" if kind == "estimates" else
                     f"== paired differences vs {ref} (same deals; 95% interval) ==")
        for rs in summary["rulesets"]:
            got = rows.get(rs["label"])
            if not got:
                continue
            lines.append("")
            lines.append(rs["label"] if kind == "estimates" else f"{rs['label']} minus {ref}")
            w = 48
            for title, names in (("games", GAME_METRICS), ("escobas per hand (all sides)", ESCOBA_METRICS),
                                 ("how often each majority ties (share of hands)", TIE_METRICS)):
                present = [m for m in names if m in got]
                if not present:
                    continue
                lines.append(f"  {title}")
                for m in present:
                    what, unit = describe_metric(m, short)
                    text = ROW_TEXT.get(m) or f"{what} ({unit})"
                    lines.append(f"    {text:<{w}} {_compare_cell(got[m], signed)}")
                if title == "games":  # the category table comes right after the games block
                    cats = [c for c in (*POINT_COLUMNS, "total") if any(f"{c}:{p}" in got for p in labels)]
                    if cats:
                        lines.append(f"  {'points per hand by category':<{w + 3}}" +
                                     "".join(f"{p:<28}" for p in short).rstrip())
                        for c in cats:
                            lines.append(f"    {CATEGORY_TEXT.get(c, c):<{w}} " +
                                         "".join(f"{_compare_cell(got.get(f'{c}:{p}'), signed):<28}" for p in labels).rstrip())
    return lines
