"""Issue 25: report escapes every value it writes and checks what it reads.

Markup is injected into every string field (and, for the first row of each list, every field of any
type) of the manifest.json and summary.json of every kind of folder report reads: the page holds no
injected tag, or report refuses the folder with one line and a non-zero exit (no traceback: the
CLI runs with exceptions propagating).
"""

import json
import shutil

import pytest

from escoba_sim.output import report
from escoba_sim.runs import runner
from escoba_sim.runs import spec as runspec
from escoba_sim.series import compare, tournament

PAYLOAD = '"><img src=x onerror=alert(1)><script>alert(1)</script>'
TAGS = ("<script>alert(1)", "<img src=x")
TEX = r" $\frac{$"  # a matplotlib label that is no valid TeX


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("untrusted")
    compare.compare(compare.build_variants([], ["lucky_deal=escobas,off"]), "greedy", "maxoros", 40,
                    base / "compare", seed=1, chunk_size=10)
    tournament.tournament(["greedy", "maxoros", "random"], 20, base / "tournament", seed=1, chunk_size=10)
    # a run with an SPRT: its summary.json's sprt is what report reads from a run's summary
    runner.run(runspec.make_spec("greedy", ["random"], "ludoteka", 400, seed=3, chunk_size=100,
                                 sprt=runspec.Sprt(0, 5)), base / "run")
    return base


def leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, (*path, i))
    else:
        yield path, value


def targets(data):
    """Every string field, and every field of any type whose list indices are all 0 (a wrong type)."""
    return [p for p, v in leaves(data) if isinstance(v, str) or all(i == 0 for i in p if isinstance(i, int))]


def put(data, path, value):
    data = json.loads(json.dumps(data))
    cur = data
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = value
    return data


def check(r, page, where):
    """Refused in one line with a non-zero exit, or a page without any injected tag."""
    if r.exit_code != 0:
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), (where, r.stderr)
        assert "Traceback" not in r.output
        return "refused"
    text = page.read_text()
    for tag in TAGS:
        assert tag not in text, f"{where}: the page holds the injected {tag!r}"
    return "escaped"


def reseal(d):
    """A crafted folder, not a damaged one: the manifest's checksums of the result files made to match them
    again (series.tables.write_results' list), so what is checked is the page's escaping, not the checksums."""
    import hashlib

    m = d / "manifest.json"
    manifest = json.loads(m.read_text())
    if isinstance(manifest, dict) and isinstance(manifest.get("results"), dict):
        manifest["results"] = {n: hashlib.sha256((d / n).read_bytes()).hexdigest() for n in manifest["results"]}
        m.write_text(json.dumps(manifest))


@pytest.fixture
def report_cli():
    from click.testing import CliRunner

    from escoba_sim.cli import main

    def invoke(*args):
        return CliRunner().invoke(main, ["report", *map(str, args)], catch_exceptions=False)

    return invoke


CASES = [("run", "manifest.json"), ("run", "summary.json"), ("compare", "manifest.json"),
         ("compare", "summary.json"), ("compare", "runs/00/manifest.json"), ("tournament", "manifest.json"),
         ("tournament", "summary.json"), ("tournament", "runs/01/manifest.json")]


@pytest.mark.parametrize("kind,name", CASES, ids=[f"{k}-{n}" for k, n in CASES])
def test_markup_in_every_field_is_escaped_or_refused(folders, tmp_path, report_cli, monkeypatch, kind,
                                                                name):
    d = tmp_path / kind
    shutil.copytree(folders / kind, d)
    path = d / name
    original = json.loads(path.read_text())
    # the page is what is checked here: charts are drawn for real in the test below, once per kind
    monkeypatch.setattr(report, "_draw", lambda c: {"png": b"png", "svg": b"<svg></svg>"}, raising=False)
    seen = {"refused": 0, "escaped": 0}
    for field in targets(original):
        path.write_text(json.dumps(put(original, field, PAYLOAD)))
        reseal(d)
        shutil.rmtree(d / "report", ignore_errors=True)
        seen[check(report_cli(d), d / "report" / "index.html", f"{name} {field}")] += 1
    path.write_text(json.dumps(original))
    assert seen["escaped"] > 0  # some fields are shown (escaped), not every one refused


@pytest.mark.filterwarnings("ignore:constrained_layout not applied")  # the long injected names
@pytest.mark.parametrize("kind", ["run", "compare", "tournament"])
def test_every_string_at_once_with_the_charts_drawn(folders, tmp_path, report_cli, kind):
    """Every string of summary.json and of the manifest at once, and of the table files, with text that is
    no valid TeX for matplotlib (``$``): the charts are drawn, the page escapes every one of them."""
    d = tmp_path / kind
    shutil.copytree(folders / kind, d)
    names = ["summary.json"] + (["manifest.json"] if kind != "run" else [])
    for name in names:
        data = json.loads((d / name).read_text())
        for field in [p for p, v in leaves(data) if isinstance(v, str)]:
            if field[-1] in ("run", "kind", "rules_digest", "llr"):
                continue  # what decides what is read (the kind, a series' run paths): checked one by one above
            data = put(data, field, f"{PAYLOAD}{field[-1]}{TEX}")
        (d / name).write_text(json.dumps(data))
    if kind != "run":
        import polars as pl

        for p in (d / "tables").glob("*.parquet"):
            df = pl.read_parquet(p)
            df.with_columns(*(pl.col(c) + PAYLOAD + TEX for c in ("label", "row", "col") if c in df.columns)) \
                .write_parquet(p)
        reseal(d)
    r = report_cli(d)
    assert r.exit_code == 0, r.output
    text = (d / "report" / "index.html").read_text()
    for tag in TAGS:
        assert tag not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # shown, escaped


@pytest.mark.parametrize("kind", ["compare", "tournament"])
def test_a_script_seed_is_refused_in_one_line(folders, tmp_path, report_cli, kind):
    d = tmp_path / kind
    shutil.copytree(folders / kind, d)
    s = json.loads((d / "summary.json").read_text())
    s["seed"] = "<script>alert(1)</script>"
    (d / "summary.json").write_text(json.dumps(s))
    reseal(d)  # crafted with matching checksums: the type check refuses it
    r = report_cli(d)
    assert r.exit_code != 0 and not (d / "report" / "index.html").exists()
    assert r.stderr.strip().splitlines() == [f"Error: {d / 'summary.json'}: `seed` is the string "
                                             f"'<script>alert(1)</script>', not an integer"]


@pytest.mark.parametrize("llr,ok", [("<script>alert(1)</script>", False), ([1], False), ("inf", True), (2.5, True)])
def test_report_shows_a_numeric_llr_and_refuses_one_of_another_type_in_one_line(folders, tmp_path, report_cli, llr, ok):
    d = tmp_path / "run"
    shutil.copytree(folders / "run", d)
    s = json.loads((d / "summary.json").read_text())
    assert s["sprt"] is not None
    s["sprt"]["llr"] = llr
    (d / "summary.json").write_text(json.dumps(s))
    r = report_cli(d)
    if ok:
        assert r.exit_code == 0 and f"LLR {llr if isinstance(llr, str) else f'{llr:.3f}'} " in \
            (d / "report" / "index.html").read_text()
    else:
        assert r.exit_code != 0
        line, = r.stderr.strip().splitlines()
        assert "summary.json" in line and "`sprt.llr`" in line and 'not a number, "inf" or "-inf"' in line


@pytest.mark.parametrize("damage", ["truncated", "garbage", "a folder", "wrong types", "a link to /dev/zero"])
def test_a_damaged_table_file_is_one_line(folders, tmp_path, report_cli, damage):
    import polars as pl

    d = tmp_path / "compare"
    shutil.copytree(folders / "compare", d)
    p = d / "tables" / "estimates.parquet"
    if damage == "truncated":
        p.write_bytes(p.read_bytes()[:100])
    elif damage == "garbage":
        p.write_bytes(b"PAR1" + b"\x00" * 50 + b"PAR1")
    elif damage == "a folder":
        p.unlink()
        p.mkdir()
    elif damage == "wrong types":
        pl.read_parquet(p).with_columns(pl.col("estimate").cast(pl.String)).write_parquet(p)
    else:
        p.unlink()
        p.symlink_to("/dev/zero")
    r = report_cli(d)
    assert r.exit_code != 0
    line, = r.stderr.strip().splitlines()
    assert str(p) in line


def test_markup_in_every_text_column_of_the_tables(folders, tmp_path, report_cli, monkeypatch):
    """Each text column of each table file (names, metrics, categories): escaped on the page, or refused."""
    import polars as pl

    monkeypatch.setattr(report, "_draw", lambda c: {"png": b"png", "svg": b"<svg></svg>"}, raising=False)
    seen = {"refused": 0, "escaped": 0}
    for kind in ("compare", "tournament"):
        d = tmp_path / kind
        shutil.copytree(folders / kind, d)
        for p in sorted((d / "tables").glob("*.parquet")):
            original = pl.read_parquet(p)
            for c, t in original.schema.items():
                if t != pl.String:
                    continue
                original.with_columns(pl.col(c) + PAYLOAD + "{0}{first.__class__}" + TEX).write_parquet(p)
                reseal(d)
                shutil.rmtree(d / "report", ignore_errors=True)
                seen[check(report_cli(d), d / "report" / "index.html", f"{p.name} {c}")] += 1
            original.write_parquet(p)
            reseal(d)
    assert seen["escaped"] > 0 and seen["refused"] > 0


def test_a_run_manifest_that_is_a_fifo_never_blocks_the_report(folders, tmp_path):
    import os
    import subprocess
    import sys

    d = tmp_path / "compare"
    shutil.copytree(folders / "compare", d)
    (d / "runs" / "01" / "manifest.json").unlink()
    os.mkfifo(d / "runs" / "01" / "manifest.json")
    r = subprocess.run([sys.executable, "-c", "from escoba_sim.cli import main; main()", "report", str(d)],
                       capture_output=True, text=True, timeout=120)
    # (the timeout above is the point: it used to block) the series' runs are verified before the page is made,
    # so the FIFO is refused in one line that names it and says how to rebuild that run (resume does, issue 36)
    assert r.returncode == 1 and r.stderr.strip().splitlines() == [
        f"Error: {d / 'runs' / '01' / 'manifest.json'}: cannot read the manifest (not a regular file); "
        f"rebuild it with: escoba-sim resume {d}"], r.stderr
