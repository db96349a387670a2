"""`accel.gemm`: the Python class that builds and reads it (its verifier:
dialect/gemm_verifier.py).

The bindings cannot register a new dialect, so the accel ops are unregistered ops
printed in generic form, e.g.

  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row",
                            c_layout = "row", perf_config = "v4:..."}
      : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()

Destination style on memrefs: C[G,M,N] (+)= A[G,M,K] * B[G,K,N]. Operand layouts
(dialect/operand_layouts.py):
  A: row [G,M,K] | transposed [G,K,M] | accel [G, M/mPB, K/kPB, kpackPB, mPB, kpack]
  B: row [G,K,N] | transposed [G,N,K] | accel [G, N/nPB, K/kPB, kpackPB, nPB, kpack]
  C: row [G,M,N] | accel [G, M/mPB, N/kPB, kpackPB, mPB, kpack] (D=M, "K"=N; seed 001's
     second experiment), whose M and N are only known padded unless A or B is plain.
  With A and C both in the accel layout the integer attribute `m` is the exact M (no
  operand's shape holds it), with B and C both in it `n` the exact N; the kernel writes
  C's rows past M and columns past N as zeros, which a fused epilogue that is not zero
  at zero (bias, an op list) would otherwise fill, so such a gemm needs them
  (dialect/gemm_verifier.py).
`accumulate` (unit attribute) adds into C instead of overwriting it.
A and B share an element type, except that two fp8 formats of the chip's family may
meet (fp8 x bf8: f8E4M3FNUZ / f8E5M2FNUZ on gfx942, f8E4M3FN / f8E5M2 on gfx1201);
fp8 accumulates in f32 into an f32, f16 or bf16 C (dialect/gemm_types.py:
element_type_error says why not).

Fused epilogue (dialect/epilogue_program.py): `epilogue` is "none" (the default),
"bias", "relu", "bias_relu" or an op list over the product and the extra operands after
C, `epilogue_operands` naming how each extra operand broadcasts to [G, M, N]. For
"bias"/"bias_relu" the 4th operand is the bias: a row-major memref [N] (one row
broadcast over every batch and row) or [G, N] (one row per batch) of the output element
type. The kernel computes, in the accumulator type (f32, i32) and before the one
conversion to the output type,

  C = act(A * B (+ C_old if accumulate) (+ bias[g?, j]))    act = max(., 0) for relu

  "accel.gemm"(%a, %b, %c, %s) {arch = "gfx942", epilogue_operands = ["gmn"],
                                epilogue = "%0 = mul %acc, %e0; %1 = sigmoid %0"} ...

  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx1100", epilogue = "bias_relu", ...}
      : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf16>, memref<48xf16>) -> ()

After `accel-affix-perf-config` the op also carries block_size, grid_size and padded_m/n/k,
and after `accel-plan-kernel` its kernel plan (dialect/kernel_plan.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from accel import validate
from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.dialect.accel_tile import AccelTile
from accel.dialect.epilogue_program import BIAS_EPILOGUES, Program
from accel.dialect.gemm_like import GemmLikeOp
from accel.dialect.gemm_verifier import verify_gemm
from accel.dialect.ir_helpers import int_attr, memref_info, string_attr
from accel.dialect.operand_layouts import plain_view, reduction_extent
from accel.dialect.perf_config import PerfConfig

MAX_EXTENT = 2**63 - 1


@dataclass(frozen=True)
class GemmShape:
    """Logical GEMM extents. K is the padded K when both A and B are in the accel layout."""
    g: int
    m: int
    n: int
    k: int

    def __post_init__(self):
        # Held as Python ints: numpy's wrap around in the size products (np.int32). An
        # extent is a memref dimension, an int64 in MLIR.
        for f in ("g", "m", "n", "k"):
            object.__setattr__(self, f, validate.integer(
                f"GemmShape {f}", getattr(self, f), minimum=0, maximum=MAX_EXTENT,
                what="an integer in [0, 2**63)"))


class GemmOp(GemmLikeOp):
    OP_NAME = "accel.gemm"

    @classmethod
    def build(cls, a: ir.Value, b: ir.Value, c: ir.Value, *, arch: str,
              a_layout: str = "row", b_layout: str = "row", c_layout: str = "row",
              perf_config: PerfConfig | str | None = None, accumulate: bool = False,
              bias: ir.Value | None = None, epilogue: str = "none",
              extras: list[ir.Value] = (), epilogue_operands: list[str] | None = None,
              m: int | None = None, n: int | None = None,
              loc: ir.Location | None = None) -> "GemmOp":
        """Create the op at the current insertion point; `bias` becomes the 4th operand
        (its epilogue must be "bias" or "bias_relu"), or `extras` the operands after C
        of an op-list epilogue, broadcast as `epilogue_operands` says; `m` (`n`) is the
        exact M (N) of a gemm whose A (B) and C are both in the accel layout."""
        attrs = {
            "arch": ir.StringAttr.get(arch),
            "a_layout": ir.StringAttr.get(a_layout),
            "b_layout": ir.StringAttr.get(b_layout),
            "c_layout": ir.StringAttr.get(c_layout),
        }
        if perf_config is not None:
            attrs["perf_config"] = ir.StringAttr.get(str(perf_config))
        if accumulate:
            attrs["accumulate"] = ir.UnitAttr.get()
        if epilogue != "none":
            attrs["epilogue"] = ir.StringAttr.get(epilogue)
        if epilogue_operands is not None:
            attrs["epilogue_operands"] = ir.ArrayAttr.get(
                [ir.StringAttr.get(k) for k in epilogue_operands])
        operands = [a, b, c] + ([bias] if bias is not None else []) + list(extras)
        gemm = cls(ir.Operation.create(cls.OP_NAME, results=[], operands=operands,
                                       attributes=attrs, loc=loc or ir.Location.unknown()))
        for dim, value in (("m", m), ("n", n)):
            if value is not None:
                gemm.set_exact(dim, value)
        return gemm

    # ---- reading -------------------------------------------------------------
    @property
    def c(self) -> ir.Value:
        return self.op.operands[2]

    @property
    def bias(self) -> ir.Value | None:
        """The bias of a "bias"/"bias_relu" epilogue."""
        return self.op.operands[3] if self.has_bias and len(self.op.operands) == 4 else None

    @property
    def extras(self) -> list[ir.Value]:
        """The epilogue's extra operands (after C); the bias for the fixed names."""
        return list(self.op.operands)[3:]

    @property
    def program(self) -> Program:
        try:
            return Program.parse(self.epilogue)
        except AccelError as e:
            raise AccelError(e.message, self.location) from None

    @property
    def extra_kinds(self) -> list[str]:
        """How each extra operand broadcasts to [G, M, N] (epilogue_program.KINDS)."""
        if "epilogue_operands" in self.op.attributes:
            attr = self.op.attributes["epilogue_operands"]
            if not isinstance(attr, ir.ArrayAttr) or not all(
                    isinstance(a, ir.StringAttr) for a in attr):
                raise AccelError("attribute 'epilogue_operands' must be an array of strings",
                                 self.location)
            return [a.value for a in attr]
        return ["gn" if len(memref_info(v)[0]) == 2 else "n" for v in self.extras]

    @property
    def a_layout(self) -> str:
        return string_attr(self.op, "a_layout", "row")

    @property
    def b_layout(self) -> str:
        return string_attr(self.op, "b_layout", "row")

    @property
    def c_layout(self) -> str:
        return string_attr(self.op, "c_layout", "row")

    @property
    def accumulate(self) -> bool:
        return "accumulate" in self.op.attributes

    @property
    def epilogue(self) -> str:
        return string_attr(self.op, "epilogue", "none")

    @property
    def has_bias(self) -> bool:
        return self.epilogue in BIAS_EPILOGUES

    @property
    def relu(self) -> bool:
        return self.epilogue in ("relu", "bias_relu")

    @property
    def b_type(self) -> str:
        return memref_info(self.b)[1]

    @property
    def block_size(self) -> int | None:
        return int_attr(self.op, "block_size")

    @property
    def grid_size(self) -> int | None:
        return int_attr(self.op, "grid_size")

    @property
    def padded(self) -> tuple[int, int, int] | None:
        vals = [int_attr(self.op, f"padded_{d}") for d in "mnk"]
        return None if None in vals else tuple(vals)

    @property
    def exact_m(self) -> int | None:
        """The `m` attribute: M when A and C are both in the accel layout."""
        return int_attr(self.op, "m")

    @property
    def exact_n(self) -> int | None:
        """The `n` attribute: N when B and C are both in the accel layout."""
        return int_attr(self.op, "n")

    def shape(self) -> GemmShape:
        """G, M, N, K read off the operands (call verify() first for a clean error)."""
        a_shape, _ = memref_info(self.a)
        b_shape, _ = memref_info(self.b)
        c_shape, _ = memref_info(self.c)
        if self.c_layout == "accel":
            g, m, n = AccelTile.padded(c_shape)
            if self.a_layout != "accel":
                m = plain_view(a_shape, self.a_layout, "A")[1]
            elif self.exact_m is not None:
                m = self.exact_m
            if self.b_layout != "accel":
                n = plain_view(b_shape, self.b_layout, "B")[1]
            elif self.exact_n is not None:
                n = self.exact_n
        else:
            g, m, n = c_shape
        k = reduction_extent(a_shape, self.a_layout, "a")
        if k is None:
            k = reduction_extent(b_shape, self.b_layout, "b")
        if k is None:  # both accel: K is only known padded
            k = AccelTile.padded(a_shape)[2]
        return GemmShape(g, m, n, k)

    # ---- writing -------------------------------------------------------------
    def set_perf_config(self, config: PerfConfig) -> None:
        self.op.attributes["perf_config"] = ir.StringAttr.get(str(config))

    def set_launch(self, block_size: int, grid_size: int, padded: tuple[int, int, int]) -> None:
        i64 = ir.IntegerType.get_signless(64)
        self.op.attributes["block_size"] = ir.IntegerAttr.get(i64, block_size)
        self.op.attributes["grid_size"] = ir.IntegerAttr.get(i64, grid_size)
        for d, v in zip("mnk", padded):
            self.op.attributes[f"padded_{d}"] = ir.IntegerAttr.get(i64, v)

    def set_exact(self, dim: str, value: int) -> None:
        """Attribute `m` or `n`: the exact extent no accel-layout shape holds."""
        self.op.attributes[dim] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)

    # ---- verification --------------------------------------------------------
    def verify(self) -> None:
        """Raise one AccelError at the op's location for the first rule broken."""
        verify_gemm(self)
