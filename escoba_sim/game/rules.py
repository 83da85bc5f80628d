"""Rulesets: every field of the rules model, the four presets, parsing and validation.

A ruleset is named three ways wherever one is taken: a preset (``ludoteka``),
a preset with overrides (``ludoteka(ties=none,target=21)``, or just
``ties=none`` on the default preset), or a TOML file (``preset = "robo"`` plus
fields). A file is read only where the person names it (``--rules FILE``): a
ruleset that comes from a folder, a record or a request is parsed with
``files=False`` (``parse_rules``), which refuses a file name and never touches
the filesystem (docs/run.md, the untrusted-input rule). ``Ruleset.canonical()`` prints the shortest preset-based form, which
parses back to an equal ruleset; ``Ruleset.digest()`` hashes it.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..errors import EscobaError
from ..files import UntrustedFile, read_toml
from ..i18n import N_, translate
from ..i18n import ngettext as i18n_ngettext
from ..i18n import translate as _

PLAYER_COUNTS = (2, 3, 4, 6)
LUCKY_DEAL = ("escobas", "capture", "off")
CAPTURE = ("card", "any", "optional")
DEAL = ("rounds", "draw")
SEVENS = ("majority", "all")
TIES = ("shared", "none")
MAX_TARGET = 1000


class RulesError(EscobaError):
    """A ruleset that cannot be parsed or cannot be played."""


@dataclass(frozen=True)
class Ruleset:
    players: int = 2
    teams: bool = False
    hand_size: int = 3
    table_size: int = 4
    lucky_deal: str = "escobas"
    capture: str = "card"
    soplar: bool = False
    deal: str = "rounds"
    sevens: str = "majority"
    ties: str = "shared"
    bonus_all_oros: int = 0
    bonus_all_sevens: int = 0
    target: int = 15

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def n_sides(self) -> int:
        return 2 if self.teams else self.players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.teams else seat

    def replace(self, **changes: Any) -> Ruleset:
        return dataclasses.replace(self, **changes)

    def __deepcopy__(self, memo) -> Ruleset:
        return self  # frozen, every field immutable (OpenSpiel deep-copies each state that holds one)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def canonical(self) -> str:
        best = None
        for name, preset in PRESETS.items():
            diff = [f.name for f in fields(self) if getattr(self, f.name) != getattr(preset, f.name)]
            if best is None or len(diff) < len(best[1]):
                best = (name, diff)
        name, diff = best
        if not diff:
            return name
        return f"{name}(" + ",".join(f"{k}={format_value(getattr(self, k))}" for k in diff) + ")"

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.as_dict(), sort_keys=True).encode()).hexdigest()[:16]

    def __str__(self) -> str:
        return self.canonical()

    @classmethod
    def parse(cls, spec: str | Ruleset) -> Ruleset:
        return parse_rules(spec)


FIELD_NAMES = tuple(f.name for f in fields(Ruleset))
_FIELD_TYPES = {f.name: type(f.default) for f in fields(Ruleset)}
_CHOICES = {"lucky_deal": LUCKY_DEAL, "capture": CAPTURE, "deal": DEAL, "sevens": SEVENS, "ties": TIES}
_TRUE = {"yes", "true", "1", "on"}
_FALSE = {"no", "false", "0", "off"}


def _validate(r: Ruleset) -> None:
    for name in FIELD_NAMES:
        v = getattr(r, name)
        t = _FIELD_TYPES[name]
        if t is int and (isinstance(v, bool) or not isinstance(v, int)):
            raise RulesError(_("{name}: expected a whole number, got {value}").format(name=name, value=repr(v)))
        if t is bool and not isinstance(v, bool):
            raise RulesError(_("{name}: expected yes or no, got {value}").format(name=name, value=repr(v)))
        if name in _CHOICES and v not in _CHOICES[name]:
            raise RulesError(_("{name}: {value} is not one of {choices}").format(
                name=name, value=repr(v), choices=", ".join(_CHOICES[name])) + _suggest(str(v), _CHOICES[name]))
    if r.players not in PLAYER_COUNTS:
        raise RulesError(_("players: {players} players is not supported (2, 3, 4 or 6)").format(players=r.players))
    if r.teams and r.players not in (4, 6):
        raise RulesError(_("teams: teams need 4 players (two teams of two) or 6 (two teams of three), not "
                           "{players}").format(players=r.players))
    if r.hand_size < 1:
        raise RulesError(_("hand_size: must be at least 1, got {value}").format(value=r.hand_size))
    if r.table_size < 0:
        raise RulesError(_("table_size: must be 0 or more, got {value}").format(value=r.table_size))
    dealt = r.players * r.hand_size + r.table_size
    if dealt > 40:
        raise RulesError(_("hand_size/table_size: {players} x {hand_size} cards plus {table_size} on the table "
                           "deals {dealt} cards, but the deck holds 40").format(
            players=r.players, hand_size=r.hand_size, table_size=r.table_size, dealt=dealt))
    if r.soplar and r.capture != "optional":
        raise RulesError(_("soplar: blowing needs capture=optional (with capture={capture} no capture can be "
                           "missed)").format(capture=r.capture))
    for name in ("bonus_all_oros", "bonus_all_sevens"):
        if not 0 <= getattr(r, name) <= 100:
            raise RulesError(_("{name}: must be between 0 and 100, got {value}").format(
                name=name, value=getattr(r, name)))
    if not 0 <= r.target <= MAX_TARGET:
        raise RulesError(_("target: must be between 0 and {limit}, got {value}").format(limit=MAX_TARGET,
                                                                                     value=r.target))


def _suggest(word: str, options) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.5)
    return _(" (did you mean {word}?)").format(word=close[0]) if close else ""


def format_value(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def coerce_field(name: str, raw: Any) -> Any:
    """Turn a text or TOML value into the field's type, with a clear error."""
    if name not in _FIELD_TYPES:
        raise RulesError(_("unknown rules field `{name}`{suggestion}; fields: {fields}").format(
            name=name, suggestion=_suggest(name, FIELD_NAMES), fields=", ".join(FIELD_NAMES)))
    t = _FIELD_TYPES[name]
    if t is bool:
        if isinstance(raw, bool):
            return raw
        s = str(raw).strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
        raise RulesError(_("{name}: expected yes or no, got {value}").format(name=name, value=repr(raw)))
    if t is int:
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        s = str(raw).strip()
        if re.fullmatch(r"[+-]?\d{1,30}", s):  # longer is out of every field's range (and int() refuses 4300 digits)
            return int(s)
        raise RulesError((_("{name}: expected a whole number of at most 30 digits, got {value}") if s.isdigit()
                          else _("{name}: expected a whole number, got {value}")).format(name=name,
                                                                                         value=repr(_shown(s))))
    s = str(raw).strip().lower()
    return s


PRESETS: dict[str, Ruleset] = {
    "ludoteka": Ruleset(),
    "tradicional": Ruleset(capture="optional", soplar=True, sevens="all"),
    "cardgames": Ruleset(lucky_deal="capture", capture="any", ties="none", target=21),
    "robo": Ruleset(lucky_deal="off", capture="any", ties="none", deal="draw", target=0),
}
# The rule text each preset follows, named by what it is (the texts are numbered 000-004 in the
# project's rule collection: "rule text 000", never "seed 000", which reads as a --seed)
PRESET_SOURCES = {
    "ludoteka": N_("a Spanish player's guide for two with Ludoteka's classic scoring to 15, the main reference "
                 "(rule text 000)"),
    "tradicional": N_("a short Spanish traditional rule sheet: the point for all four sevens, soplar; "
                    "the target of 15 is our choice (rule text 001)"),
    "cardgames": N_("an English card-games site's rules: must capture if any card can, a lucky deal that is no "
                  "escoba, ties score nothing, game to 21 (rule text 003)"),
    "robo": N_("a general Spanish description for 2 to 6 players: draw a card after each play (after a capture "
             "too, then play the hand out: our choice), ties score nothing; one hand and no lucky deal are our "
             "choices (rule text 004)"),
}
# What each field decides, in a phrase (rules list, rules show --json)
FIELD_HELP = {
    "players": N_("how many play: 2, 3, 4 or 6"),
    "teams": N_("partners sit alternately and pool their captures"),
    "hand_size": N_("cards dealt to each player at each deal"),
    "table_size": N_("cards dealt face up to the table when a hand starts"),
    "lucky_deal": N_("the dealer's prize when the first table cards make 15"),
    "capture": N_("when a player must capture"),
    "soplar": N_("may the next player take a capture someone missed"),
    "deal": N_("how the hands are refilled from the stock"),
    "sevens": N_("who scores the sevens point"),
    "ties": N_("who scores a majority point that sides tie on"),
    "bonus_all_oros": N_("extra points for taking all ten oros"),
    "bonus_all_sevens": N_("extra points for taking all four sevens"),
    "target": N_("the points that end a game"),
}
_VALUE_HELP = {
    ("lucky_deal", "escobas"): N_("the dealer takes a first table of 15 (or 30) as escobas"),
    ("lucky_deal", "capture"): N_("the dealer takes a first table of 15, no escoba"),
    ("lucky_deal", "off"): N_("a first table of 15 is left for play"),
    ("capture", "card"): N_("a card played that can capture must capture"),
    ("capture", "any"): N_("when any card in hand can capture, one must"),
    ("capture", "optional"): N_("capturing is never forced"),
    ("soplar", True): N_("a missed capture may be blown by the next player"),
    ("soplar", False): N_("a missed capture is just missed"),
    ("deal", "rounds"): N_("new cards when every hand is empty"),
    ("deal", "draw"): N_("a card drawn after each play, while the stock lasts"),
    ("sevens", "majority"): N_("the sevens point for the most sevens"),
    ("sevens", "all"): N_("the sevens point only for all four sevens"),
    ("ties", "shared"): N_("every tied side scores a tied majority point"),
    ("ties", "none"): N_("nobody scores a tied majority point"),
    ("teams", True): N_("two teams; partners pool their captures"),
    ("teams", False): N_("everyone plays alone"),
}


def describe_value(name: str, value: Any, translated: bool = False) -> str:
    """What a field's value means, in a phrase that stands alone (``rules show``): in English (the
    ``--json`` value), or ``translated`` into the process's language (what a person reads)."""
    # the catalogue's words, or the English as written: named _ and ngettext so that Babel extracts them
    _ = translate if translated else str
    ngettext = i18n_ngettext if translated else (lambda one, many, n: one if n == 1 else many)
    if (name, value) in _VALUE_HELP:
        return _(_VALUE_HELP[name, value])
    if name == "players":
        return ngettext("{n} player", "{n} players", value).format(n=value)
    if name == "hand_size":
        return ngettext("{n} card to each player at each deal", "{n} cards to each player at each deal",
                        value).format(n=value)
    if name == "table_size":
        return ngettext("{n} card face up to the table", "{n} cards face up to the table", value).format(n=value)
    if name == "bonus_all_oros":
        return _("no bonus for all ten oros") if value == 0 else ngettext(
            "{n} extra point for all ten oros", "{n} extra points for all ten oros", value).format(n=value)
    if name == "bonus_all_sevens":
        return _("no bonus for all four sevens") if value == 0 else ngettext(
            "{n} extra point for all four sevens", "{n} extra points for all four sevens", value).format(n=value)
    if name == "target":
        return _("one hand is the game") if value == 0 else ngettext(
            "a game ends when a side has {n} point", "a game ends when a side has {n} points", value).format(n=value)
    return _(FIELD_HELP[name])


# a field's value in a table a person reads (``rules list``), in the process's language; what is typed in a
# ruleset stays the English word (``rules show`` gives both)
VALUE_TEXT = {"yes": N_("yes"), "no": N_("no"), "majority": N_("majority"), "all": N_("all four"),
              "shared": N_("shared"), "none": N_("none"), "escobas": N_("escobas"), "capture": N_("capture"),
              "off": N_("off"), "card": N_("card"), "optional": N_("optional"), "any": N_("any"),
              "rounds": N_("rounds"), "draw": N_("drawing")}  # deal=draw ("draw" alone is a drawn game)


def _value_word(text: str) -> str:
    return _(VALUE_TEXT[text]) if text in VALUE_TEXT else text


def short_value(name: str, value: Any, translated: bool = False) -> str:
    """A field's value for a table cell: as typed, and ``0 (one hand)`` for the target that means it;
    ``translated``: in the process's language (``VALUE_TEXT``)."""
    if name == "target" and value == 0:
        return _("0 (one hand)")
    text = format_value(value)
    return _value_word(text) if translated else text


DEFAULT_PRESET = "ludoteka"

_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)


def _apply_overrides(base: Ruleset, pairs: dict[str, Any], where: str) -> Ruleset:
    where = _shown(where)
    changes = {k: coerce_field(k, v) for k, v in pairs.items()}
    try:
        return dataclasses.replace(base, **changes)
    except RulesError as e:
        raise RulesError(f"{where}: {e}") from None


def _preset(name: str) -> Ruleset:
    key = name.strip().lower()
    if key not in PRESETS:
        raise RulesError(_("unknown preset `{name}`{suggestion}; presets: {presets}").format(
            name=name, suggestion=_suggest(key, PRESETS), presets=", ".join(PRESETS)))
    return PRESETS[key]


def _parse_pairs(text: str, where: str) -> dict[str, str]:
    where = _shown(where)
    pairs: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in item:
            raise RulesError(_("{where}: override `{item}` must look like field=value").format(where=where, item=item))
        k, v = (s.strip() for s in item.split("=", 1))
        if k in pairs:
            raise RulesError(_("{where}: field `{name}` is set twice").format(where=where, name=k))
        pairs[k] = v
    return pairs


def load_rules_file(path: str | Path) -> Ruleset:
    """A ruleset from the TOML file ``path`` the person named (regular file, bounded size and depth)."""
    return _read_rules_file(path).rules


def _read_rules_file(path: str | Path) -> GivenRules:
    try:
        data = read_toml(path)
    except UntrustedFile as e:
        raise RulesError(_("cannot read rules file {reason}").format(reason=_shown(str(e), 160))) from None
    except ValueError as e:  # a NUL byte in the name
        raise RulesError(_("{path}: not a file name ({reason})").format(path=_shown(path), reason=e)) from None
    if isinstance(data.get("rules"), dict):  # accept a [rules] table as well as top-level keys
        data = {**{k: v for k, v in data.items() if k != "rules"}, **data["rules"]}
    base = _preset(str(data.pop("preset", DEFAULT_PRESET)))
    for k, v in data.items():
        if isinstance(v, (dict, list)):
            raise RulesError(_("{path}: `{name}` must be a single value").format(path=path, name=k))
    return GivenRules(_apply_overrides(base, data, str(path)), frozenset(data))


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # a name too long for the filesystem, a NUL byte: not a file
        return False


def _shown(path: str | Path, width: int = 80) -> str:
    """A file name for an error line (a rules string can be long)."""
    text = str(path)
    return text if len(text) <= width else text[:width - 3] + "..."


@dataclass(frozen=True)
class GivenRules:
    """A ruleset as the person wrote it: the parsed ``rules`` and the fields the text ``written`` sets
    (``players`` in ``ludoteka(players=3)`` or in a TOML file; none for a bare preset). A command whose
    player count follows its strategies asks ``"players" in written``."""

    rules: Ruleset
    written: frozenset[str] = frozenset()


def parse_rules(spec: str | Ruleset | None, files: bool = True) -> Ruleset:
    """Parse a preset name, ``preset(field=value,...)``, ``field=value,...`` or a TOML path.

    ``files=False`` for a ruleset read from a folder, a record or a request: only presets and
    inline specs (such as the canonical string), and a file name is a RulesError; nothing is opened.
    """
    return read_rules(spec, files).rules


def read_rules(spec: str | Ruleset | None, files: bool = True) -> GivenRules:
    """``parse_rules``, also telling which fields the text sets (a Ruleset given as one sets none)."""
    if spec is None:
        return GivenRules(PRESETS[DEFAULT_PRESET])
    if isinstance(spec, Ruleset):
        return GivenRules(spec)
    text = str(spec).strip()
    if not files:
        if text.endswith(".toml") or "/" in text:
            raise RulesError(_("`{text}` names a file; a ruleset kept in a file or sent in a request must be a preset "
                               "or preset(field=value,...) such as ludoteka (a file it names is never opened)").format(
                text=_shown(text)))
    elif text.endswith(".toml") or "/" in text or _is_file(text):
        return _read_rules_file(text)
    if not text:
        raise RulesError(_("empty rules: give a preset name such as ludoteka"))
    m = _SPEC.match(text)
    if m:
        base = _preset(m.group(1))
        pairs = _parse_pairs(m.group(2) or "", text)
        return GivenRules(_apply_overrides(base, pairs, text), frozenset(pairs))
    if "=" in text and "(" not in text:
        pairs = _parse_pairs(text, text)
        return GivenRules(_apply_overrides(PRESETS[DEFAULT_PRESET], pairs, text), frozenset(pairs))
    raise RulesError(_("`{text}`: expected a preset, preset(field=value,...) or a .toml file").format(text=text))
