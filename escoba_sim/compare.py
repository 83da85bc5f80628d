"""Compare rulesets on the same deals: one runner run per ruleset, paired differences against the first.

Every ruleset is played by ``runner.run`` with the same seed, strategies and
chunk size, so chunk ``k`` of every ruleset holds the same deal indices and
therefore the same shuffles (common random numbers, docs/engine.md). A chunk
is a group of independent deal clusters, so chunks are independent clusters
too: each quantity is a ratio ``sum y / sum x`` of chunk aggregates, its
interval uses the cluster ratio estimator over chunks, and the difference to
the first ruleset pairs the chunks (``stats.paired_ratio_diff``). The chunk
size is picked so that a comparison has at least ``MIN_CHUNKS`` chunks.

Output folder::

    DIR/manifest.json       kind "compare", version, engine, seed, strategies, rulesets
                            (label, canonical string, digest, fields), args
    DIR/runs/NN/            one runner output folder per ruleset (resumable on its own)
    DIR/tables/*.parquet    estimates, effects, categories, points_hist, hands_hist, convergence
    DIR/summary.json        the same tables as JSON

Quantities (``metric`` names; the player is named by its strategy label):

- ``<category>:<player>`` for each of ``batch.POINT_COLUMNS`` and ``total``: points per hand;
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

import math
from dataclasses import dataclass
from pathlib import Path

from . import __version__, runner, stats
from .chunk import merge
from .runfolder import atomic_write, write_json
from .runspec import MAX_CHUNK, RunError, RunSpec, make_spec
from .batch import POINT_COLUMNS, SIDE_COLUMNS, engine_for
from .rules import FIELD_NAMES, Ruleset, RulesError, coerce_field, format_value, parse_rules

MIN_CHUNKS = 40
KIND = "compare"
TABLES = ("estimates", "effects", "categories", "points_hist", "hands_hist", "convergence")
# design-named variant effects: each is one --vary
DESIGN_EFFECTS = ("lucky_deal=escobas,off", "ties=shared,none", "sevens=majority,all",
                  "capture=card,any,optional", "target=15,21,31")


class CompareError(ValueError):
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
        raise CompareError(f"--vary `{text}`: expected field=value1,value2 (e.g. lucky_deal=escobas,off)")
    if field not in FIELD_NAMES:
        raise CompareError(f"--vary: unknown rules field `{field}`; fields: {', '.join(FIELD_NAMES)}")
    try:
        return field, [coerce_field(field, v.strip()) for v in vals.split(",") if v.strip()]
    except RulesError as e:
        raise CompareError(f"--vary: {e}") from None


def build_variants(rules: list[str | Ruleset], vary: list[str]) -> list[Variant]:
    """The rulesets to compare, the reference first.

    Without ``vary``: each ``rules`` in order (at least two). With ``vary``: one base
    ruleset (the single ``rules``, default ludoteka) first, then the base with each
    varied value; values equal to the base are not repeated.
    """
    if not vary:
        if len(rules) < 2:
            raise CompareError("give two or more --rules, or one base --rules with --vary field=v1,v2")
        out = [Variant(parse_rules(r).canonical(), parse_rules(r)) for r in rules]
    else:
        if len(rules) > 1:
            raise CompareError("--vary changes one base ruleset: give at most one --rules with it")
        base = parse_rules(rules[0] if rules else None)
        out = [Variant(base.canonical(), base)]
        for text in vary:
            field, values = parse_vary(text)
            for v in values:
                try:
                    r = base.replace(**{field: v})
                except RulesError as e:
                    raise CompareError(f"--vary {field}={format_value(v)} on {base.canonical()}: {e}") from None
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
        raise CompareError("the rulesets to compare are all the same")
    players = {v.rules.players for v in uniq}
    if len(players) > 1:
        raise CompareError("every compared ruleset must have the same number of players")
    return uniq


def chunk_size_for(n: int, rotations: int = 2, mode: str = "games") -> int:
    """Deals per chunk so that a comparison has at least MIN_CHUNKS chunks (when it has that many deals)."""
    deals = -(-n // rotations)
    return max(1, min(MAX_CHUNK[mode], deals // MIN_CHUNKS or 1))


# --- what each quantity is, in words and units (terminal output and chart titles) ----------

# metric -> (what it is, unit); ``{first}`` is the first player's label
METRIC_TEXT = {
    "win_rate": ("game win rate of {first}", "share of games"),
    "hands_per_game": ("hands per game", "hands"),
    "seat_advantage": ("seat advantage: mano minus dealer", "points per hand"),
    "escobas": ("escobas per hand (all sides)", "escobas per hand"),
    "lucky_escobas": ("lucky-deal escobas per hand (all sides)", "escobas per hand"),
    "tie_sevens": ("sevens majority tied", "share of hands"),
    "tie_oros": ("oros majority tied", "share of hands"),
    "tie_cards": ("cards majority tied", "share of hands"),
}
# the groups the terminal output prints, in order; category points are their own table
GAME_METRICS = ("win_rate", "hands_per_game", "seat_advantage")
ESCOBA_METRICS = ("escobas", "lucky_escobas")
TIE_METRICS = ("tie_sevens", "tie_oros", "tie_cards")
# shorter row names where the group title already says what and in which unit
ROW_TEXT = {"hands_per_game": "hands per game", "seat_advantage": "seat advantage, mano minus dealer (points/hand)", "escobas": "all escobas",
            "lucky_escobas": "lucky-deal escobas", "tie_sevens": "sevens", "tie_oros": "oros", "tie_cards": "cards"}


def describe_metric(metric: str, labels: list[str] | None = None) -> tuple[str, str]:
    """``(what, unit)`` for a metric name, e.g. ``("oros (majority) points per hand of greedy", "points per hand")``."""
    from .charts import CATEGORY_TEXT

    cat, _, who = metric.partition(":")
    if who:
        return f"{CATEGORY_TEXT.get(cat, cat)} points per hand of {who}", "points per hand"
    what, unit = METRIC_TEXT.get(metric, (metric, ""))
    return what.format(first=labels[0] if labels else "the first player"), unit


def _cell(r: dict | None, signed: bool) -> str:
    if r is None:
        return "–"
    f = "{:+.4f}" if signed else "{:.4f}"
    lo = "–" if r["lo"] is None else f.format(r["lo"])
    hi = "–" if r["hi"] is None else f.format(r["hi"])
    return f"{f.format(r['estimate'])} [{lo}, {hi}]"


def format_summary(summary: dict) -> list[str]:
    """The terminal report of a comparison: per ruleset, quantities grouped and named with their units.

    Estimates per ruleset first, then each variant's paired difference against the
    reference; within each: games, points per hand by category (one column per
    player), escobas per hand of all sides, and how often each majority ties.
    """
    from .charts import CATEGORY_TEXT

    labels = summary["labels"]
    ref = summary["rulesets"][0]["label"]
    lines = [f"seed {summary['seed']}, {summary['games_per_ruleset']} games per ruleset, "
             f"{summary['chunks']} chunks; {summary['interval']}",
             f"players: {labels[0]} (--strategy) vs {' vs '.join(labels[1:])} (--vs); reference ruleset: {ref}"]
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
                    what, unit = describe_metric(m, labels)
                    text = ROW_TEXT.get(m) or f"{what} ({unit})"
                    lines.append(f"    {text:<{w}} {_cell(got[m], signed)}")
                if title == "games":  # the category table comes right after the games block
                    cats = [c for c in (*POINT_COLUMNS, "total") if any(f"{c}:{p}" in got for p in labels)]
                    if cats:
                        lines.append(f"  {'points per hand by category':<{w + 3}}" +
                                     "".join(f"{p:<28}" for p in labels).rstrip())
                        for c in cats:
                            lines.append(f"    {CATEGORY_TEXT.get(c, c):<{w}} " +
                                         "".join(f"{_cell(got.get(f'{c}:{p}'), signed):<28}" for p in labels).rstrip())
    return lines


# --- the quantities, as ratios of chunk aggregates -------------------------------------------

def _k(col: str) -> int:
    return SIDE_COLUMNS.index(col)


def metric_defs(rules: Ruleset, labels: list[str]) -> dict[str, tuple]:
    """Each quantity as a function of one chunk's aggregates returning ``(y, x)``."""
    T = _k("total")
    defs = {}
    for e, who in enumerate(labels):
        for cat in (*POINT_COLUMNS, "total"):
            defs[f"{cat}:{who}"] = (lambda a, e=e, k=_k(cat): (a["points"][e, k], a["hands"][0]))
    defs["escobas"] = lambda a: (a["points"][:, _k("escobas")].sum(), a["hands"][0])
    defs["lucky_escobas"] = lambda a: (a["points"][:, _k("lucky_escobas")].sum(), a["hands"][0])
    if rules.n_sides == 2:
        defs["win_rate"] = lambda a: (a["game_wins"][0], a["games"][0])
    defs["hands_per_game"] = lambda a: (a["hands"][0], a["games"][0])
    if rules.n_sides == 2:
        defs["seat_advantage"] = lambda a: (a["pos_points"][:, 1, T].sum() - a["pos_points"][:, 0, T].sum(),
                                            a["hands"][0])
        sign = 1 if rules.ties == "shared" else -1
        ties = ["oros", "cards"] if rules.sevens == "all" else ["sevens", "oros", "cards"]
        for cat in ties:
            defs[f"tie_{cat}"] = (lambda a, k=_k(cat): (sign * (a["points"][:, k].sum() - a["hands"][0]),
                                                        a["hands"][0]))
    return defs


def _chunk_values(aggs: list[dict], fn) -> tuple[list[int], list[int]]:
    ys, xs = [], []
    for a in aggs:
        y, x = fn(a)
        ys.append(int(y))
        xs.append(int(x))
    return ys, xs


def _interval(est: float, se: float) -> tuple[float | None, float | None]:
    if not math.isfinite(se):
        return (None, None)
    return stats.normal_ci(est, se)


def analyse(variants: list[Variant], specs: list[RunSpec], chunks: list[list[dict]]):
    """All result tables (Polars frames) from the runs' chunk aggregates."""
    import polars as pl

    labels = specs[0].labels()
    defs = [metric_defs(v.rules, labels) for v in variants]
    common = [m for m in defs[0] if all(m in d for d in defs)]
    est_rows, eff_rows, conv_rows = [], [], []
    ref = {}
    for i, (v, d, aggs) in enumerate(zip(variants, defs, chunks)):
        for m, fn in d.items():
            ys, xs = _chunk_values(aggs, fn)
            if sum(xs) == 0:
                continue
            r, se = stats.ratio_mean(sum(ys), sum(xs), sum(y * y for y in ys), sum(y * x for y, x in zip(ys, xs)),
                                     sum(x * x for x in xs), len(ys))
            est_rows.append((v.label, m, r, *_interval(r, se)))
            if i == 0:
                ref[m] = (ys, xs)
            elif m in common and m in ref:
                diff, dse = stats.paired_ratio_diff(ys, xs, *ref[m])
                eff_rows.append((v.label, m, diff, *_interval(diff, dse)))
            if m == "win_rate":
                conv_rows += [(v.label, k, float(y), float(x)) for k, (y, x) in enumerate(zip(ys, xs))]
    est_schema = {"label": pl.String, "metric": pl.String, "estimate": pl.Float64, "lo": pl.Float64, "hi": pl.Float64}
    estimates = pl.DataFrame(est_rows, schema=est_schema, orient="row")
    effects = pl.DataFrame(eff_rows, schema=est_schema, orient="row")
    cat_rows = []
    for row in estimates.iter_rows(named=True):
        cat, _, who = row["metric"].partition(":")
        if who and cat in POINT_COLUMNS:
            cat_rows.append((f"{row['label']} / {who}", cat, row["estimate"]))
    categories = pl.DataFrame(cat_rows, schema={"label": pl.String, "category": pl.String, "points": pl.Float64},
                              orient="row")
    ph, hh = [], []
    for v, aggs in zip(variants, chunks):
        merged = None
        for a in aggs:
            merged = merge(merged, a)
        hist = merged["points_hist"]
        for e, who in enumerate(labels):
            if hist.size:
                ph += [(f"{v.label} / {who}", int(b), int(c)) for b, c in enumerate(hist[e]) if c]
        hh += [(v.label, int(b), int(c)) for b, c in enumerate(merged["game_hands_hist"]) if c]
    count_schema = {"label": pl.String, "value": pl.Int64, "count": pl.Int64}
    return {
        "estimates": estimates, "effects": effects, "categories": categories,
        "points_hist": pl.DataFrame(ph, schema=count_schema, orient="row"),
        "hands_hist": pl.DataFrame(hh, schema=count_schema, orient="row"),
        "convergence": pl.DataFrame(conv_rows, schema={"label": pl.String, "chunk": pl.Int64, "numer": pl.Float64,
                                                       "denom": pl.Float64}, orient="row"),
    }


def write_tables(out: Path, tables: dict) -> None:
    (out / "tables").mkdir(parents=True, exist_ok=True)
    for name, df in tables.items():
        atomic_write(out / "tables" / f"{name}.parquet", lambda tmp, df=df: df.write_parquet(tmp))


def read_tables(out: Path) -> dict:
    import polars as pl

    return {p.stem: pl.read_parquet(p) for p in sorted((out / "tables").glob("*.parquet"))}


def _json_rows(df) -> list[dict]:
    return [{k: (v if not isinstance(v, float) or math.isfinite(v) else None) for k, v in r.items()}
            for r in df.iter_rows(named=True)]


def compare(variants: list[Variant], strategy: str, vs: str, n: int, out: str | Path, *, seed: int | None = None,
            jobs: int = 1, argv: list[str] | None = None, on_run=None,
            executor=None) -> dict:
    """Play every ruleset on the same deals (via the runner), then write the tables and the summary.

    ``executor`` (e.g. ``cluster.connect(...)``) is handed to ``runner.run`` for every run.
    """
    out = Path(out)
    specs = []
    for v in variants:
        try:
            s = make_spec(strategy, [vs], v.rules, n, seed=seed, players_fixed=True,
                                 chunk_size=chunk_size_for(n))
        except RunError as e:
            raise CompareError(f"{v.label}: {e}") from None
        seed = s.seed  # one seed for every ruleset: the same deals
        specs.append(s)
    # a plugin strategy runs on the reference engine: the provenance must say so
    manifest = {"kind": KIND, "tool": "escoba-sim", "version": __version__,
                "engine": engine_for([strategy, vs]), "seed": seed,
                "strategies": [strategy, vs], "n": n, "chunk_size": specs[0].chunk_size,
                "rulesets": [{"label": v.label, "rules": v.rules.canonical(), "rules_digest": v.rules.digest(),
                              "rules_fields": v.rules.as_dict(), "run": f"runs/{i:02d}"}
                             for i, v in enumerate(variants)],
                "argv": argv or []}
    try:
        chunks = runner.run_series(out, manifest, ("kind", "seed", "n", "rulesets", "strategies"), specs,
                                   "comparison", jobs=jobs, executor=executor, argv=argv,
                                   on_run=on_run and (lambda i: on_run(i, variants[i])))
    except RunError as e:
        raise CompareError(str(e)) from None
    tables = analyse(variants, specs, chunks)
    write_tables(out, tables)
    summary = {"kind": KIND, "version": __version__, "engine": manifest["engine"], "seed": seed,
               "strategies": [strategy, vs], "labels": specs[0].labels(), "n": n,
               "games_per_ruleset": specs[0].played, "chunks": specs[0].n_chunks,
               "rulesets": manifest["rulesets"],
               "interval": "95% normal interval, chunks as clusters (ratio estimator); effects paired by chunk",
               "estimates": _json_rows(tables["estimates"]), "effects": _json_rows(tables["effects"])}
    write_json(out / "summary.json", summary)
    return summary
