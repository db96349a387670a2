"""The split-K part of a gemm's kernel plan: the `split_k` attribute of `accel.gemm`.

A gemm whose perf config has splitKFactor S > 1 is computed by two kernels
(codegen/split_k.py): S partial products over K slices of `k_tiles` k-tiles each,
written in the accumulator type to a workspace [G * S, M, N], then a reduction kernel
that sums the S partials in slice order and applies the epilogue once. accel-plan-kernel
records, only on such gemms,

  split_k = {slices = 4, k_tiles = 8, combine = "workspace", partial_vector = 4,
             reduce_vector = 4}

`combine` is how the partials meet: always "workspace" (see passes/plan_kernel.py for
why not atomics); `partial_vector` is the partial kernel's workspace store width,
`reduce_vector` the reduction's elements per thread (its loads, its C stores).
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.dialect.ir_helpers import read_int_dict, write_int_dict

COMBINES = ("workspace",)
_INT_KEYS = ("slices", "k_tiles", "partial_vector", "reduce_vector")


@dataclass(frozen=True)
class SplitKPlan:
    slices: int          # S, the perf config's splitKFactor
    k_tiles: int         # k-tiles each slice reduces (ceil(K tiles / S))
    combine: str         # how the partial products are summed (COMBINES)
    partial_vector: int  # elements per workspace store of the partial kernel
    reduce_vector: int   # elements per thread of the reduction kernel

    def write(self, op: ir.Operation) -> None:
        write_int_dict(op, "split_k", {k: getattr(self, k) for k in _INT_KEYS},
                       {"combine": self.combine})

    @classmethod
    def read(cls, op: ir.Operation) -> "SplitKPlan | None":
        """The recorded plan, None if there is none; AccelError if malformed."""
        entries = read_int_dict(op, "split_k", _INT_KEYS, ("combine",))
        if entries is None:
            return None
        ints, strings = entries
        for k in ("partial_vector", "reduce_vector"):
            if ints[k] & (ints[k] - 1):
                raise AccelError(f"'split_k.{k}' must be a power of two, got {ints[k]}")
        combine = strings["combine"]
        if not isinstance(combine, ir.StringAttr) or combine.value not in COMBINES:
            raise AccelError(f"'split_k.combine' must be one of {', '.join(COMBINES)}")
        if ints["slices"] < 2:
            raise AccelError("'split_k.slices' must be at least 2")
        return cls(combine=combine.value, **ints)
