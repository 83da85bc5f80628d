"""Every hand a run counted, as a hand record (``--save-hands``): what ``replay``, ``analyze`` and ``trace`` read.

The compiled core keeps no moves, so the records are made after the chunks are played, by playing
each deal again with the reference engine: a hand is determined by (ruleset, the seats' strategies,
seed, game, hand) (docs/engine.md), and the two engines are tested to play every hand identically,
so the replay is the very hand the core counted. Deal ``d`` of rotation ``r`` is game ``d`` with the
strategies of ``RunSpec.lineup(r)``, its hands dealt as ``engine.play_game`` deals them::

    DIR/records/chunk-000123/d45-r1-h2.json    deal 45, rotation 1, hand 2 of that game
    DIR/records/chunk-000123.done.json         the chunk's records are all written: how many

A chunk's folder holds records only (``replay DIR/records/chunk-000123/*.json`` reads them all). Its
records are written whole, then its ``.done.json``: a run interrupted while writing them, or a
resumed one, writes the chunks without ``.done.json`` again under the same names (each file atomic,
its bytes a function of the deal), so records are never duplicated nor lost. A chunk whose folder no
longer holds as many records as its ``.done.json`` counts (some deleted) is written again the same way
by ``resume`` (``records_whole``); ``report`` refuses such a folder and says to resume it
(``check_records``). Only the deals a chunk
counted are recorded (an SPRT that stopped inside a chunk cut it: the chunk file says how many).
The reference engine plays a few hundred to a few thousand hands a second: saving records is for
runs that are read hand by hand, not for 10^8 games.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..batch import make_player
from ..errors import Command
from ..files import UntrustedFile, make_dirs, read_json_object, write_json
from ..game import engine
from ..game.rules import Ruleset
from ..hands.record import make_record
from ..i18n import ngettext
from ..i18n import translate as _
from ..strategies import parse_strategy
from .folder import FolderError, chunk_name, continue_command, finished_chunks, read_chunk
from .spec import RunError, RunSpec

RECORDS = "records"
RECORD_NAME = re.compile(r"d[0-9]+-r[0-9]+-h[0-9]+\.json")


def record_name(deal: int, rotation: int, hand: int) -> str:
    return f"d{deal}-r{rotation}-h{hand}.json"


def chunk_folder(out: Path, k: int) -> Path:
    return Path(out) / RECORDS / chunk_name(k).split(".")[0]


def done_file(out: Path, k: int) -> Path:
    folder = chunk_folder(out, k)
    return folder.with_name(folder.name + ".done.json")


def deal_records(spec: RunSpec, deal: int, rotation: int, players=None) -> list[dict]:
    """The records of one deal in one rotation: its game's hands (or its one hand with ``--hands``)."""
    rules: Ruleset = spec.rules
    lineup = spec.lineup(rotation)
    if players is None:
        players = [make_player(parse_strategy(s).for_rules(rules)) for s in lineup]
    out, scores = [], [0] * rules.n_sides
    for h in range(engine.MAX_HANDS_PER_GAME):
        st = engine.play_hand(rules, players, spec.seed, deal, h, dealer=(deal + h) % rules.players)
        out.append(make_record(st, seed=spec.seed, game=deal, hand=h, strategies=list(lineup)))
        if spec.mode == "hands":
            break
        scores = [s + p for s, p in zip(scores, st.result.total)]
        if engine.game_winner(scores, rules.target) is not None:
            break
    return out


def write_chunk_records(out: Path, spec: RunSpec, k: int, deals: int) -> int:
    """Write the records of chunk ``k``'s first ``deals`` deals, every rotation, then its ``.done.json``."""
    folder = chunk_folder(out, k)
    make_dirs(folder, out)
    for tmp in folder.glob(".*.tmp"):  # a killed writer's (the caller holds the folder's lock)
        tmp.unlink(missing_ok=True)
    first, _ = spec.chunk_range(k)
    written = 0
    for r in range(spec.rotations):
        players = [make_player(parse_strategy(s).for_rules(spec.rules)) for s in spec.lineup(r)]
        for d in range(first, first + deals):
            for rec in deal_records(spec, d, r, players):
                write_json(folder / record_name(d, r, rec["hand"]), rec, out)
                written += 1
    write_json(done_file(out, k), {"chunk": k, "first_deal": first, "deals": deals, "records": written}, out)
    return written


def records_whole(out: Path, spec: RunSpec, k: int) -> bool:
    """Whether chunk ``k``'s records are all written and all still there: its ``.done.json`` is this chunk's and its
    folder holds as many records as it counts."""
    try:
        done = read_json_object(done_file(out, k))
    except UntrustedFile:
        return False
    first, _ = spec.chunk_range(k)
    count = done.get("records")
    if done.get("chunk") != k or done.get("first_deal") != first or not isinstance(count, int) \
            or isinstance(count, bool):
        return False
    try:
        held = sum(1 for p in chunk_folder(out, k).iterdir()
                   if RECORD_NAME.fullmatch(p.name) and p.is_file() and not p.is_symlink())
    except OSError:
        return False
    return held == count


def check_records(out: str | Path, spec: RunSpec, used: int) -> None:
    """Refuse (one RunError line, saying to resume) a finished run whose first ``used`` chunks' records are not all
    there: what ``report`` checks of a run kept with hand records (``resume`` writes the missing ones again)."""
    out = Path(out)
    done = finished_chunks(out, spec)
    broken = [k for k in range(used) if k in done and not records_whole(out, spec, k)]
    if broken:
        command: Command = continue_command(out)
        raise FolderError(ngettext("{folder}: the hand records of chunk {chunk} are missing or incomplete; write them "
                                   "again with: {command}",
                                   "{folder}: the hand records of {n} chunks (the first: chunk {chunk}) are missing or "
                                   "incomplete; write them again with: {command}", len(broken)),
                          folder=out, resume=command, chunk=broken[0], n=len(broken), command=command)


def write_records(out: str | Path, spec: RunSpec, used: int) -> int:
    """The records of the run's first ``used`` chunks (the ones its summary counts) that are not written yet;
    how many records were written."""
    out = Path(out)
    done = finished_chunks(out, spec)
    written = 0
    for k in range(used):
        if k not in done or records_whole(out, spec, k):
            continue
        deals = int(read_chunk(done[k], spec, k)["clusters"][0])
        try:
            written += write_chunk_records(out, spec, k, deals)
        except UntrustedFile as e:  # a symlinked records/ or chunk folder: refused, as chunks/ is
            raise RunError(_("{problem}; refusing to write the folder {folder}").format(problem=e, folder=out)) from None
    return written
