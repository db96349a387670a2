"""The accel layout's blocking (AccelTile): the shape arithmetic the verifiers, the
passes and codegen share, and the host-side pack/unpack.

An operand with a "D" extent (M for A, N for B) and a reduction extent K is stored as

    [G, D/dPerBlock, K/kPerBlock, kpackPerBlock, dPerBlock, kpack],  kPerBlock = kpackPerBlock*kpack

(seed 001: batch x dBlock x kIter x kpackPerBlock x dPerBlock x kpack). Element
(g, d, k) sits at [g, d // dPB, k // kPB, (k % kPB) // kpack, d % dPB, k % kpack].
D and K are zero-padded up to whole blocks, so one workgroup's tile
[kpackPerBlock][dPerBlock][kpack] is contiguous in memory: exactly the LDS layout.

`pack` / `unpack` are the host-side (numpy) conversions, the reference the
`accel.pack` / `accel.unpack` kernels are tested against.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from accel import validate
from accel.diagnostics import AccelError

if TYPE_CHECKING:
    import numpy as np   # pack/unpack import it when called (dialect/element_types.py)


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# A block of 2**31 rows or more cannot be addressed by a kernel's 32-bit offsets (and
# a 5,000-digit one cannot even be printed in a message).
MAX_BLOCK = 2**31 - 1


@dataclass(frozen=True)
class AccelTile:
    """The blocking parameters of one operand in the accel layout."""
    d_per_block: int
    kpack_per_block: int
    kpack: int

    def __post_init__(self):
        # Every shape formula divides by these: a zero or a non-integer is bad input.
        for f in fields(self):
            object.__setattr__(self, f.name, validate.positive(
                f"AccelTile {f.name}", getattr(self, f.name), maximum=MAX_BLOCK))

    @property
    def k_per_block(self) -> int:
        return self.kpack_per_block * self.kpack

    def shape(self, g: int, d: int, k: int) -> tuple[int, int, int, int, int, int]:
        """The 6-D accel shape of a [g, d, k] operand (padded up to whole blocks)."""
        return (g, ceil_div(d, self.d_per_block), ceil_div(k, self.k_per_block),
                self.kpack_per_block, self.d_per_block, self.kpack)

    @staticmethod
    def padded(shape6: tuple[int, ...] | list[int]) -> tuple[int, int, int]:
        """(G, padded D, padded K) of a 6-D accel shape."""
        g, db, kb, kpb, dpb, kp = shape6
        return g, db * dpb, kb * kpb * kp

    @staticmethod
    def of_shape(shape6) -> "AccelTile":
        _, _, _, kpb, dpb, kp = shape6
        return AccelTile(d_per_block=dpb, kpack_per_block=kpb, kpack=kp)


def _zeros(shape, dtype, what: str) -> np.ndarray:
    # A blocking of 2**31 pads a 20-row operand to 2**31 rows: numpy refuses the shape
    # (ValueError) or the memory (MemoryError).
    import numpy as np
    try:
        return np.zeros(shape, dtype=dtype)
    except (ValueError, MemoryError) as e:
        raise AccelError(f"{what} of shape {list(shape)} cannot be made: {e}") from None


def _array(x, what: str) -> np.ndarray:
    import numpy as np
    try:
        return np.asarray(x)
    except ValueError as e:  # ragged nested lists
        raise AccelError(f"{what} is not an array: {e}") from None


def _check_rank(x, rank: int, what: str) -> None:
    if x.ndim != rank:
        raise AccelError(f"{what} must be rank {rank}, got shape {list(x.shape)}")


def pack(x: np.ndarray, tile: AccelTile, transposed: bool = False) -> np.ndarray:
    """A plain [G, D, K] array ([G, K, D] if `transposed`) in the accel layout of `tile`.

    The result is a new C-contiguous 6-D array of x's dtype; D and K are zero-padded
    up to whole blocks. A graph compiler calls this once per constant weight.
    """
    import numpy as np
    validate.instance("tile", tile, AccelTile, "an AccelTile")
    transposed = validate.boolean("transposed", transposed)
    x = _array(x, "a plain operand")
    _check_rank(x, 3, "a plain operand")
    if transposed:
        x = x.transpose(0, 2, 1)
    g, d, k = x.shape
    shape6 = tile.shape(g, d, k)
    _, db, kb, kpb, dpb, kp = shape6
    padded = _zeros((g, db * dpb, kb * kpb * kp), x.dtype, "the packed operand")
    padded[:, :d, :k] = x
    # [G, D, K] = [G, (db, dPB), (kb, kpackPB, kpack)]; move dPB in front of kpack.
    blocked = padded.reshape(g, db, dpb, kb, kpb, kp)
    return np.ascontiguousarray(blocked.transpose(0, 1, 3, 4, 2, 5))


def unpack(y: np.ndarray, d: int, k: int, transposed: bool = False) -> np.ndarray:
    """The exact inverse of `pack`: the plain [G, d, k] ([G, k, d]) array, padding cropped."""
    import numpy as np
    d, k = (validate.positive(f"unpack: {name}", v) for name, v in (("d", d), ("k", k)))
    transposed = validate.boolean("transposed", transposed)
    y = _array(y, "an accel-layout array")
    _check_rank(y, 6, "an accel-layout array")
    g, pad_d, pad_k = AccelTile.padded(y.shape)
    tile = AccelTile.of_shape(y.shape)
    if not (pad_d - tile.d_per_block < d <= pad_d and pad_k - tile.k_per_block < k <= pad_k):
        raise AccelError(f"accel shape {list(y.shape)} does not hold a [G={g}, D={d}, K={k}] "
                         f"operand; expected {list(tile.shape(g, d, k))}")
    plain = y.transpose(0, 1, 4, 2, 3, 5).reshape(g, pad_d, pad_k)[:, :d, :k]
    if transposed:
        plain = plain.transpose(0, 2, 1)
    return np.ascontiguousarray(plain)
