"""One error base: every exception class of escoba_sim is an ``EscobaError`` (a one-line error a person can act
on, which each front end renders in its own words: ``cli.errors.reporting`` catches it for every command), save
the few that steer the program rather than tell a person something; and an ``EscobaError`` raised in a worker
process (a run's process pool, a Dask worker) comes back to the parent whole, with its fields."""

import concurrent.futures as cf
import importlib
import multiprocessing as mp
import pickle
import pkgutil

import numpy as np

import escoba_sim
from escoba_sim.cli.errors import render
from escoba_sim.errors import Command, EscobaError, Parameter

# not EscobaErrors, and why: each is caught by the code that raises it (or by the command line, to end the
# program its own way) and never shown to a person as it is
CONTROL_FLOW = {
    # the person typed q or the input ended: the session stops and saves the hand (hands/play.py)
    "escoba_sim.hands.play.Quit": "the person stopped the hand",
    # Ctrl-C or SIGTERM during a run: the command line says what is saved and exits 130 or 143 (cli/running.py)
    "escoba_sim.runs.runner.RunInterrupted": "a stop by a signal, not an error",
    # a chunk's error (or a dead worker) on its way from the pool to the runner, which words it as a RunError
    "escoba_sim.runs.executor.ChunkFailed": "carries a chunk's error to the runner",
    # an ImportError by nature: the compiled core did not load where it was required (ESCOBA_SIM_REQUIRE_CORE=1)
    "escoba_sim.native.CoreUnavailable": "an import failure, caught as ImportError",
    # a verdict on one sealed file: the runner replays the chunk and sets the file aside; a folder's reader
    # words it as the {problem} of its own error (FolderError, ReportError): its message is a fragment
    "escoba_sim.folders.Damaged": "a file to replay or the problem inside a folder's error",
}


def exception_classes() -> dict[str, type]:
    """Every exception class defined in escoba_sim, by module walk (a module needing a missing extra is skipped)."""
    found = {}
    for info in pkgutil.walk_packages(escoba_sim.__path__, "escoba_sim."):
        if info.name.endswith("__main__"):  # runs the command line when imported
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            continue
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == module.__name__:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_every_error_of_the_package_is_an_escoba_error_but_control_flow():
    classes = exception_classes()
    # the walk sees the package's errors (a walk that found nothing would pass)
    assert {"escoba_sim.game.cards.CardError", "escoba_sim.runs.spec.RunError", "escoba_sim.files.UntrustedFile",
            "escoba_sim.strategies.errors.PluginError", "escoba_sim.hands.evaluate.EvaluationError"} <= set(classes)
    assert set(CONTROL_FLOW) <= set(classes), "a listed control-flow exception is gone: drop it from the list"
    not_based = sorted(name for name, cls in classes.items() if not issubclass(cls, EscobaError))
    assert not_based == sorted(CONTROL_FLOW), "derive from EscobaError (or list it here, with the reason)"


def test_an_error_that_was_a_runtime_error_still_is_one():
    from escoba_sim.hands.evaluate import EvaluationError
    from escoba_sim.runs.aggregates import ChunkOverflow
    from escoba_sim.runs.cluster import ClusterError

    assert issubclass(EvaluationError, RuntimeError) and issubclass(ClusterError, RuntimeError)
    assert issubclass(ChunkOverflow, OverflowError)


def test_a_message_given_whole_is_not_formatted():
    from escoba_sim.game.cards import CardError
    from escoba_sim.strategies.errors import PluginError

    assert str(CardError("`{x}`: not a card {}")) == "`{x}`: not a card {}"
    e = PluginError("p{1}.py:Cls", "returned {'card': 3}", seat=1)
    assert str(e) == "strategy plugin `p{1}.py:Cls` (seat 1): returned {'card': 3}" == render(e)


def round_trip(e: BaseException) -> BaseException:
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is type(e) and str(back) == str(e) and back.args == e.args
    return back


def test_an_escoba_error_survives_pickle_with_its_fields():
    from escoba_sim.runs.spec import RunError

    e = RunError("{folder}: {n} chunks; use {out}; continue with: {command}", parameter="out", folder="runs/a",
                 resume=("resume", "runs/a"), n=3, out=Parameter("out"), command=Command(("resume", "runs/a")))
    back = round_trip(e)
    assert back.template == e.template and back.fields == e.fields and isinstance(back.fields["out"], Parameter)
    assert (back.parameter, back.folder, back.resume) == ("out", "runs/a", ("resume", "runs/a"))
    assert isinstance(back.resume, Command)
    assert render(back) == "runs/a: 3 chunks; use --out; continue with: escoba-sim resume runs/a"


def test_a_subclass_with_its_own_arguments_survives_pickle():
    from escoba_sim.game.rules import RulesError
    from escoba_sim.hands.table import SaveFailed
    from escoba_sim.runs.cluster import ClusterError
    from escoba_sim.strategies.errors import PluginError
    from escoba_sim.web.games import WebError

    cause = OSError(28, "No space left on device")
    back = round_trip(SaveFailed("cannot save {path} ({reason})", cause=cause, path="p/h.json", reason="full"))
    assert back.cause.errno == 28 and back.fields == {"path": "p/h.json", "reason": "full"}
    back = round_trip(PluginError("p.py:C", "raised KeyError", seat=1, move=4).at("game 2 hand 0"))
    assert (back.plugin, back.what, back.seat, back.move, back.where) == ("p.py:C", "raised KeyError", 1, 4,
                                                                         "game 2 hand 0")
    assert round_trip(WebError("the hand {x} is over", 409, x=1)).status == 409
    assert round_trip(RulesError("target: {must} be {}")).template == "target: {must} be {}"
    round_trip(ClusterError("the scheduler {scheduler} is gone", scheduler=Parameter("scheduler")))
    e = EscobaError("{problem}", problem=EscobaError("use {out}", out=Parameter("out")))
    e.add_note("a note")
    back = round_trip(e)
    assert render(back) == "use --out" and back.__notes__ == ["a note"]


def test_an_escoba_error_raised_in_a_worker_process_comes_back_whole():
    from escoba_sim.runs.aggregates import ChunkOverflow, deal_moments

    deal = np.zeros((4, 14), np.int64)
    deal[0, 0] = 2**31
    with cf.ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:  # as the runner's
        error = pool.submit(deal_moments, deal, 14).exception(timeout=120)
    assert isinstance(error, ChunkOverflow) and error.fields == {"deals": 4, "top": 2**31, "chunk_size": "chunk_size"}
    assert render(error).endswith("use a smaller --chunk")
