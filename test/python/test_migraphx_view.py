"""The view algebra against numpy: every chain must place elements where numpy does."""

import itertools
import re

import numpy as np
import pytest

from accel.migraphx.view import View


def offsets(view: View) -> np.ndarray:
    """The buffer offset of every logical element, computed from the digits."""
    out = np.zeros(view.shape, dtype=np.int64)
    for idx in itertools.product(*(range(n) for n in view.shape)):
        off = 0
        for i, dim in zip(idx, view.dims):
            for k, (e, s) in enumerate(dim):
                inner = int(np.prod([x for x, _ in dim[k + 1:]], dtype=np.int64))
                off += (i // inner) % e * s
        out[idx] = off
    return out


def eval_exprs(exprs, idx):
    env = {f"d{i}": v for i, v in enumerate(idx)}
    return [eval(re.sub(r"floordiv", "//", e).replace("mod", "%"), {}, dict(env)) for e in exprs]


CHAINS = [
    ((2, 3, 4), [("t", (0, 2, 1)), ("r", (2, 12))]),
    ((4, 6), [("r", (24,)), ("r", (3, 8))]),
    ((4, 6), [("t", (1, 0)), ("r", (2, 3, 4))]),
    ((4, 6), [("t", (1, 0)), ("r", (4, 6))]),
    ((1, 2, 3, 2, 4, 2), [("t", (0, 1, 4, 2, 3, 5)), ("r", (1, 8, 12))]),
    ((1, 2, 3, 2, 4, 2), [("t", (0, 1, 4, 2, 3, 5)), ("r", (1, 8, 12)), ("t", (0, 2, 1))]),
    ((1, 8, 12), [("r", (1, 2, 4, 3, 2, 2)), ("t", (0, 1, 3, 4, 2, 5))]),
    ((3, 1, 5), [("b", (2, 3, 4, 5))]),
]


@pytest.mark.parametrize("base,chain", CHAINS)
def test_view_matches_numpy(base, chain):
    arr = np.arange(int(np.prod(base))).reshape(base)
    view = View.contiguous(base)
    for kind, arg in chain:
        if kind == "t":
            arr, view = arr.transpose(arg), view.transpose(arg)
        elif kind == "r":
            arr = arr.reshape(arg)
            view = view.reshape(arg)
            if view is None:  # needs a copy: numpy's result is the reference from here
                view = View.contiguous(arg)
                arr = np.arange(arr.size).reshape(arg)
        else:
            arr, view = np.broadcast_to(arr, arg), view.broadcast(arg)
    assert view.shape == arr.shape
    np.testing.assert_array_equal(offsets(view), arr)
    exprs = view.index_exprs(base)
    flat = view.offset_expr()
    for idx in itertools.product(*(range(n) for n in view.shape)):
        if exprs is not None:
            assert np.ravel_multi_index(eval_exprs(exprs, idx), base) == arr[idx]
        assert eval_exprs([flat], idx)[0] == arr[idx]


def test_same_as_normalises_extent_one_and_mergeable_digits():
    a = View.contiguous([1, 4, 6]).reshape([24])
    assert a.same_as(View.contiguous([24]))
    assert not View.contiguous([4, 6]).transpose([1, 0]).same_as(View.contiguous([6, 4]))


def test_regrouping_across_digit_boundaries_needs_a_copy():
    # [6, 4] read column-wise: a new leading extent 4 would cut the 6-digit unevenly.
    assert View.contiguous([4, 6]).transpose([1, 0]).reshape([4, 6]) is None
    # ...while flattening it stays a view (two digits in one dimension).
    assert View.contiguous([4, 6]).transpose([1, 0]).reshape([24]).dims == (((6, 1), (4, 6)),)


def test_incompatible_broadcast():
    assert View.contiguous([3]).broadcast([4]) is None
