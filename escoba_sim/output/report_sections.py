"""What the report page says of each kind of folder, as values for its template: the headline (what was
played and who came out ahead, by how much, with the interval) and the tables for people (human names, one
number of decimals per column). Each kind's functions are named in its view (``views``)."""

from __future__ import annotations

from ..i18n import N_
from ..i18n import translate as _
from .console import DECISION_TEXT, PAIRING_TEXT, UNIT_TEXT, percent, word


def _pct(x) -> str:
    """A probability for people: never 0.0% or 100.0% for what is only small or large."""
    if x is None:
        return "–"
    if 0 <= x < 0.001:
        return percent("<0.1")
    if 0.999 < x <= 1:
        return percent(">99.9")
    return percent(f"{100 * x:.1f}")


def _ci_text(lo, hi, f="{:.4f}") -> str:
    """An interval; a missing end is unbounded (an Elo interval reaching a score of 0 or 1)."""
    return f"[{'−∞' if lo is None else f.format(lo)}, {'+∞' if hi is None else f.format(hi)}]"


def _num(x, f: str) -> str:
    return "–" if x is None else f.format(x)


def _elo(x) -> str:
    return "±∞" if x is None else f"{x:+.1f}"


# --- how much of the folder was played (a partial folder's headline) --------------------------

def chunks_done(done: dict) -> str:
    """A run's part played: its chunks."""
    return _("{used} of {planned} chunks, in deal order").format(used=done.get('chunks_used', 0),
                                                                 planned=done.get('chunks_planned', 0))


def runs_done(done: dict) -> str:
    """A series' part played: its runs."""
    return _("{done} of {planned} runs finished").format(done=done.get('runs_done', 0),
                                                          planned=done.get('runs_planned', 0))


# --- the headline of each kind, from its summary ------------------------------------------------

def run_headline(s: dict) -> dict:
    ents = s["entrants"]
    unit = "games" if s["mode"] == "games" else "hands"
    run = {"players": " vs ".join(x["strategy"] for x in ents), "rules": s["rules"], "count": f"{s[unit]:,}",
           "unit": word(UNIT_TEXT, unit), "deals": f"{s['deals']:,}", "pairing": word(PAIRING_TEXT, s["pairing"]),
           "seed": s["seed"],
           "elo": None, "differences": [], "sprt": None}
    el = s.get("elo")
    if el and el.get("score") is not None:
        a, b = ents[0]["label"], ents[1]["label"]
        w, dr, lo = el.get("wdl") or [0, 0, 0]
        run["elo"] = {"ahead": a if el["score"] > 0.5 else b if el["score"] < 0.5 else None, "first": a,
                      "score": f"{el['score']:.4f}", "score_ci": _ci_text(*el["score_ci95"]),
                      "elo": _elo(el["elo"]), "elo_ci": _ci_text(*el["elo_ci95"], f="{:+.1f}"),
                      "los": _pct(el["los"]), "wdl": f"{w:,}/{dr:,}/{lo:,}", "unit": word(UNIT_TEXT, el["unit"])}
    for d in s["differences"]:
        p = d["points_per_hand"]
        run["differences"].append({"label": d["label"], "mean": f"{p['mean']:+.4f}",
                                   "ci": _ci_text(*p["ci95"], f="{:+.4f}")})
    sp = s.get("sprt")
    if sp:
        run["sprt"] = {"elo0": f"{sp['elo0']:g}", "elo1": f"{sp['elo1']:g}", "alpha": f"{sp['alpha']:g}",
                       "beta": f"{sp['beta']:g}",
                       "decision": word(DECISION_TEXT, sp["decision"]) if sp["decision"] else _("undecided"),
                       "llr": sp["llr"] if isinstance(sp["llr"], str) else f"{sp['llr']:.3f}",
                       "lower": f"{sp['lower']:.3f}", "upper": f"{sp['upper']:.3f}",
                       "played": f"{sp.get(s['mode'], s[unit]):,}"}
    return run


def tournament_headline(s: dict) -> dict:
    best = max(s["ratings"], key=lambda r: r["estimate"]) if s["ratings"] else None
    return {"strategies": len(s["strategies"]), "rules": s["rules"],
            "games": f"{s['games_per_pair']:,}", "seed": s["seed"],
            "best": best and {"label": best["label"], "rating": f"{best['estimate']:+.1f}",
                              "ci": _ci_text(best["lo"], best["hi"], "{:+.1f}")}}


def skill_headline(s: dict) -> dict:
    shares = sorted((x for x in s["skill"] if x["metric"] == "skill_share" and x["estimate"] is not None),
                    key=lambda x: -x["estimate"])
    relative = [x for x in s["skill"] if x["metric"] == "relative_skill" and x["estimate"] is not None]
    coin = [x for x in s["skill"] if x["metric"] == "coin_flip" and x["estimate"] is not None]
    return {"ladder": " < ".join(s["labels"]), "rulesets": len(s["rulesets"]),
            "games": f"{s['games_per_pair']:,}", "seed": s["seed"],
            "shares": [{"label": x["label"], "estimate": f"{x['estimate']:.3f}",
                        "ci": _ci_text(x["lo"], x["hi"], "{:.3f}")} for x in shares],
            "relative": [{"label": x["label"], "estimate": f"{x['estimate']:.2f}",
                          "ci": _ci_text(x["lo"], x["hi"], "{:.2f}")} for x in relative],
            # the coin-flip equivalent said in words, the first ruleset's (as the terminal says it)
            "coin": [_("{ruleset} plays like a game in which the stronger of any two of these players always wins, "
                       "with {share} of its results replaced by coin flips.").format(
                           ruleset=x["label"], share=percent(f"{100 * x['estimate']:.0f}")) for x in coin[:1]]}


def compare_headline(s: dict) -> dict:
    from ..series.compare import no_effect_text

    no_effect = s.get("no_effect") or []
    flagged = {x["label"] for x in no_effect}
    wins = [{"label": x["label"], "estimate": _num(x["estimate"], "{:+.4f}"),
             "ci": _ci_text(x["lo"], x["hi"], "{:+.4f}"), "no_effect": x["label"] in flagged}
            for x in s["effects"] if x["metric"] == "win_rate"]
    return {"no_effect": [{"label": x["label"], "reason": no_effect_text(s, x)} for x in no_effect],
            "strategies": " vs ".join(s["strategies"]), "rulesets": len(s["rulesets"]),
            "reference": s["rulesets"][0]["label"] if s["rulesets"] else "–",
            "games": f"{s['games_per_ruleset']:,}", "seed": s["seed"], "wins": wins,
            "first": (s.get("labels") or s["strategies"] or ["–"])[0]}


# --- the tables for people of each kind ---------------------------------------------------------

def _estimate_tables(tables: dict, own_rows: bool) -> list[tuple[str, object, str]]:
    """The estimates and the paired effects (a run's or a comparison's); ``own_rows``: each player has a row of
    its own (a run), so a win rate is the player's, named by the label column."""
    import polars as pl

    from ..series.compare import describe_metric, sevens_rules

    s = tables.get("_summary") or {}
    labels = s.get("labels") or None

    def described(m: str) -> str:
        if own_rows and m == "win_rate":  # each player's own row: the label column says whose
            return _("game win rate")
        return describe_metric(m, labels, sevens_rules(s))[0]

    def named(df):
        if "metric" not in df.columns:
            return df
        return df.with_columns(pl.col("metric").map_elements(described, return_dtype=pl.String).alias("quantity"),
                               pl.col("label").replace({"all": _("all players")})) \
                 .select("label", "quantity", *[c for c in df.columns if c not in ("label", "metric")])

    out = []
    if "estimates" in tables and tables["estimates"].height:
        out.append((_("Estimates (95% CIs, the deal as unit)"), named(tables["estimates"]), "estimates"))
    if "effects" in tables and tables["effects"].height:
        out.append((_("Paired differences vs the first ruleset, on the same deals (95%)"), named(tables["effects"]),
                    "effects"))
    return out


def run_tables(tables: dict) -> list[tuple[str, object, str]]:
    return _estimate_tables(tables, own_rows=True)


def compare_tables(tables: dict) -> list[tuple[str, object, str]]:
    return _estimate_tables(tables, own_rows=False)


def skill_tables(tables: dict) -> list[tuple[str, object, str]]:
    out = []
    if "skill" in tables:
        out.append((_("The scorecard per ruleset: every figure with its 95% CI (the deal as unit) and how to read "
                      "it (docs/skill.md)"), _with_quantity(tables["skill"], reading=True), "skill"))
    if "skill_effects" in tables and tables["skill_effects"].height:
        out.append((_("Each ruleset minus the first, paired by deal (95% CI)"),
                    _with_quantity(tables["skill_effects"]), "skill_effects"))
    if "skill_steps" in tables:
        out.append((_("Steps between ladder neighbours: rating difference, the upper one's game W/D/L shares, "
                      "and the games and hands it needs to win a match with 95% probability"), tables["skill_steps"],
                    "skill_steps"))
    if "skill_ratings" in tables:
        out.append((_("Ratings per ruleset (Bradley-Terry, Elo scale, mean 0; 95% CI)"),
                    tables["skill_ratings"], "skill_ratings"))
    return out


def tournament_tables(tables: dict) -> list[tuple[str, object, str]]:
    out = []
    if "ratings" in tables:
        out.append((_("Ratings (Bradley-Terry, Elo scale, mean 0; 95% CI)"),
                    tables["ratings"].select("label", "estimate", "lo", "hi")
                    .rename({"estimate": "rating"}).sort("rating", descending=True), "ratings"))
    if "pairs" in tables:
        out.append((_("Pairs: row against column (games, W/D/L, score = games won / played, points per hand "
                      "difference; 95% CIs)"), tables["pairs"], "pairs"))
    return out


# how to read each figure of a skill scorecard (``series.skill.METRIC_TEXT``), a sentence each
READING = {
    "skill_share": N_("0: only the cards decide; 1: the stronger always wins. Higher: the rules reward the better "
                      "player more."),
    "rating_spread": N_("How far apart skill carries these players (400 Elo: odds of 10 to 1)."),
    "games_to_win": N_("Games the closest two neighbours need before the better one wins 95 matches in 100; no "
                       "upper end: the edge may be nil."),
    "hands_to_win": N_("The same, in hands."),
    "seat_advantage": N_("0 is fair; above 0 the mano (first to play) gains."),
    "hands_per_game": N_("How long a game lasts."),
    "escobas": N_("How often a sweep happens."),
    "lucky_escobas": N_("Luck the deal hands the dealer."),
    "relative_skill": N_("0: pure chance, 1: pure skill (Dutch courts read poker at about 0.4, blackjack at about "
                         "0.05): the best fair player's share of what seeing every card wins."),
    "relative_skill_hands": N_("The same with a fictive player who sees the hands but not the stock: above the "
                               "first, reading hands is most of what seeing every card is worth."),
    "learning_effect": N_("What skill wins: the best player's points per hand over the beginner."),
    "random_effect": N_("What chance hides: what seeing every card adds to the best player's edge."),
    "coin_flip": N_("A game the stronger always wins, with this share of its results a coin flip (Duersch et al.: "
                    "poker is chess with about three results in four a coin flip)."),
    "restricted_cards": N_("What the heuristic loses ignoring the most cards: what pursuing it is worth."),
    "restricted_oros": N_("What the heuristic loses ignoring the oros: what pursuing them is worth."),
    "restricted_sevens": N_("What the heuristic loses ignoring the sevens: what pursuing them is worth."),
    "restricted_siete": N_("What the heuristic loses ignoring the 7 of oros: what pursuing it is worth."),
    "restricted_escobas": N_("What the heuristic loses ignoring escobas: what pursuing them is worth."),
    "lead_changes": N_("How often the expected winner changes in a game of two equal players: more is more suspense "
                       "(a win-probability model, its calibration in the study)."),
    "comebacks": N_("Of the games where a side trails before the last hand, the share it still wins."),
    "hands_spread": N_("How much game lengths vary between two equal players (standard deviation)."),
}


def _with_quantity(frame, reading: bool = False):
    """A skill table (label, metric, estimate, lo, hi) with each metric in words, its unit in brackets; with
    ``reading`` a sentence of how to read each (``READING``)."""
    import polars as pl

    from ..series.skill import METRIC_TEXT

    def words(m: str) -> str:
        text, unit = METRIC_TEXT.get(m, (m, ""))
        text = _(text).replace(_(" (closest step)"), "").strip()
        return f"{text} ({_(unit)})" if unit and _(unit) not in text else text

    def how(m: str) -> str:
        return _(READING[m]) if m in READING else ""

    extra = [pl.col("metric").map_elements(how, return_dtype=pl.String).alias("reading")] if reading else []
    return frame.with_columns(pl.col("metric").map_elements(words, return_dtype=pl.String).alias("quantity"),
                              *extra).select(
        "label", "quantity", "estimate", "lo", "hi", *(["reading"] if reading else [])).rename({"label": "ruleset"})
