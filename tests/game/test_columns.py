"""batch's result columns: the views of one allocation per kind that empty_hands and empty_games hand out."""

import numpy as np
import pytest

from escoba_sim.game import columns


@pytest.mark.parametrize("n,n_sides", [(0, 2), (1, 2), (7, 3), (50_001, 2), (4, 6)])
def test_hand_columns_are_separate_aligned_and_shaped(n, n_sides):
    cols = columns.empty_hands(n, n_sides)
    assert list(cols) == [*columns.HAND_COLUMNS, *columns.SIDE_COLUMNS]
    for k, t in columns.HAND_COLUMNS.items():
        assert cols[k].dtype == np.dtype(t) and cols[k].shape == (n,)
    for k in columns.SIDE_COLUMNS:
        assert cols[k].dtype == columns.SIDE_DTYPE and cols[k].shape == (n, n_sides)
    for k, a in cols.items():
        assert a.flags.c_contiguous and a.flags.writeable and a.ctypes.data % a.itemsize == 0, k
        assert not a.any(), f"{k} is not zeroed"
    # no two columns share a byte: writing each column in turn leaves every other one as it was
    for i, k in enumerate(cols):
        cols[k][...] = i + 1
    for i, k in enumerate(cols):
        assert (cols[k] == i + 1).all(), f"{k} was overwritten by a later column"


def test_unzeroed_columns_have_the_same_layout():
    a, b = columns.empty_hands(1000, 2, zeroed=False), columns.empty_hands(1000, 2)
    assert {k: (v.dtype, v.shape) for k, v in a.items()} == {k: (v.dtype, v.shape) for k, v in b.items()}


def test_game_columns():
    cols = columns.empty_games(9, 4)
    assert list(cols) == [*columns.GAME_COLUMNS, "score"]
    assert cols["score"].shape == (9, 4) and cols["game"].dtype == np.int64
    for i, k in enumerate(cols):
        cols[k][...] = i + 1
    for i, k in enumerate(cols):
        assert (cols[k] == i + 1).all() and cols[k].ctypes.data % cols[k].itemsize == 0, k
