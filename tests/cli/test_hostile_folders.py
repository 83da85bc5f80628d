"""Issue 25, reliability second pass: whatever a folder, a record or a request holds is untrusted input.

Nothing a record or a manifest names is opened: a ruleset given there as a file name is
refused in one line before any file is touched, so ``/dev/zero``, ``/dev/stdin`` or a FIFO can neither
grow memory nor block. Files the person names (``--rules FILE``, weights files) are read with their size
and depth bounded. Commands run as subprocesses with a timeout and a memory ceiling, so the
code before these changes fails these tests instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from escoba_sim.hands.record import record_for_hand

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev files are POSIX")

DEEP_TOML = "x = " + "[" * 5000 + "1" + "]" * 5000 + "\n"


def _limits():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # /dev/zero read whole fails, not the machine


def escoba(*args, cwd=None, timeout=60) -> subprocess.CompletedProcess:
    """``escoba-sim ARGS``; a hang is a failure (TimeoutExpired), not a stuck suite."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run(["escoba-sim", *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env=env, preexec_fn=_limits, stdin=subprocess.PIPE)


def one_line(r: subprocess.CompletedProcess, code: int | None = None) -> str:
    """The single error line of a refused command: non-zero exit, no traceback."""
    assert r.returncode != 0 if code is None else r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("Error")]
    assert len(errors) == 1 and len(lines) <= 3, r.stderr
    return errors[0]


@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "pipe.toml"
    os.mkfifo(p)
    return p


# ---------------------------------------------------------------- finding 3: records and manifests name no file

def test_a_record_naming_a_file_as_its_rules_is_refused_unopened(tmp_path, fifo):
    house = tmp_path / "house.toml"
    house.write_text('preset = "ludoteka"\n')
    for named in ("/dev/zero", "/dev/stdin", str(fifo), str(house)):
        rec = record_for_hand("ludoteka", ["greedy", "random"], 3)
        rec["rules"] = named
        f = tmp_path / "r.json"
        f.write_text(json.dumps(rec))
        for cmd in ("replay", "analyze"):
            line = one_line(escoba(cmd, f), 2)
            assert "field `rules`" in line and "names a file" in line, line


def test_a_bare_rules_name_in_a_record_is_not_looked_up_as_a_file(tmp_path):
    (tmp_path / "house").write_text('preset = "robo"\n')  # a file in the working folder named like a preset
    rec = record_for_hand("ludoteka", ["greedy", "random"], 3)
    rec["rules"] = "house"
    (tmp_path / "r.json").write_text(json.dumps(rec))
    assert "unknown preset `house`" in one_line(escoba("replay", "r.json", cwd=tmp_path), 2)


def _small_series(tmp_path, kind):
    out = tmp_path / kind
    args = (["compare", "-r", "ludoteka", "-r", "robo"] if kind == "compare"
            else ["skill", "--ladder", "greedy,random", "-r", "ludoteka", "-r", "robo"] if kind == "skill"
            else ["tournament", "greedy", "random"])
    r = escoba(*args, "-n", "20", "--seed", "3", "--out", out, "-q", timeout=120)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("kind", ["compare", "tournament", "skill"])
def test_a_series_manifest_naming_a_file_is_refused_unopened(tmp_path, fifo, kind):
    out = _small_series(tmp_path, kind)
    mpath = out / "manifest.json"
    good = json.loads(mpath.read_text())
    for named in ("/dev/zero", "/dev/stdin", str(fifo)):
        m = json.loads(json.dumps(good))
        if kind in ("compare", "skill"):
            m["rulesets"][1]["rules"] = named
        else:
            m["rules"] = named
        mpath.write_text(json.dumps(m))
        line = one_line(escoba("resume", out), 1)
        assert "names a file" in line and str(out) in line, line
    m = json.loads(json.dumps(good))
    m["strategies"][1] = f"heuristic:{fifo}"  # a weights file named by the folder is not read either
    mpath.write_text(json.dumps(m))
    assert "names a weights file" in one_line(escoba("resume", out), 1)


def test_a_run_manifest_naming_a_bare_file_is_not_opened(tmp_path):
    out = tmp_path / "run"
    assert escoba("run", "-s", "greedy", "--vs", "random", "-n", "20", "--seed", "1", "--out", out, "-q").returncode == 0
    m = json.loads((out / "manifest.json").read_text())
    (tmp_path / "house").write_text('preset = "ludoteka"\n')
    m["spec"]["rules"] = "house"
    (out / "manifest.json").write_text(json.dumps(m))
    assert "unknown preset `house`" in one_line(escoba("resume", out, cwd=tmp_path), 1)


# ---------------------------------------------------------------- finding 10: huge numbers, deep TOML

def test_a_5000_digit_number_in_a_record_is_one_line(tmp_path):
    rec = record_for_hand("ludoteka", ["greedy", "random"], 3)
    text = json.dumps(rec).replace('"dealer": ' + str(rec["dealer"]), '"dealer": ' + "9" * 5000)
    f = tmp_path / "r.json"
    f.write_text(text)
    for cmd in ("replay", "analyze"):
        assert str(f) in one_line(escoba(cmd, f), 2)


def test_a_5000_bit_number_given_to_the_record_api_is_a_record_error():
    from escoba_sim.hands.record import RecordError, replay_record

    for key in ("dealer", "version", "format"):
        rec = record_for_hand("ludoteka", ["greedy", "random"], 3)
        rec[key] = 10**5000
        with pytest.raises(RecordError, match="bits"):
            replay_record(rec)
    rec = record_for_hand("ludoteka", ["greedy", "random"], 3)
    rec["moves"][0]["player"] = 10**5000
    with pytest.raises(RecordError, match="bits"):
        replay_record(rec)


def test_deeply_nested_toml_is_one_line(tmp_path, fifo):
    deep = tmp_path / "deep.toml"
    deep.write_text(DEEP_TOML)
    assert "nested" in one_line(escoba("rules", "show", deep))
    assert "nested" in one_line(escoba("run", "-s", "greedy", "--vs", "random", "-n", "2", "-r", deep))
    assert "nested" in one_line(escoba("run", "-s", f"heuristic:{deep}", "--vs", "random", "-n", "2"))
    # files the person names are still read as files only: a FIFO or a device is refused, not waited on
    assert "not a regular file" in one_line(escoba("rules", "show", fifo))
    assert "not a regular file" in one_line(escoba("run", "-s", f"heuristic:{fifo}", "--vs", "random", "-n", "2"))


def test_a_fifo_or_device_in_place_of_a_folder_file_is_refused_not_waited_on(tmp_path):
    out = tmp_path / "run"
    assert escoba("run", "-s", "greedy", "--vs", "random", "-n", "20", "--seed", "1", "--out", out, "-q").returncode == 0
    (out / "manifest.json").unlink()
    os.mkfifo(out / "manifest.json")
    for cmd in ("resume", "report"):
        assert "not a regular file" in one_line(escoba(cmd, out, timeout=30), 1)
    (out / "manifest.json").unlink()
    (out / "manifest.json").symlink_to("/dev/zero")
    for cmd in ("resume", "report"):
        assert "manifest.json" in one_line(escoba(cmd, out, timeout=30), 1)


def test_a_fifo_in_place_of_a_chunk_is_refused_by_report_and_played_again_by_resume(tmp_path):
    out = tmp_path / "run"
    assert escoba("run", "-s", "greedy", "--vs", "random", "-n", "2000", "--seed", "1", "--out", out, "-q",
                  "--json").returncode == 0
    p = out / "chunks" / "chunk-000001.parquet"
    p.unlink()
    os.mkfifo(p)
    assert "chunk 1 is unreadable (not a regular file)" in one_line(escoba("report", out, timeout=30), 1)
    r = escoba("resume", out, "-q", timeout=60)
    assert r.returncode == 0 and "playing chunk 1 again" in r.stderr, r.stderr
