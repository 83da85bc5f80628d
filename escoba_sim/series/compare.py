"""Compare rulesets on the same deals: one runner run per ruleset, paired differences against the first.

Every ruleset is played by ``runner.run`` with the same seed, strategies and
chunk size, so chunk ``k`` of every ruleset holds the same deal indices and
therefore the same shuffles (common random numbers, docs/engine.md). Each run
keeps its per-deal vectors (``runs.aggregates.DealLayout``); put side by side, deal by
deal, they give the sums and cross products of every quantity in every
ruleset (``tables.series_deal_sums``, one chunk at a time). Each quantity
is a ratio of per-deal sums with the deal model's interval, and its
difference to the first ruleset is paired by deal (``stats.deal_ratio_diff``:
the covariance between rulesets on the same deals is what makes it narrow).

Output folder::

    DIR/manifest.json       kind "compare", version, engine, seed, strategies, rulesets
                            (label, canonical string, digest, fields), args
    DIR/runs/NN/            one runner output folder per ruleset (resumable on its own), with deals/
    DIR/tables/*.parquet    estimates, effects, categories, points_hist, hands_hist, convergence
    DIR/summary.json        the same tables as JSON, and ``no_effect``: the variants that gave every deal
                            exactly the reference's result, each with the reason (``no_effect``)

Quantities (``metric`` names; the player is named by its strategy label):

- ``<category>:<player>`` for each of ``game.columns.POINT_COLUMNS`` and ``total``: points per hand;
- ``escobas``, ``lucky_escobas``: escobas per hand, both players together;
- ``win_rate``: the first player's game win rate; ``hands_per_game``;
- ``seat_advantage``: points per hand of the mano (plays first) minus the dealer's;
- ``tie_sevens``, ``tie_oros``, ``tie_cards``: share of hands whose majority is tied
  (two sides: a tie gives the point to both with ``ties=shared`` and to nobody with
  ``ties=none``, so ties = +-(points awarded - hands); sevens ties only with ``sevens=majority``).
  A category that neither side took (0-0: only in a hand where nobody captured) scores nobody
  under either ``ties``; such a hand counts as a tie under ``ties=none`` and as minus one under
  ``ties=shared`` (too rare to move the share: it needs a whole hand of lays).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..batch import engine_for
from ..errors import EscobaError, Parameter
from ..game.columns import POINT_COLUMNS
from ..game.rules import FIELD_NAMES, RulesError, Ruleset, coerce_field, format_value, parse_rules
from ..i18n import N_
from ..i18n import translate as _
from ..runs import stats
from ..runs.aggregates import DealLayout
from ..runs.spec import RunError, RunSpec, make_spec
from .tables import (
    SERIES_FORMAT,
    category_frame,
    convergence_frame,
    count_frame,
    count_rows,
    estimate_frame,
    interval,
    json_rows,
    proportion,
    run_series,
    run_totals,
    series_chunk_size,
    series_deal_sums,
    weighted_sum,
    write_results,
)

KIND = "compare"
TABLES = ("estimates", "effects", "categories", "points_hist", "hands_hist", "convergence")
# design-named variant effects: each is one --vary
DESIGN_EFFECTS = ("lucky_deal=escobas,off", "ties=shared,none", "sevens=majority,all",
                  "capture=card,any,optional", "target=15,21,31")

VARY, RULES = Parameter("vary"), Parameter("rules")


class CompareError(EscobaError):
    """Arguments that cannot make a comparison; the message is one line for the user."""


@dataclass(frozen=True)
class Variant:
    label: str
    rules: Ruleset


def parse_vary(text: str) -> tuple[str, list]:
    """``field=v1,v2,...`` into the field name and its typed values."""
    field, sep, vals = text.partition("=")
    field = field.strip()
    if not sep or not vals.strip():
        raise CompareError(_("{vary} `{text}`: expected field=value1,value2 (e.g. lucky_deal=escobas,off)"),
                           parameter=VARY, vary=VARY, text=text)
    if field not in FIELD_NAMES:
        raise CompareError(_("{vary}: unknown rules field `{field}`; fields: {fields}"), parameter=VARY, vary=VARY,
                           field=field, fields=', '.join(FIELD_NAMES))
    try:
        return field, [coerce_field(field, v.strip()) for v in vals.split(",") if v.strip()]
    except RulesError as e:
        raise CompareError.around(e, "{vary}: {problem}", vary=VARY) from None


def build_variants(rules: list[str | Ruleset], vary: list[str]) -> list[Variant]:
    """The rulesets to compare, the reference first.

    Without ``vary``: each ``rules`` in order (at least two). With ``vary``: one base
    ruleset (the single ``rules``, default ludoteka) first, then the base with each
    varied value; values equal to the base are not repeated.
    """
    if not vary:
        if len(rules) < 2:
            raise CompareError(_("give two or more {rules}, or one base {rules} with {vary} field=v1,v2"),
                               parameter=RULES, rules=RULES, vary=VARY)
        out = [Variant(parse_rules(r).canonical(), parse_rules(r)) for r in rules]
    else:
        if len(rules) > 1:
            raise CompareError(_("{vary} changes one base ruleset: give at most one {rules} with it"), parameter=RULES,
                               vary=VARY, rules=RULES)
        base = parse_rules(rules[0] if rules else None)
        out = [Variant(base.canonical(), base)]
        for text in vary:
            field, values = parse_vary(text)
            for v in values:
                try:
                    r = base.replace(**{field: v})
                except RulesError as e:
                    raise CompareError.around(e, "{vary} {field}={value} on {base}: {problem}", vary=VARY, field=field,
                                              value=format_value(v), base=base.canonical()) from None
                if r != base:
                    out.append(Variant(f"{field}={format_value(v)}", r))
    seen: dict[str, str] = {}
    uniq = []
    for v in out:
        d = v.rules.digest()
        if d in seen:
            continue
        seen[d] = v.label
        uniq.append(v)
    if len(uniq) < 2:
        raise CompareError(_("the rulesets to compare are all the same"), parameter=RULES)
    players = {v.rules.players for v in uniq}
    if len(players) > 1:
        raise CompareError(_("every compared ruleset must have the same number of players"), parameter=RULES)
    return uniq


# --- what each quantity is, in words and units (terminal output and chart titles) ----------

# metric -> (what it is, unit); ``{first}`` is the first player's label
# (translated where shown: ``describe_metric``)
METRIC_TEXT = {
    "win_rate": (N_("game win rate of {first}"), N_("share of games")),
    "total": (N_("points per hand"), N_("points per hand")),
    "hands_per_game": (N_("hands per game"), N_("hands")),
    "seat_advantage": (N_("seat advantage: mano minus dealer"), N_("points per hand")),
    "escobas": (N_("escobas per hand (all sides)"), N_("escobas per hand")),
    "lucky_escobas": (N_("lucky-deal escobas per hand (all sides)"), N_("escobas per hand")),
    "tie_sevens": (N_("sevens majority tied"), N_("share of hands")),
    "tie_oros": (N_("oros majority tied"), N_("share of hands")),
    "tie_cards": (N_("cards majority tied"), N_("share of hands")),
}
# shares of games or hands: their intervals stay in [0, 1] (``tables.proportion``)
SHARE_METRICS = ("win_rate", "tie_sevens", "tie_oros", "tie_cards")
# the groups the terminal output prints, in order; category points are their own table
GAME_METRICS = ("win_rate", "hands_per_game", "seat_advantage")
ESCOBA_METRICS = ("escobas", "lucky_escobas")
TIE_METRICS = ("tie_sevens", "tie_oros", "tie_cards")
# shorter row names where the group title already says what and in which unit
ROW_TEXT = {"hands_per_game": N_("hands per game"), "seat_advantage": N_("seat advantage, mano minus dealer (points/hand)"), "escobas": N_("all escobas"),
            "lucky_escobas": N_("lucky-deal escobas"), "tie_sevens": N_("sevens"), "tie_oros": N_("oros"), "tie_cards": N_("cards")}


def sevens_rules(summary: dict) -> set:
    """The values of the ``sevens`` field among a series summary's rulesets (what names the sevens point)."""
    try:
        return {r["rules_fields"]["sevens"] for r in summary.get("rulesets") or []}
    except (LookupError, TypeError):
        return set()


def describe_metric(metric: str, labels: list[str] | None = None, sevens=()) -> tuple[str, str]:
    """``(what, unit)`` for a metric name, e.g. ``("oros (majority) points per hand of greedy", "points per hand")``;
    ``sevens``: the rulesets' ``sevens`` values (``sevens_rules``), which name the sevens point."""
    from ..game.columns import category_text

    cat, _sep, who = metric.partition(":")
    if who:
        return _("{category} points per hand of {player}").format(category=_(category_text(cat, sevens)), player=who), \
            _("points per hand")
    if metric not in METRIC_TEXT:  # a name read from a file is text, never a format string
        return metric, ""
    what, unit = METRIC_TEXT[metric]
    return _(what).format(first=labels[0] if labels else _("the first player")), _(unit)


# --- the quantities, as ratios of per-deal sums ---------------------------------------------

def metric_defs(rules: Ruleset, labels: list[str], sides: int | None = None) -> dict[str, tuple[list[int], list[int]]]:
    """Each quantity as integer weights ``(a, b)`` on the per-deal vector: the ratio ``a.S / b.S``.

    ``sides``: the vector's sides when not the ruleset's (2 for a 3-player pair made two-sided by
    ``lineups.two_sided``, whose positions hold the mano and the dealer only)."""
    lay = DealLayout(len(labels))
    one = lambda *at, weights=None: stats.unit(lay.size, *at, weights=weights)  # noqa: E731
    E = range(len(labels))
    hands, games = one(lay.hands), one(lay.games)
    defs = {}
    for e, who in enumerate(labels):
        for cat in (*POINT_COLUMNS, "total"):
            defs[f"{cat}:{who}"] = (one(lay.points(e, cat)), hands)
    defs["escobas"] = (one(*(lay.points(e, "escobas") for e in E)), hands)
    defs["lucky_escobas"] = (one(*(lay.points(e, "lucky_escobas") for e in E)), hands)
    n_sides = sides or rules.n_sides
    if n_sides == 2:
        defs["win_rate"] = (one(lay.won(0)), games)
    defs["hands_per_game"] = (hands, games)
    if n_sides == 2:
        defs["seat_advantage"] = (one(*(lay.pos_total(e, 1) for e in E), *(lay.pos_total(e, 0) for e in E),
                                      weights=[1, 1, -1, -1]), hands)
        sign = 1 if rules.ties == "shared" else -1
        ties = ["oros", "cards"] if rules.sevens == "all" else ["sevens", "oros", "cards"]
        for cat in ties:  # ties = +-(points awarded - hands)
            defs[f"tie_{cat}"] = (one(*(lay.points(e, cat) for e in E), lay.hands, weights=[sign, sign, -sign]),
                                  hands)
    return defs


def _shift(w: list[int], run: int, size: int, runs: int) -> list[int]:
    """Weights on one run's per-deal vector placed at that run's columns of the series vector."""
    out = [0] * (size * runs)
    out[run * size:(run + 1) * size] = w
    return out


# fields that only say whether a card that could capture may be laid: no change for strategies that always capture
CAPTURE_FIELDS = ("capture", "soplar")


def no_effect_reason(variant: Variant, reference: Variant, strategies: list[str]) -> str:
    """Why a variant gave every deal the same result as the reference, when the strategies' definitions say it
    (``StrategyDef.always_captures``), else what was seen: in English, as summary.json keeps it (a person
    reads it through ``no_effect_text``)."""
    return _no_effect_words(reference.rules.as_dict(), variant.rules.as_dict(), strategies, reference.label,
                            lambda text: text)


def _no_effect_words(ref: dict, var: dict, strategies: list[str], reference: str, say) -> str:
    from ..strategies import parse_strategy

    changed = [f for f in var if var[f] != ref.get(f)]
    specs = [parse_strategy(x, files=False) for x in strategies]
    if changed and set(changed) <= set(CAPTURE_FIELDS) and all(p.builtin and p.builtin.always_captures
                                                               for p in specs):
        both = " " + say(N_("and")) + " "
        return say(N_("{strategies} always capture when they can, so {fields} (whether a card that could capture "
                      "may be laid) never changes their play")).format(
            strategies=both.join(dict.fromkeys(p.short for p in specs)), fields=both.join(changed))
    return say(N_("every deal gave exactly the same result as under {reference}")).format(reference=reference)


def no_effect_text(summary: dict, entry: dict) -> str:
    """A ``no_effect`` entry's reason in the current language, rebuilt from the summary's rulesets (the
    stored reason is English); the stored reason when the summary does not say enough to rebuild it."""
    rulesets = summary.get("rulesets") or []
    var = next((r for r in rulesets if r.get("label") == entry.get("label")), None)
    try:
        return _no_effect_words(rulesets[0]["rules_fields"], var["rules_fields"], summary["strategies"],
                                rulesets[0]["label"], _)
    except (LookupError, TypeError, ValueError, AttributeError):
        return str(entry.get("reason", ""))


def no_effect(variants: list[Variant], strategies: list[str], S, G, size: int) -> list[dict]:
    """The variants whose every per-deal vector equals the reference's (each paired difference exactly 0 on
    every deal: the rule cannot have mattered to these strategies), each with its reason.

    ``sum_c |v_ic - v_0c|^2`` from the cross products ``G`` (exact integers) is 0 only then."""
    out = []
    for i, v in enumerate(variants[1:], start=1):
        a, b = i * size, 0
        dist = sum(int(G[a + j, a + j]) - 2 * int(G[a + j, b + j]) + int(G[b + j, b + j]) for j in range(size))
        if dist == 0 and all(int(S[a + j]) == int(S[b + j]) for j in range(size)):
            out.append({"label": v.label, "reason": no_effect_reason(v, variants[0], strategies)})
    return out


def analyse(variants: list[Variant], specs: list[RunSpec], chunks: list[list[dict]], run_dirs: list[Path]):
    """All result tables (Polars frames): estimates and paired effects from the runs' per-deal vectors."""
    labels = specs[0].labels()
    size = DealLayout(specs[0].entrants).size
    runs = len(variants)
    defs = [metric_defs(v.rules, labels) for v in variants]
    common = [m for m in defs[0] if all(m in d for d in defs)]
    conv_rows = []
    n = S = G = None
    for k, n, S, G in series_deal_sums(run_dirs, specs, specs[0].n_chunks):
        for i, (v, d) in enumerate(zip(variants, defs)):
            if "win_rate" in d:
                a, b = d["win_rate"]
                r, se = stats.deal_ratio(S, G, n, _shift(a, i, size, runs), _shift(b, i, size, runs))
                conv_rows.append((v.label, k + 1, float(S[i * size + DealLayout.games]), r, *proportion(r, se, n)))
    est_rows, eff_rows = [], []
    for i, (v, d) in enumerate(zip(variants, defs)):
        for m, (a, b) in d.items():
            ai, bi = _shift(a, i, size, runs), _shift(b, i, size, runs)
            if weighted_sum(bi, S) == 0:
                continue
            r, se = stats.deal_ratio(S, G, n, ai, bi)
            est_rows.append((v.label, m, r, *(proportion(r, se, n) if m in SHARE_METRICS else interval(r, se))))
            if i > 0 and m in common:
                a0, b0 = defs[0][m]
                diff, dse = stats.deal_ratio_diff(S, G, n, ai, bi, _shift(a0, 0, size, runs), _shift(b0, 0, size, runs))
                eff_rows.append((v.label, m, diff, *interval(diff, dse)))
    estimates = estimate_frame(est_rows)
    effects = estimate_frame(eff_rows)
    cat_rows = []
    for row in estimates.iter_rows(named=True):
        cat, _sep, who = row["metric"].partition(":")
        if who and cat in POINT_COLUMNS:
            cat_rows.append((f"{row['label']} / {who}", cat, row["estimate"]))
    categories = category_frame(cat_rows)
    ph, hh = [], []
    for v, aggs in zip(variants, chunks):
        merged = run_totals(aggs)
        hist = merged["points_hist"]
        for e, who in enumerate(labels):
            if hist.size:
                ph += count_rows(f"{v.label} / {who}", hist[e])
        hh += count_rows(v.label, merged["game_hands_hist"])
    return {
        "no_effect": no_effect(variants, list(specs[0].strategies), S, G, size),
        "estimates": estimates, "effects": effects, "categories": categories,
        "points_hist": count_frame(ph),
        "hands_hist": count_frame(hh),
        "convergence": convergence_frame(conv_rows),
    }


def compare(variants: list[Variant], strategy: str, vs: str, n: int, out: str | Path, *, seed: int | None = None,
            jobs: int = 1, argv: list[str] | None = None, on_run=None,
            executor=None, chunk_size: int = 0, on_chunk=None, new: bool = False) -> dict:
    """Play every ruleset on the same deals (via the runner), then write the tables and the summary.

    ``executor`` (e.g. ``cluster.connect(...)``) is handed to ``runner.run`` for every run (``tables.run_series``). ``new``: a
    folder already holding this series is refused (``tables.run_series``).
    """
    out = Path(out)
    specs = []
    for v in variants:
        try:
            s = make_spec(strategy, [vs], v.rules, n, seed=seed, players_fixed=True, keep_deals=True,
                          chunk_size=chunk_size)
        except RunError as e:
            raise CompareError.around(e, "{label}: {problem}", label=v.label) from None
        seed = s.seed  # one seed for every ruleset: the same deals
        specs.append(s)
    if not chunk_size:  # the default: one size for every run, the slowest run's (or the folder's)
        specs = series_chunk_size(out, KIND, specs)
    # a plugin strategy runs on the reference engine: the provenance must say so
    manifest = {"kind": KIND, "format": SERIES_FORMAT, "tool": "escoba-sim", "version": __version__,
                "engine": engine_for([strategy, vs]), "seed": seed,
                "strategies": [strategy, vs], "n": n, "chunk_size": specs[0].chunk_size,
                "rulesets": [{"label": v.label, "rules": v.rules.canonical(), "rules_digest": v.rules.digest(),
                              "rules_fields": v.rules.as_dict(), "run": f"runs/{i:02d}"}
                             for i, v in enumerate(variants)],
                "argv": argv or []}
    try:
        chunks = run_series(out, manifest, ("kind", "seed", "n", "rulesets", "strategies"), specs,
                            "comparison", jobs=jobs, executor=executor, argv=argv,
                            on_run=on_run and (lambda i: on_run(i, variants[i])), on_chunk=on_chunk, new=new)
    except RunError as e:
        raise CompareError.around(e, "{problem}") from None
    tables = analyse(variants, specs, chunks, [out / r["run"] for r in manifest["rulesets"]])
    unchanged = tables.pop("no_effect")  # a list for the summary, not a table file
    summary = {"kind": KIND, "version": __version__, "engine": manifest["engine"], "seed": seed,
               "strategies": [strategy, vs], "labels": specs[0].labels(), "n": n,
               "games_per_ruleset": specs[0].played, "chunks": specs[0].n_chunks,
               "rulesets": manifest["rulesets"],
               "interval": N_("95% CI, the deal as unit (per-deal sums, delta method; a share: Wilson at the "
                              "deals' effective sample size, never outside [0, 1]); effects paired by deal"),
               "estimates": json_rows(tables["estimates"]), "effects": json_rows(tables["effects"]),
               "no_effect": unchanged}
    write_results(out, manifest, tables, summary)
    return summary
