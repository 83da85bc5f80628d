"""Post-hand analysis: every decision of a hand record valued by the evaluator, with marks for the costly ones.

``analyze_record`` walks a legal hand record (from ``play``, ``trace --json`` or
written by hand) with the reference engine. Before every decision (each move,
and under soplar each blow decision, a blow not taken included) it values every
option from the decider's information set (``evaluate.evaluate``) and records
the option played, the best one, the expected loss in points (best value minus
the value of the move played, paired by deal) and a mark at the ``MARKS``
thresholds. Decisions with a single legal option cost nothing and are listed as
forced. docs/evaluate.md defines the numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import EscobaError
from ..game import engine
from ..game.engine import Move
from ..game.rng import PLAY, stream_state
from ..game.rules import Ruleset
from ..i18n import N_, ngettext
from ..i18n import translate as _
from .evaluate import DEFAULT_SAMPLES, Evaluation, decision_seed, evaluate, format_value, option_label, position_seed
from .reading import Reading, format_reading, read_hands
from .record import WRONG_ESCOBA_LABEL, RecordError, parse_record, replay_record, side_label

# (mark, least loss in points): a loss is marked only when it is also more than twice its standard error
MARKS = (("blunder", 1.0), ("mistake", 0.5), ("inaccuracy", 0.2))
# losses are printed with this many decimals, and marked by that printed value: a loss shown as
# 0.20 is an inaccuracy even when it was 0.1957, so the table and the thresholds never disagree
LOSS_DECIMALS = 2
SIGNIFICANT = 2.0
# a mark as a person reads it: its name (the one in --json) and the words for n of them
MARK_TEXT = {"blunder": N_("blunder"), "mistake": N_("mistake"), "inaccuracy": N_("inaccuracy")}


def marks_text(name: str, n: int) -> str:
    """``2 blunders``, ``1 mistake``: a count of one mark in the process's language."""
    if name == "blunder":
        return ngettext("{n} blunder", "{n} blunders", n).format(n=n)
    if name == "mistake":
        return ngettext("{n} mistake", "{n} mistakes", n).format(n=n)
    return ngettext("{n} inaccuracy", "{n} inaccuracies", n).format(n=n)


class AnalysisError(EscobaError):
    """A record that cannot be analysed (not a hand record, or an illegal move)."""


def mark_for(loss: float, spread: float) -> str | None:
    """The mark of a loss: the first threshold its printed value reaches, if it is clear of the noise."""
    if loss <= SIGNIFICANT * spread:
        return None
    shown = round(loss, LOSS_DECIMALS)
    return next((name for name, least in MARKS if shown >= least), None)


@dataclass
class Decision:
    """One decision of the hand: who, which option was played, and what the evaluator thinks of it."""

    number: int  # the record's move number: the blow, or for a blow not taken the play that followed
    seat: int
    blow: bool
    played: int  # index into evaluation.options
    evaluation: Evaluation
    loss: float = 0.0
    loss_spread: float = 0.0
    mark: str | None = None
    reading: Reading | None = None  # what the decider may believe of the other hands (hands.reading)

    @property
    def forced(self) -> bool:
        return self.evaluation.method == "forced"

    @property
    def best(self) -> int:
        return self.played if self.forced else self.evaluation.best

    def to_json(self) -> dict[str, Any]:
        ev = self.evaluation
        out: dict[str, Any] = {"move": self.number, "seat": self.seat, "kind": "blow" if self.blow else "move",
                               "played": option_label(ev.options[self.played].move), "method": ev.method}
        if not self.forced:
            out.update({"best": option_label(ev.options[self.best].move),
                        "value_played": round(ev.options[self.played].value, 4),
                        "value_best": round(ev.options[self.best].value, 4),
                        "loss": round(self.loss, 4), "loss_spread": round(self.loss_spread, 4), "mark": self.mark,
                        "samples": ev.samples, "options": ev.to_json()})
        out["reading"] = self.reading.to_json() if self.reading is not None else None
        return out

    def summary(self) -> str:
        """``+0.84 ±0.05`` for the play, and the best move with the loss when another was better."""
        ev = self.evaluation
        if self.forced:
            return _("forced")
        text = format_value(ev.options[self.played], ev.method, translated=True)
        if self.best != self.played and round(self.loss, LOSS_DECIMALS) > 0:
            text += "  " + _("best {move} {value}, loss {loss}").format(
                move=option_label(ev.options[self.best].move, translated=True),
                value=format_value(ev.options[self.best], ev.method, translated=True),
                loss=f"{self.loss:.{LOSS_DECIMALS}f}")
            if self.mark:
                text += f" ({_(MARK_TEXT[self.mark])})"
        return text


@dataclass
class SeatTotal:
    seat: int
    decisions: int = 0
    choices: int = 0  # decisions with more than one option
    loss: float = 0.0
    loss_var: float = 0.0
    marks: dict[str, int] = field(default_factory=lambda: {name: 0 for name, _ in MARKS})

    @property
    def average(self) -> float:
        return self.loss / self.choices if self.choices else 0.0

    @property
    def loss_spread(self) -> float:
        return math.sqrt(self.loss_var)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "decisions": self.decisions, "choices": self.choices,
                "total_loss": round(self.loss, 4), "total_loss_spread": round(self.loss_spread, 4),
                "average_loss": round(self.average, 4), "marks": dict(self.marks)}


@dataclass
class Analysis:
    rules: Ruleset
    seats: list[int]
    samples: int
    seed: int
    decisions: list[Decision]
    strategies: list[str] | None = None
    notes: list[str] = field(default_factory=list)  # hand-level problems (an unfinished hand, a wrong score)
    notes_said: list[str] = field(default_factory=list, compare=False)  # the same in the process's language
    hint_seeds: bool = False  # searched as the hints were (``seed``: the record's deal seed), not from a seed given

    def totals(self) -> list[SeatTotal]:
        out = {s: SeatTotal(s) for s in self.seats}
        for d in self.decisions:
            t = out[d.seat]
            t.decisions += 1
            if d.forced:
                continue
            t.choices += 1
            t.loss += d.loss
            t.loss_var += d.loss_spread ** 2
            if d.mark:
                t.marks[d.mark] += 1
        return [out[s] for s in self.seats]

    def to_json(self) -> dict[str, Any]:
        return {"rules": self.rules.canonical(), "samples": self.samples, "seed": self.seed,
                "seeds": "hints" if self.hint_seeds else "mixed",
                "thresholds": {name: least for name, least in MARKS}, "notes": self.notes,
                "decisions": [d.to_json() for d in self.decisions],
                "players": [t.to_json() for t in self.totals()]}


def hand_seed_of(data: dict[str, Any]) -> int | None:
    """Where the play stream of the record's hand starts, from its provenance (``seed``, ``game``, ``hand``,
    checked by ``parse_record``); None for a record that names no seed."""
    if not isinstance(data, dict) or "seed" not in data:
        return None
    return stream_state(data["seed"], data.get("game", 0), data.get("hand", 0), PLAY)


def analyze_record(data: Any, *, seats: list[int] | None = None, samples: int = DEFAULT_SAMPLES,
                   seed: int | None = None, on_decision: Callable[[int, int], None] | None = None) -> Analysis:
    """Value every decision of ``seats`` (default: all) in a hand record.

    Without ``seed`` a record that names its deal's seed is searched as its hints were (``position_seed``, as
    ``hands.table.hint_seed``): a hint and the analysis with as many ``samples`` give the same values and the same
    best move; a record without one is searched from seed 0. With ``seed`` the k-th decision of the hand searches
    with ``decision_seed(seed, k)``. Either way one seat's figures do not depend on ``seats``.
    ``on_decision(done, total)`` reports progress. Raises AnalysisError for an unreadable record or an illegal
    move.
    """
    try:
        parsed = parse_record(data)
        _state, problems = replay_record(data)
    except RecordError as e:
        raise AnalysisError(str(e)) from None
    illegal = [p for p in problems if p.move is not None and p.reason not in WRONG_ESCOBA_LABEL.values()]
    if illegal:
        raise AnalysisError(_("{problem}; only legal moves can be analysed (escoba-sim replay shows them all)").format(
            problem=illegal[0]))
    rules = parsed.rules
    if seats is None:
        seats = list(range(rules.players))
    for s in seats:
        if not 0 <= s < rules.players:
            raise AnalysisError(_("seat {seat} is not a seat of this hand (0 to {last})").format(
                seat=s, last=rules.players - 1))
    strategies = data.get("strategies") if isinstance(data.get("strategies"), list) else None
    hand_seed = hand_seed_of(data) if seed is None else None
    an = Analysis(rules, sorted(set(seats)), samples, data["seed"] if hand_seed is not None else seed or 0, [],
                  strategies, [p.reason for p in problems if p.move is None],
                  [str(p) for p in problems if p.move is None], hint_seeds=hand_seed is not None)
    total = sum(1 for _ in decision_points(parsed))
    for k, (st, number, blow, played) in enumerate(decision_points(parsed)):
        if st.to_play in an.seats:
            search = position_seed(hand_seed, len(st.moves), blow) if hand_seed is not None else \
                decision_seed(an.seed, k)
            ev = evaluate(st, blow=blow, samples=samples, seed=search)
            idx = next(i for i, o in enumerate(ev.options) if o.move == played)
            d = Decision(number, st.to_play, blow, idx, ev, reading=read_hands(st))
            if not d.forced:
                d.loss, d.loss_spread = ev.loss(idx)
                d.mark = mark_for(d.loss, d.loss_spread)
            an.decisions.append(d)
        if on_decision:
            on_decision(k + 1, total)
    return an


def decision_points(parsed):
    """Yield (state before, move number, is a blow decision, option played) for every decision in order,
    applying the option once the consumer asks for the next one (a blow not taken is a decision too)."""
    st = engine.new_hand(parsed.rules, parsed.deck, parsed.dealer)
    moves, i = parsed.moves, 0
    while i < len(moves) and not st.over:
        rm, seat = moves[i], st.to_play
        if st.pending_blow is not None:
            blow = Move(seat, rm.card, rm.take, soplar=True) if rm.soplar else None
            yield st, i + 1, True, blow
            engine.apply_blow(st, blow)
            if rm.soplar:
                i += 1
                continue
        clears = bool(rm.take) and set(rm.take) == set(st.table)
        move = Move(seat, rm.card, rm.take, escoba=clears)
        yield st, i + 1, False, move
        engine.apply_move(st, move)
        i += 1


def trace_notes(an: Analysis, width: int = 80) -> dict[int, str]:
    """The evaluation of each move, by record move number, for ``record.format_trace`` (a blow not
    taken is noted on the play that followed it), and under it what the decider read of the other hands
    (hands.reading), in lines no wider than ``width``."""
    notes: dict[int, str] = {}
    for d in an.decisions:
        text = d.summary()
        if d.blow and d.evaluation.options[d.played].move is None:
            text = "[" + _("no blow: {value}").format(value=text) + "]"
        notes[d.number] = f"{notes[d.number]}  {text}" if d.number in notes else text
        if not d.blow:  # what the decider read of the others before the move (once per move number)
            notes[d.number] += "".join("\n" + " " * 10 + line for line in reading_lines(d, width - 10))
    return notes


def reading_lines(d: Decision, width: int) -> list[str]:
    """What the decider of ``d`` read of the other hands, where their moves this round said something."""
    if d.reading is None:
        return []
    return format_reading(d.reading, width=width, news=True)


def format_analysis(an: Analysis, name: str = "", width: int = 80, reading: bool = False) -> str:
    """The analysis for people: one line per decision (when that would be wider than ``width``, a better
    move goes on a second line under the one played), with ``reading`` what the decider read of the other
    hands under it (where their moves said something), then the per-player totals; no line wider than
    ``width``."""
    from .record import fit_lines

    head = _("analysis of {name}: ").format(name=name) if name else _("analysis: ")
    seed = _("the hints' seeds, deal seed {seed}").format(seed=an.seed) if an.hint_seeds else \
        _("seed {seed}").format(seed=an.seed)
    out = [head + _("rules {rules}, up to {samples} deals per decision ({seed}); loss = best value - value "
                    "played, in points of hand margin").format(rules=an.rules.canonical(), samples=an.samples,
                                                               seed=seed)]
    for n in an.notes_said or an.notes:
        out.append(_("note: {note}").format(note=n))
    out.append("")
    rows = []
    forced = _("forced")
    for d in an.decisions:
        ev = d.evaluation
        played = ev.options[d.played]
        if d.forced:
            rows.append((d, option_label(played.move, translated=True), forced, None, None))
            continue
        best = ev.options[d.best]
        rows.append((d, option_label(played.move, translated=True), format_value(played, ev.method, translated=True),
                     option_label(best.move, translated=True), format_value(best, ev.method, translated=True)))
    seat_h, played_h, value_h, best_h, loss_h, mark_h = (_("seat"), _("played"), _("value"), _("best"), _("loss"),
                                                         _("mark"))
    sw = max(5, len(seat_h) + 1)
    pw = max([6, len(played_h), len(best_h), *(len(r[1]) for r in rows)]) + 2
    vw = max([5, len(value_h), *(len(r[2]) for r in rows if r[3] is not None), *(len(r[4]) for r in rows if r[4])]) + 2
    bw = max([4, len(best_h), *(len(r[3]) for r in rows if r[3])]) + 2
    lw = max(6, len(loss_h))
    marks = {d.mark: _(MARK_TEXT[d.mark]) for d in an.decisions if d.mark}
    mw = max([4, len(mark_h), *(len(m) for m in marks.values())])
    one_line = 5 + sw + pw + vw + bw + vw + lw + 2 + mw <= width
    if one_line:
        out.append(f"{'#':>3}  {seat_h:<{sw}}{played_h:<{pw}}{value_h:<{vw}}{best_h:<{bw}}{value_h:<{vw}}{loss_h:>{lw}}  "
                   f"{mark_h}")
    else:  # a better move and its value on a second line, under the move played and its value
        out.append(f"{'#':>3}  {seat_h:<{sw}}{played_h:<{pw}}{value_h:<{vw}}{loss_h:>{lw}}  {mark_h}")
        out.append(f"{'':{5 + sw}}{best_h:<{pw}}" + _("value   (only when another move was better)"))
    for d, pl, pv, bl, bv in rows:
        mark = marks.get(d.mark, "")
        if bl is None:
            out.append(f"{d.number:>3}  {d.seat:<{sw}}{pl:<{pw}}{forced}")
        elif one_line:
            out.append(f"{d.number:>3}  {d.seat:<{sw}}{pl:<{pw}}{pv:<{vw}}{bl:<{bw}}{bv:<{vw}}"
                       f"{d.loss:>{lw}.{LOSS_DECIMALS}f}  {mark}".rstrip())
        else:
            out.append(f"{d.number:>3}  {d.seat:<{sw}}{pl:<{pw}}{pv:<{vw}}{d.loss:>{lw}.{LOSS_DECIMALS}f}  {mark}".rstrip())
            if d.best != d.played:
                out.append(f"{'':{5 + sw}}{bl:<{pw}}{bv}")
        if reading and not d.blow:
            out += [f"{'':{5 + sw}}{line}" for line in reading_lines(d, width - 5 - sw)]
    out.append("")
    for t in an.totals():
        label = side_label(an.rules, t.seat, an.strategies) if not an.rules.teams else _("seat {seat}").format(
            seat=t.seat)
        if an.rules.teams and an.strategies and t.seat < len(an.strategies):
            label += f" {an.strategies[t.seat]}"
        counted = ", ".join(marks_text(name, n) for name, n in t.marks.items())
        out.append(ngettext("{who}: {n} decision, {choices} with a choice; total loss {loss} ±{spread}, average "
                            "{average} per choice; {marks}",
                            "{who}: {n} decisions, {choices} with a choice; total loss {loss} ±{spread}, average "
                            "{average} per choice; {marks}", t.decisions).format(
            who=label, n=t.decisions, choices=t.choices, loss=f"{t.loss:.2f}", spread=f"{t.loss_spread:.2f}",
            average=f"{t.average:.2f}", marks=counted))
    return "\n".join(fit_lines(out, width))
