"""README.md gives the size of the test suite in one place: a second count elsewhere goes stale (issue 26:
it said both "989 tests" and "about 100 of the 840")."""

import re

from helpers import REPO


def test_the_readme_counts_the_tests_once():
    text = (REPO / "README.md").read_text()
    counts = re.findall(r"\b(\d[\d,]*) tests\b|\bof the (\d[\d,]*)\)", text)
    assert len(counts) == 1, counts
    assert re.search(r"The default suite's [\d,]+ tests take", text)
