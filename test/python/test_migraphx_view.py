"""The view algebra against numpy: every chain must place elements where numpy does."""

import itertools
import re

import numpy as np
import pytest

from accel.migraphx.view import View


def offsets(view: View) -> np.ndarray:
    """The buffer offset of every logical element, computed from the digits (index i
    of a windowed dimension is index i + start of its digits)."""
    out = np.zeros(view.shape, dtype=np.int64)
    for idx in itertools.product(*(range(n) for n in view.shape)):
        off = view.offset
        for a, (i, dim) in enumerate(zip(idx, view.dims)):
            w = view.window(a)
            i += w[0] if w else 0
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
    # AMDMIGraphX's int4_unpack_dequantizelinear group scale: 5 of the 6 rows of a
    # dimension of digits (2, 2), (3, 0), a window; then from row 1, and one row.
    ((2, 2, 2), [("r", (2, 2, 1, 2)), ("b", (2, 2, 3, 2)), ("r", (2, 6, 2)),
                 ("s", (1, 0, 5))]),
    ((2, 2, 2), [("r", (2, 2, 1, 2)), ("b", (2, 2, 3, 2)), ("r", (2, 6, 2)),
                 ("s", (1, 1, 6))]),
    ((2, 2, 2), [("r", (2, 2, 1, 2)), ("b", (2, 2, 3, 2)), ("r", (2, 6, 2)),
                 ("s", (1, 4, 5))]),
    # A window sliced again (to a run of whole digits: no window left), transposed,
    # reshaped around (unit dimensions, leading dimensions merged) and broadcast.
    ((2, 2, 2), [("r", (2, 2, 1, 2)), ("b", (2, 2, 3, 2)), ("r", (2, 6, 2)),
                 ("s", (1, 1, 6)), ("s", (1, 2, 5))]),
    ((2, 2, 2), [("r", (2, 2, 1, 2)), ("b", (2, 2, 3, 2)), ("r", (2, 6, 2)),
                 ("s", (1, 1, 6)), ("s", (1, 1, 4))]),
    ((3, 4, 2), [("t", (0, 2, 1)), ("r", (3, 8)), ("s", (1, 1, 7)), ("t", (1, 0)),
                 ("r", (6, 1, 3)), ("b", (2, 6, 4, 3)), ("r", (12, 4, 3))]),
    ((3, 4, 2), [("t", (0, 2, 1)), ("r", (3, 8)), ("s", (1, 1, 7)), ("r", (3, 2, 3))]),
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
        elif kind == "s":
            axis, lo, hi = arg
            arr = arr[(slice(None),) * axis + (slice(lo, hi),)]
            view = view.slice(axis, lo, hi)
        else:
            arr, view = np.broadcast_to(arr, arg), view.broadcast(arg)
    check_against(view, arr, base)


def check_against(view: View, arr: np.ndarray, base) -> None:
    """`view` places every element where `arr` (numpy's chain over an index array of
    `base`) says: by its digits, its index expressions and its flat offset expression."""
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


def test_slice_inside_digits_is_a_window():
    view = View.contiguous([2, 2, 2]).reshape([2, 2, 1, 2]).broadcast([2, 2, 3, 2])
    view = view.reshape([2, 6, 2]).slice(1, 1, 6)
    assert view.dims[1] == ((2, 2), (3, 0)) and view.window(1) == (1, 5)
    assert view.index_exprs([2, 2, 2]) == ["d0", "(d1 + 1) floordiv 3", "d2"]
    # Whole digits again, or one element: no window.
    assert view.slice(1, 2, 5).windows == () and view.slice(1, 3, 4).windows == ()
    assert not view.same_as(View.contiguous([2, 6, 2]).slice(1, 1, 6))


def test_windowed_dimension_is_not_split_or_merged():
    view = View.contiguous([2, 2, 2]).reshape([2, 2, 1, 2]).broadcast([2, 2, 3, 2])
    view = view.reshape([2, 6, 2]).slice(1, 0, 5)
    assert view.reshape([10, 2]) is None and view.reshape([2, 5, 1, 2]) is not None
    assert view.reshape([2, 10]) is None and view.reshape([1, 2, 5, 2]).window(2) == (0, 5)


def test_one_digit_slices_stay_as_they_were():
    """A slice the digits spell keeps its view (no window): what gemm operands take."""
    view = View.contiguous([2, 48, 64]).slice(1, 8, 40).slice(2, 16, 48)
    assert view == View((((2, 3072),), ((32, 64),), ((32, 1),)), 528)


def random_chain(rng, base):
    """A random chain of transposes, reshapes (splitting or merging dimensions),
    slices and broadcasts, as (kind, arg)."""
    shape, chain = list(base), []
    for _ in range(int(rng.integers(4, 10))):
        kind = rng.choice(["t", "r", "r", "s", "s", "b"])
        if kind == "t":
            arg = tuple(int(p) for p in rng.permutation(len(shape)))
            shape = [shape[p] for p in arg]
        elif kind == "r":
            a = int(rng.integers(len(shape)))
            splits = [f for f in range(2, shape[a]) if shape[a] % f == 0]
            if splits and rng.random() < 0.3:
                f = int(rng.choice(splits))
                shape = shape[:a] + [f, shape[a] // f] + shape[a + 1:]
            elif a + 1 < len(shape):
                shape = shape[:a] + [shape[a] * shape[a + 1]] + shape[a + 2:]
            else:
                shape = shape[:a] + [1] + shape[a:]
            arg = tuple(shape)
        elif kind == "s":
            # Mostly of the longest dimension (often one of several digits, where a
            # slice may be a window), at least half of it kept.
            a = int(np.argmax(shape)) if rng.random() < 0.7 else int(rng.integers(len(shape)))
            lo = int(rng.integers(shape[a] // 2 + 1))
            hi = int(rng.integers(max(lo + 1, (shape[a] + 1) // 2), shape[a] + 1))
            arg, shape[a] = (a, lo, hi), hi - lo
        else:
            ones = [a for a, n in enumerate(shape) if n == 1]
            if ones:
                shape[ones[0]] = int(rng.integers(2, 4))
            else:
                shape = [int(rng.integers(2, 4))] + shape
            arg = tuple(shape)
        chain.append((str(kind), arg))
    return chain


SEEDS = range(200)


def seeded_chain(seed):
    rng = np.random.default_rng(seed)
    base = tuple(int(n) for n in rng.integers(1, 6, int(rng.integers(2, 4))))
    return base, random_chain(rng, base)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_chains_match_numpy(seed):
    test_view_matches_numpy(*seeded_chain(seed))


def test_random_chains_reach_windows():
    """The random chains above exercise windows: slices, reshapes and broadcasts of
    windowed dimensions, index expressions through them."""
    windowed = 0
    for seed in SEEDS:
        base, chain = seeded_chain(seed)
        view = View.contiguous(base)
        for kind, arg in chain:
            view = (view.transpose(arg) if kind == "t" else view.slice(*arg) if kind == "s"
                    else view.broadcast(arg) if kind == "b"
                    else view.reshape(arg) or View.contiguous(arg))
            windowed += bool(view.windows)
    assert windowed >= 30, windowed
