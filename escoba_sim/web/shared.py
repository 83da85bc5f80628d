"""A hand shared as a link: ``http://HOST/#hand=NOTATION`` (``hands.notation``). The browser never sends the
fragment; the page posts the notation to ``/api/hand``, and ``shared_hand`` reads it as the untrusted text it is
(bounded, every field checked, the rules parsed as text only) and replays it for the page to draw: the deal,
the play log, the final table and the score, and the record itself (which the page posts to ``/api/analyze``
for the analysis). ``notation_of`` gives a saved record's notation, the link's ``Share`` button copies."""

from __future__ import annotations

from typing import Any

from .. import files
from ..game import engine
from ..game.cards import card_str
from ..hands.notation import LINK_KEY, MAX_LENGTH, from_notation, to_notation
from ..hands.record import RecordError, parse_record, score_json, walk
from ..i18n import N_
from ..strategies import parse_strategy
from .games import WebError


def notation_of(raw: bytes) -> dict[str, Any]:
    """``{"notation": ..., "link": "#hand=..."}`` of a saved record's bytes."""
    try:
        record = files.parse_json(raw.decode("utf-8"), "the record", finite=True)
        text = to_notation(record)
    except (UnicodeDecodeError, files.UntrustedFile, RecordError):
        raise WebError(N_("the saved record is not a hand record"), 422) from None
    return {"notation": text, "link": LINK_KEY + text}


def _seat_name(spec: str) -> str:
    """A seat's strategy as the page names it: the short form of a built-in (the record keeps every weight), the
    text as it is otherwise (a plugin named in a record is shown, never loaded)."""
    if spec == "person" or ".py" in spec or ".toml" in spec:
        return spec
    try:
        return parse_strategy(spec).short
    except ValueError:
        return spec


def shared_hand(data: Any) -> dict[str, Any]:
    """The hand of ``{"notation": TEXT}`` as the page draws it; WebError 400/422 naming what is wrong."""
    text = data.get("notation") if isinstance(data, dict) else None
    if not isinstance(text, str):
        raise WebError(N_("send the hand as a notation: an object with the field `notation`"), 400)
    if len(text) > MAX_LENGTH + 200:
        raise WebError(N_("the notation is longer than {limit} characters"), 413, limit=MAX_LENGTH)
    try:
        record = from_notation(text)
        parsed = parse_record(record)
    except RecordError as e:
        raise WebError.of(e, 422) from None
    rules = parsed.rules
    st = engine.new_hand(rules, parsed.deck, parsed.dealer)
    events: list[dict[str, Any]] = []
    if st.lucky_deal:
        events.append({"kind": "lucky", "seat": parsed.dealer})
    problems: list = []
    for st, step in walk(rules, parsed.deck, parsed.dealer, parsed.moves, problems):
        m = step.move
        events.append({"kind": "blow" if m.soplar else "capture" if m.take else "lay", "seat": m.player,
                       "card": card_str(m.card), "take": [card_str(c) for c in m.take], "escoba": m.escoba})
        if step.dealt:
            events.append({"kind": "deal", "stock": len(st.stock)})
    strategies = record.get("strategies") or [""] * rules.players
    out: dict[str, Any] = {
        "notation": to_notation(record), "record": record, "rules": rules.canonical(), "players": rules.players,
        "dealer": parsed.dealer, "deck": [card_str(c) for c in parsed.deck], "sevens_rule": rules.sevens,
        "seats": [{"seat": s, "strategy": _seat_name(strategies[s]), "side": rules.side_of(s)}
                  for s in range(rules.players)],
        "sides": [[s for s in range(rules.players) if rules.side_of(s) == side] for side in range(rules.n_sides)],
        "table": [card_str(c) for c in st.table], "events": events, "over": st.over,
        "problems": [str(p) for p in problems], "unfinished": record.get("unfinished"),
        # as text: a seed of 64 bits is more than a JavaScript number holds exactly
        "provenance": {k: str(record[k]) for k in ("seed", "game", "hand") if k in record},
    }
    if st.over and st.result is not None:
        out["score"] = score_json(rules, st.result)
        out["leftovers"] = {"cards": st.result.leftovers, "seat": st.result.leftover_taker}
    return out
