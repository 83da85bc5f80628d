"""A skill ladder's terminal report (``skill``'s summary): one row per ruleset within 80 columns, each figure
with its 95% interval; the paired differences against the first ruleset, a block per figure; each ruleset's
ladder of ratings. The shared pieces (short labels, spec lines, folding) are ``console``'s."""

from __future__ import annotations

import textwrap

from ..i18n import N_
from ..i18n import translate as _
from .console import THREE_PLAYERS_LINE, fold_at_commas, percent, spec_lines, table_labels
from .terminal import printable


def _pm(r: dict | None, f: str, half_f: str | None = None) -> str:
    """``estimate±half`` of a symmetric 95 % interval (``–`` where there is none; ``+-`` for ``±`` on a
    terminal that cannot print it)."""
    if r is None or r["estimate"] is None:
        return "–"
    text = f.format(r["estimate"])
    if r["lo"] is None or r["hi"] is None:
        return text
    return text + printable("±") + (half_f or f).format((r["hi"] - r["lo"]) / 2).lstrip("+")


def _games_cell(r: dict | None) -> str:
    """``7 [6-9]``, ``3.8k [111-∞]``: games (a count) and its interval; ``∞`` (``inf`` on a terminal that
    cannot print it) where the interval reaches no skill at all. At most 15 characters (``551[145-222k]`` without its space past 13: the row has 2 to spare)."""
    if r is None:
        return "–"
    def g(x) -> str:  # at most 4 characters: 89, 3.8k, 61k, 222k, 1.2M
        if x is None:
            return printable("∞")
        if x < 999.5:
            return f"{x:.0f}"
        for unit, scale in (("k", 1e3), ("M", 1e6), ("G", 1e9)):
            v = x / scale
            if v < 9.95:
                return f"{v:.1f}{unit}"
            if v < 999.5 or unit == "G":
                return f"{v:.0f}{unit}"

    cell = f"{g(r['estimate'])} [{g(r['lo'])}-{g(r['hi'])}]"
    return cell if len(cell) <= 13 else cell.replace(" [", "[")


# the paired differences a skill report prints, each with its heading and digits (``series.skill.EFFECT_METRICS``)
EFFECT_BLOCKS = (
    ("skill_share", N_("skill share minus {reference}'s (paired by deal, 95% CI):"), 4),
    ("rating_spread", N_("rating spread (Elo, best minus worst) minus {reference}'s:"), 0),
    ("seat_advantage", N_("seat advantage (mano minus dealer, points per hand) minus {reference}'s:"), 3),
    ("hands_per_game", N_("hands per game minus {reference}'s:"), 3),
    ("escobas", N_("escobas per hand (all sides) minus {reference}'s:"), 3),
    ("lucky_escobas", N_("lucky-deal escobas per hand (all sides) minus {reference}'s:"), 4),
    ("relative_skill", N_("relative skill (oracle as the fictive player) minus {reference}'s:"), 3),
    ("relative_skill_hands", N_("relative skill (a fictive player seeing the hands only) minus {reference}'s:"), 3),
    ("learning_effect", N_("learning effect (points per hand) minus {reference}'s:"), 3),
    ("random_effect", N_("random effect (points per hand) minus {reference}'s:"), 3),
    ("coin_flip", N_("coin-flip equivalent (share of results) minus {reference}'s:"), 3),
    ("restricted_cards", N_("restricted play, what pursuing the most cards is worth, minus {reference}'s:"), 3),
    ("restricted_oros", N_("restricted play, what pursuing the most oros is worth, minus {reference}'s:"), 3),
    ("restricted_sevens", N_("restricted play, what pursuing the sevens is worth, minus {reference}'s:"), 3),
    ("restricted_siete", N_("restricted play, what pursuing the 7 of oros is worth, minus {reference}'s:"), 3),
    ("restricted_escobas", N_("restricted play, what pursuing escobas is worth, minus {reference}'s:"), 3),
    ("lead_changes", N_("lead changes per game (two equal heuristics) minus {reference}'s:"), 3),
    ("comebacks", N_("comebacks (games the side behind before the last hand wins) minus {reference}'s:"), 3),
    ("hands_spread", N_("spread of a game's length (hands, standard deviation) minus {reference}'s:"), 3),
)


def effect_lines(effects: list[dict], reference: str, width: int = 80) -> list[str]:
    """Each ruleset minus the first, one block per figure: a line per ruleset, the estimate and its interval
    (a ``*`` where the interval excludes 0), fitted to ``width``."""
    lines = []
    by_metric: dict[str, list[dict]] = {}
    for e in effects:
        by_metric.setdefault(e.get("metric", "skill_share"), []).append(e)
    name_width = min(max((len(e["label"]) for e in effects), default=0), 28)
    for metric, heading, digits in EFFECT_BLOCKS:
        rows = by_metric.get(metric)
        if not rows:
            continue
        lines += ["", *textwrap.wrap(_(heading).format(reference=reference), width, subsequent_indent="  ")]
        for e in rows:
            if e["estimate"] is None:
                cell = "–"
            else:
                f = f"{{:+.{digits}f}}"
                cell = f.format(e["estimate"])
                if e["lo"] is not None and e["hi"] is not None:
                    cell += f" [{f.format(e['lo'])}, {f.format(e['hi'])}]"
                    cell += "  *" if e["lo"] > 0 or e["hi"] < 0 else ""
            label = e["label"] if len(e["label"]) <= name_width else e["label"][:name_width - 1] + "…"
            lines.append(f"  {label:<{name_width}}  {cell}")
    lines.append(_("  *: the interval excludes 0"))
    return lines


def skill_lines(summary: dict, width: int = 80) -> list[str]:
    """The terminal report of a skill ladder: one row per ruleset (fits 80 columns), ranked as given, then
    each ruleset's ladder (ratings) in a line or two."""
    s = summary
    labels = s["labels"]
    names = dict(zip(labels, table_labels(labels)))  # a long spec by a short name, listed once in full
    rows: dict[str, dict[str, dict]] = {}
    for r in s["skill"]:
        rows.setdefault(r["label"], {})[r["metric"]] = r
    heads = [_("skill ladder {ladder}").format(ladder=' < '.join(names.values())),
             _("seed {seed}, {games} games per pair and ruleset (duplicate deals)").format(
                 seed=s['seed'], games=f"{s['games_per_pair']:,}"),
             _("±, [..]: 95% CI, the deal as unit; ∞: the edge may be nil"),
             *([_(THREE_PLAYERS_LINE)] if s.get("three_players") else [])]
    # a 20-digit seed made the Spanish seed line 88 columns: each head wraps at spaces, a number never split
    lines = [*[part for line in heads for part in textwrap.wrap(line, width, subsequent_indent="      ",
                                                                 break_long_words=False, break_on_hyphens=False)],
             *[part for line in spec_lines(list(names.values()), s["strategies"])
               for part in fold_at_commas(line, width)], ""]
    w = 13
    seat = 9 + len(printable("±"))  # ``+0.12±0.03``; one more where ``±`` is printed ``+-`` (80 columns still)
    # the column heads are two lines of fixed widths (their translations are chosen to fit them)
    def head(text: str, width: int, right: bool = False) -> str:
        return f"{_(text):>{width}}" if right else f"{_(text):<{width}}"

    # the Elo cell is one wider than its widest figure (``1331±170``): it never touches the games cell beside it
    lines.append(" ".join([" " * w, head(N_("skill share"), 12), f"{'Elo':<9}", head(N_("games to win"), 13),
                           head(N_("seat adv."), seat), head(N_("hands"), 5, True), head(N_("esc."), 4, True),
                           head(N_("lucky"), 5, True)]))
    lines.append(" ".join([head(N_("ruleset"), w), head(N_("of outcome"), 12), head(N_("spread"), 9),
                           head(N_("95% (closest)"), 13), head(N_("pts/hand"), seat), head(N_("/game"), 5, True),
                           head(N_("/hand"), 4, True), head(N_("/hand"), 5, True)]))
    long = []

    def small(m: str, got: dict) -> str:  # a rate below 1 without its leading zero: 4 characters
        if m not in got or got[m]["estimate"] is None:
            return "–"
        x = got[m]["estimate"]
        return f"{x:.3f}"[1:] if 0 <= x < 1 else f"{x:.2f}"

    for rs in s["rulesets"]:
        got = rows.get(rs["label"], {})
        name = rs["label"]
        if len(name) > w:
            long.append(name)
            name = name[:w - 3] + f"#{len(long)}"
        hpg = got.get("hands_per_game")
        lines.append(f"{name:<{w}} {_pm(got.get('skill_share'), '{:.3f}'):<12} "
                     f"{_pm(got.get('rating_spread'), '{:.0f}'):<9} {_games_cell(got.get('games_to_win')):<13} "
                     f"{_pm(got.get('seat_advantage'), '{:+.2f}', '{:.2f}'):<{seat}} "
                     f"{'–' if hpg is None else format(hpg['estimate'], '.2f'):>5} {small('escobas', got):>4} "
                     f"{small('lucky_escobas', got):>5}")
    for i, name in enumerate(long, 1):
        lines.append(f"  #{i} = {name}")
    if s.get("scorecard"):
        lines += scorecard_lines(s, rows, names, width)
    if s.get("effects"):
        lines += effect_lines(s["effects"], s["rulesets"][0]["label"], width)
    lines.append("")
    lines.append(_("ladder per ruleset (Bradley-Terry rating, Elo scale, mean 0):"))
    ratings: dict[str, list[dict]] = {}
    for r in s["ratings"]:
        ratings.setdefault(r["ruleset"], []).append(r)
    for rs in s["rulesets"]:
        text = "  ".join(f"{names.get(r['label'], r['label'])} {r['estimate']:+.0f}"
                         for r in ratings.get(rs["label"], []))
        lines += textwrap.wrap(f"{rs['label']}: {text}", width, subsequent_indent="    ", break_on_hyphens=False)
    return lines


def _pct(r: dict | None) -> str:
    """``18% [14-22]`` (Spanish ``18 % [14-22]``): a share in percent and its interval."""
    if r is None or r["estimate"] is None:
        return "–"
    cell = percent(f"{100 * r['estimate']:.0f}")
    if r["lo"] is not None and r["hi"] is not None:
        cell += f" [{100 * r['lo']:.0f}-{100 * r['hi']:.0f}]"
    return cell


def _columns(heads: list[str], rows: list[list[str]], top: list[tuple[str, int]] | None = None) -> list[str]:
    """A little table: each column as wide as its head or widest cell, two spaces apart; ``top``: heads above,
    each ``(text, columns it spans)`` (a span widens its last column if its text needs it)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]
    lines = []
    if top:
        at, cells = 0, []
        for text, span in top:
            room = sum(widths[at:at + span]) + 2 * (span - 1)
            if len(text) > room:
                widths[at + span - 1] += len(text) - room
                room = len(text)
            cells.append(f"{text:<{room}}")
            at += span
        lines.append("  ".join(cells).rstrip())
    for r in [heads, *rows]:
        lines.append("  ".join(f"{c:<{w}}" for c, w in zip(r, widths)).rstrip())
    return lines


def scorecard_lines(s: dict, rows: dict[str, dict[str, dict]], names: dict[str, str], width: int = 80) -> list[str]:
    """The scorecard under the skill table: relative skill, its two effects and the coin-flip equivalent, one row
    per ruleset; a sentence reading the first ruleset's coin flips; then restricted play, one row per ruleset.
    ``names``: the ladder's labels by their short names in the table."""
    card = s["scorecard"]
    spec_name = lambda spec: (names.get(s["labels"][s["strategies"].index(spec)], spec)  # noqa: E731
                              if spec in s["strategies"] else spec.split(":")[0])
    w = 13
    name = lambda label: label if len(label) <= w else label[:w - 1] + "…"  # noqa: E731
    lines = [""]
    if any("relative_skill" in rows.get(rs["label"], {}) for rs in s["rulesets"]):
        lines += textwrap.wrap(_("scorecard (95% CI): relative skill = the best's edge over {beginner} as a share "
                                 "of the oracle's, the learning and random effects in points per hand, the coin-"
                                 "flip equivalent (docs/skill.md)").format(beginner=spec_name(card["beginner"])), width)
        table = []
        for rs in s["rulesets"]:
            got = rows.get(rs["label"], {})
            table.append([name(rs["label"]), _pm(got.get("relative_skill"), "{:.2f}"),
                          _pm(got.get("relative_skill_hands"), "{:.2f}"),
                          _pm(got.get("learning_effect"), "{:+.2f}", "{:.2f}"),
                          _pm(got.get("random_effect"), "{:+.2f}", "{:.2f}"), _pct(got.get("coin_flip"))])
        lines += _columns([_("ruleset"), _("oracle"), _("hands"), _("learning"), _("random"), _("results")], table,
                          [("", 1), (_("relative skill"), 2), (_("effect, pts/hand"), 2), (_("coin flip"), 1)])
    first = rows.get(s["rulesets"][0]["label"], {}).get("coin_flip") if s["rulesets"] else None
    if first and first["estimate"] is not None:
        lines += textwrap.wrap(_("{ruleset} plays like a game in which the stronger of any two of these players "
                                 "always wins, with {share} of its results replaced by coin flips.").format(
                                     ruleset=s["rulesets"][0]["label"],
                                     share=percent(f"{100 * first['estimate']:.0f}")), width)
    lines += [""] + textwrap.wrap(_("restricted play: points per hand {base} makes against itself not pursuing "
                                    "each element (its weight 0; 95% CI)").format(base=spec_name(card["restricted"])),
                                  width)
    table = [[name(rs["label"]), *(_pm(rows.get(rs["label"], {}).get(m), "{:+.2f}", "{:.2f}") for m in
              ("restricted_cards", "restricted_oros", "restricted_sevens", "restricted_siete", "restricted_escobas"))]
             for rs in s["rulesets"]]
    lines += _columns([_("ruleset"), _("cards"), _("oros"), _("sevens"), _("7 of oros"), _("escobas")], table)
    drama = [rs for rs in s["rulesets"] if "lead_changes" in rows.get(rs["label"], {})]
    if drama:
        lines += [""] + textwrap.wrap(_("drama: games of {base} against itself (95% CI): how often the expected "
                                        "winner changes, how often the side behind before the last hand wins, "
                                        "the spread of a game's length").format(base=spec_name(card["restricted"])),
                                      width)
        table = [[name(rs["label"]), _pm(rows[rs["label"]].get("lead_changes"), "{:.2f}"),
                  _pct(rows[rs["label"]].get("comebacks")), _pm(rows[rs["label"]].get("hands_spread"), "{:.2f}")]
                 for rs in drama]
        lines += _columns([_("ruleset"), _("per game"), _("of games"), _("hands"), ""], [r + [""] for r in table],
                          [("", 1), (_("lead changes"), 1), (_("comebacks"), 1), (_("length sd"), 1)])
        errors = ", ".join(f"{c['label']} {c['error']:.3f}" for c in s.get("calibration") or [])
        if errors:
            lines += textwrap.wrap(_("its win-probability model's calibration error on games it did not see: "
                                     "{errors}").format(errors=errors), width, subsequent_indent="  ")
    return lines
