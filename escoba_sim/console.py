"""Terminal output of a run: the progress bar on stderr and the summary tables on stdout."""

from __future__ import annotations

from .runner import Progress
from .runspec import RunSpec


class ProgressBar:
    """A rich progress bar on stderr that advances as chunks finish (hands/s, ETA); silent when disabled."""

    def __init__(self, spec: RunSpec, enabled: bool):
        self.spec, self.enabled, self._p = spec, enabled, None

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._p = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                               TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                               console=Console(stderr=True), transient=False)
            self._p.__enter__()
            self._task = self._p.add_task(self.spec.mode, total=self.spec.played, rate="")
        return self

    def __call__(self, p: Progress) -> None:
        if self._p is not None:
            rate = p.hands_computed / p.seconds if p.seconds > 0 else 0.0
            self._p.update(self._task, completed=p.units_done, rate=f"{rate:,.0f} hands/s")

    def __exit__(self, *exc) -> None:
        if self._p is not None:
            self._p.__exit__(*exc)


def _fmt(x, digits: int = 3, pct: bool = False) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.{max(digits - 2, 1)}f}%" if pct else f"{x:.{digits}f}"


def _ci(d: dict, digits: int = 3, pct: bool = False) -> str:
    lo, hi = d
    return f"[{_fmt(lo, digits, pct)}, {_fmt(hi, digits, pct)}]"


def print_report(summary: dict, console=None) -> None:
    """The summary as rich tables on stdout: one row per measure, one column per strategy (fits 80 columns)."""
    from rich.console import Console
    from rich.table import Table

    con = console or Console()
    s = summary
    unit = "games" if s["mode"] == "games" else "hands"
    ents = s["entrants"]
    con.print(f"[bold]{' vs '.join(e['label'] for e in ents)}[/bold]  rules {s['rules']} "
              f"({s['players']} players{', teams' if s['teams'] else ''})  seed {s['seed']}")
    con.print(f"{s[unit]:,} {unit} ({s['hands']:,} hands, {s['deals']:,} deals, {s['pairing']} pairing with "
              f"{s['rotations']} rotations) of {s['planned']:,} planned; {s['status']}; engine {s['engine']}")
    t = Table(title="Per strategy (95% intervals)", title_justify="left")
    t.add_column("", no_wrap=True)
    for e in ents:
        t.add_column(e["label"], justify="right")

    def row(name, f):
        t.add_row(name, *[f(e) for e in ents])

    wdl = lambda h: f"{_fmt(h['win'], 3, True)}/{_fmt(h['draw'], 3, True)}/{_fmt(h['loss'], 3, True)}"  # noqa: E731
    if s["mode"] == "games":
        row("games won", lambda e: _fmt(e["games"]["win_rate"], 3, True))
        row("  interval", lambda e: _ci(e["games"]["ci95"], 3, True))
    row("points per hand", lambda e: _fmt(e["points_per_hand"]["mean"]))
    row("  interval", lambda e: _ci(e["points_per_hand"]["ci95"]))
    for c, label in (("escobas", "escobas"), ("siete_oros", "siete de oros"), ("sevens", "sevens"),
                     ("oros", "oros"), ("cards", "cards"), ("bonus", "bonuses")):
        row(f"  {label}", lambda e, c=c: _fmt(e["categories"][c]))
    row("hands W/D/L", lambda e: wdl(e["hands"]))
    for q, pos in enumerate(ents[0]["by_position"]):
        row(f"as {pos['name']}", lambda e, q=q: _fmt(e["by_position"][q]["points_per_hand"]["mean"]))
        row("  interval", lambda e, q=q: _ci(e["by_position"][q]["points_per_hand"]["ci95"]))
        row("  W/D/L", lambda e, q=q: wdl(e["by_position"][q]["hands_result"]))
    con.print(t)
    t = Table(title="Comparison", title_justify="left")
    t.add_column("measure", no_wrap=True)
    t.add_column("value [95%]", justify="right")
    for d in s["differences"]:
        p = d["points_per_hand"]
        t.add_row(f"points/hand {d['label']}", f"{_fmt(p['mean'], 4)} {_ci(p['ci95'], 4)}")
    el = s.get("elo")
    if el and el["score"] is not None:
        t.add_row(f"score of {ents[0]['label']} ({el['unit']})", f"{_fmt(el['score'], 4)} {_ci(el['score_ci95'], 4)}")
        t.add_row("Elo difference", f"{_fmt(el['elo'], 1)} {_ci(el['elo_ci95'], 1)}")
        t.add_row("likelihood of superiority", _fmt(el["los"], 3, True))
    if s.get("hands_per_game"):
        t.add_row("hands per game", _fmt(s["hands_per_game"]["mean"], 3))
    t.add_row("lucky-deal rate", _fmt(s["lucky_deal_rate"], 4, True))
    sp = s.get("sprt")
    if sp:
        llr = sp["llr"] if isinstance(sp["llr"], str) else _fmt(sp["llr"], 3)
        t.add_row(f"SPRT elo0={sp['elo0']:g} elo1={sp['elo1']:g}", f"LLR {llr} in [{sp['lower']:.3f}, {sp['upper']:.3f}]")
        t.add_row(f"  alpha {sp['alpha']:g}, beta {sp['beta']:g}", sp["decision"] or "undecided")
    perf = s.get("performance") or {}
    if perf.get("hands_per_second"):
        t.add_row("hands/s (this session)", f"{perf['hands_per_second']:,.0f}")
    con.print(t)
