"""The error base (escoba_sim/errors.py) and the command line's one rendering path (cli/errors.py): a Python
caller reads the library's parameter names, the command line its flags, and a command as escoba-sim argv."""

import click
import pytest

from escoba_sim.cli.errors import render
from escoba_sim.errors import Command, EscobaError, Parameter
from escoba_sim.hands.table import Table


def test_a_parameter_is_named_by_its_library_name_and_by_its_flag_on_the_command_line():
    err = EscobaError("{name} must be positive, got {chunk}", parameter="chunk_size",
                      name=Parameter("chunk_size"), chunk=0)
    assert str(err) == "chunk_size must be positive, got 0"
    assert isinstance(err, ValueError) and err.parameter == "chunk_size"

    @click.command()
    @click.option("--chunk", "chunk_size", type=int)
    def cmd(chunk_size):
        raise SystemExit(render(err))

    try:
        cmd.main(["--chunk", "1"], standalone_mode=False)
    except SystemExit as e:
        assert str(e) == "--chunk must be positive, got 0"


def test_a_command_and_a_folder_are_fields_of_the_message():
    err = EscobaError("{folder} is partial; continue with: {command}", folder="out/x", resume=("resume", "out/x"),
                      command=Command(("resume", "out/x")))
    assert str(err) == "out/x is partial; continue with: escoba-sim resume out/x"
    assert err.resume == ("resume", "out/x")


def test_a_library_caller_of_the_table_is_told_the_parameter_not_the_flag(tmp_path):
    from escoba_sim.game.rules import parse_rules

    try:
        Table(parse_rules("ludoteka"), [None, "greedy"], seed=1, out=tmp_path, samples=10**12)
    except EscobaError as e:
        assert str(e).startswith("samples: ") and "--samples" not in str(e)
    else:
        raise AssertionError("an impossible number of samples was accepted")


def test_an_error_re_raised_around_another_keeps_its_parameter_folder_and_resume_and_its_flags():
    inner = EscobaError("{name} must be positive", parameter="chunk_size", folder="out/x", resume=("resume", "out/x"),
                        name=Parameter("chunk_size"))
    outer = EscobaError.around(inner, "{label}: {problem}", label="ludoteka")
    assert str(outer) == "ludoteka: chunk_size must be positive"
    assert (outer.parameter, outer.folder, outer.resume) == ("chunk_size", "out/x", ("resume", "out/x"))

    @click.command()
    @click.option("--chunk", "chunk_size", type=int)
    def cmd(chunk_size):
        raise SystemExit(render(outer))

    try:
        cmd.main([], standalone_mode=False)
    except SystemExit as e:
        assert str(e) == "ludoteka: --chunk must be positive"


def _cli_of(error, *options) -> str:
    """What a command with ``options`` (click option declarations) says of ``error``."""
    def cmd(**kw):
        raise SystemExit(render(error))

    for decls in options:
        cmd = click.option(*decls)(cmd)
    try:
        click.command()(cmd).main([], standalone_mode=False)
    except SystemExit as e:
        return str(e)
    raise AssertionError("the command did not fail")


def test_series_tune_and_cluster_messages_name_parameters_for_python_and_flags_on_the_command_line():
    from escoba_sim.runs.cluster import SchedulerAddressError, connect
    from escoba_sim.series.compare import CompareError, build_variants
    from escoba_sim.series.skill import SkillError, check_ladder

    with pytest.raises(CompareError) as raised:
        build_variants(["ludoteka"], [])
    assert str(raised.value) == "give two or more rules, or one base rules with vary field=v1,v2"
    assert _cli_of(raised.value, ("--rules", "rules_list"), ("--vary",)) == \
        "give two or more --rules, or one base --rules with --vary field=v1,v2"
    with pytest.raises(CompareError) as raised:
        build_variants(["ludoteka"], ["nofield=1,2"])
    assert str(raised.value).startswith("vary: unknown rules field `nofield`")
    assert _cli_of(raised.value, ("--vary",)).startswith("--vary: unknown rules field `nofield`")

    with pytest.raises(SkillError) as raised:
        check_ladder(["greedy"])
    assert "(e.g. ladder random,greedy)" in str(raised.value) and "--ladder" not in str(raised.value)
    assert "(e.g. --ladder random,greedy)" in _cli_of(raised.value, ("--ladder",))

    with pytest.raises(SchedulerAddressError) as raised:
        connect("  ")
    assert str(raised.value) == "scheduler: give tcp://HOST:PORT or local"
    assert _cli_of(raised.value, ("--scheduler",)) == "--scheduler: give tcp://HOST:PORT or local"


@pytest.mark.core("tune")
def test_a_tune_s_arguments_are_named_by_parameter_and_by_flag():

    from escoba_sim.tune import TuneError, make_tune_spec

    with pytest.raises(TuneError) as raised:
        make_tune_spec("heuristic", sigma=0.0)
    assert str(raised.value).startswith("sigma must be a number above 0") and raised.value.parameter == "sigma"
    assert _cli_of(raised.value, ("--sigma", "sigma")).startswith("--sigma must be a number above 0")
    with pytest.raises(TuneError) as raised:
        make_tune_spec("heuristic", pool=())
    assert str(raised.value) == "give at least one pool strategy to tune against"
    assert _cli_of(raised.value, ("--vs", "pool")) == "give at least one --vs strategy to tune against"
