"""The accel layout: shape arithmetic shared by the verifier, the passes and codegen.

An operand with a "D" extent (M for A, N for B) and a reduction extent K is stored as

    [G, D/dPerBlock, K/kPerBlock, kpackPerBlock, dPerBlock, kpack],  kPerBlock = kpackPerBlock*kpack

(seed 001: batch x dBlock x kIter x kpackPerBlock x dPerBlock x kpack). Element
(g, d, k) sits at [g, d // dPB, k // kPB, (k % kPB) // kpack, d % dPB, k % kpack].
D and K are zero-padded up to whole blocks, so one workgroup's tile
[kpackPerBlock][dPerBlock][kpack] is contiguous in memory: exactly the LDS layout.
"""

from __future__ import annotations

from dataclasses import dataclass


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class AccelTile:
    """The blocking parameters of one operand in the accel layout."""
    d_per_block: int
    kpack_per_block: int
    kpack: int

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
