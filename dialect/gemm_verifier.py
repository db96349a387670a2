"""The rules of `accel.gemm` (dialect/gemm.py), checked in order; the first one broken is
reported at the op, as MLIR's verifier does.
"""

from __future__ import annotations

from accel.bindings import ir
from accel.diagnostics import AccelError, located
from accel.dialect.accel_tile import AccelTile
from accel.dialect.epilogue_program import EPILOGUES, kind_shape
from accel.dialect.gemm_types import (
    ACCUMULATOR, EPILOGUE_OPERAND_TYPES, OUTPUT_TYPES, element_type_error,
)
from accel.dialect.ir_helpers import int_attr, memref_info, string_attr
from accel.dialect.kernel_plan import PLAN_ATTRIBUTES
from accel.dialect.op_rules import check_bias_type, check_nonempty, check_plain_buffer
from accel.dialect.operand_layouts import (
    OPERAND_LAYOUTS, check_offsets_fit, check_operand_view, descriptor_extent, plain_view,
    static_view,
)
from accel.dialect.perf_config import PerfConfig
from accel.target.database import ArchInfo

# The attributes accel.gemm defines (op_rules.check_attribute_names: any other name
# without a dialect prefix is a typo).
GEMM_ATTRIBUTES = ("arch", "a_layout", "b_layout", "c_layout", "perf_config", "accumulate",
                   "epilogue", "epilogue_operands", "block_size", "grid_size", "padded_m",
                   "padded_n", "padded_k", "m", "n") + PLAN_ATTRIBUTES \
    + ("split_k", "c_staging", "bf16_round")
# Epilogues that give 0 for a 0 accumulator: C's padding stays zero without the exact
# M and N (A's and B's padding is zero, so the product is).
ZERO_AT_ZERO = ("none", "relu")


def verify_gemm(gemm) -> None:
    """Raise one AccelError at `gemm`'s location (a GemmOp) for the first rule broken."""
    with located(gemm.location):
        _verify(gemm)


def _verify(gemm) -> None:
    op = gemm.op
    if len(op.operands) < 3 or len(op.results) != 0:
        raise AccelError("'accel.gemm' takes 3 operands (A, B, C), then a fused "
                         "epilogue's, and has no results")
    info = gemm.check_frame(GEMM_ATTRIBUTES)
    _check_attribute_values(gemm)
    (a_shape, a_t), (b_shape, b_t), (c_shape, c_t) = (
        memref_info(v) for v in (gemm.a, gemm.b, gemm.c))
    _check_element_types(info, a_t, b_t, c_t)
    for shp, name in ((a_shape, "A"), (b_shape, "B"), (c_shape, "C")):
        check_nonempty(shp, name)
    check_operand_view(gemm.a, gemm.a_layout, "A", any_inner_stride=True)
    check_operand_view(gemm.b, gemm.b_layout, "B", any_inner_stride=True)
    check_c_view(gemm.c, gemm.c_layout)
    config = gemm.perf_config
    a_g, a_d, a_k = plain_view(a_shape, gemm.a_layout, "A")
    b_g, b_d, b_k = plain_view(b_shape, gemm.b_layout, "B")
    g, m, n = _c_extents(gemm, c_shape, a_d, b_d, config)
    if a_g != g or b_g != g:
        raise AccelError(f"batch sizes disagree: A {a_g}, B {b_g}, C {g}")
    _verify_epilogue(gemm, g, m, n, c_t, ACCUMULATOR[a_t])
    _check_d(a_d, m, gemm.a_layout, "A", "M", a_shape)
    _check_d(b_d, n, gemm.b_layout, "B", "N", b_shape)
    _check_k(gemm.a_layout, gemm.b_layout, a_shape, b_shape, a_k, b_k)
    if config is not None:
        _check_operand_blocking(gemm, config, a_shape, b_shape)


def check_c_view(value: ir.Value, layout: str) -> None:
    """C in the row layout may be a strided view of a larger buffer: one static stride
    per (G, M, N) dimension with N of stride 1 (rows further apart than they are long,
    a wider batch stride) or M of stride 1 (C transposed). The kernel's buffer stores
    write it through its strides (codegen/epilogue.py). Reads may alias; a write may
    not: no stride 0 on a dimension of more than one element, and no two dimensions
    overlapping (each stride, smallest first, at least the span of the ones inside
    it), so every element has its own address, inside the descriptor bound max(n * s)
    past which a masked store is dropped."""
    view = static_view(value, "C")
    if view is None:
        return
    t, (strides, offset) = value.type, view
    if layout != "row":
        raise AccelError(f"C in the '{layout}' layout must be a contiguous row-major "
                         f"memref, got {t}")
    shape = list(t.shape)
    if len(shape) != 3:
        raise AccelError(f"C must be rank 3 [G, M, N], got rank {len(shape)}")
    (_, m, n), (_, s_m, s_n) = shape, strides
    if not (n == 1 or s_n == 1 or m == 1 or s_m == 1):
        raise AccelError(f"C needs N (row-major) or M (transposed) of stride 1, got {t}")
    live = sorted((s, d) for d, s in zip(shape, strides) if d > 1)
    if live and live[0][0] == 0:
        raise AccelError(f"C has stride 0 on a dimension of {live[0][1]} elements: its "
                         f"stores would write one address several times, got {t}")
    span = 1
    for s, d in live:
        if s < span:
            raise AccelError(f"C's strides overlap (stride {s} inside a span of {span} "
                             f"elements): its stores would write one address several "
                             f"times, got {t}")
        span += (d - 1) * s
    check_offsets_fit("C", t, offset, descriptor_extent(shape, strides))


def _check_attribute_values(gemm) -> None:
    op = gemm.op
    if gemm.accumulate and not isinstance(op.attributes["accumulate"], ir.UnitAttr):
        raise AccelError("attribute 'accumulate' must be a unit attribute")
    for name in ("block_size", "grid_size", "padded_m", "padded_n", "padded_k", "m", "n"):
        int_attr(op, name)
    for name in ("a_layout", "b_layout"):
        lay = string_attr(op, name, "row")
        if lay not in OPERAND_LAYOUTS:
            raise AccelError(f"{name} must be one of {', '.join(OPERAND_LAYOUTS)}, got '{lay}'")
    if gemm.c_layout not in ("row", "accel"):
        raise AccelError(f"c_layout must be 'row' or 'accel', got '{gemm.c_layout}'")


def _check_element_types(info: ArchInfo, a_t: str, b_t: str, c_t: str) -> None:
    why = element_type_error(info, a_t, b_t)
    if why:
        raise AccelError(why)
    if c_t not in OUTPUT_TYPES[a_t]:
        raise AccelError(f"output type {c_t} is not supported for {a_t} inputs "
                         f"(expected one of {', '.join(OUTPUT_TYPES[a_t])})")


def _c_extents(gemm, c_shape, a_d: int, b_d: int,
               config: PerfConfig | None) -> tuple[int, int, int]:
    """(G, M, N) of C; in C's accel layout M and N are A's and B's where those are plain."""
    for dim, name, layout in (("m", "A", gemm.a_layout), ("n", "B", gemm.b_layout)):
        if dim in gemm.op.attributes and (layout, gemm.c_layout) != ("accel", "accel"):
            raise AccelError(f"attribute '{dim}' is only for a gemm whose {name} and C are "
                             f"both in the accel layout (otherwise {name} or C holds "
                             f"{dim.upper()})")
    if gemm.c_layout == "accel":
        if len(c_shape) != 6:
            raise AccelError(f"C in 'accel' layout must be rank 6, got rank {len(c_shape)}")
        g, m, n = AccelTile.padded(c_shape)
        c_tile = AccelTile.of_shape(c_shape)
        m = _fit_padded(a_d if gemm.a_layout != "accel" else
                        _exact(gemm, "m", gemm.exact_m, m, c_tile.d_per_block),
                        m, c_tile.d_per_block, "M")
        n = _fit_padded(b_d if gemm.b_layout != "accel" else
                        _exact(gemm, "n", gemm.exact_n, n, c_tile.k_per_block),
                        n, c_tile.k_per_block, "N")
        if config is not None and c_tile != AccelTile(
                config.m_per_block, config.kpack_per_block, config.kpack):
            raise AccelError(f"C accel layout {list(c_shape)} disagrees with perf config "
                             f"{config} (expects mPerBlock={config.m_per_block}, "
                             f"kpackPerBlock={config.kpack_per_block}, kpack={config.kpack})")
        return g, m, n
    if len(c_shape) != 3:
        raise AccelError(f"C must be rank 3 [G, M, N], got rank {len(c_shape)}")
    g, m, n = c_shape
    return g, m, n


def _exact(gemm, dim: str, exact: int | None, padded: int, block: int) -> int:
    """M (`dim` "m") of a gemm whose A and C are both in the accel layout, or N ("n")
    with B and C: the attribute, needed unless the epilogue keeps C's padding zero by
    itself; C's layout pads M to mPerBlock and N to kPerBlock (`block`)."""
    name, what = ("A", "rows") if dim == "m" else ("B", "columns")
    if exact is None:
        if gemm.epilogue not in ZERO_AT_ZERO:
            raise AccelError(f"{name} and C in the accel layout hold {dim.upper()} only padded "
                             f"(to {padded}): epilogue '{gemm.epilogue}' needs attribute "
                             f"'{dim}' (the exact {dim.upper()}) to keep C's padding {what} "
                             f"zero")
        return padded
    if not (padded - block < exact <= padded):
        raise AccelError(f"attribute '{dim}' = {exact} does not fit C's accel layout, which "
                         f"holds {dim.upper()} padded to {padded} (expects {padded - block} "
                         f"< {dim} <= {padded})")
    return exact


def _check_k(a_layout: str, b_layout: str, a_shape, b_shape, a_k: int, b_k: int) -> None:
    """A's and B's K agree (a plain K fits the accel operand's padded K)."""
    if a_layout == "accel" and b_layout == "accel":
        # One kernel walks K in one blocking, so both operands must share it.
        if (a_shape[3], a_shape[5]) != (b_shape[3], b_shape[5]):
            raise AccelError(
                f"A and B accel layouts block K differently: kpackPerBlock x kpack is "
                f"{a_shape[3]}x{a_shape[5]} for A, {b_shape[3]}x{b_shape[5]} for B")
        if a_k != b_k:
            raise AccelError(f"padded K of A ({a_k}) and B ({b_k}) disagree")
    elif a_layout == "accel" or b_layout == "accel":
        plain_k, accel_k, kpb = (b_k, a_k, a_shape) if a_layout == "accel" else (a_k, b_k, b_shape)
        kpb = kpb[3] * kpb[5]
        if not (accel_k - kpb < plain_k <= accel_k):
            raise AccelError(f"K mismatch: plain operand has K={plain_k}, accel operand "
                             f"holds K padded to {accel_k}")
    elif a_k != b_k:
        raise AccelError(f"K of A ({a_k}) and B ({b_k}) disagree")


def _check_operand_blocking(gemm, config: PerfConfig, a_shape, b_shape) -> None:
    """An A or B in the accel layout is blocked as the perf config tiles."""
    for lay, shp, name, dpb in ((gemm.a_layout, a_shape, "A", config.m_per_block),
                                (gemm.b_layout, b_shape, "B", config.n_per_block)):
        if lay != "accel":
            continue
        _, _, _, kpb, d, kp = shp
        if (d, kpb, kp) != (dpb, config.kpack_per_block, config.kpack):
            raise AccelError(
                f"{name} accel layout [.., {kpb}, {d}, {kp}] disagrees with perf config "
                f"{config} (expects kpackPerBlock={config.kpack_per_block}, "
                f"dPerBlock={dpb}, kpack={config.kpack})")


def _verify_epilogue(gemm, g: int, m: int, n: int, out_t: str, acc_t: str) -> None:
    epilogue = gemm.epilogue
    if epilogue not in EPILOGUES and "=" not in epilogue:
        raise AccelError(f"epilogue must be one of {', '.join(EPILOGUES)} or an op list "
                         f"('%0 = <op> <operands>; ...'), got '{epilogue}'")
    if epilogue in EPILOGUES:
        _verify_fixed_epilogue(gemm, g, n, out_t)
        return
    program = gemm.program
    extras = gemm.extras
    if "epilogue_operands" not in gemm.op.attributes:
        raise AccelError("an op-list epilogue needs 'epilogue_operands' (one kind per "
                         "extra operand)")
    kinds = gemm.extra_kinds
    if len(kinds) != len(extras):
        raise AccelError(f"epilogue_operands names {len(kinds)} kind(s) for "
                         f"{len(extras)} extra operand(s)")
    if program.extra_count != len(extras):
        raise AccelError(f"the epilogue reads {program.extra_count} extra operand(s) but "
                         f"the gemm has {len(extras)}")
    infos = []
    for j, (v, kind) in enumerate(zip(extras, kinds)):
        shape, elem = memref_info(v)
        if elem not in EPILOGUE_OPERAND_TYPES:
            raise AccelError(f"epilogue operand {j} has element type {elem} (expected one "
                             f"of {', '.join(EPILOGUE_OPERAND_TYPES)})")
        if kind == "gmn":   # read like A and B, through its strides
            check_operand_view(v, "row", f"epilogue operand {j}")
        else:
            check_plain_buffer(v, f"epilogue operand {j}")
        infos.append((kind, elem))
    try:
        program.verify(acc_t, infos)
    except AccelError as e:
        raise AccelError(e.message) from None
    for j, ((kind, _), v) in enumerate(zip(infos, extras)):
        want = kind_shape(kind, g, m, n)
        if memref_info(v)[0] != want:
            raise AccelError(f"epilogue operand {j} of kind '{kind}' must be {want}, got "
                             f"{memref_info(v)[0]}")


def _verify_fixed_epilogue(gemm, g: int, n: int, out_t: str) -> None:
    epilogue = gemm.epilogue
    extras = gemm.extras
    if len(extras) > 1:
        raise AccelError(f"epilogue '{epilogue}' takes at most one extra operand (the "
                         f"bias), got {len(extras)}")
    bias = extras[0] if extras else None
    if gemm.has_bias and bias is None:
        raise AccelError(f"epilogue '{epilogue}' needs a bias operand (the 4th)")
    if bias is None:
        return
    if not gemm.has_bias:
        raise AccelError(f"a bias operand needs epilogue 'bias' or 'bias_relu', "
                         f"got '{epilogue}'")
    shape, elem = memref_info(bias)
    check_bias_type(elem, out_t)
    if shape not in ([n], [g, n]):
        raise AccelError(f"bias must be [N] = [{n}] or [G, N] = [{g}, {n}], got {shape}")
    check_plain_buffer(bias, "bias")


def _fit_padded(exact: int, padded: int, block: int, dim: str) -> int:
    """`exact` if C's accel layout, padded to whole blocks of `block`, holds it."""
    if not (padded - block < exact <= padded):
        raise AccelError(f"C accel layout holds {dim} padded to {padded}, which does not "
                         f"match {dim}={exact} of the operands")
    return exact


def _check_d(d: int, want: int, layout: str, name: str, dim: str, shape) -> None:
    if layout == "accel":
        dpb = shape[4]
        if not (d - dpb < want <= d):
            raise AccelError(f"{name} accel layout holds {dim} padded to {d}, which does not "
                             f"match {dim}={want} of C")
    elif d != want:
        raise AccelError(f"{name} has {dim}={d} but C has {dim}={want}")
