"""Write analysis/README.md from the numbers the studies saved (results/*.json) and their charts."""

import json
from pathlib import Path

from escoba_sim.game.rng import DEAL_STREAM_VERSION

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
             "Each study's folder `results/<study>/` is an `escoba-sim` compare, tournament or skill folder; its "
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
    for name, section in (("strategy_strength", _strength_section), ("search_strength", _search_section),
                          ("openspiel_yardstick", _yardstick_section), ("tuned_weights", _tuned_section),
                          ("oracle_gap", _gap_section), ("stronger_search", _stronger_section),
                          ("hand_reading", _reading_section), ("skill_study", _skill_section),
                          ("scorecard_study", _scorecard_section),
                          ("levels", _levels_section)):
        s = _load(name)
        if s:
            lines += section(s)
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
    """ismcts' search options against its default (search_strength.py), with their cost and against greedy."""
    specs = s["options"]
    short = lambda spec: parse_short(spec, s["old"])  # noqa: E731  (labels read the same whatever the default)
    lines = ["## ismcts: its search options against the default (ludoteka, tradicional)", "",
             _stale(s) + f"Script: `{s['script']}`. Each option plays the default as it was then, `{s['old']}` "
             f"(`{parse_short(s['old'])}` today; \"the default\" in this section: greedy rollouts, nothing solved "
             "exactly, greedy's blows, uniform deals; an option's label names what it changes in it) on the same "
             "duplicate deals (every deal once "
             f"with each seating, seed {s['seed']}); points per hand of the option minus the default, 95% interval "
             "over deals. The options: " + ", ".join(f"`{v}`" for v in specs.values()) + " (exact play once the "
             "stock is empty; the same choosing among the minimax-best moves by a search over the replies; with "
             "exact play, blow decisions searched, under soplar only; with it, every simulation ends by exact "
             "search once its stock is empty; deals consistent with the values each seat showed it lacked). "
             "Cost: CPU microseconds per move against greedy "
             "(benchmarks/bench_strategies.py's measure: process CPU time, greedy-vs-greedy subtracted; the mean "
             "of two interleaved runs of each spec, on a shared 2-core machine: compare the rows of one ruleset, "
             "not the absolute figures).", "",
             "| rules | option | deals | minus the default, points/hand | 95% interval | deals whose "
             "result differs | CPU us/move | CPU us/move, default |",
             "|---|---|---:|---:|---|---:|---:|---:|"]
    for rules, r in s["rules"].items():
        for key, p in r["paired"].items():
            d = p["minus_old"]
            lines.append(f"| {rules} | {short(specs[key])} | {p['deals']:,} | {d[0]:+.4f} | "
                         f"[{d[1]:+.4f}, {d[2]:+.4f}] | {p['deals_that_differ']:,} | {r['us_per_move'][key]:,.0f} | "
                         f"{r['us_per_move']['old']:,.0f} |")
    above = [f"{short(specs[k])} under {rules} ({p['minus_old'][0]:+.4f})"
             for rules, r in s["rules"].items() for k, p in r["paired"].items() if p["minus_old"][1] > 0]
    lines += ["", "Intervals above zero: " + ("; ".join(above) if above else "none") + "."]
    if all("vs_greedy" in r for r in s["rules"].values()):
        lines += ["", f"Against greedy, on the same {s['greedy_deals']:,} duplicate deals (seed {s['seed']}, "
                  "oracle_gap.py's): each spec's points per hand against greedy, and the option minus the default "
                  "paired by deal (95% intervals over deals; below zero = it exploits greedy's errors less than "
                  "the default does).", "",
                  "| rules | spec | vs greedy, points/hand | 95% interval | minus the default | 95% interval |",
                  "|---|---|---:|---|---:|---|"]
        for rules, r in s["rules"].items():
            g = r["vs_greedy"]
            lines.append(f"| {rules} | {parse_short(s['old'])} (the default then) | {g['old'][0]:+.4f} | "
                         f"[{g['old'][1]:+.4f}, {g['old'][2]:+.4f}] | | |")
            for k, v in g.items():
                if k == "old":
                    continue
                a, d = v["vs_greedy"], v["minus_old"]
                lines.append(f"| {rules} | {short(specs[k])} | {a[0]:+.4f} | [{a[1]:+.4f}, {a[2]:+.4f}] | "
                             f"{d[0]:+.4f} | [{d[1]:+.4f}, {d[2]:+.4f}] |")
    def misses(k) -> list[str]:  # what keeps option k from the bar for a new default (docs/ismcts.md)
        out = []
        for rules, r in s["rules"].items():
            p, g = r["paired"].get(k), r.get("vs_greedy", {}).get(k)
            if p is None or p["minus_old"][1] <= 0:
                out.append(f"its interval under {rules} is not above zero")
            if k in r["us_per_move"] and r["us_per_move"][k] > r["us_per_move"]["old"]:
                out.append(f"it costs more CPU per move under {rules}, {r['us_per_move'][k]:,.0f} against "
                           f"{r['us_per_move']['old']:,.0f} us")
            if g is None or g["minus_old"][2] < 0:
                out.append(f"against greedy under {rules} it is " + ("not measured" if g is None else
                                                                     "behind the default"))
        return out

    ok = [short(specs[k]) for k in specs if not misses(k)]
    near = [f"`{short(specs[k])}` ({'; '.join(misses(k))})" for k in specs if misses(k)
            and all(k in r["paired"] and r["paired"][k]["minus_old"][1] > 0 for r in s["rules"].values())]
    aim = [short(specs[k]) for k in specs
           if all(k in r["paired"] and r["paired"][k]["minus_old"][0] >= 0.3 for r in s["rules"].values())]
    lines += ["", "The bar for a new default: an interval above zero head to head under both rulesets, no more CPU "
              "per move than the default, and against greedy a paired interval that is not below zero. Met by: "
              + (", ".join(f"`{x}`" for x in ok) if ok else "none") + "."
              + (" Above zero under both, but short of the bar: " + "; ".join(near) + "." if near else "")
              + " The issue's aim, +0.3 points per hand over the default under both, is met by "
              + (", ".join(f"`{x}`" for x in aim) if aim else "none") + " (docs/ismcts.md).", ""]
    if "candidate" in s:
        lines += _candidate_rows(s)
    if "confirm" in s:
        lines += _confirm_rows(s)
    return lines


def _candidate_rows(s) -> list[str]:
    """The candidate for a new default (an option made no dearer than the default) against the default."""
    c, old = s["candidate"], s["old"]
    spec = parse_short(c["spec"], old)
    recount = f" (instruction counts: `{c['cost_script']}`)" if "cost_script" in c else ""
    lines = ["### A candidate for a new default at no more cost per move", "",
             f"Script: `{c['script']}`{recount}. `{c['spec']}` (`{spec}`, chosen before its strength was "
             f"measured to cost no more per move than the default) plays the default `{parse_short(old)}` on the same duplicate "
             f"deals (every deal once with each seating, seed {s['seed']}); points per hand of the candidate minus "
             f"the default, 95% interval over deals. Against greedy: each plays greedy on the same "
             f"{s['greedy_deals']:,} duplicate deals (oracle_gap.py's), the difference paired by deal. Cost per move "
             "against greedy: instructions counted by callgrind on fixed duplicate deals (benchmarks/"
             "bench_ismcts_cost.py: only inside the core's play_hands, seed 1, greedy-vs-greedy subtracted; it "
             "repeats to 0.001%, so it is the cost the bar is judged on), and CPU microseconds (bench_strategies.py's "
             "measure, the two specs alternated on a shared 2-core machine: only roughly comparable).", "",
             *_bar_header("default", "CPU us/move: candidate / default")]
    misses = []
    for rules, r in c["rules"].items():
        ins, us = r.get("instructions_per_move"), r["us_per_move"]
        lines.append(_bar_row(rules, r, ins) + f" {us['candidate']:,.0f} / {us['old']:,.0f} |")
        misses += _bar_misses(rules, r, ins, "the default")
    gains = " and ".join(f"{r['paired']['minus_old'][0]:+.3f} ({rules})" for rules, r in c["rules"].items())
    lines += ["", f"Against the bar (cost in instructions): `{spec}` "
              + ("meets it." if not misses else "does not meet it on these deals: " + "; ".join(misses) + ".")
              + f" It gains {gains} points per hand over the default; the issue's aim is +0.3.", ""]
    return lines


def _bar_header(default: str, extra: str | None = None) -> list[str]:
    """The header of _bar_row's table, `default` naming what the candidate is measured against."""
    cols = ["rules", "deals", f"candidate minus {default}, points/hand", "95% interval", "deals whose result differs",
            "vs greedy: candidate", f"vs greedy: {default}", f"candidate minus {default}, vs greedy",
            f"instructions/move: candidate / {default} (ratio)"] + ([extra] if extra else [])
    return ["| " + " | ".join(cols) + " |", "|---|---:|---:|---|---:|" + "---|" * (len(cols) - 5)]


def _bar_row(rules: str, r: dict, ins: dict | None) -> str:
    """A candidate's table row: head to head, against greedy, and its instructions per move against the default's."""
    p, g = r["paired"], r["vs_greedy"]
    cost = f"{ins['candidate']:,} / {ins['old']:,} ({ins['candidate'] / ins['old']:.3f})" if ins else "not measured"
    return (f"| {rules} | {p['deals']:,} | {p['minus_old'][0]:+.4f} | [{p['minus_old'][1]:+.4f}, "
            f"{p['minus_old'][2]:+.4f}] | {p['deals_that_differ']:,} | {_ci(g['candidate']['vs_greedy'])} | "
            f"{_ci(g['old'])} | {_ci(g['candidate']['minus_old'])} | {cost} |")


def _bar_misses(rules: str, r: dict, ins: dict | None, default: str) -> list[str]:
    """What keeps a candidate from the bar for a new default under `rules` (docs/ismcts.md): head to head above
    zero, no more instructions per move, and against greedy not behind `default`."""
    out = []
    if r["paired"]["minus_old"][1] <= 0:
        out.append(f"its interval under {rules} is not above zero")
    if ins is None or ins["candidate"] > ins["old"]:
        out.append(f"under {rules} it " + ("has no instruction count" if ins is None else
                                            "costs more instructions per move"))
    if r["vs_greedy"]["candidate"]["minus_old"][2] < 0:
        out.append(f"against greedy under {rules} it is behind {default}")
    return out


def _confirm_rows(s) -> list[str]:
    """The confirmation registered before it was run: the candidate against the earlier default on fresh deals."""
    c, old = s["confirm"], s["old"]
    spec, cost = parse_short(c["spec"], old), s.get("candidate", {}).get("rules", {})
    lines = ["### The confirmation, registered before it was run", "",
             f"Script: `{c['script']}`. Fixed in search_strength.py before the run: the candidate `{c['spec']}` "
             f"(`{spec}` on the earlier default), fresh deals (seed {c['seed']}, not the screening seed "
             f"{s['seed']}), the deal counts and the bar. The candidate plays the earlier default `{parse_short(old)}` "
             "on the same duplicate deals (every deal once with each seating); points per hand of the candidate "
             f"minus the earlier default, 95% interval over deals. Against greedy: each plays greedy on the same "
             f"{c['greedy_deals']:,} fresh duplicate deals, the difference paired by deal.", "",
             *_bar_header("earlier default")]
    misses = []
    for rules, r in c["rules"].items():
        ins = cost.get(rules, {}).get("instructions_per_move")
        lines.append(_bar_row(rules, r, ins))
        misses += _bar_misses(rules, r, ins, "the earlier default")
    gains = " and ".join(f"{r['paired']['minus_old'][0]:+.3f} ({rules})" for rules, r in c["rules"].items())
    verdict = (f"it meets it, and `{spec}` is the default (`ismcts`)" if not misses
               else "it does not meet it: " + "; ".join(misses))
    lines += ["", f"Against the registered bar (cost: the instruction counts above, from the candidate section): "
              f"{verdict}. It gains {gains} points per hand over the earlier default; the issue's aim is +0.3.", ""]
    return lines


def parse_short(spec: str, base: str | None = None) -> str:
    """A spec's label: the parameters that differ from their defaults, or with `base`, from that spec's
    (the search studies' labels: what an option changes in the search it was measured against, which
    stays true when the default moves)."""
    from escoba_sim.strategies import parse_strategy

    if base is None:
        return parse_strategy(spec).short
    p, b = parse_strategy(spec), dict(parse_strategy(base).params)
    changed = [kv for kv, (k, v) in zip(p.canonical.split(":", 1)[1].split(","), p.params) if b.get(k) != v]
    return p.name + (":" + ",".join(changed) if changed else "")


def _yardstick_section(s) -> list[str]:
    """OpenSpiel's own ISMCTS against our strategies through python_escoba (openspiel_yardstick.py)."""
    bot = s["bot"]
    lines = ["## An outside yardstick: OpenSpiel's ISMCTS against our strategies", "",
             f"Command: `{s['command']}` (script: `{s['script']}`, seed {', '.join(map(str, s['seed']))}, "
             f"rules {', '.join(s['rules'])}). OpenSpiel's own Python `ISMCTSBot` "
             "(open_spiel/python/algorithms/ismcts.py, not our ismcts) plays our strategies through the OpenSpiel "
             "game `python_escoba` on duplicate deals: each deal is played twice with the seats swapped. The bot "
             f"is run with its defaults except `uct_c` = {bot['uct_c']:g} (it has no default; returns are points "
             "of hand margin, so this is our ismcts's c = 4): evaluator "
             f"`{bot['evaluator']}` (one uniformly random playout per new node), max_world_samples "
             f"{bot['max_world_samples']}, final policy {bot['final_policy_type']}, child selection "
             f"{bot['child_selection_policy']}, information-state strings as node keys. Its worlds come from "
             "`python_escoba`'s `resample_from_infostate` (exact). Seeding: per hand, one numpy RandomState "
             "(tree, rollouts, final choice) and one seeded `pyspiel.UniformProbabilitySampler` handed to the "
             "bot's `set_resampler` hook (the bot's own resampler seeds a fresh sampler from std::random_device "
             "for every world, so no run of it repeats); ours draw from the hand's PLAY stream, so every hand "
             "replays exactly and an interrupted run resumes to the same table.", "",
             "Margin = OpenSpiel's hand points minus ours, per hand. Interval: 95%, normal, by deal (a deal's two "
             "seatings are one unit; `stats.ratio_mean`). Time per move: process CPU milliseconds per decision "
             "step of the action encoding (a card, a table card, lay or no blow; the bot's forced steps, with "
             "one legal action, return at once and are counted), and per simulation over the searched moves. "
             "Ours run in the engine (greedy, endgame) or the compiled core (ismcts). " + _specs_played(s), "",
             "| OpenSpiel ISMCTS simulations | vs our | deals (hands) | OpenSpiel minus ours, points/hand | "
             "95% interval | hands won: OpenSpiel / ours / tied | CPU ms/move OpenSpiel (per simulation) | "
             "CPU ms/move ours |",
             "|---:|---|---:|---:|---|---|---:|---:|"]
    for r in s["rows"]:
        # a normal interval from a handful of deals would mislead: shown from 10 deals on
        interval = f"[{r['lo']:+.2f}, {r['hi']:+.2f}]" if r["deals"] >= 10 else "- (too few deals)"
        deals = f"{r['deals']} ({r['hands']})" + ("" if r["complete"] else " **partial**")
        lines.append(f"| {r['budget']} | {r['ours']} | {deals} | {r['margin']:+.2f} | "
                     f"{interval} | {r['os_hand_wins']} / {r['our_hand_wins']} / {r['ties']} | "
                     f"{r['os_cpu_ms_per_move']:,.0f} ({r['os_cpu_ms_per_simulation']:.2f}) | "
                     f"{r['our_cpu_ms_per_move']:.2f} |")
    if s.get("note"):
        lines += ["", s["note"]]
    lines += [""] + YARDSTICK_READING
    return lines + [""]


def _specs_played(s) -> str:
    """The spec behind each of the yardstick's labels; `ismcts` is pinned to the default its rows were played
    with (openspiel_yardstick.py's SPECS), which the label alone no longer says once the default moved."""
    from escoba_sim.strategies import parse_strategy

    specs = s.get("specs")
    if not specs:
        return ""
    text = "Specs: " + ", ".join(f"`{k}` = `{v}`" for k, v in specs.items()) + "."
    if "ismcts" in specs and parse_short(specs["ismcts"]) != "ismcts":
        text += (f" `ismcts` here is the default of the time its rows were played, `{parse_short(specs['ismcts'])}` "
                 "today (the script pins it, so a resumed run plays the same search); the default now is "
                 f"`{parse_strategy('ismcts').canonical}`.")
    return text


# the reading of the table as last run (keep in step with results/openspiel_yardstick.json)
YARDSTICK_READING: list[str] = [
    "Budgets. 1000 simulations, the issue's example, did not fit: OpenSpiel's Python ISMCTS spends about 2-3 "
    "CPU ms per simulation on this game (random rollouts through pybind11 into the Python game, "
    "benchmarks/README.md), so a hand at 1000 simulations costs some 35-40 CPU s and the 600 hands of one "
    "budget about 6 CPU hours, against the roughly one shared core for two hours this run had. 30 and 100 "
    "were played in full (100 duplicate deals = 200 hands per pair); 300 was started last and stopped at "
    "the session's deadline, so its rows are marked partial and are indicative only.",
    "",
    "Reading. OpenSpiel's generic ISMCTS, with nothing of Escoba in it but the rules and one uniformly "
    "random playout per new node, beats `greedy` from 30 simulations on (+0.43 points per hand at 30, "
    "+0.85 at 100, both intervals above zero), which puts it at 100 simulations about where `heuristic` "
    "stands against greedy (+0.95 in the strategy table above). It loses to `endgame` and to our `ismcts` "
    "(here the earlier default, 1000 iterations and uniform deals) "
    "at both full budgets, by about one point per hand at 30 and half a point at 100, all intervals below "
    "zero. That is what our own measurements predict (against greedy: endgame +1.21 in the strategy table "
    "above; the earlier default ismcts +1.41 on oracle_gap.py's deals, in the search section's table): "
    "the outside bot and our ladder agree. More simulations help it clearly (about +0.4 to +0.5 points "
    "per hand against each opponent from 30 to 100). Our `ismcts` (1000 iterations, uniform deals, greedy playouts, in "
    "C) is stronger than OpenSpiel's at 100 simulations while spending about 0.8 ms per move against "
    "about 155 ms, some 200 times less; `endgame` (heuristic, then an exact solve) costs 0.2 ms. The "
    "partial 300-simulation rows (about 30 deals per pair) continue the trend (+1.17 against greedy; "
    "-0.22 and -0.17 against endgame and ismcts, intervals straddling zero) but are too few to say "
    "whether it catches up with them.",
]


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
             "weights ship as `heuristic:tuned` (escoba_sim/strategies/tuned.toml).", "",
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


def _levels_section(s) -> list[str]:
    """The levels' ratings (levels.py), as shipped in escoba_sim/strategies/levels.toml."""
    rulesets = list(s["results"])
    lines = ["## The levels' ratings (`level:N`, the opponents `play` and the page offer)", "",
             _stale(s) + f"Command: `{s['command']}`. A round-robin tournament of `random` and the six levels on "
             "duplicate deals per ruleset; Bradley-Terry on game wins, the Elo scale shifted so that `random` is 0, "
             "95% intervals from the fit's sandwich covariance (the deal as unit). These are the ratings shipped "
             "in escoba_sim/strategies/levels.toml (docs/strategies.md: the scale and the anchors).", "",
             "| level | base | random moves | " + " | ".join(rulesets) + " |",
             "|---|---|---|" + "---|" * len(rulesets)]
    for spec, lv in s["levels"].items():
        cells = []
        for rules in rulesets:
            e, lo, hi = s["results"][rules]["ratings"][spec]
            cells.append(f"{e:.0f} [{lo:.0f}, {hi:.0f}]")
        lines.append(f"| {spec} | {lv['base']} | {lv['random_share']:.0%} | " + " | ".join(cells) + " |")
    lines += ["", "Each level minus the one below (every interval above 0, so the rungs are ordered):", "",
              "| step | " + " | ".join(rulesets) + " |", "|---|" + "---|" * len(rulesets)]
    for step in s["results"][rulesets[0]]["steps"]:
        cells = ["{:+.0f} [{:+.0f}, {:+.0f}]".format(*s["results"][rules]["steps"][step]) for rules in rulesets]
        lines.append(f"| {step} | " + " | ".join(cells) + " |")
    games = ", ".join(f"{rules}: {r['games_per_pair']:,} games per pair, {r['cpu_seconds']:,.0f} CPU s"
                      for rules, r in s["results"].items())
    lines += ["", f"Size and cost: {games}.", "",
              "Reading: each ruleset's scale has `random` at 0, so two rulesets' ratings are not comparable. Under "
              "tradicional (optional capture, soplar) careless play is punished harder (the skill study above: "
              "random far below the rest), which stretches the lower rungs: 35% random moves cost greedy 337 "
              "points there and 120 under ludoteka, while the top steps are alike. A person's performance rating "
              "(`escoba-sim history`) is on the scale of the ruleset its games were played under.", ""]
    return lines


def _same(s, p, k) -> bool:
    """Whether preset ``p`` of oracle_gap.json has label ``k`` played with the spec the table heads it with (a
    preset kept from an earlier run may have played another spec under the same name: "not run" there)."""
    return k in p["vs_greedy"] and p.get("labels", s["labels"]).get(k) == s["labels"][k]


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
                     + " | ".join(_ci(p["gap_share"][k], signed=False) if _same(s, p, k) else "not run"
                                  for k in names) + " |")
    older = {k: p for k, p in s["presets"].items()
             if p.get("script", s["script"]) != s["script"] or p.get("labels", s["labels"]) != s["labels"]}
    if older:
        p0 = next(iter(older.values()))
        lines += ["", f"Re-run with the specs above: {', '.join(k for k in s['presets'] if k not in older)}. "
                  f"From an earlier run (`{p0['script']}`): {', '.join(older)}, with "
                  + ", ".join(f"`{k}` = `{v}`" for k, v in p0["labels"].items() if v != s["labels"].get(k))
                  + "; each preset's numbers are those of the specs it was run with (a bare name in them "
                  "meant that name's default then: see docs/ismcts.md for how ismcts' default changed)."]
    lines += ["", "Points per hand against greedy on the same deals:", "",
              "| preset | " + " | ".join(s["labels"]) + " |", "|---|" + "---|" * len(s["labels"])]
    for preset, p in s["presets"].items():
        lines.append(f"| {preset} | " + " | ".join(_ci(p["vs_greedy"][k]) if _same(s, p, k) else "not run"
                                                   for k in s["labels"]) + " |")
    lines += ["", "Reading: the gap holds both what seeing the hidden cards is worth (no fair strategy can close "
              "that part) and what better play is worth; oracle is exact only over its last 18 cards, so a "
              "perfect cheater would widen the gap a little. The share is a yardstick for future work, not a "
              "target of 1.", ""]
    return lines


def _stronger_section(s) -> list[str]:
    """Issue 24's registered candidates, their confirmations and cost, and where the gap is (stronger_search.py)."""
    def registration(title: str, r: dict) -> list[str]:
        out = [f"**{title}:** `{r['candidate']}` against `{s['old']}` on fresh duplicate deals (seed "
               f"{r['confirm_seed']}).", "",
               "| rules | deals | candidate minus previous default, points/hand | 95% interval | instructions/move, "
               "ratio | bar |", "|---|---:|---:|---|---:|---|"]
        cost = {c["rules"]: c for c in r.get("cost", [])}
        for row in r.get("confirm", []):
            c = cost.get(row["rules"])
            ok = row["margin"] >= s["bar"] and row["lo"] > 0 and (c is None or c["ratio"] <= 2)
            out.append(f"| {row['rules']} | {row['deals']:,} | {row['margin']:+.4f} | [{row['lo']:+.4f}, "
                       f"{row['hi']:+.4f}] | " + (f"{c['ratio']:.3f} |" if c else "- |")
                       + (" met |" if ok else f" missed by {s['bar'] - row['margin']:.3f} |"))
        return out + [""]

    lines = ["## A stronger search, and where the gap to seeing every card is", "",
             f"Script: `python {s['script']}`. Registered before it was played (the script's docstring and "
             "constants, committed first): a candidate against the default of issue 14 on fresh duplicate deals; "
             f"the bar: at least +{s['bar']:.2f} points per hand with the 95% interval above zero under every "
             "ruleset, at no more than twice that default's instructions per move "
             "(benchmarks/bench_ismcts_cost.py, 12 deals of seed 1).", ""]
    if s.get("round1"):
        lines += registration("First registration (more iterations, spent where the choice is open)", s["round1"])
    lines += registration("Second registration (the heuristic in every simulation; today's default)", s)
    rows = [(eq, r) for name in ("openspiel_equal", "openspiel_prior") if (eq := _load(name)) for r in eq["rows"]]
    if rows:
        lines += ["At equal simulations against OpenSpiel's generic `ISMCTSBot` (random rollouts, uct_c 4, 100 "
                  "simulations a move; `python analysis/openspiel_yardstick.py --budgets 100 --deals 100 --opponents "
                  "LABEL --seed SEED --rows ...`): our points per hand minus OpenSpiel's (the aim: +0.3).", "",
                  "| ours | spec | seed | deals | ours minus OpenSpiel | 95% interval | CPU ms/move: ours / OpenSpiel |",
                  "|---|---|---:|---:|---:|---|---|"]
        for eq, r in rows:
            lines.append(f"| {r['ours']} | `{eq['specs'][r['ours']]}` | {eq['seed'][0]} | {r['deals']} | "
                         f"{-r['margin']:+.3f} | [{-r['hi']:+.3f}, {-r['lo']:+.3f}] | "
                         f"{r['our_cpu_ms_per_move']:.3f} / {r['os_cpu_ms_per_move']:.1f} |")
        lines.append("")
    gap = s.get("gap") or {}
    if gap:
        first = next(iter(gap.values()))
        lines += [f"Where the gap is: each spec against the default of issue 14 on {first['deals']:,} duplicate "
                  f"deals of seed {first['seed']} (ludoteka), points per hand, 95% intervals by deal.", "",
                  "| what changes | spec | minus that default | 95% interval |", "|---|---|---:|---|"]
        for label, r in gap.items():
            lines.append(f"| {label} | `{r['spec']}` | {r['margin']:+.4f} | [{r['lo']:+.4f}, {r['hi']:+.4f}] |")
        lines += ["", STRONGER_READING]
    return lines + [""]


STRONGER_READING = (
    "Reading: reading the other hand is worth about a point and a half per hand to the very same search, and the "
    "stock order a third of a point more; a fair player can win back only what inference from play recovers, and "
    "the hard constraints in use (`infer`) recover little of it. Of what a fair player can change: more "
    "iterations, spent where the choice is open, paid in the first registration. The heuristic's knowledge "
    "(`prior`: the moves it likes tried first and favoured until their own results speak) is worth most where "
    "simulations are few, +0.65 points per hand at 100 simulations (1,000 screening deals), which is why the "
    "search now beats OpenSpiel's generic one at equal simulations where it was level; at 950 iterations each "
    "part alone is within noise of nothing (the rows above). Together, at the budget the cost bar allows "
    "(2000 iterations of heuristic rollouts cost what 3800 greedy ones did), they beat the first registration's "
    "candidate by about 0.09 points per hand on these deals. Against greedy they gain nothing measurable (the "
    "strategy table's oracle_gap rows: the share of the gap stays about half): against a player that weak, what "
    "is left is what the hidden cards are worth.")


def _reading_section(s) -> list[str]:
    """Issue 34: reading the other hand, registered and confirmed; what it predicts and what it is worth."""
    ci = lambda d, k="mean": f"{d[k]:+.4f} [{d['lo']:+.4f}, {d['hi']:+.4f}]"  # noqa: E731
    lines = ["## Reading the other hands", "",
             f"Script: `python analysis/hand_reading.py` (its docstring holds the registration, committed before any "
             f"confirmation deal was played). `{s['candidate']}` (the default: the posterior over the other hand "
             f"given its moves this round, docs/ismcts.md) against `{s['old']}` (the default before it) on fresh "
             f"duplicate deals (seed {s['confirm_seed']}, every deal once with each seating); points per hand of "
             "the candidate minus the old default, 95% interval over deals. Cost: CPU per move against greedy "
             "(bench_strategies.py's --against measure: the best of 40 alternated rounds of 16 fixed hands, thread "
             "CPU time).", "",
             "| rules | deals | candidate minus old default | CPU per move, ratio | bar (+0.15, interval above 0, "
             "at most 2x) |", "|---|---:|---|---:|---|"]
    cost = {c["rules"]: c for c in s.get("cost", [])}
    for row in s.get("confirm", []):
        c = cost.get(row["rules"])
        ok = row["margin"] >= s["bar"] and row["lo"] > 0 and (c is None or c["ratio"] <= 2)
        lines.append(f"| {row['rules']} | {row['deals']:,} | {row['margin']:+.4f} [{row['lo']:+.4f}, {row['hi']:+.4f}]"
                     f" | " + (f"{c['ratio']:.2f}" if c else "-") + " | "
                     + ("met" if ok else f"missed by {s['bar'] - row['margin']:.3f}") + " |")
    if s.get("greedy"):
        lines += ["", "Against greedy, on oracle_gap.py's 1,000 duplicate deals (seed 20261129): each default's "
                  "points per hand, the difference paired by deal, and the share of the greedy-to-oracle gap "
                  "(oracle's margin over greedy in results/oracle_gap.json; the bar under ludoteka: 0.60).", "",
                  "| rules | candidate | old default | candidate minus old | gap | candidate share | old share |",
                  "|---|---|---|---|---:|---:|---:|"]
        for r in s["greedy"]:
            share = lambda x: f"{x:.3f}" if x is not None else "-"  # noqa: E731
            lines.append(f"| {r['rules']} | {ci(r['candidate'], 'margin')} | {ci(r['old'], 'margin')} | "
                         f"{ci(r['candidate_minus_old'], 'margin')} | "
                         + (f"{r['gap']:.3f}" if r["gap"] else "-")
                         + f" | {share(r['candidate_share'])} | {share(r['old_share'])} |")
    if s.get("worth"):
        w = s["worth"]
        lines += ["", f"What reading is worth in points, head to head against the old default (ludoteka, seed "
                  f"{next(iter(w['rows'].values()))['seed']}; `{s['peek']}` is the same search seeing the other hand, "
                  "not the stock order: a yardstick that cheats).", "", "| deals from | spec | points per hand vs "
                  "old default |", "|---|---|---|"]
        for label, r in w["rows"].items():
            lines.append(f"| {label} | `{r['spec']}` | {ci(r, 'margin')} |")
        lines += ["", f"Inference efficiency (gain from the posterior over uniform deals / gain from the true hand "
                  f"over uniform deals): **{w['efficiency']:.3f}** (posterior minus uniform "
                  f"{ci(w['posterior_minus_uniform'], 'margin')}; true minus uniform "
                  f"{ci(w['true_minus_uniform'], 'margin')})."]
    if s.get("logloss"):
        lines += ["", "How well the posterior predicts the other hand: on every decision of self-play hands of the "
                  "old default (fresh deals) where the other seat has moved this round, the log-loss of its true "
                  "holding (nats; lower is better; 95% interval by hand) under the posterior, the voids alone "
                  "(infer=1; when they exclude the true holding it is scored as uniform and counted) and uniform "
                  "deals; the temperature swept at the candidate's uniform share.", "",
                  "| rules | decisions | posterior | voids | uniform | posterior minus voids | voids exclude the "
                  "truth | true holding's rank (share, median) |", "|---|---:|---|---|---|---|---:|---:|"]
        for r in s["logloss"]:
            lines.append(f"| {r['rules']} | {r['decisions']:,} | {ci(r['posterior'])} | {ci(r['voids'])} | "
                         f"{ci(r['uniform'])} | {ci(r['posterior_minus_voids'])} | {r['voids_exclude_truth']:,} | "
                         f"{r['rank_share_median']:.3f} |")
        sweep = [k for k in s["logloss"][0] if k.startswith("temperature=")]
        lines += ["", "| rules | " + " | ".join(sweep) + " |", "|---|" + "---|" * len(sweep)]
        for r in s["logloss"]:
            lines.append(f"| {r['rules']} | " + " | ".join(f"{r[k]['mean']:.4f}" for k in sweep) + " |")
    if s.get("openspiel"):
        o = s["openspiel"]
        m = o["ours_minus_openspiel"]
        lines += ["", f"At equal simulations against OpenSpiel's `ISMCTSBot` (random rollouts, uct_c 4, 100 simulations a "
                  f"move; `{o['command']}`, the rows in results/openspiel_yardstick.jsonl): `{o['spec']}` scores "
                  f"**{m[0]:+.2f} [{m[1]:+.2f}, {m[2]:+.2f}]** points per hand more on {o['deals']} duplicate deals "
                  f"(the bar: {o['bar']:+.1f}; issue 24's search at 100 simulations: +0.44), at "
                  f"{o['cpu_ms_per_move']['ours']} CPU ms per move against OpenSpiel's {o['cpu_ms_per_move']['openspiel']}."]
    if s.get("logloss") and s.get("worth") and s.get("confirm"):
        ll = s["logloss"][0]
        gain = ll["uniform"]["mean"] - ll["posterior"]["mean"]
        lines += ["", f"Reading: the posterior predicts the other hand better than the voids and uniform deals (its "
                  f"log-loss {gain:.3f} nats below uniform's {ll['uniform']['mean']:.3f} under ludoteka, with the "
                  "sharpest belief not the best: the sweep's minimum is at temperature 0.5-1), and the points follow, "
                  f"but little: {s['worth']['efficiency']:.0%} of what knowing the other hand is worth to the very "
                  "same search. What is in the way is information, not its use: within a round the other seat makes "
                  "at most two moves before our decision (3-card hands), each of which tells little about two or "
                  "three cards among some thirty unseen, so even the exact posterior leaves almost all of the "
                  "hand's uncertainty (about 3 nats of the holding's 3.27) unresolved; the next lever is the "
                  "evaluator (issue 35) and reading across the round's refills cannot help (every earlier card is "
                  "public)."]
    if s.get("fit"):
        lines += ["", "The model's fit: log-likelihood per move (nats) of the old default's self-play moves with two "
                  "or more options, best (temperature, uniform) of the grid, and uniform play's."]
        for f in s["fit"]:
            lines.append(f"- {f['rules']}: {f['moves']:,} moves; best {f['best']} at {f['grid'][f['best']]:.4f}; "
                         f"uniform play {f['uniform_play']:.4f}.")
    return lines + [""]


def ci(v, f) -> str:
    """``[estimate, lo, hi]`` as ``est [lo, hi]`` (a missing end: – below, ∞ above; no estimate: –)."""
    if v is None or v[0] is None:
        return "–"
    return f"{f.format(v[0])} [{'–' if v[1] is None else f.format(v[1])}, {'∞' if v[2] is None else f.format(v[2])}]"


def _skill_section(s) -> list[str]:
    """Which rule choices make Escoba more a game of skill (skill_study.py): each ladder's ranking, the reading."""
    lines = ["## Which rules reward skill (skill ladders)", "",
             _stale(s) + "Every preset and every design effect (a one-field variant of ludoteka), ranked by the "
             "skill share of a ladder of strategies: the share of a game result's variance that is who plays rather "
             "than the cards (docs/skill.md). Every pair of the ladder plays the same duplicate deals under every "
             "ruleset; 95% intervals by deal. tradicional(players=3) is played by its own `skill` call (each pair as "
             "(A, B, B) and (B, A, A), docs/skill.md, \"Three players\"), on the same deal indices but with no "
             "paired difference to ludoteka's.", ""]
    for name in ("cheap", "full"):
        if name not in s:
            continue
        minus = s[name].get("minus_ludoteka") or {}
        lines += [f"Command: `{s[name]['command']}`.", "",
                  "| rank | ruleset | skill share | minus ludoteka's (paired) | rating spread (Elo) | games to win, "
                  "closest step | seat advantage (pts/hand) | hands per game |", "|---:|---|---|---|---|---|---|---|"]
        for i, r in enumerate(s[name]["ranked"], 1):
            lines.append(f"| {i} | {r['ruleset']} | {ci(r.get('skill_share'), '{:.3f}')} | "
                         f"{ci(minus.get(r['ruleset']), '{:+.3f}')} | "
                         f"{ci(r.get('rating_spread'), '{:.0f}')} | {ci(r.get('games_to_win'), '{:.0f}')} | "
                         f"{ci(r.get('seat_advantage'), '{:+.3f}')} | {ci(r.get('hands_per_game'), '{:.2f}')} |")
        lines += ["", _img(f"skill_{name}", "skill_share")]
    if s.get("reading"):
        lines += ["**Reading.** " + s["reading"], ""]
    return lines


def _scorecard_section(s) -> list[str]:
    """The scorecard of every preset and design effect (scorecard_study.py): its figures, the paired differences
    to ludoteka that exclude 0, the drama model's calibration, the reading."""
    lines = ["## The scorecard of every preset and design effect", "",
             _stale(s) + "Relative skill (Borm & van der Genugten: the best's edge over the beginner as a share of "
             "the oracle's), the coin-flip equivalent (Duersch et al.), what pursuing each element is worth to the "
             "heuristic (restricted play), drama between two equal heuristics (lead changes per game, comebacks), "
             "with seat advantage and game length (docs/skill.md, \"The scorecard\"). 95% intervals, the deal (or "
             "the game) as unit.", "", f"Command: `{s['command']}`.", "",
             "| ruleset | relative skill | hands only | coin flips | cards | oros | sevens | 7 of oros | escobas | "
             "lead changes | comebacks | seat advantage | hands per game |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, f in s["figures"].items():
        lines.append(f"| {label} | {ci(f.get('relative_skill'), '{:.3f}')} | {ci(f.get('relative_skill_hands'), '{:.3f}')}"
                     f" | {ci(f.get('coin_flip'), '{:.3f}')} | {ci(f.get('restricted_cards'), '{:+.3f}')} | "
                     f"{ci(f.get('restricted_oros'), '{:+.3f}')} | {ci(f.get('restricted_sevens'), '{:+.3f}')} | "
                     f"{ci(f.get('restricted_siete'), '{:+.3f}')} | {ci(f.get('restricted_escobas'), '{:+.3f}')} | "
                     f"{ci(f.get('lead_changes'), '{:.2f}')} | {ci(f.get('comebacks'), '{:.3f}')} | "
                     f"{ci(f.get('seat_advantage'), '{:+.3f}')} | {ci(f.get('hands_per_game'), '{:.2f}')} |")
    lines += ["", "Minus ludoteka's, paired by deal (game for drama), where the 95% interval excludes 0:", "",
              "| ruleset | figure | difference |", "|---|---|---|"]
    for label, effects in s["minus_ludoteka"].items():
        for metric, v in effects.items():
            if v[1] is not None and v[2] is not None and (v[1] > 0 or v[2] < 0):
                lines.append(f"| {label} | {metric} | {ci(v, '{:+.3f}')} |")
    if s.get("calibration"):
        lines += ["", "The drama's win-probability model on games it did not see (expected calibration error): "
                  + ", ".join(f"{c['label']} {c['error']:.3f} ({c['states']:,} states)" for c in s["calibration"])
                  + ".", "", "![calibration](results/scorecard_calibration.png)", ""]
    if s.get("reading"):
        lines += ["**Reading.** " + s["reading"], ""]
    return lines


if __name__ == "__main__":
    main()

