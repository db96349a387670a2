"""Host-side pack/unpack: the element mapping of seed 001, zero padding, exact round trips."""

import itertools

import ml_dtypes
import numpy as np
import pytest

from accel.diagnostics import AccelError
from accel.dialect.accel_tile import AccelTile, pack, unpack

DTYPES = [np.float16, ml_dtypes.bfloat16, np.int8, np.float32]
TILES = [AccelTile(32, 8, 8), AccelTile(16, 4, 4), AccelTile(64, 2, 16), AccelTile(1, 1, 1)]
# (G, D, K): ragged against every tile above, plus exact multiples.
SHAPES = [(1, 1, 1), (1, 3, 5), (2, 77, 48), (3, 48, 77), (1, 64, 128), (2, 33, 130)]


def _random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-128, 128, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("transposed", [False, True])
def test_round_trip_is_exact(dtype, transposed):
    for (g, d, k), tile in itertools.product(SHAPES, TILES):
        plain_shape = (g, k, d) if transposed else (g, d, k)
        x = _random(plain_shape, dtype, seed=d * 1000 + k)
        y = pack(x, tile, transposed)
        assert y.shape == tile.shape(g, d, k) and y.dtype == x.dtype and y.flags.c_contiguous
        back = unpack(y, d, k, transposed)
        assert back.shape == x.shape
        assert np.array_equal(back.view(np.uint8), x.view(np.uint8)), (plain_shape, tile)


@pytest.mark.parametrize("transposed", [False, True])
def test_element_mapping_and_zero_padding(transposed):
    # Seed 001: element (g, d, k) -> [g, d//dPB, k//kPB, (k%kPB)//kpack, d%dPB, k%kpack].
    tile = AccelTile(d_per_block=4, kpack_per_block=2, kpack=3)
    g, d, k = 2, 7, 10
    x = (np.arange(g * d * k, dtype=np.int32) + 1).reshape(g, d, k)
    y = pack(x.transpose(0, 2, 1) if transposed else x, tile, transposed)
    assert y.shape == (2, 2, 2, 2, 4, 3)
    seen = np.zeros(y.shape, dtype=bool)
    for gi, di, ki in itertools.product(range(g), range(d), range(k)):
        at = (gi, di // 4, ki // 6, (ki % 6) // 3, di % 4, ki % 3)
        assert y[at] == x[gi, di, ki]
        seen[at] = True
    assert np.all(y[~seen] == 0)


def test_seed_001_shape():
    # 1x128x5120 with mPerBlock=32, kpackPerBlock=8, kpack=8 is 1x4x80x8x32x8.
    tile = AccelTile(32, 8, 8)
    assert pack(np.zeros((1, 128, 5120), np.float16), tile).shape == (1, 4, 80, 8, 32, 8)


def test_unpack_rejects_extents_the_array_cannot_hold():
    y = pack(np.ones((1, 40, 16), np.float16), AccelTile(32, 2, 8))
    with pytest.raises(AccelError, match="does not hold"):
        unpack(y, 70, 16)
    with pytest.raises(AccelError, match="does not hold"):
        unpack(y, 32, 16)  # D=32 would not need a second block
    with pytest.raises(AccelError, match="rank 3"):
        pack(np.ones((40, 16), np.float16), AccelTile(32, 2, 8))
