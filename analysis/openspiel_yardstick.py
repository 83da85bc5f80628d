"""An outside yardstick: OpenSpiel's own ISMCTS bot against our strategies through ``python_escoba``.

OpenSpiel's ``ISMCTSBot`` (open_spiel/python/algorithms/ismcts.py, random
rollouts, its own tree and UCT; ``BOT_SETTINGS``) plays each of our strategies
on duplicate deals: deal ``d`` is ``rng.shuffled_deck(seed, d, 0)`` with seat 0
dealing, played twice, the OpenSpiel bot in seat 0 then in seat 1. Our
strategies play through ``escoba_sim.env.openspiel.StrategyBot`` (the engine's
decisions; ismcts through the compiled core). A hand's score is the OpenSpiel
bot's return: its hand points minus ours. Every hand is seeded on its own
(seed, deal, seat), the bot's world sampler included, so hands replay exactly
in any order. Rows go to a JSON-lines file as they finish (deal by deal, the
three pairs together), so an interrupted run resumes where it stopped and ends
with the table an uninterrupted one gives; ``--table`` only summarises.

    python analysis/openspiel_yardstick.py --budgets 30,100,300 --deals 100
    python analysis/openspiel_yardstick.py --table      # the summary (results/openspiel_yardstick.json)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import EARLIER_ISMCTS, RESULTS, SEED  # noqa: E402

ROWS = RESULTS / "openspiel_yardstick.jsonl"
OPPONENTS = ("greedy", "endgame", "ismcts")
# the spec each label plays. `ismcts` is pinned to the search its saved rows were played with, the default
# of the time: a resumed run must add hands of the same strategy to a label, and the README names the spec
# (results' "specs")
SPECS = {"ismcts": EARLIER_ISMCTS,
         # issue 24's default at OpenSpiel's budget (at most 100 simulations: `stop` may end a search sooner)
         "ismcts100": "ismcts:iters=100,c=4,rollout=0,exact=6,blows=0,leaf=-1,exploit=0,infer=1,stop=0.25,prior=0",
         # the same with every one of its 100 simulations run (equal simulations, as the issue asks)
         "ismcts100full": "ismcts:iters=100,c=4,rollout=0,exact=6,blows=0,leaf=-1,exploit=0,infer=1,stop=0,prior=0",
         # issue 24's second registration (analysis/stronger_search.py CANDIDATE2) at 100 simulations, all run
         "ismcts100prior": "ismcts:iters=100,c=8,rollout=1,exact=6,blows=0,leaf=-1,exploit=0,infer=1,stop=0,prior=16",
         # issue 34's registration (analysis/hand_reading.py CANDIDATE, reading the other hand) at 100, all run
         "ismcts100read": "ismcts:iters=100,c=8,rollout=1,exact=6,blows=0,leaf=-1,exploit=0,infer=2,stop=0,prior=16,"
                          "temperature=0.75,uniform=0.03"}
UCT_C = 4.0  # returns are in points of hand margin, as our ismcts's c = 4
DEFAULT_BUDGETS = "100"
# every ISMCTSBot argument the yardstick leaves at OpenSpiel's default (open_spiel/python/algorithms/ismcts.py)
BOT_SETTINGS = {"uct_c": UCT_C, "max_world_samples": "-1 (unlimited: a fresh world per simulation)",
                "final_policy_type": "MAX_VISIT_COUNT", "child_selection_policy": "UCT",
                "use_observation_string": False, "allow_inconsistent_action_sets": False,
                "evaluator": "mcts.RandomRolloutEvaluator(n_rollouts=1)"}


def spec_of(ours: str) -> str:
    """The canonical spec a label plays (a label not in SPECS is its own spec)."""
    from escoba_sim.strategies import parse_strategy

    return parse_strategy(SPECS.get(ours, ours)).canonical


def play_hand(game, ours: str, budget: int, seed: int, deal: int, os_seat: int, history: bool = False) -> dict:
    """One hand, the OpenSpiel bot in ``os_seat``; with ``history`` the row also has every action taken."""
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    from escoba_sim.env.openspiel import StrategyBot
    from escoba_sim.env.openspiel import deal as deal_cards
    from escoba_sim.game.rng import PLAY, SplitMix64, shuffled_deck

    hand_seed = (seed * 1_000_003 + deal * 2 + os_seat) % 2**31
    rs = np.random.RandomState(hand_seed)
    os_bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=UCT_C, max_simulations=budget,
                              random_state=rs)
    # The bot's own resampler makes a fresh pyspiel.UniformProbabilitySampler(0, 1) per world, seeded from
    # std::random_device, so no run could be repeated: the same call with one seeded sampler per hand.
    sampler = pyspiel.UniformProbabilitySampler(hand_seed, 0.0, 1.0)
    os_bot.set_resampler(lambda s, player: s.resample_from_infostate(player, sampler))
    our_bot = StrategyBot(spec_of(ours), SplitMix64.for_hand(seed, deal, 0, PLAY))
    state = deal_cards(game.new_initial_state(), shuffled_deck(seed, deal, 0))
    spent, cpu, steps = [0.0, 0.0], [0.0, 0.0], [0, 0]  # [OpenSpiel bot, ours]: wall s, CPU s, moves
    searched = 0  # the bot's moves with more than one legal action (the others return at once)
    while not state.is_terminal():
        who = 0 if state.current_player() == os_seat else 1
        searched += who == 0 and len(state.legal_actions()) > 1
        t, c = time.perf_counter(), time.process_time()
        action = (os_bot if who == 0 else our_bot).step(state)
        spent[who] += time.perf_counter() - t
        cpu[who] += time.process_time() - c
        steps[who] += 1
        state.apply_action(action)
    row = {"budget": budget, "ours": ours, "deal": deal, "os_seat": os_seat,
           "margin": state.returns()[os_seat], "os_time": spent[0], "os_cpu": cpu[0], "os_steps": steps[0],
           "os_searched": searched, "our_time": spent[1], "our_cpu": cpu[1], "our_steps": steps[1]}
    if history:
        row["history"] = state.history()
    return row


def load_rows(path: Path = ROWS) -> list[dict]:
    """The played hands; a last line cut short by a kill is left out (and dropped by the next run)."""
    if not path.exists():
        return []
    text = path.read_text()
    lines = text.splitlines() if text.endswith("\n") else text.splitlines()[:-1]
    return [json.loads(line) for line in lines if line.strip()]


def _drop_partial_line(path: Path) -> None:
    """Cut a last line left unfinished by a killed run, so appended rows start on a line of their own."""
    if path.exists() and path.stat().st_size:
        text = path.read_text()
        if not text.endswith("\n"):
            path.write_text(text[:text.rfind("\n") + 1])


def run(budgets: list[int], deals: int, opponents: list[str], seed: int, rules: str, rows_path: Path = ROWS) -> None:
    import pyspiel

    import escoba_sim.env.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game(f"python_escoba(rules={rules})")
    done = {(r["budget"], r["ours"], r["deal"], r["os_seat"]) for r in load_rows(rows_path)
            if r["seed"] == seed and r["rules"] == rules}
    rows_path.parent.mkdir(parents=True, exist_ok=True)
    _drop_partial_line(rows_path)
    with rows_path.open("a") as f:
        for budget in budgets:
            for d in range(deals):  # deal-major: every pair grows together, so a cut-off run stays balanced
                for ours in opponents:
                    for os_seat in (0, 1):
                        if (budget, ours, d, os_seat) in done:
                            continue
                        row = play_hand(game, ours, budget, seed, d, os_seat)
                        row.update(seed=seed, rules=rules)
                        f.write(json.dumps(row) + "\n")
                        f.flush()


def summarise(rows: list[dict]) -> list[dict]:
    """Per (budget, opponent): deals with both seats played, margin per hand with a 95% interval by deal, times.

    A deal's two hands (one per seating) are one unit: points per hand = sum of margins / hands, its
    standard error ``stats.ratio_mean`` over deals (the project's interval-by-deal), interval normal.
    """
    from escoba_sim.runs.stats import normal_ci, ratio_mean

    out = []
    labels = [*OPPONENTS, *sorted({r["ours"] for r in rows} - set(OPPONENTS))]  # the usual ones first
    for budget in sorted({r["budget"] for r in rows}):
        for ours in labels:
            by_deal: dict[int, dict[int, dict]] = {}
            for r in rows:
                if r["budget"] == budget and r["ours"] == ours:
                    by_deal.setdefault(r["deal"], {})[r["os_seat"]] = r
            pairs = [v for _, v in sorted(by_deal.items()) if len(v) == 2]
            if not pairs:
                continue
            y = [round(v[0]["margin"] + v[1]["margin"]) for v in pairs]  # two players: margins are whole points
            n = len(y)
            mean, se = ratio_mean(sum(y), 2 * n, sum(v * v for v in y), 2 * sum(y), 4 * n, n)
            lo, hi = normal_ci(mean, se)
            hands = [h for v in pairs for h in v.values()]
            wins = sum(h["margin"] > 0 for h in hands)
            losses = sum(h["margin"] < 0 for h in hands)
            os_moves, our_moves = sum(h["os_steps"] for h in hands), sum(h["our_steps"] for h in hands)
            searched = sum(h["os_searched"] for h in hands)
            out.append({
                "budget": budget, "ours": ours, "deals": n, "hands": 2 * n,
                "margin": mean, "lo": lo, "hi": hi,
                "os_hand_wins": wins, "our_hand_wins": losses, "ties": 2 * n - wins - losses,
                "os_moves": os_moves, "os_searched_moves": searched, "our_moves": our_moves,
                "os_cpu_ms_per_move": 1000 * sum(h["os_cpu"] for h in hands) / os_moves,
                "os_cpu_ms_per_simulation": 1000 * sum(h["os_cpu"] for h in hands) / (searched * budget),
                "our_cpu_ms_per_move": 1000 * sum(h["our_cpu"] for h in hands) / our_moves,
                "os_wall_ms_per_move": 1000 * sum(h["os_time"] for h in hands) / os_moves,
                "our_wall_ms_per_move": 1000 * sum(h["our_time"] for h in hands) / our_moves,
            })
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", default=DEFAULT_BUDGETS, help="OpenSpiel ISMCTS simulations per move, comma separated")
    ap.add_argument("--deals", type=int, default=100, help="duplicate deals per pair (2 hands each)")
    ap.add_argument("--opponents", default=",".join(OPPONENTS))
    ap.add_argument("--rules", default="ludoteka")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--table", action="store_true", help="only summarise the rows already played")
    ap.add_argument("--rows", type=Path, default=ROWS, help="the JSON-lines file of played hands (resumed)")
    a = ap.parse_args(argv)
    stopped = False
    if not a.table:
        try:
            run([int(b) for b in a.budgets.split(",")], a.deals, a.opponents.split(","), a.seed, a.rules, a.rows)
        except KeyboardInterrupt:  # every finished hand is already in the rows file: summarise those
            print(f"stopped: the hands played so far are kept in {a.rows}; the same command resumes",
                  file=sys.stderr)
            stopped = True
    rows = [r for r in load_rows(a.rows) if r["seed"] == a.seed and r["rules"] == a.rules]
    table = summarise(rows)
    seeds = sorted({r["seed"] for r in rows})
    budgets = sorted({r["budget"] for r in rows})
    command = (f"python analysis/openspiel_yardstick.py --budgets {','.join(map(str, budgets))} --deals {a.deals}"
               + (f" --rules {a.rules}" if a.rules != "ludoteka" else ""))
    short = [t for t in table if t["deals"] < a.deals]
    note = (f"The run asked for {a.deals} deals per pair; it was stopped at the session's deadline, so the "
            "pairs with fewer deals above are what was played by then (deals 0, 1, 2, ... in order; rerunning "
            "the command resumes from results/openspiel_yardstick.jsonl)." if short else "")
    for t in table:
        t["complete"] = t["deals"] >= a.deals
    numbers = {"command": command, "note": note, "deals_asked": a.deals,
               "script": "analysis/openspiel_yardstick.py", "seed": seeds, "rules": sorted({r["rules"] for r in rows}),
               "specs": {ours: spec_of(ours) for ours in sorted({r["ours"] for r in rows})},
               "bot": BOT_SETTINGS, "uct_c": UCT_C,
               "rollouts": "1 random rollout per leaf (mcts.RandomRolloutEvaluator(1))", "rows": table}
    a.rows.with_suffix(".json").write_text(json.dumps(numbers, indent=2) + "\n")
    for t in table:
        print(f"budget {t['budget']:>5} vs {t['ours']:<8} deals {t['deals']:>4}: OpenSpiel ISMCTS "
              f"{t['margin']:+.3f} [{t['lo']:+.3f}, {t['hi']:+.3f}] points/hand; "
              f"CPU ms/move OpenSpiel {t['os_cpu_ms_per_move']:.1f}, ours {t['our_cpu_ms_per_move']:.2f}")
    if stopped:
        sys.exit(130)


if __name__ == "__main__":
    main()
