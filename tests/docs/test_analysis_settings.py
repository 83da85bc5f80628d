"""analysis/_common.py: the studies' environment variables are read in one place, into one typed object."""

import re
import sys

from helpers import REPO

sys.path.insert(0, str(REPO / "analysis"))
from _common import Settings  # noqa: E402


def test_defaults_and_overrides():
    d = Settings.from_environment({})
    assert (d.analysis_n, d.gap_n, d.gap_presets, d.search_parts, d.skill_reuse, d.tune_check) == (
        2000, 1000, [], ["options", "candidate"], False, 100000)
    s = Settings.from_environment({"ESCOBA_ANALYSIS_N": "3e5", "ESCOBA_GAP_PRESETS": "robo,,ludoteka",
                                   "ESCOBA_SEARCH_PARTS": "confirm", "ESCOBA_SKILL_REUSE": "1",
                                   "ESCOBA_SEARCH_SECONDS": "0.5", "ESCOBA_STRONGER_JOBS": "3"})
    assert (s.analysis_n, s.gap_presets, s.search_parts, s.skill_reuse, s.search_seconds, s.stronger_jobs) == (
        300000, ["robo", "ludoteka"], ["confirm"], True, 0.5, 3)


def test_only_the_settings_read_the_environment():
    """Every ESCOBA_ variable a study names is a field of Settings, documented there, and no other file reads
    os.environ."""
    common = (REPO / "analysis" / "_common.py").read_text()
    for path in sorted((REPO / "analysis").glob("*.py")):
        if path.name != "_common.py":
            assert "os.environ" not in path.read_text() and "getenv" not in path.read_text(), path
    read = set(re.findall(r'env(?:\.get)?\(\s*(?:env,\s*)?"(ESCOBA_\w+)"', common)) | set(
        re.findall(r'_(?:count|parts)\(env, "(ESCOBA_\w+)"', common))
    documented = set(re.findall(r"# (ESCOBA_\w+) \(", common))
    assert len(read) == len(Settings.__dataclass_fields__) == 39 and read == documented
