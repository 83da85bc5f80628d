"""The luck ledger of a hand: what the cards gave a seat, what its decisions lost, what the others' play did.

Backgammon programs split a result into luck (the rolls) and skill (the decisions); this module does the
same for one seat of a hand record, from that seat's information. Every figure is a value of the seat's
position, the expected margin of its side at the end of the hand (docs/evaluate.md), and the ledger is a
chain of such values from before the deal to the result:

- ``expected``: the value before any card is seen (the seat's share of the deal: mano or dealer);
- a **card arrival** (the deal, each new round, each card the seat draws under ``deal=draw``): its luck
  is the value after the cards arrived minus the value before, which is their average over every way the
  cards the seat had not seen could have arrived. Both are estimated the same way (``position_value``):
  the unseen cards are dealt again ``deals`` times (every way, when few enough to enumerate), the other
  seats play on by the heuristic (exactly, once nothing is hidden) to the seat's next decision, which
  the evaluator values (its best option);
- a **decision**: minus its loss, as ``analyze`` gives it (``review.analyze_record``);
- the **others' play**: the change of the value across the other seats' moves (what they chose, and what
  it showed of their hands), between the seat's checkpoints; forced moves of the seat fall here too;
- ``residual``: where two estimates value the same position (an arrival followed at once by the seat's
  decision, or its decision by an arrival), their difference; it should be within its spread of 0;
- ``solver``: the same, where a searched value meets an exact one (the last deal, after which nothing is
  hidden): the search's own error in the last round, not noise, so it is shown apart.

``expected + luck + decisions + others + residual + solver = result`` holds exactly; ``adds_up`` checks that the
residual is within ``SIGNIFICANT`` spreads. With nothing hidden (two players, the stock empty, few cards)
the values are exact and so is the luck of the last deal.
"""

from __future__ import annotations

import copy
import functools
import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ..batch import make_player
from ..game import engine
from ..game.cards import card_str
from ..game.engine import HandState
from ..game.rng import SplitMix64, mix64, shuffle
from ..i18n import N_
from ..i18n import translate as _
from .evaluate import DEFAULT_SAMPLES, InfoSet, evaluate
from .record import RecordError, parse_record, replay_record
from .review import AnalysisError, analyze_record, decision_points

DEALS = 16  # the unseen cards dealt again this many times per value (the evaluator's samples split among them)
EXPECTED_DEALS = 256  # fresh deals behind the value before the deal (one figure per ruleset and seat, kept)
RESIDUAL_SPREADS = 3.0  # the residual of a ledger that adds up is within this many spreads of zero
ENUMERATE = 64  # ... or every way they could lie, when there are at most this many (exact when nothing is hidden)
POLICY = "ismcts:iters=400"  # how the other seats play on from a dealt-again position to the seat's next decision
KINDS = ("deal", "round", "draw", "decision", "others", "residual", "solver")
ARRIVAL_TEXT = {"deal": N_("the deal"), "round": N_("new cards"), "draw": N_("card drawn")}
# the ledger's parts: the entries each sums
PARTS = {"luck": tuple(ARRIVAL_TEXT), "decisions": ("decision",), "others": ("others",), "residual": ("residual",),
         "solver": ("solver",)}


@dataclass
class Entry:
    """One line of the ledger: what changed the seat's expected margin, after move ``number`` (0: the deal)."""

    kind: str
    number: int
    value: float
    spread: float
    exact: bool = False
    cards: tuple[int, ...] = ()  # the cards that arrived (an arrival), or the option played (a decision)
    detail: str = ""  # a decision: the option played, and the best one when it was not

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "move": self.number, "value": round(self.value, 4),
                "spread": round(self.spread, 4), "exact": self.exact,
                "cards": [card_str(c) for c in self.cards]}


@dataclass
class Ledger:
    """The ledger of one seat's side in one hand (values in points of hand margin)."""

    seat: int
    side: int
    expected: float
    expected_spread: float
    result: int
    entries: list[Entry] = field(default_factory=list)
    finished: bool = True

    def part(self, name: str) -> tuple[float, float]:
        """A part of the ledger (``PARTS``: luck, decisions, others, residual, solver): the sum of its entries
        and its spread (the entries' estimates are independent)."""
        chosen = [e for e in self.entries if e.kind in PARTS[name]]
        return sum(e.value for e in chosen), math.sqrt(sum(e.spread ** 2 for e in chosen))

    @property
    def adds_up(self) -> bool:
        """The residual is within ``RESIDUAL_SPREADS`` spreads of zero (exactly zero when every value is exact)."""
        r, s = self.part("residual")
        return abs(r) <= RESIDUAL_SPREADS * s + 1e-9

    def to_json(self) -> dict[str, Any]:
        def pair(v):
            return {"value": round(v[0], 4), "spread": round(v[1], 4)}
        return {"seat": self.seat, "side": self.side, "finished": self.finished,
                "expected": pair((self.expected, self.expected_spread)), "result": self.result,
                **{name: pair(self.part(name)) for name in PARTS}, "adds_up": self.adds_up,
                "entries": [e.to_json() for e in self.entries]}


def margin(st: HandState, side: int) -> int:
    """The finished hand's margin for ``side``: its total minus the best total of the other sides."""
    total = st.result.total
    return total[side] - max(t for s, t in enumerate(total) if s != side)


def _others_move(st: HandState, player, seed: int) -> None:
    """Play the seat to move in a dealt-again position: exactly when nothing is hidden from it, else by the
    policy; its blow decision first."""
    if engine.blow_options(st):
        ev = evaluate(st, blow=True, samples=1) if InfoSet.of(st).solvable else None
        blow = ev.options[ev.best].move if ev is not None else player.choose_blow(st, engine.blow_options(st),
                                                                                     SplitMix64(seed))
        engine.apply_blow(st, blow)
        if st.over:
            return
    moves = engine.legal_moves(st)
    if len(moves) > 1 and InfoSet.of(st).solvable:
        ev = evaluate(st, samples=1)
        engine.apply_move(st, ev.options[ev.best].move)
    else:
        engine.apply_move(st, moves[0] if len(moves) == 1 else player.choose_move(st, moves, SplitMix64(seed)))


def value_here(st: HandState, seat: int, samples: int, seed: int, player) -> tuple[float, bool]:
    """The value for ``seat``'s side of a full position (every card placed): the others play on (the policy
    ``player``) to the seat's next real decision, which the evaluator values by its best option (a forced
    one is played); the margin once the hand is over. Returns (value, exact)."""
    st = copy.deepcopy(st)
    side, k = st.rules.side_of(seat), 0
    while not st.over:
        k += 1
        if st.to_play != seat:
            _others_move(st, player, mix64(seed ^ k))
            continue
        blow = bool(engine.blow_options(st))
        ev = evaluate(st, blow=blow, samples=samples, seed=mix64(seed + k))
        if ev.method != "forced":
            return ev.options[ev.best].value, ev.method == "exact"
        (engine.apply_blow if blow else engine.apply_move)(st, ev.options[0].move)
    return float(margin(st, side)), True


def _redeal(st: HandState, seat: int, own_unknown: list[int], pool_order: list[int]) -> HandState:
    """``st`` with the cards ``seat`` has not seen (the other hands, the stock, and ``own_unknown`` of its
    own) placed as ``pool_order`` says: first its own unknown slots, then each other hand, then the stock."""
    out = copy.deepcopy(st)
    it = iter(pool_order)
    for s in range(st.rules.players):
        if s == seat:
            known = [c for c in st.hands[s] if c not in own_unknown]
            out.hands[s] = sorted(known + [next(it) for _ in own_unknown])
    for s in range(st.rules.players):
        if s != seat:
            out.hands[s] = sorted(next(it) for _ in st.hands[s])
    out.stock = list(it)
    return out


def _ways(st: HandState, seat: int, own_unknown: list[int]) -> list[list[int]] | None:
    """Every distinct placing of the unseen cards when the stock is empty and there are at most ``ENUMERATE``
    of them (pool orders for ``_redeal``); None when they must be sampled."""
    if st.stock:
        return None
    sizes = [len(own_unknown)] + [len(st.hands[s]) for s in range(st.rules.players) if s != seat]
    pool = sorted(own_unknown + [c for s in range(st.rules.players) if s != seat for c in st.hands[s]])
    count, left = 1, len(pool)
    for n in sizes:
        count *= math.comb(left, n)
        left -= n
    if count > ENUMERATE:
        return None

    def split(cards, sizes):
        if not sizes:
            yield []
            return
        for chosen in combinations(cards, sizes[0]):
            rest = [c for c in cards if c not in chosen]
            for tail in split(rest, sizes[1:]):
                yield list(chosen) + tail
    return list(split(pool, sizes))


def position_value(st: HandState, seat: int, own_unknown: list[int], *, samples: int, seed: int,
                   deals: int = DEALS, player=None) -> tuple[float, float, bool]:
    """What ``seat``'s side may expect from ``st`` knowing only what the seat knows, ``own_unknown`` of its
    own cards left out: the mean of ``value_here`` over the unseen cards dealt again (every way, when few),
    its standard error and whether it is exact."""
    player = player or make_player(POLICY)
    ways = _ways(st, seat, own_unknown)
    pool = own_unknown + [c for s in range(st.rules.players) if s != seat for c in st.hands[s]] + list(st.stock)
    if ways is None:
        # a uniform order of the pool: a shuffled deck of 40 read for its first len(pool) card ids
        ways = [[pool[i] for i in shuffle(SplitMix64(mix64(seed ^ (k + 1) * 0x9E37))) if i < len(pool)]
                for k in range(deals)]
    # every dealt-again position is valued with the analysis' own samples: the best of noisy option values is
    # biased upwards by an amount that depends on their number, so each difference the ledger takes, the
    # analysis' values against these included, compares values of the same bias
    each = samples
    values, exact = [], True
    for k, order in enumerate(ways):
        v, e = value_here(_redeal(st, seat, own_unknown, order), seat, each, mix64(seed + 7919 * (k + 1)), player)
        values.append(v)
        exact &= e
    mean = sum(values) / len(values)
    if exact:
        return mean, 0.0, True
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
    return mean, sd / math.sqrt(len(values)), False


def ledger_of(data: Any, seat: int, *, samples: int = DEFAULT_SAMPLES, seed: int | None = None, deals: int = DEALS,
              analysis=None) -> Ledger:
    """The luck ledger of ``seat``'s side in a hand record (``analysis``: ``analyze_record``'s for a set of
    seats holding ``seat``, to reuse its decisions). Raises AnalysisError for a record that cannot be read."""
    try:
        parsed = parse_record(data)
        final, _problems = replay_record(data)
    except RecordError as e:
        raise AnalysisError(str(e)) from None
    rules = parsed.rules
    if not 0 <= seat < rules.players:
        raise AnalysisError(_("seat {seat} is not a seat of this hand (0 to {last})").format(
            seat=seat, last=rules.players - 1))
    if analysis is None or seat not in analysis.seats:
        analysis = analyze_record(data, seats=[seat], samples=samples, seed=seed)
    seed = seed or 0  # the ledger's own searches (its deals, its positions): from the seed given, else 0
    side = rules.side_of(seat)
    by_number = {(d.number, d.blow): d for d in analysis.decisions if d.seat == seat}
    player = make_player(POLICY)
    vseed, k = mix64(seed ^ 0x10C4), 0

    def value(st, own_unknown):
        nonlocal k
        k += 1
        return position_value(st, seat, own_unknown, samples=samples, seed=mix64(vseed ^ k), deals=deals,
                              player=player)

    start = engine.new_hand(rules, parsed.deck, parsed.dealer)
    exp_v, exp_s = deal_value(rules, parsed.dealer, seat, samples=samples, seed=seed, deals=deals)
    led = Ledger(seat, side, exp_v, exp_s, 0)
    after_v, after_s, after_e = value(start, [])
    led.entries.append(Entry("deal", 0, after_v - exp_v, math.hypot(after_s, exp_s), False, tuple(start.hands[seat])))
    # the last checkpoint's value and spread, and whether a move not valued as the seat's decision was made since
    level, level_s, moved = after_v, after_s, False

    def segment(number, to_v, to_s, exact=False):
        kind = "others" if moved else "solver" if exact != (level_s == 0) else "residual"
        led.entries.append(Entry(kind, number, to_v - level, math.hypot(to_s, level_s), exact and level_s == 0))

    prev = None  # (stock left, seat, whether it was the seat's valued decision) of the decision just applied
    for st, number, blow, played in decision_points(parsed):
        if prev is not None:
            moved = moved or not prev[2]
            arrived = _arrival(rules, st, seat, prev[0], prev[1])
            if arrived is not None:
                kind, cards = arrived
                b_v, b_s, b_e = value(st, cards)
                segment(number - 1, b_v, b_s, b_e)
                a_v, a_s, a_e = value(st, [])
                led.entries.append(Entry(kind, number - 1, a_v - b_v, math.hypot(a_s, b_s), a_e and b_e, tuple(cards)))
                level, level_s, moved = a_v, a_s, False
        d = by_number.get((number, blow)) if st.to_play == seat else None
        valued = d is not None and not d.forced
        if valued:
            ev = d.evaluation
            best, chosen = ev.options[d.best], ev.options[d.played]
            segment(number - 1, best.value, best.spread, ev.method == "exact")
            led.entries.append(Entry("decision", number, -d.loss, d.loss_spread, ev.method == "exact",
                                     detail=d.summary()))
            level, level_s, moved = chosen.value, chosen.spread, False
        prev = (len(st.stock), st.to_play, valued)
    led.finished = final.over
    if final.over:
        if prev is not None:
            moved = moved or not prev[2]
        led.result = margin(final, side)
        segment(len(parsed.moves), float(led.result), 0.0, True)
    return led


@functools.lru_cache(maxsize=64)
def deal_value(rules, dealer: int, seat: int, *, samples: int, seed: int, deals: int = DEALS,
               fresh: int = EXPECTED_DEALS) -> tuple[float, float]:
    """What ``seat``'s side may expect before the deal (``dealer`` dealing): the mean of ``value_here`` over
    ``fresh`` deals (each valued as ``position_value`` values one of its ``deals``), and its standard error.
    One figure per ruleset, seats and budget: it is kept for the process."""
    player = make_player(POLICY)
    each, values = samples, []
    for k in range(fresh):
        st = engine.new_hand(rules, shuffle(SplitMix64(mix64(seed ^ (0xDEA1 + k)))), dealer)
        values.append(value_here(st, seat, each, mix64(seed + 104729 * (k + 1)), player)[0])
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
    return mean, sd / math.sqrt(len(values))


def _arrival(rules, st: HandState, seat: int, prev_stock: int, prev_mover: int) -> tuple[str, list[int]] | None:
    """Whether cards reached ``seat``'s view with the move just applied: (kind, its cards) or None."""
    if len(st.stock) >= prev_stock:
        return None
    if rules.deal == "rounds":
        return "round", list(st.hands[seat])
    if prev_mover == seat:
        drawn = st.deck[40 - prev_stock]
        return ("draw", [drawn]) if drawn in st.hands[seat] else None
    return None


@dataclass
class Review:
    """``analyze``'s answer: the analysis of every decision and the ledger of the seats it was asked for."""

    analysis: Any  # review.Analysis
    ledgers: list[Ledger]

    def to_json(self) -> dict[str, Any]:
        return {**self.analysis.to_json(), "ledgers": [led.to_json() for led in self.ledgers]}


def ledger_seats(data: Any, seats: list[int] | None) -> list[int]:
    """Whose ledger ``analyze`` gives: the seats asked for, else the person's seat of a record from ``play``
    or the page, else every seat."""
    if seats:
        return sorted(set(seats))
    strategies = data.get("strategies") if isinstance(data, dict) else None
    if isinstance(strategies, list) and "person" in strategies:
        return [strategies.index("person")]
    return list(range(parse_record(data).rules.players))


def review_hand(data: Any, *, seats: list[int] | None = None, samples: int = DEFAULT_SAMPLES, seed: int | None = None,
                luck: bool = True, deals: int = DEALS, on_decision=None) -> Review:
    """Analyse a hand record (``review.analyze_record``) and, with ``luck``, give the ledger of each of
    ``ledger_seats``. Raises AnalysisError for a record that cannot be analysed."""
    an = analyze_record(data, seats=seats, samples=samples, seed=seed, on_decision=on_decision)
    ledgers = [ledger_of(data, s, samples=samples, seed=seed, deals=deals, analysis=an)
               for s in ledger_seats(data, seats)] if luck else []
    return Review(an, ledgers)


def format_ledger(led: Ledger, rules, strategies: list[str] | None = None, width: int = 80) -> list[str]:
    """The ledger for people: where the points came from, in a few lines that add up to the result."""
    from .record import fit_lines, side_label

    def pm(v):
        return f"{v[0]:+.2f} ±{v[1]:.2f}"
    who = side_label(rules, led.seat, strategies)
    out = [_("luck and decisions of {who}, in points of hand margin:").format(who=who)]
    rows = [(_("expected before the deal"), pm((led.expected, led.expected_spread))),
            (_("luck of the cards (the deal and the cards that arrived)"), pm(led.part("luck"))),
            (_("your decisions (minus their loss)") if strategies and strategies[led.seat] == "person"
             else _("the decisions (minus their loss)"), pm(led.part("decisions"))),
            (_("the others' play, and what it showed of their hands"), pm(led.part("others")))]
    (r, r_s), (v, v_s) = led.part("residual"), led.part("solver")
    noise = (r + v, math.hypot(r_s, v_s))
    rows.append((_("estimate noise (should be near 0)"), pm(noise)))
    if led.finished:
        rows.append((_("result"), f"{led.result:+d}"))
    label_w = min(max(len(r[0]) for r in rows) + 2, width - 14)
    for label, value in rows:
        out.append(f"  {label:<{label_w}}{value}")
    arrivals = [e for e in led.entries if e.kind in ARRIVAL_TEXT]
    if arrivals:
        parts = [f"{_(ARRIVAL_TEXT[e.kind])} {' '.join(card_str(c) for c in e.cards)} {e.value:+.2f}".strip()
                 for e in arrivals]
        out.append("  " + _("the cards, one by one: {parts}").format(parts="; ".join(parts)))
    if not led.adds_up:
        out.append("  " + _("note: the estimates disagree by more than their noise; more samples narrow them"))
    return fit_lines(out, width, indent=4)
