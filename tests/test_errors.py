"""The error base (escoba_sim/errors.py) and the command line's one rendering path (cli/errors.py): a Python
caller reads the library's parameter names, the command line its flags, and a command as escoba-sim argv."""

import click

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
