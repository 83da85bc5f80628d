"""Write analysis/README.md from the numbers the studies saved (results/*.json) and their charts."""

import json
from pathlib import Path

from escoba_sim.rng import DEAL_STREAM_VERSION

HERE = Path(__file__).resolve().parent
R = HERE / "results"


def _load(name):
    p = R / f"{name}.json"
    return json.loads(p.read_text()) if p.exists() else None


def _stale(s):
    """A warning for numbers dealt with an older deal stream (their JSON has no or another deal_stream)."""
    made = s.get("deal_stream", 1)
    if made == DEAL_STREAM_VERSION:
        return ""
    return (f"**Not re-run since deal stream {DEAL_STREAM_VERSION}:** dealt with stream {made}; the same command "
            "now deals other hands, so these numbers reproduce only within their intervals. ")


def _img(folder, chart):
    p = R / folder / "report" / f"{chart}.png"
    return f"![{folder} {chart}](results/{folder}/report/{chart}.png)\n" if p.exists() else ""


def main():
    lines = ["# Findings", "",
             "Reproducible studies. Everything below (numbers and charts) is written by the scripts:",
             "", "    ESCOBA_ANALYSIS_N=300000 python analysis/run_all.py   # the count used below; about 2 minutes on the compiled core, 2 cores", "",
             "Each study's folder `results/<study>/` is an `escoba-sim` compare or tournament folder; its "
             "`report/index.html` holds every table and chart with provenance (version, engine, rules digest, seed). "
             "Intervals are 95%.", ""]
    s = _load("strategies_by_preset")
    if s:
        lines += ["## Strength of the built-in strategies under each preset", "",
                  _stale(s) + f"Command: `{s['command']}`. Round-robin tournament, duplicate deals; Bradley-Terry rating on "
                  "the Elo scale (mean 0) with a 95% interval by deal (a sandwich covariance over the deals, docs/run.md).", "",
                  "| preset | greedy | maxoros | random |", "|---|---|---|---|"]
        for preset, r in s.items():
            if preset in ("command", "deal_stream"):
                continue
            cell = lambda k: f"{r[k][0]:+.1f} [{r[k][1]:+.1f}, {r[k][2]:+.1f}]"  # noqa: E731
            lines.append(f"| {preset} | {cell('greedy')} | {cell('maxoros')} | {cell('random')} |")
        lines += ["", _img("strategies_ludoteka", "crosstable"), _img("strategies_ludoteka", "ratings")]
    s = _load("rule_fields")
    if s:
        lines += ["## What each rule field does (greedy vs maxoros, ludoteka base)", "",
                  _stale(s) + f"Command: `{s['command']}`. Every variant plays the same deals as the base; differences are "
                  "paired deal by deal (the same deal under both rulesets), 95% intervals by deal.", "", "| variant | quantity | difference vs ludoteka | 95% interval |",
                  "|---|---|---|---|"]
        for e in s["effects"]:
            lines.append(f"| {e['label']} | {e['metric']} | {e['estimate']:+.4f} | [{e['lo']:+.4f}, {e['hi']:+.4f}] |")
        lines += ["", "Note: `capture=any` and `capture=optional` change nothing for greedy and maxoros, exactly "
                  "(differences 0): both strategies always capture when they can, so the must-capture rule never "
                  "binds them. The capture field matters only to strategies that sometimes lay instead "
                  "(e.g. random).", "", _img("rule_fields", "effects")]
    s = _load("seat_advantage")
    if s:
        lines += ["## How much playing first (mano) is worth", "",
                  _stale(s) + f"Command: `{s['command']}`. greedy against itself, so any difference is the seat: "
                  "points per hand of the mano minus the dealer's.", "", "| preset | mano - dealer | 95% interval |",
                  "|---|---|---|"]
        for k, v in s["seat_advantage_points_per_hand"].items():
            lines.append(f"| {k} | {v[0]:+.4f} | [{v[1]:+.4f}, {v[2]:+.4f}] |")
        lines += ["", _img("seat_advantage", "seat_advantage")]
    s = _load("game_length")
    if s:
        lines += ["## How long games last", "", _stale(s) + f"Command: `{s['command']}`. greedy vs maxoros.", "",
                  "| ruleset | hands per game | 95% interval |", "|---|---|---|"]
        for k, v in s["hands_per_game"].items():
            lines.append(f"| {k} | {v[0]:.3f} | [{v[1]:.3f}, {v[2]:.3f}] |")
        lines += ["", _img("game_length", "hands_per_game")]
    s = _load("strategy_strength")
    if s:
        lines += _strength_section(s)
    s = _load("search_strength")
    if s:
        lines += _search_section(s)
    s = _load("openspiel_yardstick")
    if s:
        lines += _yardstick_section(s)
    s = _load("tuned_weights")
    if s:
        lines += _tuned_section(s)
    s = _load("oracle_gap")
    if s:
        lines += _gap_section(s)
    (HERE / "README.md").write_text("\n".join(lines) + "\n")


def _strength_section(s) -> list[str]:
    """Every strategy under ludoteka (strategy_strength.py): ratings, pairs against greedy, behaviour."""
    lines = ["## Every strategy under ludoteka: strength and what each does", "",
             _stale(s) + f"Command: `{s['command']}` (script: `{s['script']}`; engine {s['engine']}, version {s['version']}). "
             f"{s['games_per_pair']} games per pair on duplicate deals. Labels are short names; the full specs "
             "(every weight) are in results/strategy_strength.json. Ratings: Bradley-Terry on the Elo scale "
             "(mean 0) with a 95% interval by deal (a sandwich covariance over the deals, docs/run.md); pairs: game "
             "score (wins / games) and points per hand of the row minus greedy, 95% intervals by deal.", "",
             "| strategy | rating | 95% interval | game score vs greedy | 95% interval | points per hand vs greedy | 95% interval |",
             "|---|---|---|---|---|---|---|"]
    vs_greedy = {p["a"]: p for p in s["pairs"] if p["b"] == "greedy"}
    for k, v in sorted(s["ratings"].items(), key=lambda kv: -kv[1][0]):
        p = vs_greedy.get(k)
        pair = (f"{p['score'][0]:.3f} | [{p['score'][1]:.3f}, {p['score'][2]:.3f}] | {p['points_diff'][0]:+.3f} | "
                f"[{p['points_diff'][1]:+.3f}, {p['points_diff'][2]:+.3f}]") if p else "- | - | - | -"
        lines.append(f"| {k} | {v[0]:+.1f} | [{v[1]:+.1f}, {v[2]:+.1f}] | {pair} |")
    eg = next((p for p in s["pairs"] if p["a"] == "endgame" and p["b"] == "heuristic"), None)
    if eg:
        d = eg["points_diff"]
        lines += ["", f"endgame against heuristic (the same weights until the stock is empty, so the gap is what "
                  f"solving the last cards exactly is worth): {d[0]:+.3f} points per hand [{d[1]:+.3f}, {d[2]:+.3f}]."]
    lines += ["", f"What each does, against greedy on the same {s['behaviour_deals']:,} deals (both seats), per "
              "hand, with 95% intervals over deals. greedy's own row is the baseline (against itself every "
              "quantity is half the deal's):", "",
              "| strategy | oros taken | sevens taken | 7 of oros | escobas made | escobas conceded |",
              "|---|---|---|---|---|---|"]
    for k, b in s["behaviour_vs_greedy"].items():
        cell = lambda q: f"{b[q][0]:.3f} [{b[q][1]:.3f}, {b[q][2]:.3f}]"  # noqa: E731
        lines.append(f"| {k} | {cell('oros_taken')} | {cell('sevens_taken')} | {cell('siete_oros')} | "
                     f"{cell('escobas')} | {cell('escobas_conceded')} |")
    lines += ["", "Cost per move of each strategy: benchmarks/README.md (bench_strategies.py).", "",
              _img("strategy_strength", "crosstable"), _img("strategy_strength", "ratings")]
    return lines


def _search_section(s) -> list[str]:
    """ismcts' search options against its default (search_strength.py), with their cost."""
    specs = s["options"]
    lines = ["## ismcts: its search options against the default (ludoteka, tradicional)", "",
             _stale(s) + f"Script: `{s['script']}`. Each option plays the default `{s['old']}` (greedy rollouts, "
             "nothing solved exactly, greedy's blows) on the same duplicate deals (every deal once with each "
             f"seating, seed {s['seed']}); points per hand of the option minus the default, 95% interval over "
             "deals. The options: " + ", ".join(f"`{v}`" for v in specs.values()) + " (exact play once the "
             "stock is empty; with it, blow decisions searched, under soplar only; with it, every simulation "
             "ends by exact search once its stock is empty). Cost: CPU microseconds per move against greedy "
             "(benchmarks/bench_strategies.py's measure: process CPU time, greedy-vs-greedy subtracted; the mean "
             "of two interleaved runs of each spec, on a shared 2-core machine: compare the rows of one ruleset, "
             "not the absolute figures).", "",
             "| rules | option | deals | minus the default, points/hand | 95% interval | deals whose "
             "result differs | CPU us/move | CPU us/move, default |",
             "|---|---|---:|---:|---|---:|---:|---:|"]
    for rules, r in s["rules"].items():
        for key, p in r["paired"].items():
            d = p["minus_old"]
            lines.append(f"| {rules} | {parse_short(specs[key])} | {p['deals']:,} | {d[0]:+.4f} | "
                         f"[{d[1]:+.4f}, {d[2]:+.4f}] | {p['deals_that_differ']:,} | {r['us_per_move'][key]:,.0f} | "
                         f"{r['us_per_move']['old']:,.0f} |")
    above = [f"{parse_short(specs[k])} under {rules} ({p['minus_old'][0]:+.4f})"
             for rules, r in s["rules"].items() for k, p in r["paired"].items() if p["minus_old"][1] > 0]
    lines += ["", "Intervals above zero: " + ("; ".join(above) if above else "none") + ". None of these is the "
              "default: the issue's aim (+0.3 points per hand at no more CPU) is met by none, `leaf=40` costs "
              "several times the CPU, and `exact=6`, slightly ahead of the default here, is behind it against "
              "greedy (on oracle_gap.py's 1000 ludoteka deals, seed 20261129: +1.32 points per hand against the "
              "default's +1.41): its "
              "first-best minimax move ignores how a weaker opponent errs, which the search's averaging exploits "
              "(docs/ismcts.md).", ""]
    return lines


def parse_short(spec: str) -> str:
    from escoba_sim.strategies import parse_strategy

    return parse_strategy(spec).short


def _yardstick_section(s) -> list[str]:
    """OpenSpiel's own ISMCTS against our strategies through python_escoba (openspiel_yardstick.py)."""
    lines = ["## An outside yardstick: OpenSpiel's ISMCTS against our strategies", "",
             f"Command: `{s['command']}` (script: `{s['script']}`, seed {', '.join(map(str, s['seed']))}, "
             f"rules {', '.join(s['rules'])}). OpenSpiel's Python `ISMCTSBot` (its own tree, UCT with "
             f"c = {s['uct_c']} in points of hand margin, {s['rollouts']}, resampling through "
             "`python_escoba`'s `resample_from_infostate`) plays our strategies through the OpenSpiel game on "
             "duplicate deals: each deal is played twice with the seats swapped, and the margin is averaged "
             "over the pair. Margin = OpenSpiel's hand points minus ours, per hand; the interval is 95% "
             "(normal, over deals). Time per move: wall-clock milliseconds per decision step of the action "
             "encoding (a card, a table card, lay or no blow), measured on a 2-core machine shared with "
             "other jobs (load about 10), so several times what a free core takes; both sides were slowed "
             "alike. OpenSpiel's bot runs in Python on the Python game (random rollouts through the "
             "reference engine); ours run in the engine (greedy, endgame) or the compiled core (ismcts, "
             "1000 iterations).", "",
             "| OpenSpiel ISMCTS simulations | vs our | deals (hands) | OpenSpiel minus ours, points/hand | "
             "95% interval | hands won: OpenSpiel / ours / tied | ms/move OpenSpiel | ms/move ours |",
             "|---:|---|---:|---:|---|---|---:|---:|"]
    for r in s["rows"]:
        # a normal interval from a handful of deals would mislead: shown from 10 deals on
        interval = f"[{r['lo']:+.2f}, {r['hi']:+.2f}]" if r["deals"] >= 10 else "- (too few deals)"
        lines.append(f"| {r['budget']} | {r['ours']} | {r['deals']} ({r['hands']}) | {r['margin']:+.2f} | "
                     f"{interval} | {r['os_hand_wins']} / {r['our_hand_wins']} / {r['ties']} | "
                     f"{r['os_ms_per_move']:,.0f} | {r['our_ms_per_move']:.2f} |")
    if s.get("note"):
        lines += ["", s["note"]]
    return lines + [""]
def _ci(v, signed=True) -> str:
    f = "{:+.4f}" if signed else "{:.4f}"
    return f"{f.format(v[0])} [{f.format(v[1])}, {f.format(v[2])}]"


def _tuned_section(s) -> list[str]:
    """heuristic tuned by CMA-ES per preset (tuned_weights.py) against its hand-set weights."""
    lines = ["## heuristic's weights tuned per preset (CMA-ES) against the hand-set ones", "",
             f"Script: `{s['script']}`, seed {s['seed']}. Each preset: `escoba-sim tune heuristic --vs greedy` "
             f"({s['evals']} evaluations of {s['games']:,} duplicate deals, every candidate of a generation on the "
             "same deals), then a check on "
             f"{s['check']:,} fresh duplicate deals (a seed no evaluation used): tuned minus hand-set head to head, "
             "and each against greedy on those deals; points per hand, 95% intervals over deals. The tuned "
             "weights ship as `heuristic:tuned` (escoba_sim/tuned.toml).", "",
             "| preset | tuned minus hand-set | tuned vs greedy | hand-set vs greedy | tuned weights |",
             "|---|---|---|---|---|"]
    for preset, p in s["presets"].items():
        w = p["tuned"].split(":", 1)[1].replace(",", ", ")
        lines.append(f"| {preset} | {_ci(p['tuned_minus_handset'])} | {_ci(p['vs_greedy']['tuned'])} | "
                     f"{_ci(p['vs_greedy']['hand-set'])} | {w} |")
    lines += ["", "Commands:", ""] + [f"    {p['command']}" for p in s["presets"].values()]
    lines += ["", "The hand-set weights were tuned by hand on ludoteka (docs/strategies.md), so little is left to "
              "gain there; a difference whose interval straddles zero is no gain. The per-generation best score "
              "(results/tune_*/summary.json) moves with each generation's deals and is inflated by selection; "
              "the check is the figure to trust.", ""]
    return lines


def _gap_section(s) -> list[str]:
    """The share of the greedy-to-oracle gap each strategy closes (oracle_gap.py)."""
    names = [k for k in s["labels"] if k != "oracle"]
    lines = ["## How far from perfect: the share of the greedy-to-oracle gap each strategy closes", "",
             f"Script: `{s['script']}`. `oracle` cheats (it sees every hand and the stock; exact search with at "
             "most 18 cards left, blows included, perfect-information tree search before): it is the yardstick, not a player. "
             f"Every strategy plays greedy on the same {s['deals']:,} duplicate deals (seed {s['seed']}); the gap is "
             "oracle's margin over greedy, and a strategy's share is its own margin over greedy divided by the "
             "gap (0 = greedy, 1 = oracle), 95% delta-method interval over deals. Specs: "
             + ", ".join(f"`{k}` = `{v}`" for k, v in s["labels"].items()) + ".", "",
             "| preset | gap (oracle vs greedy, points/hand) | " + " | ".join(f"{k} share" for k in names) + " |",
             "|---|---|" + "---|" * len(names)]
    for preset, p in s["presets"].items():
        lines.append(f"| {preset} | {_ci(p['vs_greedy']['oracle'])} | "
                     + " | ".join(_ci(p["gap_share"][k], signed=False) for k in names) + " |")
    older = {k: p for k, p in s["presets"].items() if p.get("script", s["script"]) != s["script"]}
    if older:
        p0 = next(iter(older.values()))
        lines += ["", f"Re-run with the specs above: {', '.join(k for k in s['presets'] if k not in older)}. "
                  f"From an earlier run (`{p0['script']}`): {', '.join(older)}, with "
                  + ", ".join(f"`{k}` = `{v}`" for k, v in p0["labels"].items() if v != s["labels"].get(k))
                  + "; those presets have no soplar, so the oracle played them as it does now, and ismcts' "
                  "later default differs from that spec only in the last deal (see the ismcts section)."]
    lines += ["", "Points per hand against greedy on the same deals:", "",
              "| preset | " + " | ".join(s["labels"]) + " |", "|---|" + "---|" * len(s["labels"])]
    for preset, p in s["presets"].items():
        lines.append(f"| {preset} | " + " | ".join(_ci(p["vs_greedy"][k]) for k in s["labels"]) + " |")
    lines += ["", "Reading: the gap holds both what seeing the hidden cards is worth (no fair strategy can close "
              "that part) and what better play is worth; oracle is exact only over its last 18 cards, so a "
              "perfect cheater would widen the gap a little. The share is a yardstick for future work, not a "
              "target of 1.", ""]
    return lines


if __name__ == "__main__":
    main()
