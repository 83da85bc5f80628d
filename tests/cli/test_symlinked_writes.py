"""Issue 25: no command writes through a symlink out of its folder.

For each command that writes files (run --out, compare, tournament, report, tune --out, play), the
command runs once to learn every file it writes; then, for each of those files, a fresh copy of the
folder has that file replaced by a symlink to a victim file outside the folder, and the command is
run again (or resumed): the victim is never changed, whether the command rewrites the file (it
replaces the link) or refuses the folder (one line, non-zero exit). The victim holds either the
file's own bytes (so a reader accepts it and the write happens) or other bytes. A symlinked sub
folder (chunks/, hands/, runs/NN, tables/, report/, evals/) is refused in one line and nothing is
written into the folder it points to. (`trace` writes no file: it prints.)
"""

import shutil

import pytest

from escoba_sim import native

RUN = ["run", "-s", "greedy", "--vs", "random", "-n", "40", "--chunk", "10", "--seed", "1", "--save-hands"]
COMPARE = ["compare", "--vary", "lucky_deal=escobas,off", "-n", "20", "--seed", "3"]
TOURNAMENT = ["tournament", "greedy", "random", "-n", "20", "--seed", "2"]
TUNE = ["tune", "heuristic", "--param", "risk", "--param", "escoba", "--evals", "4", "--games", "20",
        "--popsize", "2", "--check", "20", "--seed", "1"]
PLAY = ["play", "--vs", "greedy", "--seed", "5", "--hands", "-n", "1"]


@pytest.fixture
def invoke():
    from click.testing import CliRunner

    from escoba_sim.cli import main

    def run(args, input=None):
        return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)

    return run


def files_of(d):
    return sorted(p.relative_to(d) for p in d.rglob("*") if p.is_file() and not p.is_symlink())


def snapshot(d):
    return {p.relative_to(d): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


# command: (first run, run again, what the first run writes into: the folder, or its report/)
COMMANDS = {
    "run": (lambda d: RUN + ["--out", d], lambda d: ["resume", d], "."),
    "compare": (lambda d: COMPARE + ["--out", d], lambda d: ["resume", d], "."),
    "tournament": (lambda d: TOURNAMENT + ["--out", d], lambda d: ["resume", d], "."),
    "report": (None, lambda d: ["report", d], "report"),
    "tune": (lambda d: TUNE + ["--out", d], lambda d: TUNE + ["--out", d], "."),
}
CORE = {"tune": "tune"}  # the commands that need the compiled core: core-marked, not made on the reference engine


def params(rows):
    """The parameter rows (a command first), those of a CORE command with its core mark."""
    return [pytest.param(*row, marks=pytest.mark.core(CORE[row[0]])) if row[0] in CORE else pytest.param(*row)
            for row in rows]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Each command's folder, made once (the report of a run folder)."""
    from click.testing import CliRunner

    from escoba_sim.cli import main

    base = tmp_path_factory.mktemp("made")
    for name, (first, _, _) in COMMANDS.items():
        if name in CORE and native.ENGINE != "cython":
            continue
        d = base / name
        if name == "report":
            shutil.copytree(base / "run", d)
            args = ["report", d]
        else:
            args = first(d)
        r = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
        assert r.exit_code == 0, (name, r.output)
    return base


def refused_in_one_line_or_done(r):
    if r.exit_code != 0:
        lines = r.stderr.strip().splitlines()
        assert lines and lines[-1].startswith("Error: ") and "Traceback" not in r.output, r.output
        return False
    return True


@pytest.mark.parametrize("command", params((c,) for c in sorted(COMMANDS)))
def test_no_write_follows_a_symlink_out_of_the_folder(made, tmp_path, invoke, command):
    _, again, inside = COMMANDS[command]
    written = files_of(made / command / inside)
    assert len(written) >= 4, written
    # hand records (run --save-hands) are hundreds of files written alike: one per chunk, and the .done.json
    records = [p for p in written if p.parts[0] == "records" and len(p.parts) == 3]
    written = [p for p in written if p not in records] + [min(p for p in records if p.parent == d)
                                                          for d in {p.parent for p in records}]
    rewritten = 0
    for rel in written:
        # garbage in a deals/ file is finding 4's (deal files get a checksum), in a tune folder's JSON
        # finding 5's and 10's (tune validates its folder): here only their own bytes
        read_by_tune = command == "tune" and rel.suffix == ".json"
        for own_bytes in (True, False) if "deals" not in rel.parts and not read_by_tune else (True,):
            d = tmp_path / f"{command}-{len(list(tmp_path.iterdir()))}"
            shutil.copytree(made / command, d, symlinks=True)
            target = d / inside / rel
            victim = tmp_path / "victim"
            victim.write_bytes(target.read_bytes() if own_bytes else b"victim: never written\n")
            before = victim.read_bytes()
            target.unlink()
            target.symlink_to(victim)
            r = invoke(again(d))
            ok = refused_in_one_line_or_done(r)
            assert victim.read_bytes() == before, f"{command} wrote {rel} through a symlink into the victim"
            if ok and not target.is_symlink() and target.exists():
                rewritten += 1
            shutil.rmtree(d)
            victim.unlink()
    assert rewritten > 0  # some files were written again in place of the link (not only refusals)


# sub folder -> a chunk removed first (through the link when it is under it), so that the command must
# write into the sub folder again
SUBFOLDERS = {
    "run": {"chunks": "chunks/chunk-000001.parquet", "hands": "chunks/chunk-000001.parquet",
            "records": "records/chunk-000001.done.json"},
    "compare": {"runs": "runs/00/chunks/chunk-000000.parquet", "runs/00": "runs/00/chunks/chunk-000000.parquet",
                "tables": None, "runs/01/deals": "runs/01/chunks/chunk-000000.parquet"},
    "tournament": {"runs/00": "runs/00/chunks/chunk-000000.parquet", "tables": None},
    "report": {"report": None},
    "tune": {"evals": None},
}


@pytest.mark.parametrize("command,sub", params((c, s) for c, subs in SUBFOLDERS.items() for s in subs))
def test_a_symlinked_sub_folder_is_refused(made, tmp_path, invoke, command, sub):
    d = tmp_path / command
    shutil.copytree(made / command, d, symlinks=True)
    elsewhere = tmp_path / "elsewhere"
    shutil.move(d / sub, elsewhere)
    (d / sub).symlink_to(elsewhere, target_is_directory=True)
    if SUBFOLDERS[command][sub]:
        (d / SUBFOLDERS[command][sub]).unlink()
    before = snapshot(elsewhere)
    r = invoke(COMMANDS[command][1](d))
    assert r.exit_code != 0, r.output
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("Error: ") and "symlink" in line and "Traceback" not in r.output
    assert snapshot(elsewhere) == before


def test_play_never_writes_a_hand_record_through_a_symlink(tmp_path, invoke):
    out = tmp_path / "p"
    r = invoke(PLAY + ["--out", out], input="1\n" * 100)
    assert r.exit_code == 0, r.output
    first, = files_of(out)
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (out / first).unlink()
    (out / first).symlink_to(victim)  # the name the record had: taken, the next one is used
    second = (out / first).with_name(first.stem + "-2.json")
    elsewhere = tmp_path / "not-there.json"
    second.symlink_to(elsewhere)  # a dangling link at the next name: replaced, never followed
    r = invoke(PLAY + ["--out", out], input="1\n" * 100)
    assert r.exit_code == 0, r.output
    assert victim.read_text() == "keep" and not elsewhere.exists()
    assert (out / first).is_symlink()
    saved = [p for p in out.iterdir() if p.is_file() and not p.is_symlink()]
    assert len(saved) == 1 and saved[0].read_text().startswith("{")
