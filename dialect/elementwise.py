"""`accel.elementwise`: elementwise work no gemm epilogue takes, as a kernel of its own.

  "accel.elementwise"(%x, %s, %out) {arch = "gfx942", operands = ["gmn", "m"],
                                     program = "%0 = mul %e0, %e1; %1 = exp %0"}
      : (memref<2x37x21xf16>, memref<37xf32>, memref<2x37x21xf32>) -> ()

Destination style: the inputs, then the output. The output is [G, M, N] (a row-major
buffer; a MIGraphX value of any rank is seen as [prod(batch), M, N]); `program` is the op
list of a gemm's fused epilogue (dialect/epilogue_program.py) over the inputs `%e0`,
`%e1`, ... (there is no product, so no `%acc`), each broadcast to [G, M, N] as
`operands` says (the epilogue's kinds: "gmn", "n", "gn", "m", "gm", "" a scalar). An
empty program is `%e0` itself (a convert). Every step computes in f32, or in i32 when
every input, the output and every step are integers; the last value is converted once
to the output's type (floats rounded to nearest even, f32 -> integer truncating toward
zero, i32 -> i8 keeping the low byte).

`reduce = "sum" | "max"` folds the program's value over N (the last axis): the output is
then [G, M, 1] and the integer attribute `n` gives N, which no operand need hold.
The front end records in `unfused` (a string) why a gemm's epilogue did not take the op.

`packing` (one string per input, "" when absent) marks an input of int4 values two to a
byte along N, MIGraphX's unpack: "s4" signed (the low nibble first, each sign-extended),
"u4" unsigned (0..15); such an input is an i8 buffer of kind "gmn" and shape
[G, M, N / 2], read as the [G, M, N] values, which a signed i8 holds either way; "u8"
marks an i8 input read as unsigned bytes (MIGraphX's ui8, 0..255).

`input_maps` (one entry per input, `unit` when absent) reads a "gmn" input through an
affine map of the logical index (d0, d1, d2) = (g, m, n), as accel.copy's `input_map`
does (dialect/copy.py: non-negative constants, +, *, floordiv, ceildiv, mod): input i's
value at [g, m, n] is buf[map(g, m, n)] for a buffer of any shape, e.g. a MIGraphX view
whose dimension has several strides, read in place instead of through a row-major copy.
The verifier bounds every map result inside its buffer's extent for every index of
[G, M, N].

  "accel.elementwise"(%x, %out) {arch = "gfx942", operands = ["gmn"], program = "",
      input_maps = [affine_map<(d0, d1, d2) -> (d1 floordiv 4, d2, d1 mod 4)>]}
      : (memref<3x5x4xf16>, memref<1x12x5xf32>) -> ()
"""

from __future__ import annotations

from accel.bindings import ir
from accel.diagnostics import AccelError, located
from accel.dialect.copy import Expr, check_index_map, expr_tree
from accel.dialect.epilogue_program import KINDS, OPS, Program, kind_shape
from accel.dialect.gemm_types import EPILOGUE_OPERAND_TYPES
from accel.dialect.ir_helpers import OpView, int_attr, memref_info, string_attr
from accel.dialect.op_rules import (
    check_attribute_names, check_host_code, check_nonempty, check_plain_buffer,
)
from accel.target.database import get_arch

ATTRIBUTES = ("arch", "program", "operands", "reduce", "n", "unfused", "packing",
              "input_maps")
REDUCTIONS = ("none", "sum", "max")
PACKINGS = ("", "s4", "u4", "u8")
# The types an elementwise kernel writes: the epilogue operands' (MIGraphX's quantized
# i8 among them).
OUTPUT_TYPES = EPILOGUE_OPERAND_TYPES


def compute_type(program: Program, input_types: list[str], out_type: str) -> str:
    """i32 when every value is an integer (inputs, output, no float-only step), else f32."""
    ints = all(t.startswith("i") for t in input_types + [out_type])
    return "i32" if ints and not any(OPS[s.op][1] for s in program.steps) else "f32"


class ElementwiseOp(OpView):
    OP_NAME = "accel.elementwise"

    @classmethod
    def build(cls, inputs: list[ir.Value], out: ir.Value, *, arch: str, program: str,
              kinds: list[str], reduce: str = "none", n: int | None = None,
              unfused: str | None = None, packing: list[str] | None = None,
              input_maps: list[list[str] | None] | None = None,
              loc: ir.Location | None = None) -> "ElementwiseOp":
        """`input_maps`: per input, the index expressions (in d0, d1, d2) it is read at, or
        None for its kind's own indexing."""
        attrs = {"arch": ir.StringAttr.get(arch), "program": ir.StringAttr.get(program),
                 "operands": ir.ArrayAttr.get([ir.StringAttr.get(k) for k in kinds])}
        if reduce != "none":
            attrs["reduce"] = ir.StringAttr.get(reduce)
            attrs["n"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), n)
        if unfused:
            attrs["unfused"] = ir.StringAttr.get(unfused)
        if packing and any(packing):
            attrs["packing"] = ir.ArrayAttr.get([ir.StringAttr.get(p) for p in packing])
        if input_maps and any(e is not None for e in input_maps):
            attrs["input_maps"] = ir.ArrayAttr.get([
                ir.UnitAttr.get() if e is None else
                ir.Attribute.parse(f"affine_map<(d0, d1, d2) -> ({', '.join(e)})>")
                for e in input_maps])
        op = ir.Operation.create(cls.OP_NAME, results=[], operands=list(inputs) + [out],
                                 attributes=attrs, loc=loc or ir.Location.unknown())
        return cls(op)

    @property
    def inputs(self) -> list[ir.Value]:
        return list(self.op.operands)[:-1]

    @property
    def out(self) -> ir.Value:
        return self.op.operands[len(self.op.operands) - 1]

    @property
    def arch(self) -> str:
        return string_attr(self.op, "arch", "")

    @property
    def program(self) -> Program:
        return Program.parse(string_attr(self.op, "program", ""))

    @property
    def kinds(self) -> list[str]:
        attr = self.op.attributes["operands"] if "operands" in self.op.attributes else None
        if not isinstance(attr, ir.ArrayAttr) or not all(isinstance(a, ir.StringAttr)
                                                         for a in attr):
            raise AccelError("attribute 'operands' must be an array of strings")
        return [a.value for a in attr]

    @property
    def packing(self) -> list[str]:
        if "packing" not in self.op.attributes:
            return [""] * len(self.inputs)
        attr = self.op.attributes["packing"]
        if not isinstance(attr, ir.ArrayAttr) or not all(isinstance(a, ir.StringAttr)
                                                         for a in attr):
            raise AccelError("attribute 'packing' must be an array of strings")
        return [a.value for a in attr]

    def index_maps(self) -> list[ir.AffineMap | None]:
        """Per input, its index map, or None."""
        if "input_maps" not in self.op.attributes:
            return [None] * len(self.inputs)
        attr = self.op.attributes["input_maps"]
        if not isinstance(attr, ir.ArrayAttr) or not all(
                isinstance(a, (ir.AffineMapAttr, ir.UnitAttr)) for a in attr):
            raise AccelError("attribute 'input_maps' must be an array of affine maps and "
                             "units")
        return [a.value if isinstance(a, ir.AffineMapAttr) else None for a in attr]

    @property
    def input_maps(self) -> list[list[Expr] | None]:
        """Per input, its index map's results as trees (dialect/copy.py), or None."""
        return [None if m is None else [expr_tree(e) for e in m.results]
                for m in self.index_maps()]

    @property
    def reduce(self) -> str:
        return string_attr(self.op, "reduce", "none")

    @property
    def shape(self) -> tuple[int, int, int]:
        """[G, M, N] of the computation (the output's, N from `n` when reducing)."""
        g, m, n = memref_info(self.out)[0]
        return (g, m, int_attr(self.op, "n")) if self.reduce != "none" else (g, m, n)

    @property
    def out_type(self) -> str:
        return memref_info(self.out)[1]

    @property
    def input_types(self) -> list[str]:
        return [memref_info(v)[1] for v in self.inputs]

    @property
    def compute_type(self) -> str:
        return compute_type(self.program, self.input_types, self.out_type)

    def verify(self) -> None:
        with located(self.op.location):
            if len(self.op.results) or not self.op.operands:
                raise AccelError(f"'{self.OP_NAME}' takes its inputs and the output, and "
                                 f"has no results")
            check_host_code(self.op)
            check_attribute_names(self.op, ATTRIBUTES)
            if not self.arch:
                raise AccelError("attribute 'arch' is required")
            get_arch(self.arch)
            for name in ("program", "operands"):
                if name not in self.op.attributes:
                    raise AccelError(f"attribute '{name}' is required")
            if self.reduce not in REDUCTIONS:
                raise AccelError(f"reduce must be one of {', '.join(REDUCTIONS)}, got "
                                 f"'{self.reduce}'")
            if (self.reduce != "none") != ("n" in self.op.attributes):
                raise AccelError("attribute 'n' is given exactly when reducing")
            for i, v in enumerate(self.op.operands):
                memref_info(v)   # a statically shaped memref, before its layout is read
                check_plain_buffer(v, "the output" if i == len(self.inputs) else f"input {i}")
            out_shape, out_t = memref_info(self.out)
            if len(out_shape) != 3:
                raise AccelError(f"the output must be rank 3 [G, M, N], got rank "
                                 f"{len(out_shape)}")
            if self.reduce != "none" and out_shape[2] != 1:
                raise AccelError(f"a reduction over N writes [G, M, 1], got {out_shape}")
            g, m, n = self.shape
            check_nonempty([g, m, n], "the output")
            if out_t not in OUTPUT_TYPES:
                raise AccelError(f"output type {out_t} is not one of "
                                 f"{', '.join(OUTPUT_TYPES)}")
            program, kinds = self.program, self.kinds
            if not self.inputs:
                raise AccelError("an elementwise kernel reads at least one input")
            if len(kinds) != len(self.inputs):
                raise AccelError(f"{len(kinds)} operand kind(s) for {len(self.inputs)} "
                                 f"input(s)")
            if program.extra_count > len(self.inputs):
                raise AccelError(f"program reads %e{program.extra_count - 1} but the op has "
                                 f"{len(self.inputs)} input(s)")
            if any(a == "%acc" for s in program.steps for a in s.args):
                raise AccelError("an elementwise program has no %acc: it reads %e0, %e1, ...")
            packing = self.packing
            if len(packing) != len(self.inputs):
                raise AccelError(f"{len(packing)} packing(s) for {len(self.inputs)} input(s)")
            maps = self.index_maps()
            if len(maps) != len(self.inputs):
                raise AccelError(f"{len(maps)} input map(s) for {len(self.inputs)} input(s)")
            for i, (v, kind, pack, imap) in enumerate(zip(self.inputs, kinds, packing, maps)):
                shape, elem = memref_info(v)
                if imap is not None:
                    if kind != "gmn" or pack not in ("", "u8"):
                        raise AccelError(f"input {i} read through a map must be of kind "
                                         f"'gmn' and not int4 pairs, got '{kind}' "
                                         f"packing '{pack}'")
                    check_index_map(imap, [g, m, n], shape, f"input {i}'s map")
                if kind not in KINDS:
                    raise AccelError(f"input {i} kind '{kind}' is not one of "
                                     f"{', '.join(repr(k) for k in KINDS)}")
                if pack not in PACKINGS:
                    raise AccelError(f"input {i} packing '{pack}' is not one of "
                                     f"{', '.join(repr(p) for p in PACKINGS)}")
                if pack == "u8" and elem != "i8":
                    raise AccelError(f"input {i} of unsigned bytes must be i8, got {elem}")
                if pack in ("s4", "u4"):
                    if elem != "i8" or kind != "gmn" or n % 2:
                        raise AccelError(f"input {i} of int4 pairs must be an i8 'gmn' input "
                                         f"and N even, got {elem} '{kind}' with N = {n}")
                    if shape != [g, m, n // 2]:
                        raise AccelError(f"input {i} of int4 pairs must be {[g, m, n // 2]}, "
                                         f"got {shape}")
                    continue
                if elem not in EPILOGUE_OPERAND_TYPES:
                    raise AccelError(f"input {i} has element type {elem}, not one of "
                                     f"{', '.join(EPILOGUE_OPERAND_TYPES)}")
                if imap is None and shape != kind_shape(kind, g, m, n):
                    raise AccelError(f"input {i} of kind '{kind}' must be "
                                     f"{kind_shape(kind, g, m, n)}, got {shape}")
            program.verify(self.compute_type, list(zip(kinds, self.input_types)))
