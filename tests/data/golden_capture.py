"""The golden capture of a restructuring: every --help, a set of commands' output, files, errors and
exit codes, written to one folder so that two checkouts can be compared (`--compare A B`).

A restructuring that changes no behaviour leaves the capture identical but for timing fields, which
are masked here (seconds, rates, dates, the output folder's path). Run it from a checkout whose
package is installed:

    python tests/data/golden_capture.py --out /tmp/golden-before
    ... change ...
    python tests/data/golden_capture.py --out /tmp/golden-after
    python tests/data/golden_capture.py --compare /tmp/golden-before /tmp/golden-after
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

COMMANDS = ["analyze", "bench", "compare", "moves", "play", "replay", "report", "resume", "rules",
            "rules list", "rules show", "run", "serve", "skill", "strategies", "tournament", "trace", "tune"]

# (name, argv after escoba-sim, stdin); W is the case's working folder
CASES = [
    ("version", ["--version"], None),
    ("rules-list", ["rules", "list"], None),
    ("rules-show-ludoteka", ["rules", "show", "ludoteka"], None),
    ("rules-show-tradicional-es", ["--lang", "es", "rules", "show", "tradicional(players=4)"], None),
    ("strategies", ["strategies"], None),
    ("moves", ["moves", "--table", "1o 4c Rb", "--hand", "5b 7o"], None),
    ("run", ["run", "-s", "greedy", "--vs", "maxoros", "-n", "2e4", "--seed", "3", "-j", "1", "-q"], None),
    ("run-json", ["run", "-s", "greedy", "--vs", "maxoros", "-n", "2e4", "--seed", "3", "-j", "1", "--json"], None),
    ("run-piped", ["run", "-s", "heuristic", "--vs", "random", "-n", "3000", "--seed", "4", "-j", "1",
                   "--chunk", "500"], None),
    ("run-es", ["--lang", "es", "run", "-s", "greedy", "--vs", "random", "-n", "2000", "--seed", "5", "-j", "1",
                "-q"], None),
    ("run-teams", ["run", "-s", "greedy", "--vs", "maxoros", "-r", "ludoteka(players=4)", "--teams", "-n",
                   "2000", "--seed", "6", "-j", "1", "-q"], None),
    ("run-three", ["run", "-s", "greedy", "--vs", "maxoros", "--vs", "random", "-r", "ludoteka(players=3)", "-n",
                   "1500", "--seed", "7", "-j", "1", "-q", "--json"], None),
    ("run-hands-sprt", ["run", "-s", "greedy", "--vs", "random", "--hands", "-n", "1e5", "--seed", "8", "-j", "1",
                        "-q", "--sprt", "elo0=0,elo1=20"], None),
    ("run-out", ["run", "-s", "greedy", "--vs", "maxoros", "-n", "4000", "--seed", "9", "-j", "1", "-q",
                 "--chunk", "500", "--out", "W/run", "--save-hands"], None),
    ("run-out-again", ["run", "-s", "greedy", "--vs", "maxoros", "-n", "4000", "--seed", "9", "-j", "1", "-q",
                       "--out", "W/run"], None),
    ("resume-run", ["resume", "W/run", "-q"], None),
    ("report-run", ["report", "W/run"], None),
    ("compare", ["compare", "--rules", "ludoteka", "--rules", "tradicional", "-n", "2000", "--seed", "1", "-j",
                 "1", "-q", "--out", "W/cmp"], None),
    ("resume-compare", ["resume", "W/cmp", "-q"], None),
    ("report-compare", ["report", "W/cmp"], None),
    ("compare-vary-json", ["compare", "--vary", "lucky_deal=escobas,off", "-n", "1000", "--seed", "2", "-j", "1",
                           "--json", "--out", "W/vary"], None),
    ("tournament", ["tournament", "greedy", "maxoros", "random", "-n", "600", "--seed", "5", "-j", "1", "-q",
                    "--out", "W/tour", "--save-hands"], None),
    ("resume-tournament", ["resume", "W/tour", "-q"], None),
    ("report-tournament", ["report", "W/tour"], None),
    ("tournament-three", ["tournament", "greedy", "random", "-r", "ludoteka(players=3)", "-n", "400", "--seed",
                          "5", "-j", "1", "-q", "--out", "W/tour3"], None),
    ("skill", ["skill", "--ladder", "random,greedy,maxoros", "-r", "ludoteka", "-r", "tradicional", "-n", "400",
               "--seed", "3", "-j", "1", "-q", "--out", "W/skill"], None),
    ("skill-json", ["skill", "--ladder", "random,greedy", "--vary", "lucky_deal=escobas,off", "-n", "300",
                    "--seed", "4", "-j", "1", "--json", "--out", "W/skill2"], None),
    ("resume-skill", ["resume", "W/skill", "-q"], None),
    ("report-skill", ["report", "W/skill"], None),
    ("trace", ["trace", "--strategy", "greedy", "--vs", "maxoros", "--seed", "4"], None),
    ("trace-es", ["--lang", "es", "trace", "--strategy", "heuristic", "--vs", "greedy", "--seed", "4",
                  "--hand-index", "1"], None),
    ("trace-json", ["trace", "--strategy", "greedy", "--vs", "maxoros", "--seed", "4", "--json"], None),
    ("trace-teams", ["trace", "-s", "greedy", "--vs", "random", "--vs", "maxoros", "--vs", "random", "-r",
                     "ludoteka(players=4)", "--seed", "11"], None),
    ("trace-analyze", ["trace", "--strategy", "greedy", "--vs", "maxoros", "--seed", "4", "--analyze",
                       "--samples", "200"], None),
    ("trace-record", ["trace", "--strategy", "greedy", "--vs", "maxoros", "--seed", "12", "--json"], None),
    ("replay", ["replay", "W/trace-record.json"], None),
    ("analyze", ["analyze", "W/trace-record.json", "--samples", "200", "--seed", "1"], None),
    ("analyze-json", ["analyze", "W/trace-record.json", "--samples", "200", "--seed", "1", "--json"], None),
    ("play", ["play", "--vs", "greedy", "--seed", "3", "--hands", "-n", "1", "--out", "W/play", "--no-color"],
     "1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\nq\n"),
    ("play-hint", ["play", "--vs", "random", "--seed", "4", "--hands", "-n", "1", "--out", "W/play2",
                   "--no-color", "--samples", "100"], "?\n1\nu\n1\nq\n"),
    ("tune", ["tune", "heuristic", "--vs", "greedy", "--param", "oros", "--evals", "4", "--games", "100",
              "--popsize", "2", "--seed", "1", "-j", "1", "--out", "W/tune"], None),
    ("resume-tune", ["tune", "heuristic", "--vs", "greedy", "--param", "oros", "--evals", "4", "--games", "100",
                     "--popsize", "2", "--seed", "1", "-j", "1", "--out", "W/tune"], None),
    # errors and exit codes
    ("err-unknown-strategy", ["run", "-s", "nosuch", "--vs", "greedy", "-n", "10"], None),
    ("err-bad-spec", ["run", "-s", "ismcts:iters=abc", "--vs", "greedy", "-n", "10"], None),
    ("err-bad-rules", ["run", "-s", "greedy", "--vs", "greedy", "-r", "bogus", "-n", "10"], None),
    ("err-bad-field", ["run", "-s", "greedy", "--vs", "greedy", "-r", "ludoteka(players=9)", "-n", "10"], None),
    ("err-teams-2p", ["run", "-s", "greedy", "--vs", "greedy", "--teams", "-n", "10"], None),
    ("err-count", ["run", "-s", "greedy", "--vs", "greedy", "-n", "0"], None),
    ("err-count-text", ["run", "-s", "greedy", "--vs", "greedy", "-n", "lots"], None),
    ("err-chunk", ["run", "-s", "greedy", "--vs", "greedy", "-n", "100", "--chunk", "0"], None),
    ("err-vs-count", ["run", "-s", "greedy", "--vs", "greedy", "--vs", "random", "-n", "100", "--seed", "1"], None),
    ("err-save-hands", ["run", "-s", "greedy", "--vs", "greedy", "-n", "100", "--save-hands"], None),
    ("err-sprt", ["run", "-s", "greedy", "--vs", "greedy", "-n", "100", "--sprt", "elo0=x"], None),
    ("err-resume-missing", ["resume", "W/nothing-here"], None),
    ("err-resume-file", ["resume", "W/trace-record.json"], None),
    ("err-report-missing", ["report", "W/nothing-here"], None),
    ("err-replay-missing", ["replay", "W/nothing.json"], None),
    ("err-replay-garbage", ["replay", "W/garbage.json"], None),
    ("err-moves-card", ["moves", "--table", "1x 4c", "--hand", "5b"], None),
    ("err-moves-dup", ["moves", "--table", "1o 4c", "--hand", "1o"], None),
    ("err-compare-one", ["compare", "--rules", "ludoteka", "-n", "100"], None),
    ("err-compare-vary", ["compare", "--vary", "nosuch=1,2", "-n", "100"], None),
    ("err-tournament-one", ["tournament", "greedy", "-n", "100"], None),
    ("err-skill-ladder", ["skill", "--ladder", "greedy", "-n", "100"], None),
    ("err-trace-hand", ["trace", "-s", "greedy", "--vs", "greedy", "--seed", "1", "--hand-index", "99"], None),
    ("err-trace-deck", ["trace", "-s", "greedy", "--vs", "greedy", "--deck", "1o 2o"], None),
    ("err-unknown-option", ["run", "--nosuch"], None),
    ("seed-drawn", ["run", "-s", "greedy", "--vs", "greedy", "-n", "10", "-q"], None),
    ("err-unknown-command", ["nosuch"], None),
    ("err-play-teams", ["play", "--vs", "greedy", "--teams", "-r", "ludoteka", "--seed", "2"], "q\n"),
    ("err-analyze-seat", ["analyze", "W/trace-record.json", "--seat", "5"], None),
    ("err-tune-unknown", ["tune", "nosuch", "--vs", "greedy"], None),
    ("err-scheduler", ["run", "-s", "greedy", "--vs", "greedy", "-n", "100", "--scheduler", "nonsense", "--seed", "1"], None),
    ("err-resume-run-edited", ["resume", "W/run-edited", "-q"], None),
]

# masked before comparing: what differs from run to run without any change of behaviour
TIMING_KEYS = {"elapsed", "elapsed_s", "seconds", "performance", "started", "finished", "created", "date",
               "hands_per_second", "wall", "wall_s", "cpu_s", "time", "timestamp", "written", "updated",
               "games_per_second", "elapsed_seconds", "cpu_seconds"}
TIMING_TEXT = [
    (re.compile(r"\d[\d,.]*\s*(?:s|ms|µs|min|h)\b"), "<T>"),
    (re.compile(r"\d[\d,.]*[kM]?\s*(?:hands|games|deals)/s"), "<RATE>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"), "<DATE>"),
    (re.compile(r"\d+:\d{2}:\d{2}"), "<CLOCK>"),
    (re.compile(r"<dc:date>[^<]*</dc:date>"), "<dc:date/>"),
    (re.compile(r"((?:hands|manos)/s[^│\n]*│)\s*(?:[\d,.]+|<RATE>)"), r"\1 <RATE>"),
]


def mask_json(value):
    if isinstance(value, dict):
        return {k: ("<T>" if k in TIMING_KEYS else mask_json(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_json(v) for v in value]
    return value


def mask_text(text: str, work: str) -> str:
    try:
        text = json.dumps(mask_json(json.loads(text)), indent=1, sort_keys=True, ensure_ascii=False)
    except ValueError:
        pass
    text = text.replace(work, "W")
    for pattern, repl in TIMING_TEXT:
        text = pattern.sub(repl, text)
    return text


def run_case(name, argv, stdin, work: Path, exe: list[str], env: dict) -> dict:
    argv = [a.replace("W/", f"{work}/") for a in argv]
    proc = subprocess.run([*exe, *argv], input=stdin, capture_output=True, text=True, env=env, cwd=work,
                          timeout=900)
    return {"rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}


def snapshot_files(root: Path, work: str) -> dict:
    out = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        rel = str(path.relative_to(root))
        data = path.read_bytes()
        if path.suffix == ".json":
            try:
                out[rel] = mask_text(json.dumps(mask_json(json.loads(data)), indent=1, sort_keys=True), work)
                continue
            except ValueError:
                pass
        if path.suffix in {".txt", ".toml", ".csv", ".md", ".html", ".svg", ".jsonl"}:
            out[rel] = mask_text(data.decode("utf-8", "replace"), work)
        else:
            out[rel] = "sha256:" + hashlib.sha256(data).hexdigest()
    return out


def capture(out: Path) -> None:
    exe = [str(Path(sys.executable).with_name("escoba-sim"))]
    env = {**os.environ, "COLUMNS": "80", "ESCOBA_SIM_LANG": "en", "NO_COLOR": "1", "TERM": "dumb",
           "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
    env.pop("FORCE_COLOR", None)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="golden-"))
    result = {}
    try:
        (work / "garbage.json").write_text("{not json")
        for lang in ("en", "es"):
            for command in ["", *COMMANDS]:
                argv = ["--lang", lang, *command.split(), "--help"]
                result[f"help-{lang}-{command or 'main'}"] = run_case("help", argv, None, work, exe, env)
        for name, argv, stdin in CASES:
            if name == "err-resume-run-edited":
                shutil.copytree(work / "run", work / "run-edited")
                manifest = work / "run-edited" / "manifest.json"
                manifest.write_text(manifest.read_text().replace('"greedy"', '"random"', 1))
            r = run_case(name, argv, stdin, work, exe, env)
            if name == "trace-record":
                (work / "trace-record.json").write_text(r["stdout"])
            result[name] = r
            print(f"{name}: rc {r['rc']}", file=sys.stderr)
        # a drawn seed is the one thing a seedless run may print differently
        drawn = re.compile(r"\b\d{6,20}\b")
        result["seed-drawn"] = {"rc": result["seed-drawn"]["rc"], "stdout": "",
                                "stderr": drawn.sub("<SEED>", result["seed-drawn"]["stderr"].splitlines()[0])}
        masked = {k: {"rc": v["rc"], "stdout": mask_text(v["stdout"], str(work)),
                      "stderr": mask_text(v["stderr"], str(work))} for k, v in result.items()}
        (out / "commands.json").write_text(json.dumps(masked, indent=1, ensure_ascii=False, sort_keys=True))
        files = snapshot_files(work, str(work))
        (out / "files.json").write_text(json.dumps(files, indent=1, ensure_ascii=False, sort_keys=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def remask(value):
    if isinstance(value, dict):
        return {k: remask(v) for k, v in value.items()}
    return mask_text(value, "W") if isinstance(value, str) else value


def compare(a: Path, b: Path) -> int:
    bad = 0
    for name in ("commands.json", "files.json"):
        # masked again, so a capture made before a mask was added compares with one made after
        x, y = (remask(json.loads((d / name).read_text())) for d in (a, b))
        for key in sorted(set(x) | set(y)):
            if x.get(key) != y.get(key):
                bad += 1
                print(f"{name}: {key} differs")
                if isinstance(x.get(key), dict) and isinstance(y.get(key), dict):
                    for part in ("rc", "stdout", "stderr"):
                        if x[key].get(part) != y[key].get(part):
                            print(f"  {part}:\n    before: {str(x[key].get(part))[:600]!r}\n"
                                  f"    after:  {str(y[key].get(part))[:600]!r}")
                else:
                    print(f"  before: {str(x.get(key))[:400]!r}\n  after:  {str(y.get(key))[:400]!r}")
    print("identical" if not bad else f"{bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path)
    args = parser.parse_args()
    if args.compare:
        sys.exit(compare(*args.compare))
    capture(args.out)
