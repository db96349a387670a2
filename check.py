"""GEMM results checked elementwise against a float64 numpy product.

One reference and one error bound shared by the tests, `accel-run gemm` and the main
job, so "correct" means the same everywhere. docs/contracts.md "Correctness": compare every
element, never a global metric. `check_gemm` compiles one GEMM through the pass
pipeline, runs the host function (pack kernels and the GEMM) in the simulator and
compares C.

The bound for one element C[g, i, j]:
  * i8 -> i32: exact (integer accumulation does not round).
  * f16/bf16/f32 inputs accumulate in f32: each of the K additions rounds by at most
    2^-24 relative to the running sum, bounded by sum_k |A[i,k]| |B[k,j]| (+ |C0|);
    K * 2^-22 * that magnitude leaves a factor 4 of slack for the MMA's internal
    summation order.
  * fp8 inputs (any pairing) accumulate in f32 with the same bound, derived: a product
    of two fp8 values is exact in f32 (significands of at most 4 bits multiply into at
    most 8 <= 24 bits; the smallest nonzero product, 2^-17 * 2^-17 = 2^-34 for
    f8E5M2FNUZ, and the largest, 57344^2 < 2^32, are f32 normals), so the only error is
    the f32 summation: at most (K-1) * 2^-24 * sum_k |A[i,k]| |B[k,j]| to first order,
    and K * 2^-22 * that magnitude covers it with the same factor 4 of slack. The
    reference decodes the inputs exactly (ml_dtypes) into float64.
  * plus one rounding to the output type (its unit roundoff times |C|), and for f16
    output the absolute spacing 2^-24 of its subnormals.
A fused epilogue (accel.gemm `epilogue`) adds the bias in f32 as one more addition
(its magnitude joins the sum's) and applies relu, which is 1-Lipschitz: the bound of
the sum carries over, the output rounding applies to the clamped value.
`check_grouped_gemm` does the same for a grouped GEMM (accel.grouped_gemm), group by
group, and checks that no row outside the groups was written.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel import validate
from accel.api import default_out_type, gemm_module_text, grouped_gemm_module_text
from accel.bindings import ir, new_context
from accel.diagnostics import AccelError
from accel.dialect.accel_tile import AccelTile, pack
from accel.dialect.element_types import FP8_FORMATS, NUMPY_TYPES, is_fp8
from accel.dialect.grouped_gemm import GroupedGemmOp
from accel.dialect.epilogue_program import BIAS_EPILOGUES
from accel.dialect.ir_helpers import collect_ops
from accel.pipelines.kernel import KernelPipeline
from accel.sim import SimLaunch, run_host

# Unit roundoff of one output element.
OUT_EPS = {"f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8, "i32": 0.0}


# fp8 test data draws codes, not values, so every exponent (subnormals, +-0) occurs;
# codes of magnitude up to this keep a K <= 4096 sum within f16's range for f16 output.
FP8_DATA_MAX = 2.0


def random_operand(rng: np.random.Generator, in_type: str, shape) -> np.ndarray:
    """Test data: small integers for i8 (products stay exact), uniform random codes of
    magnitude <= FP8_DATA_MAX for fp8, uniform [-1, 1) else."""
    if in_type == "i8":
        return rng.integers(-8, 8, size=shape).astype(np.int8)
    if is_fp8(in_type):
        codes = fp8_codes(in_type, FP8_DATA_MAX)
        return codes[rng.integers(0, codes.size, size=shape)].view(NUMPY_TYPES[in_type])
    return rng.uniform(-1, 1, size=shape).astype(NUMPY_TYPES[in_type])


def fp8_codes(t: str, limit: float = np.inf) -> np.ndarray:
    """The uint8 codes of fp8 format `t` whose value is finite with |value| <= limit."""
    codes = np.arange(256, dtype=np.uint8)
    v = codes.view(NUMPY_TYPES[t]).astype(np.float64)
    return codes[np.isfinite(v) & (np.abs(v) <= limit)]


def fp8_edge_values(t: str) -> np.ndarray:
    """The values at the edges of fp8 format `t`: +-largest finite, +-smallest normal,
    +-largest and +-smallest subnormal, +0 and (where the format has it) -0."""
    fmt = FP8_FORMATS[t]
    tiny = 2.0 ** (1 - fmt.bias)                       # smallest normal
    sub = tiny * 2.0 ** -fmt.mantissa_bits             # smallest subnormal
    vals = [fmt.max_finite, tiny, tiny - sub, sub]
    out = vals + [-v for v in vals] + [0.0] + ([-0.0] if fmt.family == "OCP" else [])
    return np.array(out, dtype=np.float64).astype(fmt.numpy_type)


def edge_operand(rng: np.random.Generator, in_type: str, shape) -> np.ndarray:
    """random_operand with every fp8 edge value (fp8_edge_values) planted, each at
    several random positions."""
    x = random_operand(rng, in_type, shape).reshape(-1)
    edges = fp8_edge_values(in_type)
    spots = rng.choice(x.size, size=min(x.size, 4 * edges.size), replace=False)
    x[spots] = np.resize(edges, spots.size)
    return x.reshape(shape)


def reference(a: np.ndarray, b: np.ndarray, in_type: str, out_type: str,
              c0: np.ndarray | None = None, bias: np.ndarray | None = None,
              relu: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(float64 relu?(A @ B (+ C0) (+ bias)), elementwise bound) for plain A [G,M,K] and
    B [G,K,N]; the bias is [N] or [G, N], broadcast over rows."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    mag = np.abs(a64) @ np.abs(b64)
    if bias is not None:
        bias = bias.reshape(-1 if bias.ndim == 2 else 1, 1, bias.shape[-1])
    for extra in (c0, bias):
        if extra is not None:
            ref = ref + extra.astype(np.float64)
            mag = mag + np.abs(extra.astype(np.float64))
    if relu:
        ref = np.maximum(ref, 0.0)
    k = a.shape[-1]
    with np.errstate(invalid="ignore"):   # an inf input makes inf - inf in `mag`
        tol = (0.0 if in_type == "i8" else max(k, 1) * 2.0**-22 * mag) \
            + OUT_EPS[out_type] * np.abs(ref)
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


@dataclass(frozen=True)
class GemmCheck:
    """One compiled and simulated GEMM: the kernel's facts and the comparison."""
    perf_config: str
    tile: tuple[int, int, int]        # m, n, k per block
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    lds_bytes: int
    mma: str                          # instruction mnemonic
    launches: tuple[SimLaunch, ...]   # every kernel the host function ran, in order
    comparison: Comparison
    got: np.ndarray
    ref: np.ndarray
    bound: np.ndarray
    seconds: float                    # simulation time of the host function


def check_gemm(arch: str, *, g: int = 1, m: int, n: int, k: int, in_type: str = "f16",
               out_type: str | None = None, trans_a: bool = False, trans_b: bool = False,
               a_layout: str = "row", b_layout: str = "row", perf_config=None,
               seed: int = 0, epilogue: str = "none", batched_bias: bool = False,
               b_type: str | None = None, edge_values: bool = False,
               operands: tuple[np.ndarray, np.ndarray] | None = None,
               work_limit: int | None = None, progress=None) -> GemmCheck:
    """Compile C[g,m,n] = A * B for `arch`, simulate it on random inputs and compare
    every element of C with the float64 product.

    `in_type` is A's element type, `b_type` B's (default the same). `epilogue` fuses a
    bias and/or relu (accel.gemm's attribute); the bias is [N], or [G, N] with
    `batched_bias`. `edge_values` plants each fp8 operand's edge values (largest
    finite, subnormals, +-0; fp8_edge_values); with f16 output their products may
    overflow it, so it takes f32 or bf16. `operands` gives plain A [G,M,K] and B
    [G,K,N] instead of random ones (the comparison then counts a NaN the reference
    also has as wrong: read `got` and `ref`). `work_limit` and `progress` are
    run_host's."""
    seed = validate.integer("seed", seed, minimum=0, what="a non-negative integer")
    has_bias = epilogue in BIAS_EPILOGUES
    out_type = out_type or default_out_type(in_type)
    b_type = b_type or in_type
    if edge_values and not (is_fp8(in_type) or is_fp8(b_type)):
        raise AccelError("edge values are planted in fp8 operands only")
    if edge_values and operands is not None:
        raise AccelError("edge values are planted in random operands, not in given ones")
    if edge_values and out_type == "f16":
        raise AccelError("edge values need f32 or bf16 output: fp8 products overflow f16")
    text = gemm_module_text(arch, g=g, m=m, n=n, k=k, in_type=in_type, out_type=out_type,
                            trans_a=trans_a, trans_b=trans_b, a_layout=a_layout,
                            b_layout=b_layout, perf_config=perf_config, accumulate=False,
                            epilogue=epilogue, batched_bias=batched_bias, b_type=b_type)
    bias_shape = [g, n] if batched_bias else [n]
    with new_context():
        module = ir.Module.parse(text)
        try:
            (kernel,) = KernelPipeline(arch=arch).to_kernel_ir(module).gemms
        except AccelError as e:
            # The module text is ours, not the caller's: a position in it means nothing.
            e.location = None
            raise
        cfg = kernel.config
        rng = np.random.default_rng(seed)
        if operands is not None:
            a, b = (np.asarray(x, dtype=NUMPY_TYPES[t])
                    for x, t in zip(operands, (in_type, b_type)))
            if a.shape != (g, m, k) or b.shape != (g, k, n):
                raise AccelError(f"operands must be A {[g, m, k]} and B {[g, k, n]}, got "
                                 f"{list(a.shape)} and {list(b.shape)}")
        else:
            a, b = ((edge_operand if edge_values and is_fp8(t) else random_operand)(rng, t, shp)
                    for t, shp in ((in_type, (g, m, k)), (b_type, (g, k, n))))
        if a_layout == "accel":
            a_arg = pack(a, AccelTile(cfg.m_per_block, cfg.kpack_per_block, cfg.kpack))
        else:
            a_arg = np.ascontiguousarray(a.transpose(0, 2, 1)) if trans_a else a
        if b_layout == "accel":
            b_arg = pack(b, AccelTile(cfg.n_per_block, cfg.kpack_per_block, cfg.kpack),
                         transposed=True)
        else:
            b_arg = np.ascontiguousarray(b.transpose(0, 2, 1)) if trans_b else b
        # C starts as NaN (a sentinel for integers): an element never written is wrong.
        c = np.full((g, m, n), np.nan if out_type != "i32" else -123456789,
                    dtype=NUMPY_TYPES[out_type])
        bias = None
        if has_bias:   # in the output type: small integers for i32, like the operands
            bias = random_operand(rng, "i8" if out_type == "i32" else out_type,
                                  bias_shape).astype(NUMPY_TYPES[out_type])
        args = [a_arg, b_arg, c] + ([bias] if has_bias else [])
        report = run_host(module, "gemm", args, arch=arch, work_limit=work_limit,
                          progress=progress)
    ref, tol = reference(a, b, in_type, out_type, bias=bias,
                         relu=epilogue in ("relu", "bias_relu"))
    return GemmCheck(str(cfg), (cfg.m_per_block, cfg.n_per_block, cfg.k_per_block),
                     tuple(kernel.grid), (kernel.block_size, 1, 1), kernel.lds_bytes,
                     kernel.mma.instr.mnemonic, tuple(report.launches), compare(c, ref, tol),
                     c.astype(np.float64), ref, tol, report.seconds)


# ---- grouped GEMM (accel.grouped_gemm) ---------------------------------------------------
@dataclass(frozen=True)
class GroupedCheck:
    """One compiled and simulated grouped GEMM."""
    perf_config: str
    mode: str
    config_source: str
    launches: tuple[SimLaunch, ...]   # prep (compact mode), then main, as the host ran them
    comparison: Comparison            # the rows of every group, elementwise
    untouched_rows_kept: bool         # every row outside the groups still holds its NaN
    tiles_occupied: int               # (group, M tile, N tile) triples holding a row
    main_workgroups: int              # the main kernel's launched grid
    loading_workgroups: dict          # "A", "B", "bias" -> main-kernel workgroups loading it
    mma_workgroups: int               # main-kernel workgroups that ran an MMA
    seconds: float


def check_grouped_gemm(arch: str, *, lengths, n: int, k: int, max_seq_len: int,
                       total_rows: int, in_type: str = "bf16", out_type: str | None = None,
                       b_layout: str = "stacked", bias: bool = True, mode: str = "auto",
                       perf_config=None, dispatch_table=None, seed: int = 0) -> GroupedCheck:
    """Compile a grouped GEMM of len(lengths) groups, simulate its kernels (prep, then
    main, reading the device-side tile list) on random data with seq_offsets the prefix
    sum of `lengths`, and compare every row of every group with the float64 product
    (a group's rows past max_seq_len are not computed and must stay untouched, as every
    row past the groups)."""
    seed = validate.integer("seed", seed, minimum=0, what="a non-negative integer")
    lengths = [int(x) for x in lengths]
    groups = len(lengths)
    if groups == 0 or min(lengths) < 0 or sum(lengths) > total_rows:
        raise AccelError(f"lengths must be {groups or 'one or more'} non-negative row "
                         f"counts summing to at most total_rows = {total_rows}")
    out_type = out_type or in_type
    text = grouped_gemm_module_text(arch, groups=groups, n=n, k=k, max_seq_len=max_seq_len,
                                    total_rows=total_rows, in_type=in_type, out_type=out_type,
                                    b_layout=b_layout, bias=bias, mode=mode,
                                    perf_config=perf_config, dispatch_table=dispatch_table)
    rng = np.random.default_rng(seed)
    a = random_operand(rng, in_type, (total_rows, k))
    b_mats = random_operand(rng, in_type, (groups, k, n))   # group g's K x N matrix
    b_arg = (np.ascontiguousarray(b_mats.transpose(0, 2, 1)).reshape(groups * n, k)
             if b_layout == "stacked" else b_mats)
    bias_v = random_operand(rng, out_type, (groups, n)) if bias else None
    seq = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    c = np.full((total_rows, n), np.nan, dtype=NUMPY_TYPES[out_type])
    with new_context():
        module = ir.Module.parse(text)
        (op,) = collect_ops(module, GroupedGemmOp.OP_NAME)
        source = GroupedGemmOp(op).config_source
        try:
            (kernel,) = KernelPipeline(arch=arch).to_kernel_ir(module).grouped
        except AccelError as e:
            e.location = None   # the module text is ours
            raise
        args = [a, b_arg, seq, c] + ([bias_v.reshape(-1)] if bias else [])
        report = run_host(module, "grouped_gemm", args, arch=arch)
    got = c.astype(np.float64)
    ref = np.full(got.shape, np.nan)
    tol = np.zeros(got.shape)
    computed = np.zeros(total_rows, dtype=bool)
    cfg = kernel.gemm.config
    occupied = 0
    for g, length in enumerate(lengths):
        s, rows = int(seq[g]), min(length, max_seq_len)
        occupied += -(-rows // cfg.m_per_block)
        if rows == 0:
            continue
        r, t = reference(a[None, s:s + rows], b_mats[g:g + 1], in_type, out_type,
                         bias=None if bias_v is None else bias_v[g:g + 1])
        ref[s:s + rows], tol[s:s + rows] = r[0], t[0]
        computed[s:s + rows] = True
    main = report.launches[-1].report
    # The main kernel's arguments: #0 A, #1 B, #2 C, #3 the bias, then seq_offsets.
    names = {"A": "argument #0", "B": "argument #1"}
    if bias:
        names["bias"] = "argument #3"
    loading = {k_: len(main.active_workgroups.get(f"load {v}", ())) for k_, v in names.items()}
    return GroupedCheck(
        str(cfg), kernel.mode, source, tuple(report.launches),
        compare(got[computed], ref[computed], tol[computed]),
        bool(np.isnan(got[~computed]).all()), occupied * kernel.launch.n_tiles,
        main.workgroups, loading, len(main.active_workgroups.get("mma", ())), report.seconds)


def group_lengths(distribution: str, groups: int, max_seq_len: int, seed: int = 0) -> list[int]:
    """Row counts of `groups` groups: "uniform" (all max_seq_len), "empty" (all 0) or
    "skew", seed 003's skew regime: about 20% empty groups, one at the full
    max_seq_len, one near it (7/8 of it), the rest uniform in [1, max_seq_len / 2]."""
    if distribution == "uniform":
        return [max_seq_len] * groups
    if distribution == "empty":
        return [0] * groups
    if distribution != "skew":
        raise AccelError(f"distribution must be uniform, skew or empty, got {distribution!r}")
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, max(max_seq_len // 2, 1) + 1, groups)
    lengths[rng.random(groups) < 0.2] = 0
    lengths[rng.integers(groups)] = max_seq_len
    if groups > 1:
        near = (rng.integers(groups - 1) + 1 + np.flatnonzero(lengths == max_seq_len)[0]) % groups
        lengths[near] = max(max_seq_len * 7 // 8, 1)
    return [int(x) for x in lengths]
