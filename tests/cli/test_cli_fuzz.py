"""Property test (issue 11): the CLI entry points under generated arguments and files.

Whatever hypothesis passes to `rules show`, `moves`, `trace`, `replay` and `run` (tiny -n), or however it
edits a finished tune folder before `tune` runs again on it (issue 25), the command
ends with exit 0, 1 or 2, never raises (no traceback), and writes at most a few lines on stderr.
Arguments mix valid values with hostile ones (long strings, huge or odd numbers, junk text, NUL bytes);
files mix valid hand records with one field replaced by any JSON value, arbitrary JSON and raw bytes.
The repeatable profile (tests/conftest.py) makes every run test the same examples.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from click.testing import CliRunner
from helpers import needs_core
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from escoba_sim.cli import main
from escoba_sim.hands.record import record_for_hand

# examples per command: enough to cover the vocabularies below, few enough for the default suite
# (FUZZ_EXAMPLES=400 HYPOTHESIS_PROFILE=explore for a deeper search)
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", 40))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])

junk = st.text(max_size=40) | st.text(alphabet="()=,.:/_-eE+0123456789 \0", max_size=300)
huge = st.sampled_from(["1e400", "1e20", str(2**63), str(2**64 + 5), "-1", "0", "-5", "nan", "inf", "1.5", "1e-3",
                        "9" * 5000, "0x10", "1_000", "2.5e1", ""])
number = st.integers(-10, 2**66).map(str) | huge
rules = st.sampled_from(["ludoteka", "tradicional", "cardgames", "robo", "ludoteka(players=3)",
                         "cardgames(players=4,teams=yes)", "ludoteka(capture=any,target=5)", "ludoteka(soplar=yes)",
                         "tradicional(players=6)", "ludoteka(" + ",".join(["target=21"] * 30) + ")",
                         "ludoteka(" + " " * 260 + "target=21)", "ludoteka(target=" + "9" * 50 + ")",
                         "ludotek", "nothere.toml", "a/b"]) | junk
strategy = st.sampled_from(["greedy", "random", "maxoros", "sevens", "defensive", "heuristic:oros=2,risk=1",
                            "endgame:max_cards=4", "gredy", "heuristic:oros=nan", "heuristic:x=1", "ismcts:iters=0",
                            "nothere.py:Bot", "x.py", "heuristic:missing.toml", ""]) | junk
cards = st.lists(st.sampled_from(["1o", "7o", "Rb", "5b", "3c", "Sc", "Ce", "7e", "1e", "Xx", "10o", "8b", "7"]),
                 max_size=12).map(" ".join) | junk


def _deck():
    return " ".join(record_for_hand("ludoteka", ["greedy", "greedy"], 1)["deck"].split())


def options(spec: dict[str, st.SearchStrategy]) -> st.SearchStrategy[list[str]]:
    """Any subset of the options, each with a generated value (flags: value None), in any order."""
    items = [st.tuples(st.just(k), v) for k, v in spec.items()]
    return st.lists(st.one_of(*items), max_size=len(items)).map(
        lambda pairs: [x for k, v in pairs for x in ([k] if v is None else [k, v])])


def check(args: list[str], input: str | bytes | None = None) -> None:
    r = CliRunner().invoke(main, args, input=input)  # catch_exceptions: an exception is the failure we look for
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise AssertionError(f"{args!r} raised {type(r.exception).__name__}: {r.exception}") from r.exception
    assert r.exit_code in (0, 1, 2), (args, r.exit_code, r.stderr)
    assert "Traceback" not in r.stderr, (args, r.stderr)
    lines = [line for line in r.stderr.split("\n") if line.strip()]  # "\n" only: echoed input may hold \x1e
    assert len(lines) <= 5, (args, r.stderr)  # click's usage lines (2) + one error, or a note or two
    if r.exit_code != 0:
        assert any(line.startswith("Error") for line in lines) or lines == [], (args, r.stderr)


@FUZZ
@given(st.one_of(rules, st.just("--json")), st.booleans())
def test_rules_show(ruleset, as_json):
    check(["rules", "show", ruleset] + (["--json"] if as_json else []))


@FUZZ
@given(options({"--hand": cards, "--table": cards, "-r": rules, "--json": st.none()}))
def test_moves(args):
    check(["moves", *args])


@FUZZ
@given(strategy, strategy,
       options({"--vs": strategy, "--seed": number, "--game": number, "--hand-index": number, "--dealer": number,
                "--deck": cards | st.just(_deck()), "-r": rules, "--json": st.none()}))
def test_trace(first, second, args):
    check(["trace", "-s", first, "--vs", second, *args])


@st.composite
def record_files(draw):
    """A hand record with one field replaced (or any JSON, or raw bytes), as the bytes of a file."""
    kind = draw(st.sampled_from(["field", "move", "json", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    value = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=20),
                         lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids,
                                                                                  max_size=4), max_leaves=12)
    if kind == "json":
        return json.dumps(draw(value)).encode()
    rec = record_for_hand(draw(st.sampled_from(["ludoteka", "tradicional"])), ["greedy", "random"],
                          draw(st.integers(0, 3)))
    if kind == "field":
        key = draw(st.sampled_from(["strategies", "seed", "game", "hand", "rules", "dealer", "deck", "moves", "score",
                                    "format", "version", "extra"]))
        rec[key] = draw(value | st.sampled_from(["ludoteka", ["x.py:P", "greedy"], "x.py:P"]))
    else:
        i = draw(st.integers(0, len(rec["moves"]) - 1))
        key = draw(st.sampled_from(["player", "card", "take", "escoba", "soplar"]))
        rec["moves"][i][key] = draw(value)
    return json.dumps(rec).encode()


@FUZZ
@given(record_files(), st.booleans(), st.booleans())
def test_replay(tmp_path_factory, data, as_json, stdin):
    args = ["replay"]
    if stdin:
        check(args + ["-"] + (["--json"] if as_json else []), input=data)
    else:
        f = tmp_path_factory.mktemp("rec") / "h.json"
        f.write_bytes(data)
        check(args + [str(f)] + (["--json"] if as_json else []))


@FUZZ
@given(strategy, strategy,
       options({"--vs": strategy, "-r": rules, "--seed": number, "--chunk": number,
                "--pairing": st.sampled_from(["duplicate", "independent", "x"]), "--hands": st.none(),
                "--teams": st.none(), "--sprt": st.sampled_from(["elo0=0,elo1=20", "elo0=5", "x", "elo0=nan,elo1=1"]),
                "--json": st.none()}),
       st.integers(1, 24).map(str) | st.sampled_from(["1e400", "1e20", str(2**63), "-3", "0", "2.5", "1e15", "x"]))
def test_run(first, second, args, n):
    check(["run", "-s", first, "--vs", second, "-n", n, "-j", "1", "-q", *args])



# ---------------------------------------------------------------- tune folders (issue 25, finding 5)

TUNE_ARGS = ["heuristic", "--param", "risk", "--evals", "4", "--popsize", "2", "--games", "20", "--check", "20",
             "--seed", "3"]


@st.composite
def tune_edits(draw):
    """One file of a finished tune folder replaced by any JSON, raw bytes, or itself with one field changed."""
    name = draw(st.sampled_from(["manifest.json", "check.json", "summary.json", "evals/g0000-c00.json",
                                 "evals/g0001-c01.json"]))
    kind = draw(st.sampled_from(["field", "field", "json", "bytes"]))
    value = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=20),
                         lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids,
                                                                                  max_size=4), max_leaves=12)
    if kind == "bytes":
        return name, kind, None, draw(st.binary(max_size=200))
    if kind == "json":
        return name, kind, None, draw(value)
    key = draw(st.sampled_from(["score", "lo", "hi", "x", "spec", "vs", "generation", "candidate", "deals",
                                "checksum", "kind", "format", "tuned", "points_per_hand", "seed", "history"]))
    return name, kind, key, draw(value | st.sampled_from(["high", "NaN", "Infinity", "1e309", "/dev/zero"]))


@FUZZ
@given(tune_edits())
def test_tune_folder(tmp_path_factory, edit):
    """Any edit of a tune folder's files: the same command re-evaluates or refuses, never a traceback."""
    pytest.importorskip("cma")
    needs_core("tune")
    base = _finished_tune(tmp_path_factory)
    out = tmp_path_factory.mktemp("tune") / "t"
    shutil.copytree(base, out)
    name, kind, key, value = edit
    p = out / name
    if kind == "bytes":
        p.write_bytes(value)
    elif kind == "json":
        p.write_text(json.dumps(value))
    else:
        data = json.loads(p.read_text())
        data[key] = value
        p.write_text(json.dumps(data))
    check(["tune", *TUNE_ARGS, "--out", str(out)])


_TUNE: dict = {}


def _finished_tune(factory):
    if "dir" not in _TUNE:
        out = factory.mktemp("tune-base") / "t"
        r = CliRunner().invoke(main, ["tune", *TUNE_ARGS, "--out", str(out)], catch_exceptions=False)
        assert r.exit_code == 0, r.stderr
        _TUNE["dir"] = out
    return _TUNE["dir"]
