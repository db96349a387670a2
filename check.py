"""GEMM results checked elementwise against a float64 numpy product.

One reference and one error bound shared by the tests, `accel-run gemm` and the main
job, so "correct" means the same everywhere. DESIGN.md "Correctness": compare every
element, never a global metric.

The bound for one element C[g, i, j]:
  * i8 -> i32: exact (integer accumulation does not round).
  * f16/bf16/f32 inputs accumulate in f32: each of the K additions rounds by at most
    2^-24 relative to the running sum, bounded by sum_k |A[i,k]| |B[k,j]| (+ |C0|);
    K * 2^-22 * that magnitude leaves a factor 4 of slack for the MMA's internal
    summation order.
  * plus one rounding to the output type (its unit roundoff times |C|), and for f16
    output the absolute spacing 2^-24 of its subnormals.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

NP_TYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32,
            "i8": np.int8, "i32": np.int32}
# Unit roundoff of one output element.
OUT_EPS = {"f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8, "i32": 0.0}


def random_operand(rng: np.random.Generator, in_type: str, shape) -> np.ndarray:
    """Test data: small integers for i8 (products stay exact), uniform [-1, 1) else."""
    if in_type == "i8":
        return rng.integers(-8, 8, size=shape).astype(np.int8)
    return rng.uniform(-1, 1, size=shape).astype(NP_TYPES[in_type])


def reference(a: np.ndarray, b: np.ndarray, in_type: str, out_type: str,
              c0: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(float64 A @ B (+ C0), elementwise bound) for plain A [G,M,K] and B [G,K,N]."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    mag = np.abs(a64) @ np.abs(b64)
    if c0 is not None:
        ref = ref + c0.astype(np.float64)
        mag = mag + np.abs(c0.astype(np.float64))
    k = a.shape[-1]
    tol = (0.0 if in_type == "i8" else max(k, 1) * 2.0**-22 * mag) + OUT_EPS[out_type] * np.abs(ref)
    if out_type == "f16":
        tol = tol + 2.0**-24
    return ref, tol


@dataclass(frozen=True)
class Comparison:
    max_abs_error: float
    bound_at_max: float       # the bound at the element with the largest error
    mismatches: int
    total: int
    first_bad: tuple | None   # index of the first element outside its bound

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    def describe(self, got: np.ndarray, ref: np.ndarray) -> str:
        if self.ok:
            return f"all {self.total} elements within their bound"
        i = self.first_bad
        return (f"{self.mismatches} of {self.total} elements wrong, first at {i}: got "
                f"{float(got[i])}, want {float(ref[i])}")


def compare(got: np.ndarray, ref: np.ndarray, tol) -> Comparison:
    """Elementwise |got - ref| <= tol; NaN (never written, poisoned) counts as wrong."""
    got = np.asarray(got).astype(np.float64)
    if got.shape != ref.shape:
        raise ValueError(f"result shape {got.shape} differs from the reference {ref.shape}")
    err = np.abs(got - ref)
    tol = np.broadcast_to(tol, ref.shape)
    bad = ~(err <= tol)
    nbad = int(np.count_nonzero(bad))
    first = tuple(int(x) for x in np.argwhere(bad)[0]) if nbad else None
    if err.size:
        worst = np.unravel_index(int(np.argmax(np.where(np.isnan(err), np.inf, err))), err.shape)
        max_err, bound = float(err[worst]), float(tol[worst])
    else:
        max_err, bound = 0.0, 0.0
    return Comparison(max_err, bound, nbad, int(err.size), first)
