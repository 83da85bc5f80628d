"""Issue 38: Spanish writes a percentage with a space before the sign (``95 %``, as ``_fmt`` and ``percent`` print
it); two Spanish messages still wrote ``95%`` (tune's check, skill's help) beside tables that say ``95 %``."""

import re

from babel.messages.pofile import read_po

from escoba_sim.i18n import LOCALE_DIR


def test_every_spanish_percent_has_its_space():
    with open(LOCALE_DIR / "es" / "LC_MESSAGES" / "escoba_sim.po", "rb") as f:
        catalogue = read_po(f)
    tight = [m.string for m in catalogue if isinstance(m.string, str) and re.search(r"[\d}]%", m.string)]
    assert not tight, tight
