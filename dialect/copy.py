"""`accel.copy`: values moved from one buffer to another through index maps, as a kernel.

  "accel.copy"(%in, %out) {arch = "gfx942", shape = array<i64: 1, 3, 5>,
                           input_map = affine_map<(d0, d1, d2) -> (d0, d2, d1)>,
                           output_map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>}
      : (memref<1x5x3xf32>, memref<1x3x5xf32>) -> ()

For every index d of `shape` (the copy's logical shape), out[output_map(d)] =
in[input_map(d)]: a view read row-major (a transpose, a slice, a broadcast, a reshape
that regroups strides, the maps a front end's all-parallel copying linalg.generic has),
or a value written into a function result through the result's view. The maps' results
are affine expressions of the d's with non-negative constants (+, *, floordiv, mod,
ceildiv), so every index is a non-negative integer the verifier bounds: each map's
results stay inside its buffer for every d. The output holds at least prod(shape)
elements (more when it is a function result with gaps between its rows, written
through a strided view); that output_map visits no element twice is the front end's to
keep (it is the view of a fresh buffer or of a function result). Both buffers are plain
row-major memrefs of one element type.
"""

from __future__ import annotations

from math import prod

from accel.bindings import ir
from accel.diagnostics import AccelError, located
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.ir_helpers import OpView, memref_info, string_attr
from accel.dialect.op_rules import (
    check_attribute_names, check_host_code, check_nonempty, check_plain_buffer,
)
from accel.target.database import get_arch

REQUIRED = ("arch", "shape", "input_map", "output_map")
# `reason`, optional: why a front end copies rather than lets the reader take the view
# in place (benchmarks/bench_migraphx_corpus.py counts copies by it).
ATTRIBUTES = REQUIRED + ("reason",)

# An index expression as a tree: ("dim", i), ("const", c), or (op, lhs, rhs) with op one
# of add, mul, floordiv, ceildiv, mod.
Expr = tuple


def expr_tree(e: ir.AffineExpr) -> Expr:
    """`e` as an Expr; AccelError for a symbol (a copy's indices are its dims only)."""
    if isinstance(e, ir.AffineDimExpr):
        return ("dim", e.position)
    if isinstance(e, ir.AffineConstantExpr):
        return ("const", e.value)
    for kind, name in ((ir.AffineAddExpr, "add"), (ir.AffineMulExpr, "mul"),
                       (ir.AffineFloorDivExpr, "floordiv"),
                       (ir.AffineCeilDivExpr, "ceildiv"), (ir.AffineModExpr, "mod")):
        if isinstance(e, kind):
            return (name, expr_tree(e.lhs), expr_tree(e.rhs))
    raise AccelError(f"index expression '{e}' uses a symbol; an index map reads d0, d1, ...")


def expr_range(x: Expr, shape: list[int]) -> tuple[int, int]:
    """[lo, hi] of `x` over every index of `shape`; AccelError when a subexpression may
    be negative or divides by anything but a positive constant (the kernel's index
    arithmetic is unsigned i32)."""
    if x[0] == "dim":
        return 0, shape[x[1]] - 1
    if x[0] == "const":
        if x[1] < 0:
            raise AccelError(f"negative constant {x[1]} in an index expression")
        return x[1], x[1]
    (alo, ahi), (blo, bhi) = expr_range(x[1], shape), expr_range(x[2], shape)
    if x[0] == "add":
        return alo + blo, ahi + bhi
    if x[0] == "mul":
        return alo * blo, ahi * bhi
    if x[2][0] != "const" or x[2][1] == 0:
        raise AccelError(f"an index expression divides by {x[2]}, not a positive "
                         f"constant")
    c = x[2][1]
    if x[0] == "floordiv":
        return alo // c, ahi // c
    if x[0] == "ceildiv":
        return -(-alo // c), -(-ahi // c)
    return (alo, ahi) if ahi < c else (0, c - 1)


def check_index_map(m: ir.AffineMap, shape: list[int], buf: list[int], name: str) -> None:
    """AccelError unless `m` takes the dims of `shape` (no symbols) to indices of a
    buffer of shape `buf`, each inside its extent for every index of `shape`."""
    if m.n_dims != len(shape) or m.n_symbols:
        raise AccelError(f"{name} must take the {len(shape)} dims of {shape} and no "
                         f"symbols, got {m}")
    if len(m.results) != len(buf):
        raise AccelError(f"{name} gives {len(m.results)} indices for a rank {len(buf)} "
                         f"buffer")
    for k, (e, d) in enumerate(zip(m.results, buf)):
        lo, hi = expr_range(expr_tree(e), shape)
        if hi >= d:
            raise AccelError(f"{name} index {k} ({e}) reaches {hi}, past the buffer's {d}")


class CopyOp(OpView):
    OP_NAME = "accel.copy"

    @classmethod
    def build(cls, inp: ir.Value, out: ir.Value, *, arch: str, shape: list[int],
              input_exprs: list[str], output_exprs: list[str], reason: str = "",
              loc: ir.Location | None = None) -> "CopyOp":
        dims = ", ".join(f"d{i}" for i in range(len(shape)))
        attrs = {"arch": ir.StringAttr.get(arch),
                 "shape": ir.DenseI64ArrayAttr.get(list(shape)),
                 "input_map": ir.Attribute.parse(
                     f"affine_map<({dims}) -> ({', '.join(input_exprs)})>"),
                 "output_map": ir.Attribute.parse(
                     f"affine_map<({dims}) -> ({', '.join(output_exprs)})>")}
        if reason:
            attrs["reason"] = ir.StringAttr.get(reason)
        op = ir.Operation.create(cls.OP_NAME, results=[], operands=[inp, out],
                                 attributes=attrs, loc=loc or ir.Location.unknown())
        return cls(op)

    @property
    def inp(self) -> ir.Value:
        return self.op.operands[0]

    @property
    def out(self) -> ir.Value:
        return self.op.operands[1]

    @property
    def arch(self) -> str:
        return string_attr(self.op, "arch", "")

    @property
    def reason(self) -> str:
        return string_attr(self.op, "reason", "")

    @property
    def shape(self) -> list[int]:
        attr = self.op.attributes["shape"] if "shape" in self.op.attributes else None
        if not isinstance(attr, ir.DenseI64ArrayAttr):
            raise AccelError("attribute 'shape' must be an array<i64: ...>")
        return list(attr)

    def _map(self, name: str) -> ir.AffineMap:
        attr = self.op.attributes[name] if name in self.op.attributes else None
        if not isinstance(attr, ir.AffineMapAttr):
            raise AccelError(f"attribute '{name}' must be an affine_map")
        return attr.value

    @property
    def input_exprs(self) -> list[Expr]:
        return [expr_tree(e) for e in self._map("input_map").results]

    @property
    def output_exprs(self) -> list[Expr]:
        return [expr_tree(e) for e in self._map("output_map").results]

    @property
    def elem(self) -> str:
        return memref_info(self.out)[1]

    def verify(self) -> None:
        with located(self.op.location):
            if len(self.op.results) or len(self.op.operands) != 2:
                raise AccelError(f"'{self.OP_NAME}' takes its input and its output, and has "
                                 f"no results")
            check_host_code(self.op)
            check_attribute_names(self.op, ATTRIBUTES)
            string_attr(self.op, "reason")
            for name in REQUIRED:
                if name not in self.op.attributes:
                    raise AccelError(f"attribute '{name}' is required")
            get_arch(self.arch)
            shape = self.shape
            if not shape:
                raise AccelError("a copy's shape has at least one dimension")
            check_nonempty(shape, "the copy's shape")
            for v, name in ((self.inp, "the input"), (self.out, "the output")):
                memref_info(v)
                check_plain_buffer(v, name)
            (in_shape, in_t), (out_shape, out_t) = memref_info(self.inp), memref_info(self.out)
            if in_t != out_t:
                raise AccelError(f"a copy moves values of one type, got {in_t} -> {out_t}")
            if out_t not in ELEMENT_BYTES:
                raise AccelError(f"element type {out_t} is not one accel handles")
            if prod(out_shape) < prod(shape):
                raise AccelError(f"the output {out_shape} cannot hold the copy's "
                                 f"{prod(shape)} elements")
            for name, buf in (("input_map", in_shape), ("output_map", out_shape)):
                check_index_map(self._map(name), shape, buf, name)
