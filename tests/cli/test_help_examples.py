"""Every example of every command's --help, and every command line of the README, runs when pasted.

The examples are taken from the text a person reads (``escoba-sim CMD --help`` and README.md's code
blocks), run by a shell in one temporary folder in the order they are printed, with sizes made
small (``SMALL``). An example may use a folder or file another example writes (``report cmp2``
after the ``compare ... --out cmp2`` example): one that fails is tried again once after all the
others, and must pass then. Examples that need what a test machine has not (a Dask cluster, a
browser) are listed in ``NOT_RUN`` with the reason, and that list must match examples that exist.
The default suite runs the examples of the quick commands (``QUICK``, about 12 s); the slow suite
runs them all (about a minute on two busy cores).
"""

import os
import re
import shlex
import subprocess
import sys

import click
import pytest
from helpers import REPO

from escoba_sim import native
from escoba_sim.cli import main

# sizes that keep an example to a second or so; the command line is otherwise the one printed
SMALL = [
    (r"(?<=\s)-n ([0-9.e]+)", lambda m: f"-n {min(float(m.group(1)), 200):g}"),
    (r"--evals \d+", "--evals 4"),
    (r"--games [0-9.e]+", "--games 100"),
    (r"--seconds [0-9.]+", "--seconds 0.2"),
    (r"--samples \d+", "--samples 100"),
    (r"&& chromium (\S+)", r"&& test -f \1"),  # the page exists where the example opens it
]
# (a piece of the example, why it is not run)
NOT_RUN = [
    ("--scheduler tcp://", "needs a Dask scheduler at that address"),
    ("escoba-sim serve", "a server runs until it is stopped (tests/web plays its page)"),
]
# the commands whose examples take under a second: the default suite runs these; runs, comparisons,
# tournaments, reports and bench (a process pool or matplotlib, 1-6 s each) run in the slow suite
QUICK = {"trace", "replay", "moves", "play", "analyze", "rules", "strategies"}
# (a piece of the example, why it is slow although its command is quick)
SLOW = [
    ("play --vs ismcts", "a full game against the search"),
    ("--teams --partner ismcts", "a full game with the search as partner"),
    ("tune ", "tuning (even a few evaluations start CMA-ES and a pool)"),
    ("--scheduler local", "starts a local Dask cluster"),
    ("--design-effects", "eleven rulesets"),
    ("escoba-play/6-g0-h0", "reads the hand of the game against ismcts"),
    ("tune1/best.toml", "reads what tune writes"),
    ("t3/runs/00/records", "reads a record of the tournament example"),
]
# (a piece of the example, what of the compiled core it needs): not run when the reference engine plays
CORE = [
    ("ismcts", "ismcts"),
    ("--analyze", "the hint evaluator"),
    ("escoba-sim analyze ", "the hint evaluator"),
]
ANSWERS = "1\n" * 3000  # stdin for `play`: always the first move


def help_examples() -> list[tuple[str, str]]:
    """(where, command line) for each example line of each command's --help, in command order."""
    out = []

    def walk(cmd, path):
        lines = (cmd.help or "").splitlines()
        for i, line in enumerate(lines):
            text = line.strip()
            while text.endswith("\\") and i + 1 < len(lines):  # a line continued on the next
                i += 1
                text = text[:-1] + lines[i].strip()
            if text.startswith("escoba-sim "):
                out.append((" ".join(path) + " --help", text))
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                walk(sub, path + [name])

    walk(main, ["escoba-sim"])
    return out


def readme_examples() -> list[tuple[str, str]]:
    """(where, command line) for each README code line that starts with ``escoba-sim`` (or ``$ escoba-sim``)."""
    out, fenced = [], False
    for line in (REPO / "README.md").read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not (fenced or line.startswith("    ")):
            continue
        text = line.strip().removeprefix("$ ")
        if " && escoba-sim " in text and not text.startswith("escoba-sim "):  # `pip install ... && escoba-sim run`
            text = text[text.index(" && ") + 4:]
        if text.startswith("escoba-sim "):
            out.append(("README.md", text))
    return out


def small(command: str) -> str:
    """The example with small sizes; a run, compare, tournament or skill without -n gets one, a skill without
    --ladder a cheap one."""
    command, _, _ = command.partition("  # ")  # the comment after an example
    for pattern, repl in SMALL:
        command = re.sub(pattern, repl, command)
    if re.match(r"escoba-sim (run|compare|tournament) ", command) and not re.search(r"\s-n ", command):
        command += " -n 200"
    if re.match(r"escoba-sim skill\b", command):  # the default ladder's ismcts takes minutes per ruleset
        if not re.search(r"\s-n ", command):
            command += " -n 40"
        if "--ladder" not in command:
            command += " --ladder random,greedy,maxoros"
    return command


def reason(command: str, table) -> str | None:
    return next((why for piece, why in table if piece in command), None)


def playable(command: str) -> bool:
    """Not an example that needs the compiled core when the reference engine plays (``CORE``)."""
    return native.ENGINE == "cython" or not reason(command, CORE)


@pytest.fixture(scope="module")
def shell_env(tmp_path_factory):
    """A PATH whose ``escoba-sim`` is this checkout's, whatever is installed."""
    bin_dir = tmp_path_factory.mktemp("bin")
    shim = bin_dir / "escoba-sim"
    shim.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c "
                    f"'from escoba_sim.cli import main; main()' \"$@\"\n")
    shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", COLUMNS="80",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    return env


def run_all(examples, folder, env) -> list[str]:
    """Run the examples in order in ``folder``; a failure is retried once after the rest. The failures."""
    def attempt(command):
        p = subprocess.run(["bash", "-c", "set -o pipefail; " + small(command)], cwd=folder, env=env, input=ANSWERS,
                           capture_output=True, text=True, timeout=300)
        return p.returncode, (p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or [""])[-1]

    failed = [(where, c) for where, c in examples if attempt(c)[0] != 0]
    problems = []
    for where, command in failed:
        code, last = attempt(command)
        if code != 0:
            problems.append(f"{where}: `{command}` exits {code}: {last}")
    return problems


def test_every_example_is_found_and_the_lists_name_real_examples():
    examples = help_examples()
    lines = [c for _, c in examples] + [c for _, c in readme_examples()]
    assert len(examples) >= 30 and len(readme_examples()) >= 5
    for piece, _ in NOT_RUN + SLOW + CORE:
        assert any(piece in c for c in lines), f"{piece!r} names no example: remove it"
    # an example is one command line a person can paste: no placeholders
    for where, c in examples:
        assert "..." not in c and not re.search(r"\b(FILE|DIR|SPEC|RULES)\b", c), (where, c)


def test_every_quick_example_runs_when_pasted(tmp_path, shell_env):
    chosen = [(w, c) for w, c in help_examples() + readme_examples()
              if c.split()[1] in QUICK and not reason(c, NOT_RUN) and not reason(c, SLOW)
              and not re.search(r"\| escoba-sim (?!replay)", c) and playable(c)]
    assert run_all(chosen, tmp_path, shell_env) == []


@pytest.mark.slow
def test_every_example_runs_when_pasted(tmp_path, shell_env):
    chosen = [(w, c) for w, c in help_examples() + readme_examples() if not reason(c, NOT_RUN) and playable(c)]
    assert run_all(chosen, tmp_path, shell_env) == []
