"""Spanish output (docs/translating.md): the terminal tables of run, compare, tournament and skill, the report
page and its charts' words speak Spanish under ``i18n.use("es")``, with no English sentence left; English stays
as it was; and every file a program reads is the same whatever the language."""

import json
import re
from pathlib import Path

import pytest
from helpers import needs_core

from escoba_sim import i18n
from escoba_sim.output import console, report, skill_table, views
from escoba_sim.runs import runner
from escoba_sim.runs import spec as runspec
from escoba_sim.series import compare, skill, tournament

KINDS = ("run", "compare", "tournament", "skill")

# English words that are not Spanish: any of them in a Spanish page or table is a message left untranslated
ENGLISH = set("""
the of and or per with under against each every all both first last than from into after before above below
within between over only never when which while whose this that these those its their his her our your
game games hand hands deal deals point points won win wins lost loss draw drawn played planned interval
intervals score scores rate rating ratings ruleset rulesets strategy strategies player players seed chunk
chunks rules pair pairs variant variants estimate estimates difference differences paired share ties tied
majority sevens cards bonuses charts tables folder provenance partial result results missing effect finish
round robin ladder skill dealer seat advantage lucky sides side category measure value likelihood
superiority undecided accepted bounds bound upper lower complete running interrupted incomplete stopped
duplicate pairing rotations engine column columns row opponent opponents mean scale distribution
convergence expected spread closest step steps neighbour needs match time outcome variance luck yet
highest rated ahead dead even raw data quantity name comparison tournament run dashed excludes dark unit
same unit
""".split())
# words that stay as they are in Spanish: strategy names, ruleset names and fields, statistics' names (the
# folders are named out_KIND: a folder's name is the user's, shown as it is)
ALLOWED = {"vs", "elo", "sprt", "llr", "bradley", "terry", "wilson", "csv", "png", "svg", "alpha", "beta", "h0", "h1",
           "greedy", "random", "maxoros", "ludoteka", "capture", "optional", "card", "escoba", "sim", "resume", "total"}


def english_words(text: str) -> set[str]:
    """The English words of ``text``, leaving out identifiers (``lucky_deal=off``, ``--vs``, file names)."""
    words = set()
    for token in text.split():
        token = token.strip(".,:;()[]*")
        if any(c in token for c in "=_/.#") and re.search(r"[a-z]", token) or token.startswith("-"):
            continue
        for w in re.findall(r"[A-Za-zÀ-ÿ]+", token):
            if w.lower() in ENGLISH and w.lower() not in ALLOWED:
                words.add(w)
    return words


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """The same small run, comparison, tournament and skill ladder, played and reported under each language."""
    out = {}
    for lang in ("es", "en"):
        base = tmp_path_factory.mktemp(f"folders_{lang}")
        with i18n.use(lang):
            compare.compare(compare.build_variants([], ["capture=card,optional"]), "greedy", "maxoros", 40,
                            base / "out_compare", seed=1, chunk_size=10)
            tournament.tournament(["greedy", "random"], 40, base / "out_tournament", seed=1, chunk_size=10)
            runner.run(runspec.make_spec("greedy", ["random"], "ludoteka", 40, seed=1, chunk_size=10), base / "out_run")
            skill.skill(skill.skill_variants([], ["lucky_deal=escobas,off"]), ["random", "greedy"], 40,
                        base / "out_skill", seed=1, chunk_size=10)
            for kind in KINDS:
                report.write_report(base / f"out_{kind}")
        out[lang] = base
    return out


def terminal(kind: str, summary: dict, lang: str) -> str:
    from rich.console import Console

    con = Console(width=80, record=True, file=open("/dev/null", "w"))
    with i18n.use(lang):
        if kind == "run":
            console.print_report(summary, con)
            con.print(console.standings_line(summary))
        elif kind == "compare":
            console.print_compare(summary, con)
        elif kind == "tournament":
            console.print_tournament(summary, con)
        else:
            con.print("\n".join(skill_table.skill_lines(summary)))
    return con.export_text()


@pytest.mark.parametrize("kind", KINDS)
def test_the_terminal_tables_are_spanish(folders, kind):
    summary = json.loads((folders["es"] / f"out_{kind}" / "summary.json").read_text())
    es, en = terminal(kind, summary, "es"), terminal(kind, summary, "en")
    assert not english_words(es), f"English left in the Spanish {kind} tables: {sorted(english_words(es))}"
    assert english_words(en), "the word list finds the English of the same tables"  # the check can fail
    assert "partidas" in es or "manos" in es


def page_text(html: str) -> str:
    """What a person reads on the page: no style, scripts, images' data or the provenance's raw JSON."""
    html = re.sub(r"<(style|script|pre)[^>]*>.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r'(src|href)="data:[^"]*"', " ", html)
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.parametrize("kind", KINDS)
def test_the_report_page_is_spanish(folders, kind):
    es = (folders["es"] / f"out_{kind}" / "report" / "index.html").read_text()
    en = (folders["en"] / f"out_{kind}" / "report" / "index.html").read_text()
    assert '<html lang="es">' in es and '<html lang="en">' in en
    assert not english_words(page_text(es)), sorted(english_words(page_text(es)))
    assert english_words(page_text(en))
    assert "Gráficos" in es and "Procedencia" in es


@pytest.mark.parametrize("kind", KINDS)
def test_the_charts_words_are_spanish(folders, kind):
    """Titles, axis labels, legends and colour bars of every chart (the images draw text as paths)."""
    import matplotlib.text

    from escoba_sim.output import charts

    k, manifest, tables = views.read_folder(folders["es"] / f"out_{kind}")
    with i18n.use("es"):
        texts = []
        for c in views.chart_list(k, tables, manifest):
            fig = charts.new_figure(c.width, c.height)
            c.draw(fig)
            texts += [c.title] + [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
    text = "\n".join(texts)
    assert texts and not english_words(text), sorted(english_words(text))


def _neutral(path: Path) -> bytes:
    """A file's bytes, a JSON file's without the clock's fields (times and speeds differ between any two runs)."""
    data = path.read_bytes()
    if path.suffix != ".json":
        return data

    def drop(x):
        if isinstance(x, dict):
            return {k: drop(v) for k, v in x.items() if k not in ("started", "ended", "seconds", "hands_per_second")}
        return [drop(v) for v in x] if isinstance(x, list) else x
    return json.dumps(drop(json.loads(data)), sort_keys=True).encode()


def test_the_files_programs_read_do_not_change_with_the_language(folders):
    es, en = folders["es"], folders["en"]
    names = sorted(p.relative_to(es) for p in es.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(en) for p in en.rglob("*") if p.is_file())
    for_people = [n for n in names if n.parts[-2:-1] == ("report",) and n.suffix in (".html", ".png", ".svg")]
    assert len(for_people) > 20  # every kind's page and charts differ: they are translated
    for name in names:
        if name not in for_people:
            assert _neutral(es / name) == _neutral(en / name), name
    assert any(n.name == "summary.json" for n in names) and any(n.suffix == ".parquet" for n in names)


def test_summary_json_keeps_english_reasons_and_the_page_translates_them(folders):
    summary = json.loads((folders["es"] / "out_compare" / "summary.json").read_text())
    reason = summary["no_effect"][0]["reason"]
    assert "always capture" in reason
    with i18n.use("es"):
        assert "siempre capturan" in compare.no_effect_text(summary, summary["no_effect"][0])
    assert compare.no_effect_text(summary, summary["no_effect"][0]) == reason


def test_use_chooses_the_language_of_a_block_and_english_is_the_default():
    assert i18n.current() == "en" and i18n.translate("games") == "games"
    with i18n.use("es_ES.UTF-8"):
        assert i18n.current() == "es" and i18n.translate("games") == "partidas"
        with i18n.use("en"):
            assert i18n.translate("games") == "games"
        assert i18n.translate("W/D/L") == "G/E/P"
    assert i18n.current() == "en"


def test_errors_of_a_series_are_spanish_too():
    with i18n.use("es"), pytest.raises(tournament.TournamentError, match="un torneo necesita dos o más"):
        tournament.tournament(["greedy"], 10, "/nonexistent/never-written")


def test_errors_of_a_run_and_a_tune_are_spanish_too(tmp_path):
    from escoba_sim import tune

    with i18n.use("es"):
        with pytest.raises(runspec.RunError, match="da al menos un rival con vs$") as raised:
            runspec.make_spec("greedy", [], "ludoteka", 10)
        assert raised.value.render(lambda name: "--" + name) == "da al menos un rival con --vs"
        with pytest.raises(runspec.RunError, match="aquí no hay ninguna serie"):
            runner.resume(tmp_path / "nothing")
    with pytest.raises(runspec.RunError, match="give at least one opponent with vs$"):
        runspec.make_spec("greedy", [], "ludoteka", 10)
    needs_core("tune")  # a tune's spec is refused on the reference engine before its parameters are read
    with i18n.use("es"):
        with pytest.raises(tune.TuneError, match="^popsize debe ser al menos 2") as raised:  # the parameter's name
            tune.make_tune_spec("heuristic", pool=["greedy"], popsize=1)
        assert raised.value.render(lambda name: "--" + name) == "--popsize debe ser al menos 2"  # as the CLI says it


def test_a_report_of_no_folder_says_so_in_spanish(tmp_path):
    with i18n.use("es"), pytest.raises(report.ReportError, match="no hay manifest.json"):
        report.write_report(tmp_path)


def test_a_series_folder_that_holds_something_else_says_so_in_spanish(tmp_path):
    (tmp_path / "stray.txt").write_text("not a series")
    with i18n.use("es"), pytest.raises(tournament.TournamentError, match="no contiene ningún torneo"):
        tournament.tournament(["greedy", "random"], 10, tmp_path, seed=1)
