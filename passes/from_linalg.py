"""accel-from-linalg: linalg.matmul / linalg.batch_matmul -> accel.gemm.

Tensors are bufferized first with upstream passes: one-shot-bufferize over function
boundaries with identity-layout memrefs (accel.gemm reads packed buffers), then
buffer-results-to-out-params with hoist-static-allocs, so a returned result becomes
an out-parameter the gemm writes in place. (One-shot bufferization treats tensor
arguments as writable, so a matmul accumulating into an argument updates that
argument's buffer, then copies it to the out-parameter.)

Transposed operands: this MLIR has no linalg.matmul_transpose_a/_b or
batch_matmul_transpose_a/_b ops any more; a transpose is written as the matmul's
`indexing_maps`, which we read: A as (m, k) -> "row" or (k, m) -> "transposed", B as
(k, n) -> "row" or (n, k) -> "transposed"; C must be (m, n). 2-D matmuls get G = 1
through memref.expand_shape.

linalg.matmul accumulates into its out operand, so the gemm gets `accumulate`, unless
the out buffer was just zero-filled (linalg.fill of 0, nothing touching the buffer in
between): then the fill is dropped and the gemm overwrites C.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops, memref_info
from accel.migraphx import memrefs
from accel.passes.registry import AccelPass, option, register
from accel.passes.upstream import run_upstream
from accel.target.database import get_arch

_BUFFERIZE = ("one-shot-bufferize{bufferize-function-boundaries "
              "function-boundary-type-conversion=identity-layout-map}, "
              "buffer-results-to-out-params{modify-public-functions hoist-static-allocs}")

# Operand indexing maps (as MLIR prints them) -> layout, per op.
_MATMUL = ("(d0, d1, d2)", {"(d0, d2)": "row", "(d2, d0)": "transposed"},
           {"(d2, d1)": "row", "(d1, d2)": "transposed"}, "(d0, d1)")
_BATCH = ("(d0, d1, d2, d3)", {"(d0, d1, d3)": "row", "(d0, d3, d1)": "transposed"},
          {"(d0, d3, d2)": "row", "(d0, d2, d3)": "transposed"}, "(d0, d1, d2)")
_OPS = {"linalg.matmul": _MATMUL, "linalg.batch_matmul": _BATCH}


@register
@dataclass(frozen=True)
class FromLinalg(AccelPass):
    NAME = "accel-from-linalg"
    SUMMARY = "Convert linalg.matmul/batch_matmul (tensors or memrefs) to accel.gemm"
    arch: str = option("", "arch the gemms target (required): gfx942, gfx1100 or gfx1201")

    def run(self, module: ir.Module) -> None:
        if not self.arch:
            raise AccelError("accel-from-linalg requires the 'arch' option, e.g. "
                             "accel-from-linalg{arch=gfx942}")
        get_arch(self.arch)
        if _has_tensor_matmul(module):
            run_upstream(module, _BUFFERIZE)
        for op in collect_ops(module):
            if op.name in _OPS:
                _convert(op, self.arch)


def _has_tensor_matmul(module: ir.Module) -> bool:
    return any(isinstance(v.type, ir.RankedTensorType)
               for op in collect_ops(module) if op.name in _OPS for v in op.operands)


def _layouts(op: ir.Operation) -> tuple[str, str]:
    dims, a_maps, b_maps, c_map = _OPS[op.name]
    if "indexing_maps" not in op.attributes:
        return "row", "row"
    maps = [str(m.value) for m in op.attributes["indexing_maps"]]
    results = [m.split(" -> ")[1] if m.startswith(dims + " -> ") else None for m in maps]
    a, b, c = results
    if a not in a_maps or b not in b_maps or c != c_map:
        raise AccelError(f"'{op.name}' indexing maps [{', '.join(maps)}] are not a plain or "
                         f"transposed matmul (broadcast operands are not supported)",
                         op.location)
    return a_maps[a], b_maps[b]


def _check_operand(v: ir.Value, op: ir.Operation, rank: int, name: str) -> list[int]:
    t = v.type
    if not isinstance(t, ir.MemRefType):
        raise AccelError(f"'{op.name}' operand {name} is {t}, expected a memref", op.location)
    try:
        shape, _ = memref_info(v)
    except AccelError as e:
        raise AccelError(e.message, op.location) from None
    if not (isinstance(t.layout, ir.AffineMapAttr)
            and t.layout.value == ir.AffineMap.get_identity(t.rank)):
        raise AccelError(f"'{op.name}' operand {name} has layout {t.layout}; accel.gemm "
                         f"reads packed (identity-layout) buffers", op.location)
    if len(shape) != rank:
        raise AccelError(f"'{op.name}' operand {name} must be rank {rank}, got rank "
                         f"{len(shape)}", op.location)
    return shape


def _convert(op: ir.Operation, arch: str) -> None:
    if "cast" in op.attributes and "cast_signed" not in str(op.attributes["cast"]):
        raise AccelError(f"'{op.name}' with {op.attributes['cast']} is not supported",
                         op.location)
    if len(op.operands) != 3:
        raise AccelError(f"'{op.name}' must have two inputs and one output", op.location)
    a_layout, b_layout = _layouts(op)
    rank = 2 if op.name == "linalg.matmul" else 3
    a, b, c = op.operands
    shapes = [_check_operand(v, op, rank, n) for v, n in zip((a, b, c), "ABC")]
    accumulate = not _drop_zero_fill(op, c)
    with ir.InsertionPoint(op), op.location:
        if rank == 2:
            a, b, c = (memrefs.reshape(v, [1] + s) for v, s in zip((a, b, c), shapes))
        GemmOp.build(a, b, c, arch=arch, a_layout=a_layout, b_layout=b_layout,
                     accumulate=accumulate, loc=op.location).verify()
    op.erase()


def _drop_zero_fill(matmul: ir.Operation, c: ir.Value) -> bool:
    """Erase the linalg.fill of 0 that last wrote `c` before `matmul`, if nothing else
    touches `c` (or a view of it) in between; True if erased."""
    ops = [o.operation for o in matmul.block.operations]
    idx = next(i for i, o in enumerate(ops) if o == matmul)
    for prev in reversed(ops[:idx]):
        touches = any(v == c for v in prev.operands) or any(
            isinstance(v, ir.OpResult) and any(w == c for w in v.owner.operands)
            for v in prev.operands)
        if not touches:
            continue
        if prev.name == "linalg.fill" and prev.operands[1] == c and _is_zero(prev.operands[0]):
            zero = prev.operands[0].owner.operation
            prev.erase()
            if not any(True for _ in zero.results[0].uses):
                zero.erase()
            return True
        return False
    return False


def _is_zero(v: ir.Value) -> bool:
    if not isinstance(v, ir.OpResult) or v.owner.operation.name != "arith.constant":
        return False
    attr = v.owner.operation.attributes["value"]
    return isinstance(attr, (ir.FloatAttr, ir.IntegerAttr)) and attr.value == 0
