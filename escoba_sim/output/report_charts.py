"""Which charts the report draws for each kind of folder (``run_charts``, ``compare_charts``, ...: each kind's
view in ``views`` names its own), from the tables ``report_folder`` reads (the drawing itself is ``charts``)."""

from __future__ import annotations

from ..i18n import translate as _
from . import charts
from .report_folder import Chart


def _ax_chart(name, title, frame, plot, width=6.4, height=4.0, **kw) -> Chart:
    def draw(fig):
        plot(fig.add_subplot(), frame, **kw)
    return Chart(name, title, draw, width, height)


def effect_metrics(effects) -> list[str]:
    """The metrics of the effects chart, in panel order: games, each player's points, escobas, ties."""
    present = effects["metric"].unique(maintain_order=True).to_list()
    totals = [m for m in present if m.startswith("total:")]
    order = ["win_rate", *totals, "hands_per_game", "seat_advantage", "escobas", "lucky_escobas",
             "tie_sevens", "tie_oros", "tie_cards"]
    return [m for m in order if m in present]


def _effects_chart(effects, labels: list[str] | None) -> Chart:
    """Small multiples: one axes per metric (own x scale, unit and zero line), variants as rows."""
    from ..series.compare import describe_metric

    metrics = effect_metrics(effects)
    df = charts.prep_effects(effects, metrics)
    n_var = df["label"].n_unique()
    ncols = 2 if len(metrics) > 2 else 1
    nrows = -(-len(metrics) // ncols)
    panel_h = 0.95 + 0.32 * n_var

    def draw(fig):
        import polars as pl

        axes = fig.subplots(nrows, ncols, squeeze=False)
        for ax, m in zip(axes.flat, metrics):
            what, unit = describe_metric(m, labels)
            charts.plot_effects(ax, df.filter(pl.col("metric") == m), xlabel=_("difference in {unit}").format(unit=unit),
                                label_col="label")
            ax.set_title(what, fontsize="small")
        for ax in list(axes.flat)[len(metrics):]:  # an odd count leaves one empty slot: no empty panel
            fig.delaxes(ax)
    return Chart("effects", _("Variant effects: paired difference vs the first ruleset on the same deals "
                              "(95% CI; dark = excludes 0)"), draw, width=11.0, height=0.6 + nrows * panel_h)


def _distribution_chart(name: str, title: str, df, **kw) -> Chart:
    """One axes, a line per label, while the palette has a colour for each; small multiples beyond."""
    labels = df["label"].unique(maintain_order=True).to_list()
    if len(labels) <= len(charts.PALETTE):
        return _ax_chart(name, title, df, charts.plot_distribution, **kw)
    nrows, ncols = charts.convergence_grid(len(labels))
    title_lines = max(len(charts.panel_title(x).splitlines()) for x in labels)

    def draw(fig):
        charts.plot_distribution_panels(fig, df, **kw)
    return Chart(name, title + " " + _("(one panel each)"), draw, width=1.0 + 2.6 * ncols,
                 height=1.0 + nrows * (1.7 + 0.18 * title_lines))


def _convergence_chart(title: str, panels: str, conv) -> Chart:
    """One axes for a few lines (a run's players); small multiples beyond (``charts.CONVERGENCE_LINES``), each
    line's own panel (``panels``: what each panel is, in words)."""
    import textwrap

    title += "\n" + _("(95% CI, the deal as unit)")
    kw = {"ylabel": _("share of games won"), "xlabel": _("games played (log scale)")}
    labels = conv["label"].unique(maintain_order=True).to_list()
    if len(labels) <= charts.CONVERGENCE_LINES:
        return _ax_chart("convergence", title, conv, charts.plot_convergence, width=8.0, **kw)
    title += "; " + panels + " " + _("(dashed: 0.5)")
    nrows, ncols = charts.convergence_grid(len(labels))
    title_lines = max(len(charts.panel_title(x).splitlines()) for x in labels)

    def draw(fig):
        charts.plot_convergence_panels(fig, conv, reference=0.5, **kw)
    return Chart("convergence", title, draw, width=1.0 + 2.6 * ncols,
                 height=1.2 + nrows * (1.7 + 0.18 * title_lines) + 0.2 * len(textwrap.wrap(title, 60)))



def _first(players: list[str]) -> str:
    return players[0] if players else _("the first player")


def _win_rates(est, title: str, order=None) -> list[Chart]:
    """Each player's game win rate (``order``: the labels' rank, else the table's order)."""
    if est is None:
        return []
    wr = charts.prep_win_rates(est)
    if order is not None:
        import polars as pl

        wr = wr.sort(pl.col("label").replace_strict(order, default=len(order)), maintain_order=True)
    if not wr.height:
        return []
    return [_ax_chart("win_rates", title, wr, charts.plot_win_rates, height=1.5 + 0.4 * wr.height,
                      xlabel=_("share of games won (dashed: 0.5)"))]


def _categories(tables: dict) -> list[Chart]:
    if not ("categories" in tables and tables["categories"].height):
        return []
    c = charts.prep_points_by_category(tables["categories"])
    n_bars = c["label"].n_unique()
    longest = max(len(x) for x in c["label"].unique().to_list())
    return [_ax_chart("points_by_category", _("Expected points per hand by category"), c,
                      charts.plot_points_by_category, width=max(7.5, 5.5 + 0.075 * longest),
                      height=1.8 + 0.42 * max(n_bars, 4))]


def _seat_advantage(est, title: str) -> list[Chart]:
    if est is None:
        return []
    sa = charts.prep_metric(est, "seat_advantage")
    if not sa.height:
        return []
    return [_ax_chart("seat_advantage", title, sa, charts.plot_intervals, height=1.5 + 0.4 * sa.height,
                      xlabel=_("points per hand (dashed: no advantage)"), reference=0.0)]


def _distributions(tables: dict, hands_title: str) -> list[Chart]:
    """Points per hand and hands per game, each a distribution."""
    out = []
    if "points_hist" in tables and tables["points_hist"].height:
        out.append(_distribution_chart("points_distribution", _("Distribution of points per hand"),
                                       charts.prep_distribution(tables["points_hist"]),
                                       xlabel=_("points in a hand"), ylabel=_("share of hands")))
    if "hands_hist" in tables and tables["hands_hist"].height:
        hh = charts.prep_distribution(tables["hands_hist"])
        out.append(_distribution_chart("hands_per_game", hands_title, hh, xlabel=_("hands in a game"),
                                       ylabel=_("share of games")))
    return out


def _convergence(tables: dict, title: str, panels: str) -> list[Chart]:
    conv = tables.get("convergence")
    if conv is not None and conv.height and conv["chunks"].n_unique() >= 3:  # a line needs a few points
        return [_convergence_chart(title, panels, charts.prep_convergence(conv))]
    return []


def run_charts(tables: dict, manifest: dict) -> list[Chart]:
    """A run's charts: each player's win rate, points by category, seat advantage, distributions, convergence."""
    est = tables.get("estimates")
    return [*_win_rates(est, _("Game win rate per player (95% CI)")),
            *_categories(tables),
            *_seat_advantage(est, _("Seat advantage: points per hand as mano minus as dealer")),
            *_distributions(tables, _("Hands per game")),
            *_convergence(tables, _("Convergence of each player's win rate"), _("one panel per player"))]


def compare_charts(tables: dict, manifest: dict) -> list[Chart]:
    """A comparison's charts: the run's, per ruleset, with the variants' effects after the categories."""
    import polars as pl

    players = manifest.get("strategies") or []
    est = tables.get("estimates")
    out = [*_win_rates(est, _("Game win rate of {player} against {opponents}, per ruleset (95% CI)").format(
               player=_first(players), opponents=', '.join(players[1:]) or _("its opponent"))),
           *_categories(tables)]
    if "effects" in tables and tables["effects"].height:
        # a variant that changed no deal is named so in its rows (the page says why)
        flagged = {x["label"] for x in (tables.get("_summary") or {}).get("no_effect") or []}
        effects = tables["effects"].with_columns(
            pl.when(pl.col("label").is_in(list(flagged))).then(pl.col("label") + " " + _("(no effect)"))
            .otherwise(pl.col("label")).alias("label")) if flagged else tables["effects"]
        out.append(_effects_chart(effects, players or None))
    return [*out,
            *_seat_advantage(est, _("Seat advantage: mano's minus dealer's points per hand, both players together")),
            *_distributions(tables, _("Hands per game")),
            *_convergence(tables, _("Convergence of {player}'s win rate").format(player=_first(players)),
                          _("one panel per ruleset"))]


def tournament_charts(tables: dict, manifest: dict) -> list[Chart]:
    """A tournament's charts: win rates in the ratings' order, the ratings and the crosstable, then the run's."""
    est = tables.get("estimates")
    rank = None
    if "ratings" in tables:  # in the ratings' order, as the terminal's table
        rank = {lab: k for k, lab in enumerate(tables["ratings"].sort("estimate", descending=True,
                                                                         maintain_order=True)["label"])}
    out = _win_rates(est, _("Game win rate against all opponents (95% CI)"), rank)
    if "ratings" in tables:  # highest first, as the terminal and the page's table
        r = charts.prep_metric(tables["ratings"], "rating").sort("estimate", descending=True, maintain_order=True)
        out.append(_ax_chart("ratings", _("Bradley-Terry rating, Elo scale (95% CI, the deal as unit)"), r,
                             charts.plot_intervals, height=1.5 + 0.4 * r.height,
                             xlabel=_("rating (Elo points, mean 0)"), reference=0.0))
    if "crosstable" in tables:  # the game score as the terminal prints it: 0 to 1
        ct = charts.prep_crosstable(tables["crosstable"])
        longest = max(len(x) for x in ct["label"].to_list())
        side = 3.0 + 0.6 * ct.height + 0.075 * longest
        out.append(_ax_chart("crosstable", _("Crosstable: row's game score against the column (0.5 = even)"), ct,
                             charts.plot_crosstable, width=side + 1.5, height=side,
                             value_label=_("game score (0.5 = even)"), centre=0.5))
    return [*out,
            *_categories(tables),
            *_seat_advantage(est, _("Seat advantage: points per hand as mano minus as dealer")),
            *_distributions(tables, _("Hands per game (all pairs together)")),
            *_convergence(tables, _("Convergence of the first-named strategy's win rate in each pair"),
                          _("one panel per pair"))]


def skill_charts(tables: dict, manifest: dict | None = None) -> list[Chart]:
    """A skill ladder's charts: the skill share per ruleset, and each ruleset's ladder (small multiples)."""
    out: list[Chart] = []
    if "skill" in tables and tables["skill"].height:
        sh = charts.prep_skill_share(tables["skill"])
        out.append(_ax_chart("skill_share", _("Skill share per ruleset: outcome variance between the ladder's "
                                              "strategies over total (95% CI, the deal as unit)"),
                             sh, charts.plot_intervals, width=8.0, height=1.6 + 0.4 * sh.height,
                             xlabel=_("share of the game outcome's variance (0: luck only, 1: skill only)"),
                             reference=0.0))
    if "skill_effects" in tables and tables["skill_effects"].height:
        ef = charts.prep_metric(tables["skill_effects"], "skill_share")
        first = tables["skill"]["label"][0] if "skill" in tables and tables["skill"].height else \
            _("the first ruleset")
        out.append(_ax_chart("skill_effects", _("Skill share minus {reference}'s, paired by deal (95% CI)")
                             .format(reference=first), ef,
                             charts.plot_intervals, width=8.0, height=1.6 + 0.4 * ef.height,
                             xlabel=_("difference in the share of the outcome's variance (dashed: no change)"),
                             reference=0.0))
    if "skill_ratings" in tables and tables["skill_ratings"].height:
        ladders = charts.prep_ladders(tables["skill_ratings"])
        ncols = min(3, len(ladders))
        nrows = -(-len(ladders) // ncols)
        per = ladders[0][1].height
        lo = min(x for _k, df in ladders for x in df["lo"].drop_nulls().to_list() + df["estimate"].to_list())
        hi = max(x for _k, df in ladders for x in df["hi"].drop_nulls().to_list() + df["estimate"].to_list())
        pad = 0.05 * (hi - lo or 1.0)

        def draw(fig):
            from matplotlib.ticker import MaxNLocator

            axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True)
            for ax, (name, df) in zip(axes.flat, ladders):
                charts.plot_ladder(ax, df, xlabel="")
                ax.set_xlim(lo - pad, hi + pad)
                ax.xaxis.set_major_locator(MaxNLocator(5))
                ax.set_title(name, fontsize="small")
            for k, ax in enumerate(axes.flat):
                if k >= len(ladders):
                    fig.delaxes(ax)
                elif k + ncols >= len(ladders):  # the lowest panel of its column: its x axis is labelled
                    ax.xaxis.set_tick_params(labelbottom=True)
                    ax.set_xlabel(_("rating (Elo, mean 0)"))
        out.append(Chart("skill_ladders", _("The ladder per ruleset: Bradley-Terry ratings, Elo scale "
                                            "(95% CI; same x scale in every panel)"),
                         draw, width=4.0 * ncols + 1.0, height=0.8 + nrows * (0.9 + 0.3 * per)))
    return out
