"""Tune a built-in strategy's numeric parameters with CMA-ES (the optional `cma` library) on duplicate deals.

One *evaluation* plays a candidate (the strategy with some parameter values)
against every strategy of the pool on ``games`` deals, each deal once per seat
arrangement (duplicate deals: the candidate sits on every side in turn), and
scores it by its points margin per hand (its side's hand total minus the mean
of the other sides'), averaged over the pool. Every candidate of generation
``g`` plays deals ``g*games .. (g+1)*games - 1`` of the tune's seed: the same
deals (common random numbers), so differences between candidates are
differences of play, not of deal luck, and two identical candidates get
exactly the same score.

CMA-ES (``cma.CMAEvolutionStrategy``, seeded from the tune's seed) searches in
a scaled space: each parameter divided by ``max(|start value|, 1)``, the
initial step ``sigma`` in those units, the parameter's bounds as box bounds.
It minimises minus the score. What it proposes depends only on the seed and the
scores it was told, and each score is a pure function of (candidate, deals),
so a tune is reproducible by seed for any ``--jobs`` or cluster.

Output folder::

    DIR/manifest.json          kind "tune", version, and everything that defines the tune
    DIR/evals/gGGGG-cCC.json   one file per evaluation: generation, candidate, x, spec, score, interval
    DIR/check.json             the final check on fresh deals: tuned against the starting parameters
    DIR/summary.json           per-generation history, the tuned spec, the check
    DIR/best.toml              the tuned parameters: ``--strategy NAME:DIR/best.toml``

Resume: run the same command again. CMA-ES is replayed from its seed;
generations whose evaluations are on disk are read back (their candidates must
match bit for bit), so an interrupted tune ends with the identical result.

The folder is checked, not trusted (docs/run.md, the untrusted-input rule).
Each evaluation and the check carry a ``checksum``: SHA-256 over the tune's
fingerprint (a digest of its spec and folder format), the file's place
(generation and candidate) and its content. An evaluation or check that is
not a JSON object of the right shape, holds a text or non-finite score, or
fails its checksum is evaluated again (one warning line; the file is kept as
``NAME.damaged``), so an edited score never reaches CMA-ES or ``best.toml``.
A manifest that is not this tune's is refused in one line; one left by a start
that failed before any evaluation (nothing computed) is replaced.

The tuned parameters are the CMA-ES distribution mean after the last
generation (``es.result.xfavorite``), not the best single candidate, whose
score is inflated by selection on noise; the final check measures them on
deals no evaluation used (a seed derived from the tune's seed).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from . import __version__, folders
from .batch import play_hands
from .errors import EscobaError, Parameter
from .files import UntrustedFile, make_dirs, read_json_object, write_json, write_text
from .folders import OUT
from .game.rng import mix64
from .game.rules import Ruleset, parse_rules
from .i18n import N_, ngettext
from .i18n import translate as _
from .native import ENGINE
from .runs.stats import Z95
from .strategies import BUILTINS, StrategySpec, parse_strategy
from .strategies.registry import format_number as _fmt

KIND = "tune"
MAX_SIGMA = 100.0  # the initial step, in units of each parameter's starting value: far past any box
FORMAT = 2  # the tune folder's layout (2: evaluations and the check carry a checksum)
# the check's deals come from this seed offset of the tune's seed (mixed): deals no evaluation played
CHECK_STREAM = 0x7475_6E65  # "tune"


class TuneError(EscobaError):
    """Arguments that cannot make a tune, or a folder holding another one; the message is one line."""


def _require_cma():
    try:
        import cma
    except ImportError:
        raise TuneError(_('tune needs the tune extra: pip install "escoba-sim[tune]"')) from None
    return cma


@dataclass(frozen=True)
class TuneSpec:
    """Everything that defines a tune (the manifest); equal specs give identical tunes."""

    strategy: str  # canonical start spec
    params: tuple[str, ...]  # the tuned parameters, in definition order
    rules: str  # canonical ruleset
    pool: tuple[str, ...]  # canonical opponents
    evals: int  # evaluations in all (whole generations: rounded up to the population size)
    games: int  # deals per candidate per opponent, each played once per side
    seed: int
    sigma: float
    popsize: int
    check: int  # deals of the final check

    @property
    def start(self) -> StrategySpec:
        return parse_strategy(self.strategy)

    @property
    def generations(self) -> int:
        return -(-self.evals // self.popsize)

    def scale(self) -> np.ndarray:
        values = dict(self.start.params)
        return np.array([max(abs(float(values[p])), 1.0) for p in self.params])

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        d = BUILTINS[self.start.name].params
        return np.array([d[p].lo for p in self.params]), np.array([d[p].hi for p in self.params])

    def to_json(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}


def default_popsize(n_params: int) -> int:
    """CMA-ES's own default population size, 4 + floor(3 ln n)."""
    return 4 + int(3 * math.log(n_params))


def make_tune_spec(strategy: str, *, rules=None, pool=("greedy",), evals: int = 200, games: int = 20000,
                   seed: int = 0, sigma: float = 0.3, popsize: int | None = None, params=(),
                   check: int | None = None) -> TuneSpec:
    """Validate the arguments of a tune (one-line TuneError for each mistake)."""
    from .strategies import StrategyError

    r = parse_rules(rules)
    try:
        start = parse_strategy(strategy).for_rules(r)
        opponents = tuple(parse_strategy(s).canonical for s in pool)
        for o in opponents:  # NAME:tuned plays only under a ruleset it was tuned for: say so now, not mid-tune
            parse_strategy(o).for_rules(r)
    except StrategyError as e:
        raise TuneError(str(e)) from None
    d = start.builtin
    if d is None:
        raise TuneError(_("`{strategy}` is a plugin: tune works on the parameters of a built-in strategy").format(
            strategy=start))
    tunable = [k for k, p in d.params.items() if not p.integer]
    if not tunable:
        raise TuneError(_("`{strategy}` has no numeric parameters to tune; strategies with some: {strategies}").format(
            strategy=d.name,
            strategies=", ".join(n for n, x in BUILTINS.items() if any(not p.integer for p in x.params.values()))))
    chosen = list(params) or tunable
    for p in chosen:
        if p not in d.params:
            raise TuneError(_("{strategy} has no parameter `{param}`; parameters: {params}").format(
                strategy=d.name, param=p, params=', '.join(d.params)))
        if d.params[p].integer:
            raise TuneError(_("{strategy}: `{param}` is a whole-number cost setting, not tuned; tunable: {params}")
                            .format(strategy=d.name, param=p, params=', '.join(tunable)))
    if len(set(chosen)) != len(chosen):
        raise TuneError(_("a {params} is given twice"), parameter="params", params=Parameter("params"))
    if not opponents:
        raise TuneError(_("give at least one {pool} strategy to tune against"), parameter="pool", pool=Parameter("pool"))
    for name in (start.canonical, *opponents):
        from .batch import engine_for

        if engine_for([name]) != "cython":
            raise TuneError(_("`{strategy}` cannot be played by the compiled core (not built, or a plugin): "
                              "a tune plays millions of hands").format(strategy=name))
    if evals < 1 or games < 2 or (check is not None and check < 2) or not 0 <= seed < 2**64:
        raise TuneError(_("{evals} must be at least 1, {games} and {check} at least 2 (an interval needs two deals), "
                          "{seed} in [0, 2**64)"), evals=Parameter("evals"), games=Parameter("games"),
                        check=Parameter("check"), seed=Parameter("seed"))
    if not (isinstance(sigma, int | float) and math.isfinite(sigma) and 0 < sigma <= MAX_SIGMA):
        raise TuneError(_("{name} must be a number above 0 and at most {most} (a share of each starting value), "
                          "got {sigma}"), parameter="sigma", name=Parameter("sigma"), most=f"{MAX_SIGMA:g}", sigma=sigma)
    n = len(chosen)
    pop = popsize or default_popsize(max(n, 1))
    if pop < 2:
        raise TuneError(_("{popsize} must be at least 2"), parameter="popsize", popsize=Parameter("popsize"))
    order = [k for k in d.params if k in chosen]
    return TuneSpec(start.canonical, tuple(order), r.canonical(), opponents, -(-evals // pop) * pop, games, seed,
                    float(sigma), pop, check if check is not None else 2 * games)


# ---------------------------------------------------------------- one evaluation

def seatings(rules: Ruleset) -> list[list[int]]:
    """For each side the candidate takes in turn, the seats it plays (the others play the opponent)."""
    return [[s for s in range(rules.players) if rules.side_of(s) == side] for side in range(rules.n_sides)]


def margins(rules: Ruleset, candidate: str, opponent: str, seed: int, first: int, deals: int) -> np.ndarray:
    """Per deal: the candidate's points margin per hand against ``opponent`` over every seating
    (its side's total minus the mean of the other sides'), averaged over seatings."""
    out = np.zeros(deals)
    arrangements = seatings(rules)
    for side, seats in enumerate(arrangements):
        names = [candidate if s in seats else opponent for s in range(rules.players)]
        tot = play_hands(rules, names, seed, first, deals).hands["total"].astype(float)
        others = (tot.sum(axis=1) - tot[:, side]) / (rules.n_sides - 1)
        out += tot[:, side] - others
    return out / len(arrangements)


def interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% normal interval over independent deals."""
    n = len(values)
    mean = float(values.mean())
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    return mean, mean - half, mean + half


def evaluate(spec: TuneSpec, generation: int, candidate: int, x: list[float]) -> dict:
    """Score one candidate (scaled point ``x``) on generation ``generation``'s deals against the pool."""
    cand = candidate_spec(spec, x)
    rules = parse_rules(spec.rules)
    first = generation * spec.games
    per = [margins(rules, cand, o, spec.seed, first, spec.games) for o in spec.pool]
    score, lo, hi = interval(np.mean(per, axis=0))
    return {"generation": generation, "candidate": candidate, "x": [float(v) for v in x], "spec": cand,
            "score": score, "lo": lo, "hi": hi, "deals": spec.games,
            "vs": {o: float(m.mean()) for o, m in zip(spec.pool, per)}}


def candidate_spec(spec: TuneSpec, x, digits: int | None = None) -> str:
    """The canonical spec of the strategy with the tuned parameters at scaled point ``x``."""
    lo, hi = spec.bounds()
    values = np.clip(np.asarray(x, dtype=float) * spec.scale(), lo, hi)
    given = dict(spec.start.params)
    for p, v in zip(spec.params, values):
        given[p] = round(float(v), digits) if digits is not None else float(v)
    name = spec.start.name
    return parse_strategy(name + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in given.items())).canonical


# ---------------------------------------------------------------- the search

@dataclass
class TuneProgress:
    """What the progress callback is told after each generation."""

    generation: int  # finished generations
    generations: int
    evals_done: int
    evals_total: int
    best: dict  # the best evaluation so far (its score is inflated by selection)
    seconds_left: float | None  # None until this session has timed an evaluation


def _eval_path(out: Path, g: int, c: int) -> Path:
    return out / "evals" / f"g{g:04d}-c{c:02d}.json"


def fingerprint(spec: TuneSpec) -> str:
    """A digest of everything that defines the tune and of the folder's format: what each file's checksum binds."""
    return folders.fingerprint({"format": FORMAT, "spec": spec.to_json()})


def _finite(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _eval_problem(spec: TuneSpec, g: int, c: int, e: dict) -> str | None:
    """What is wrong with a saved evaluation (None: it is this tune's evaluation g, c, intact)."""
    if not folders.is_sealed(fingerprint(spec), f"g{g:04d}-c{c:02d}", e):
        return _("changed after it was written, or not this tune's (its checksum differs)")
    ok = (e.get("generation") == g and e.get("candidate") == c and isinstance(e.get("x"), list)
          and all(_finite(v) for v in e["x"]) and isinstance(e.get("spec"), str)
          and all(_finite(e.get(k)) for k in ("score", "lo", "hi")) and e.get("deals") == spec.games
          and isinstance(e.get("vs"), dict) and all(_finite(v) for v in e["vs"].values()))
    return None if ok else _("not an evaluation of this tune (a field is missing or of the wrong type)")


def _nothing_computed(out: Path) -> bool:
    """No evaluation, check or result in ``out``: a start that failed before its first evaluation."""
    evals = out / "evals"
    return (not any(p.name.endswith(".json") for p in evals.iterdir()) if evals.is_dir() else not evals.exists()) \
        and not any((out / n).exists() for n in ("check.json", "summary.json", "best.toml"))


def _prepare(out: Path, spec: TuneSpec) -> None:
    mpath = folders.manifest_path(out)
    manifest = {"kind": KIND, "format": FORMAT, "version": __version__, "engine": ENGINE, "spec": spec.to_json()}
    folders.check_is_folder(out, TuneError)
    if mpath.exists() or mpath.is_symlink():
        try:
            old = read_json_object(mpath, what=N_("a tune manifest (a JSON object)"))
        except UntrustedFile as e:
            raise TuneError(_("{problem}; choose another {out}"), parameter=OUT, folder=out, out=OUT, problem=e) \
                from None
        if old.get("kind") != KIND:
            raise TuneError(_("{folder} holds other results, not a tune; choose another {out}"), parameter=OUT,
                            folder=out, out=OUT)
        if old.get("spec") != manifest["spec"]:
            if not _nothing_computed(out):
                raise TuneError(_("{folder} already holds a different tune; choose another {out}"), parameter=OUT,
                                folder=out, out=OUT)
            # a start that failed before its first evaluation (nothing computed): this command replaces it
        elif old.get("format") != FORMAT:
            raise TuneError(_("{folder} holds a tune of an earlier escoba-sim (folder format {format}, evaluations "
                              "without checksums); run the tune again with another {out}"), parameter=OUT,
                            folder=out, out=OUT, format=repr(old.get('format', 1)))
    else:  # no lock file in a tune's folder: anything in it is content
        folders.check_holds_nothing_else(out, N_("{out} {folder}: the folder is not empty and holds no tune"),
                                         TuneError, ignore=())
    make_dirs(out / "evals", out)
    folders.write_manifest(out, manifest)


def _saved(out: Path, spec: TuneSpec, g: int, c: int, x: list[float]) -> dict | None:
    """Evaluation g, c as saved, verified; None when it is missing or damaged (then it is evaluated again)."""
    p = _eval_path(out, g, c)
    if not (p.exists() or p.is_symlink()):
        return None
    try:
        e = read_json_object(p, finite=True)
    except UntrustedFile as err:
        folders.set_aside(p, _("not a readable evaluation ({reason})").format(reason=str(err).removeprefix(str(p) + ': ')),
                   _("evaluating it"))
        return None
    problem = _eval_problem(spec, g, c, e)
    if problem is not None:
        folders.set_aside(p, problem, _("evaluating it"))
        return None
    if e["x"] != x:
        raise TuneError(_("{path} holds another candidate than this tune proposes: the folder was changed"), folder=out,
                        path=p)
    return e


def tune(spec: TuneSpec, out: str | Path, *, jobs: int = 1, executor=None,
         on_generation: Callable[[TuneProgress], None] | None = None) -> dict:
    """Run (or finish) a tune in ``out``; returns the summary (also written to ``out/summary.json``).

    Candidates of a generation are evaluated in parallel by ``executor`` (any
    ``concurrent.futures``-like executor, used as given) or, with ``jobs > 1``,
    a local process pool; each finished evaluation is written at once, so
    Ctrl-C (KeyboardInterrupt) loses at most the evaluations in flight.
    """
    cma = _require_cma()
    from .strategies import StrategyError

    out = Path(out)
    try:
        return _tune(cma, spec, out, jobs, executor, on_generation)
    except OSError as e:  # a read-only folder, a full disk: what was written is kept
        raise TuneError(_("cannot write {path} ({reason}); {kept}").format(
            path=e.filename or out, reason=e.strerror or e, kept=_kept(out))) from None
    except StrategyError as e:  # a strategy the core refuses mid-tune (make_tune_spec checks what it can)
        raise TuneError(_("an evaluation failed: {problem}; {kept}").format(problem=e, kept=_kept(out))) from None


def _kept(out: Path) -> str:
    try:
        n = sum(1 for p in (out / "evals").glob("g*-c*.json"))
    except OSError:
        n = 0
    return (ngettext("{n} finished evaluation is kept in {folder}; run the same command again to continue",
                     "{n} finished evaluations are kept in {folder}; run the same command again to continue",
                     n).format(n=n, folder=out) if n else _("no evaluation was finished"))


def _tune(cma, spec: TuneSpec, out: Path, jobs: int, executor, on_generation) -> dict:
    from .runs.executor import make_executor
    from .runs.signals import check_stop

    _prepare(out, spec)
    lo, hi = spec.bounds()
    scale = spec.scale()
    x0 = [float(v) / s for v, s in zip((dict(spec.start.params)[p] for p in spec.params), scale)]
    opts = {"seed": spec.seed % (2**32 - 2) + 1, "popsize": spec.popsize, "verbose": -9,
            "bounds": [list(lo / scale), list(hi / scale)], "tolfun": 0, "tolx": 0, "tolfunhist": 0,
            "tolstagnation": 10**9, "maxiter": 10**9}
    if len(x0) == 1:  # cma needs two dimensions or more; a single parameter gets a dummy twin it ignores
        x0 = x0 + [0.0]
        opts["bounds"] = [opts["bounds"][0] + [-1.0], opts["bounds"][1] + [1.0]]
    es = cma.CMAEvolutionStrategy(x0, spec.sigma, opts)
    n = len(spec.params)
    own = executor is None and jobs > 1
    pool = make_executor(jobs) if own else executor
    history, best = [], None
    done, t0, timed = 0, time.perf_counter(), 0
    try:
        for g in range(spec.generations):
            xs = es.ask()
            cands = [[float(v) for v in x[:n]] for x in xs]
            results: dict[int, dict] = {}
            for c, x in enumerate(cands):
                e = _saved(out, spec, g, c, x)
                if e is not None:
                    results[c] = e
            todo = [c for c in range(len(cands)) if c not in results]
            if pool is None:
                for c in todo:
                    results[c] = _finish(out, spec, evaluate(spec, g, c, cands[c]))
                    timed += 1
                    check_stop()
            else:
                import concurrent.futures as cf

                futures = {pool.submit(evaluate, spec, g, c, cands[c]): c for c in todo}
                try:
                    for f in cf.as_completed(futures):
                        e = f.result()
                        results[e["candidate"]] = _finish(out, spec, e)
                        timed += 1
                        check_stop()
                finally:
                    for f in futures:
                        f.cancel()
            scores = [results[c]["score"] for c in range(len(cands))]
            es.tell(xs, [-s for s in scores])
            done += len(cands)
            top = max(results.values(), key=lambda e: (e["score"], -e["candidate"]))
            if best is None or top["score"] > best["score"]:
                best = top
            history.append({"generation": g, "best": top["score"], "mean": float(np.mean(scores)),
                            "best_spec": top["spec"], "mean_spec": candidate_spec(spec, es.result.xfavorite[:n])})
            if on_generation is not None:
                rate = (time.perf_counter() - t0) / timed if timed else None
                on_generation(TuneProgress(g + 1, spec.generations, done, spec.evals, best,
                                           rate * (spec.evals - done) if rate is not None else None))
    finally:
        if own:
            pool.shutdown(cancel_futures=True)
    tuned = candidate_spec(spec, es.result.xfavorite[:n], digits=4)
    check = final_check(spec, tuned, out)
    summary = {"kind": KIND, "version": __version__, "engine": ENGINE, "spec": spec.to_json(),
               "start": spec.strategy, "tuned": tuned, "best_evaluated": best, "history": history, "check": check}
    write_json(out / "summary.json", summary, out, finite=True)
    write_best_toml(out / "best.toml", spec, tuned, check)
    return summary


def _finish(out: Path, spec: TuneSpec, e: dict) -> dict:
    e = folders.seal(fingerprint(spec), f"g{e['generation']:04d}-c{e['candidate']:02d}", e)
    write_json(_eval_path(out, e["generation"], e["candidate"]), e, out, finite=True)
    return e


def check_seed(seed: int) -> int:
    """The seed of the final check's deals: fresh deals, none of which an evaluation played."""
    return mix64((seed ^ CHECK_STREAM) & (2**64 - 1))


def final_check(spec: TuneSpec, tuned: str, out: Path | None = None) -> dict:
    """Tuned against the starting parameters, head to head on ``spec.check`` fresh duplicate deals."""
    path = out / "check.json" if out is not None else None
    if path is not None and (path.exists() or path.is_symlink()):
        try:
            saved = read_json_object(path, finite=True)
        except UntrustedFile as err:
            folders.set_aside(path, _("not a readable check ({reason})").format(
                reason=str(err).removeprefix(str(path) + ': ')), _("playing the check"))
        else:
            if not folders.is_sealed(fingerprint(spec), "check", saved) or not all(
                    _finite(saved.get(k)) for k in ("points_per_hand", "lo", "hi", "seed")):
                folders.set_aside(path, _("changed after it was written, or not this tune's (its checksum differs)"),
                           _("playing the check"))
            elif saved.get("tuned") == tuned and saved.get("deals") == spec.check:
                return saved
    rules = parse_rules(spec.rules)
    seed = check_seed(spec.seed)
    m = margins(rules, tuned, spec.strategy, seed, 0, spec.check)
    est, lo, hi = interval(m)
    check = {"tuned": tuned, "start": spec.strategy, "rules": spec.rules, "seed": seed, "deals": spec.check,
             "points_per_hand": est, "lo": lo, "hi": hi,
             "what": "tuned minus start, points margin per hand, duplicate deals, 95% interval"}
    if path is not None:
        check = folders.seal(fingerprint(spec), "check", check)
        write_json(path, check, out, finite=True)
    return check


def write_best_toml(path: Path, spec: TuneSpec, tuned: str, check: dict) -> None:
    t = parse_strategy(tuned)
    lines = [f"# {t.name} tuned by `escoba-sim tune` (escoba-sim {__version__}) under {spec.rules}",
             f"# against {', '.join(spec.pool)}; seed {spec.seed}, {spec.evals} evaluations of {spec.games} deals",
             f"# check on {check['deals']} fresh deals (seed {check['seed']}): tuned minus start "
             f"{check['points_per_hand']:+.4f} [{check['lo']:+.4f}, {check['hi']:+.4f}] points per hand",
             f"# use: --strategy {t.name}:{path.name}", f"[{t.name}]"]
    lines += [f"{k} = {float(v)!r}" if not BUILTINS[t.name].params[k].integer else f"{k} = {int(v)}"
              for k, v in t.params]
    write_text(path, "\n".join(lines) + "\n", path.parent)
