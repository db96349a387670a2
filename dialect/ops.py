"""The `accel` dialect ops: Python classes that build, read and verify them.

The bindings cannot register a new dialect, so these are unregistered ops printed in
generic form, e.g.

  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row",
                            c_layout = "row", perf_config = "v4:..."}
      : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()

Destination style on memrefs: C[G,M,N] (+)= A[G,M,K] * B[G,K,N]. Operand layouts:
  A: row [G,M,K] | transposed [G,K,M] | accel [G, M/mPB, K/kPB, kpackPB, mPB, kpack]
  B: row [G,K,N] | transposed [G,N,K] | accel [G, N/nPB, K/kPB, kpackPB, nPB, kpack]
  C: row [G,M,N] | accel [G, M/mPB, N/kPB, kpackPB, mPB, kpack] (D=M, "K"=N; seed 001's
     second experiment), whose M and N are only known padded unless A or B is plain.
`accumulate` (unit attribute) adds into C instead of overwriting it.
A and B share an element type, except that two fp8 formats of the chip's family may
meet (fp8 x bf8: f8E4M3FNUZ / f8E5M2FNUZ on gfx942, f8E4M3FN / f8E5M2 on gfx1201);
fp8 accumulates in f32 into an f32, f16 or bf16 C (element_type_error says why not).

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
from accel.diagnostics import AccelError, located
from accel.dialect.accel_layout import AccelTile
from accel.dialect.element_types import FP8_FORMATS, is_fp8
from accel.dialect.kernel_plan import PLAN_ATTRIBUTES
from accel.dialect.epilogue_program import LEGACY, Program, kind_shape
from accel.dialect.perf_config import PerfConfig
from accel.target.database import ArchInfo, get_arch

OPERAND_LAYOUTS = ("row", "transposed", "accel")
EPILOGUES = tuple(LEGACY)
# The epilogues that read a bias operand (the gemm's 4th).
BIAS_EPILOGUES = ("bias", "bias_relu")

# Element types an extra epilogue operand may have (converted to the accumulator's).
EPILOGUE_OPERAND_TYPES = ("f32", "f16", "bf16", "i32", "i8")

# Accumulator type and legal output types per input element type (A's; an fp8 A may
# meet a B of the other fp8 format of its family).
ACCUMULATOR = {"f16": "f32", "bf16": "f32", "i8": "i32", "f32": "f32",
               **{t: "f32" for t in FP8_FORMATS}}
OUTPUT_TYPES = {"f16": ("f32", "f16", "bf16"), "bf16": ("f32", "f16", "bf16"),
                "i8": ("i32",), "f32": ("f32", "f16", "bf16"),
                **{t: ("f32", "f16", "bf16") for t in FP8_FORMATS}}


def element_type_error(info: ArchInfo, a_t: str, b_t: str) -> str | None:
    """Why `info` cannot multiply A of type a_t by B of type b_t, or None if it can.

    Only two fp8 formats may differ (the instructions take fp8 x bf8 pairings); a chip
    without fp8 instructions, or with the other fp8 family, is named as such."""
    if a_t != b_t and not (is_fp8(a_t) and is_fp8(b_t)):
        return f"A and B element types differ: {a_t} vs {b_t}"
    for t in dict.fromkeys((a_t, b_t)):
        if is_fp8(t):
            have = [x for x in info.input_types() if is_fp8(x)]
            if not have:
                return f"{info.name} has no fp8 matrix instructions ({t} is not supported)"
            if t not in have:
                family = FP8_FORMATS[have[0]].family
                return (f"{t} is an {FP8_FORMATS[t].family} fp8 format; {info.name} has the "
                        f"{family} formats {' and '.join(have)}")
        elif t not in ACCUMULATOR or not info.supports(t):
            return f"element type {t} is not supported on {info.name}"
    if not info.supports(a_t, b_t):
        return f"no {info.mma_kind} instruction on {info.name} takes {a_t} x {b_t}"
    return None


def memref_info(value: ir.Value) -> tuple[list[int], str]:
    """(static shape, element type name) of a memref value; AccelError otherwise."""
    t = value.type
    if not isinstance(t, ir.MemRefType):
        raise AccelError(f"expected a memref operand, got {t}")
    if not t.has_static_shape:
        raise AccelError(f"expected a statically shaped memref, got {t}")
    return list(t.shape), str(t.element_type)


def _check_plain_buffer(value: ir.Value, name: str) -> None:
    """A kernel takes each memref as one bare pointer to global memory and indexes it
    row-major, so a strided view (offset, gaps, permuted strides) or another memory
    space would be read wrong: reject it rather than compile wrong code."""
    t = value.type
    if t.memory_space is not None:
        raise AccelError(f"{name} must be in the default (global) memory space, got {t}")
    try:
        strides, offset = t.get_strides_and_offset()
    except RuntimeError:  # a layout map that is not strided at all
        strides, offset = None, None
    expect, row_major = 1, strides is not None and offset == 0
    for d, s in reversed(list(zip(t.shape, strides or []))):
        row_major &= d == 1 or s == expect   # a unit dimension's stride is never used
        expect *= d
    if not row_major:
        raise AccelError(f"{name} must be a contiguous row-major memref, got {t}")


# Ops whose bodies run on the device: an accel op there would launch a kernel from a kernel.
_DEVICE_OPS = ("gpu.module", "gpu.func", "gpu.launch")


def _check_host_code(op: ir.Operation) -> None:
    parent = op.parent
    while parent is not None:
        if parent.name in _DEVICE_OPS:
            raise AccelError(f"'{op.name}' must be in host code, not inside '{parent.name}'")
        parent = parent.parent


def _nonempty(shape: list[int], name: str) -> None:
    # A zero extent has no GEMM to run and would divide by zero in the block arithmetic.
    if 0 in shape:
        raise AccelError(f"{name} has a zero extent: {list(shape)}")


def _str_attr(op: ir.Operation, name: str, default: str | None = None) -> str | None:
    if name not in op.attributes:
        return default
    a = op.attributes[name]
    if not isinstance(a, ir.StringAttr):
        raise AccelError(f"attribute '{name}' must be a string", op.location)
    return a.value


def _int_attr(op: ir.Operation, name: str) -> int | None:
    if name not in op.attributes:
        return None
    a = op.attributes[name]
    if not isinstance(a, ir.IntegerAttr):
        raise AccelError(f"attribute '{name}' must be an integer", op.location)
    return a.value


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


class TunedOp:
    """What a GEMM-like op (accel.gemm, accel.grouped_gemm) reads the same way: its perf
    config, parsed for its arch's MMA kind, and A's and C's element types. A subclass
    has `op`, `arch`, `location`, `a` and `c`."""

    @property
    def perf_config_text(self) -> str | None:
        return _str_attr(self.op, "perf_config")

    @property
    def perf_config(self) -> PerfConfig | None:
        text = self.perf_config_text
        if text is None:
            return None
        try:
            return PerfConfig.parse(text, get_arch(self.arch).mma_kind)
        except AccelError as e:
            raise AccelError(e.message, self.location) from None

    @property
    def in_type(self) -> str:
        """A's element type."""
        return memref_info(self.a)[1]

    @property
    def out_type(self) -> str:
        return memref_info(self.c)[1]


class GemmOp(TunedOp):
    OP_NAME = "accel.gemm"

    def __init__(self, op):
        self.op: ir.Operation = op.operation
        if self.op.name != self.OP_NAME:
            raise AccelError(f"expected {self.OP_NAME}, got {self.op.name}", self.op.location)

    @staticmethod
    def isa(op) -> bool:
        return op.operation.name == GemmOp.OP_NAME

    @classmethod
    def build(cls, a: ir.Value, b: ir.Value, c: ir.Value, *, arch: str,
              a_layout: str = "row", b_layout: str = "row", c_layout: str = "row",
              perf_config: PerfConfig | str | None = None, accumulate: bool = False,
              bias: ir.Value | None = None, epilogue: str = "none",
              extras: list[ir.Value] = (), epilogue_operands: list[str] | None = None,
              loc: ir.Location | None = None) -> "GemmOp":
        """Create the op at the current insertion point; `bias` becomes the 4th operand
        (its epilogue must be "bias" or "bias_relu"), or `extras` the operands after C
        of an op-list epilogue, broadcast as `epilogue_operands` says."""
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
        op = ir.Operation.create(cls.OP_NAME, results=[], operands=operands,
                                 attributes=attrs, loc=loc or ir.Location.unknown())
        return cls(op)

    # ---- reading -------------------------------------------------------------
    @property
    def a(self) -> ir.Value:
        return self.op.operands[0]

    @property
    def b(self) -> ir.Value:
        return self.op.operands[1]

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
    def location(self) -> ir.Location:
        return self.op.location

    @property
    def arch(self) -> str:
        return _str_attr(self.op, "arch")

    @property
    def a_layout(self) -> str:
        return _str_attr(self.op, "a_layout", "row")

    @property
    def b_layout(self) -> str:
        return _str_attr(self.op, "b_layout", "row")

    @property
    def c_layout(self) -> str:
        return _str_attr(self.op, "c_layout", "row")

    @property
    def accumulate(self) -> bool:
        return "accumulate" in self.op.attributes

    @property
    def epilogue(self) -> str:
        return _str_attr(self.op, "epilogue", "none")

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
        return _int_attr(self.op, "block_size")

    @property
    def grid_size(self) -> int | None:
        return _int_attr(self.op, "grid_size")

    @property
    def padded(self) -> tuple[int, int, int] | None:
        vals = [_int_attr(self.op, f"padded_{d}") for d in "mnk"]
        return None if None in vals else tuple(vals)

    def shape(self) -> GemmShape:
        """G, M, N, K read off the operands (call verify() first for a clean error)."""
        a_shape, _ = memref_info(self.a)
        b_shape, _ = memref_info(self.b)
        c_shape, _ = memref_info(self.c)
        if self.c_layout == "accel":
            g, m, n = AccelTile.padded(c_shape)
            if self.a_layout != "accel":
                m = _plain_view(a_shape, self.a_layout, "A")[1]
            if self.b_layout != "accel":
                n = _plain_view(b_shape, self.b_layout, "B")[1]
        else:
            g, m, n = c_shape
        k = _reduction_extent(a_shape, self.a_layout, "a")
        if k is None:
            k = _reduction_extent(b_shape, self.b_layout, "b")
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

    # ---- verification --------------------------------------------------------
    def verify(self) -> None:
        """Raise one AccelError at the op's location for the first rule broken."""
        with located(self.location):
            self._verify()

    def _verify(self) -> None:
        op = self.op
        if len(op.operands) < 3 or len(op.results) != 0:
            raise AccelError("'accel.gemm' takes 3 operands (A, B, C), then a fused "
                             "epilogue's, and has no results")
        _check_host_code(op)
        _check_attribute_names(op, GEMM_ATTRIBUTES)
        arch = self.arch
        if arch is None:
            raise AccelError("'accel.gemm' requires an 'arch' attribute")
        info = get_arch(arch)
        if self.accumulate and not isinstance(op.attributes["accumulate"], ir.UnitAttr):
            raise AccelError("attribute 'accumulate' must be a unit attribute")
        for name in ("block_size", "grid_size", "padded_m", "padded_n", "padded_k"):
            _int_attr(op, name)
        for name in ("a_layout", "b_layout"):
            lay = _str_attr(op, name, "row")
            if lay not in OPERAND_LAYOUTS:
                raise AccelError(f"{name} must be one of {', '.join(OPERAND_LAYOUTS)}, got '{lay}'")
        if self.c_layout not in ("row", "accel"):
            raise AccelError(f"c_layout must be 'row' or 'accel', got '{self.c_layout}'")
        (a_shape, a_t), (b_shape, b_t), (c_shape, c_t) = (
            memref_info(v) for v in (self.a, self.b, self.c))
        why = element_type_error(info, a_t, b_t)
        if why:
            raise AccelError(why)
        if c_t not in OUTPUT_TYPES[a_t]:
            raise AccelError(f"output type {c_t} is not supported for {a_t} inputs "
                             f"(expected one of {', '.join(OUTPUT_TYPES[a_t])})")
        for shp, name in ((a_shape, "A"), (b_shape, "B"), (c_shape, "C")):
            _nonempty(shp, name)
        for v, name in ((self.a, "A"), (self.b, "B"), (self.c, "C")):
            _check_plain_buffer(v, name)
        config = self.perf_config
        a_g, a_d, a_k = _plain_view(a_shape, self.a_layout, "A")
        b_g, b_d, b_k = _plain_view(b_shape, self.b_layout, "B")
        if self.c_layout == "accel":
            if len(c_shape) != 6:
                raise AccelError(f"C in 'accel' layout must be rank 6, got rank {len(c_shape)}")
            g, m, n = AccelTile.padded(c_shape)
            c_tile = AccelTile.of_shape(c_shape)
            m = _fit_padded(a_d if self.a_layout != "accel" else m, m, c_tile.d_per_block, "M")
            n = _fit_padded(b_d if self.b_layout != "accel" else n, n, c_tile.k_per_block, "N")
            if config is not None and c_tile != AccelTile(
                    config.m_per_block, config.kpack_per_block, config.kpack):
                raise AccelError(f"C accel layout {list(c_shape)} disagrees with perf config "
                                 f"{config} (expects mPerBlock={config.m_per_block}, "
                                 f"kpackPerBlock={config.kpack_per_block}, kpack={config.kpack})")
        elif len(c_shape) != 3:
            raise AccelError(f"C must be rank 3 [G, M, N], got rank {len(c_shape)}")
        else:
            g, m, n = c_shape
        if a_g != g or b_g != g:
            raise AccelError(f"batch sizes disagree: A {a_g}, B {b_g}, C {g}")
        self._verify_epilogue(g, m, n, c_t, ACCUMULATOR[a_t])
        _check_d(a_d, m, self.a_layout, "A", "M", a_shape)
        _check_d(b_d, n, self.b_layout, "B", "N", b_shape)
        if self.a_layout == "accel" and self.b_layout == "accel":
            # One kernel walks K in one blocking, so both operands must share it.
            if (a_shape[3], a_shape[5]) != (b_shape[3], b_shape[5]):
                raise AccelError(
                    f"A and B accel layouts block K differently: kpackPerBlock x kpack is "
                    f"{a_shape[3]}x{a_shape[5]} for A, {b_shape[3]}x{b_shape[5]} for B")
            if a_k != b_k:
                raise AccelError(f"padded K of A ({a_k}) and B ({b_k}) disagree")
        elif self.a_layout == "accel" or self.b_layout == "accel":
            plain_k, accel_k, kpb = (b_k, a_k, a_shape) if self.a_layout == "accel" else (a_k, b_k, b_shape)
            kpb = kpb[3] * kpb[5]
            if not (accel_k - kpb < plain_k <= accel_k):
                raise AccelError(f"K mismatch: plain operand has K={plain_k}, accel operand "
                                 f"holds K padded to {accel_k}")
        elif a_k != b_k:
            raise AccelError(f"K of A ({a_k}) and B ({b_k}) disagree")
        if config is not None:
            for lay, shp, name, dpb in ((self.a_layout, a_shape, "A", config.m_per_block),
                                        (self.b_layout, b_shape, "B", config.n_per_block)):
                if lay != "accel":
                    continue
                _, _, _, kpb, d, kp = shp
                if (d, kpb, kp) != (dpb, config.kpack_per_block, config.kpack):
                    raise AccelError(
                        f"{name} accel layout [.., {kpb}, {d}, {kp}] disagrees with perf config "
                        f"{config} (expects kpackPerBlock={config.kpack_per_block}, "
                        f"dPerBlock={dpb}, kpack={config.kpack})")


    def _verify_epilogue(self, g: int, m: int, n: int, out_t: str, acc_t: str) -> None:
        epilogue = self.epilogue
        if epilogue not in EPILOGUES and "=" not in epilogue:
            raise AccelError(f"epilogue must be one of {', '.join(EPILOGUES)} or an op list "
                             f"('%0 = <op> <operands>; ...'), got '{epilogue}'")
        if epilogue in EPILOGUES:
            self._verify_fixed_epilogue(g, n, out_t)
            return
        program = self.program
        extras = self.extras
        if "epilogue_operands" not in self.op.attributes:
            raise AccelError("an op-list epilogue needs 'epilogue_operands' (one kind per "
                             "extra operand)")
        kinds = self.extra_kinds
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
            _check_plain_buffer(v, f"epilogue operand {j}")
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

    def _verify_fixed_epilogue(self, g: int, n: int, out_t: str) -> None:
        epilogue = self.epilogue
        extras = self.extras
        if len(extras) > 1:
            raise AccelError(f"epilogue '{epilogue}' takes at most one extra operand (the "
                             f"bias), got {len(extras)}")
        bias = extras[0] if extras else None
        if self.has_bias and bias is None:
            raise AccelError(f"epilogue '{epilogue}' needs a bias operand (the 4th)")
        if bias is None:
            return
        if not self.has_bias:
            raise AccelError(f"a bias operand needs epilogue 'bias' or 'bias_relu', "
                             f"got '{epilogue}'")
        shape, elem = memref_info(bias)
        if elem != out_t:
            raise AccelError(f"bias element type {elem} differs from the output type {out_t}")
        if shape not in ([n], [g, n]):
            raise AccelError(f"bias must be [N] = [{n}] or [G, N] = [{g}, {n}], got {shape}")
        _check_plain_buffer(bias, "bias")


# The attributes accel.gemm defines. A name outside this list without a dialect prefix
# is a typo (`accumlate` would otherwise be ignored and C silently overwritten);
# prefixed names ("foo.bar") are discardable attributes other tools may attach.
GEMM_ATTRIBUTES = ("arch", "a_layout", "b_layout", "c_layout", "perf_config", "accumulate",
                   "epilogue", "epilogue_operands", "block_size", "grid_size", "padded_m",
                   "padded_n", "padded_k") + PLAN_ATTRIBUTES + ("split_k",)
PACK_ATTRIBUTES = ("transposed",)


def _check_attribute_names(op: ir.Operation, known: tuple[str, ...]) -> None:
    for name in op.attributes:   # iterating an op's attributes yields their names
        if "." not in name and name not in known:
            raise AccelError(f"'{op.name}' has no attribute '{name}' "
                             f"(known: {', '.join(known)})")


def _reduction_extent(shape, layout: str, operand: str) -> int | None:
    if layout == "accel":
        return None
    if operand == "a":
        return shape[2] if layout == "row" else shape[1]
    return shape[1] if layout == "row" else shape[2]


def _plain_view(shape, layout: str, name: str) -> tuple[int, int, int]:
    """(G, D, K) of an operand; D and K are padded for the accel layout."""
    want = 6 if layout == "accel" else 3
    if len(shape) != want:
        raise AccelError(f"{name} in '{layout}' layout must be rank {want}, got rank {len(shape)}")
    if layout == "accel":
        return AccelTile.padded(shape)
    g, x, y = shape
    # A row is [G,M,K], B row is [G,K,N]; "transposed" swaps the last two.
    d_first = (name == "A") == (layout == "row")
    return (g, x, y) if d_first else (g, y, x)


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


class _PackLike:
    """accel.pack (plain -> accel) and accel.unpack (accel -> plain), destination style.

      "accel.pack"(%src, %dst) {transposed = false} : (memref<GxDxK>, memref<6-D>) -> ()
      "accel.unpack"(%src, %dst) {transposed = false} : (memref<6-D>, memref<GxDxK>) -> ()

    `transposed` means the plain side is [G, K, D] (as B is in row layout). The
    blocking (dPerBlock, kpackPerBlock, kpack) is read off the 6-D type.
    """
    OP_NAME = ""
    PLAIN_INDEX = 0

    def __init__(self, op):
        self.op: ir.Operation = op.operation

    @classmethod
    def isa(cls, op) -> bool:
        return op.operation.name == cls.OP_NAME

    @classmethod
    def build(cls, src: ir.Value, dst: ir.Value, *, transposed: bool,
              loc: ir.Location | None = None):
        op = ir.Operation.create(cls.OP_NAME, results=[], operands=[src, dst],
                                 attributes={"transposed": ir.BoolAttr.get(transposed)},
                                 loc=loc or ir.Location.unknown())
        return cls(op)

    @property
    def source(self) -> ir.Value:
        return self.op.operands[0]

    @property
    def dest(self) -> ir.Value:
        return self.op.operands[1]

    @property
    def plain(self) -> ir.Value:
        return self.op.operands[self.PLAIN_INDEX]

    @property
    def packed(self) -> ir.Value:
        return self.op.operands[1 - self.PLAIN_INDEX]

    @property
    def transposed(self) -> bool:
        a = self.op.attributes["transposed"] if "transposed" in self.op.attributes else None
        return bool(a.value) if a is not None else False

    @property
    def tile(self) -> AccelTile:
        return AccelTile.of_shape(memref_info(self.packed)[0])

    def verify(self) -> None:
        with located(self.op.location):
            if len(self.op.operands) != 2 or len(self.op.results) != 0:
                raise AccelError(f"'{self.OP_NAME}' takes 2 operands (source, dest) "
                                 f"and has no results")
            _check_host_code(self.op)
            _check_attribute_names(self.op, PACK_ATTRIBUTES)
            if "transposed" in self.op.attributes and not isinstance(
                    self.op.attributes["transposed"], ir.BoolAttr):
                raise AccelError("attribute 'transposed' must be a bool")
            plain, pt = memref_info(self.plain)
            packed, kt = memref_info(self.packed)
            if pt != kt:
                raise AccelError(f"element types differ: plain {pt} vs accel {kt}")
            if len(plain) != 3:
                raise AccelError(f"plain operand must be rank 3, got rank {len(plain)}")
            if len(packed) != 6:
                raise AccelError(f"accel operand must be rank 6, got rank {len(packed)}")
            _nonempty(plain, "plain operand")
            _nonempty(packed, "accel operand")
            _check_plain_buffer(self.plain, "plain operand")
            _check_plain_buffer(self.packed, "accel operand")
            g, x, y = plain
            d, k = (y, x) if self.transposed else (x, y)
            want = AccelTile.of_shape(packed).shape(g, d, k)
            if tuple(packed) != want:
                raise AccelError(f"accel shape {list(packed)} does not hold a [G={g}, D={d}, "
                                 f"K={k}] operand; expected {list(want)}")


class PackOp(_PackLike):
    OP_NAME = "accel.pack"
    PLAIN_INDEX = 0


class UnpackOp(_PackLike):
    OP_NAME = "accel.unpack"
    PLAIN_INDEX = 1


OP_CLASSES = {c.OP_NAME: c for c in (GemmOp, PackOp, UnpackOp)}


def collect_ops(root, name: str | None = None) -> list[ir.Operation]:
    """All ops under `root` (pre-order), or those named `name`.

    Collect first, act after: an exception raised inside an `ir` walk callback comes
    back wrapped in a RuntimeError, so nothing that may raise runs inside the walk.
    """
    found: list[ir.Operation] = []

    def visit(op):
        if name is None or op.name == name:
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    root.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def module_errors(module) -> list[AccelError]:
    """One AccelError per invalid accel op in the module, in program order.

    Each op reports only its first broken rule, as MLIR's verifier does; the ops are
    independent, so a tool can show (and --verify-diagnostics can match) all of them.
    """
    errors = []
    for op in collect_ops(module):
        cls = OP_CLASSES.get(op.name)
        try:
            if cls is not None:
                cls(op).verify()
            elif op.name.startswith("accel."):
                raise AccelError(f"unknown accel op '{op.name}'", op.location)
        except AccelError as e:
            errors.append(e)
    return errors


def verify_module(module) -> None:
    """Verify every accel op in the module; the first error is raised."""
    errors = module_errors(module)
    if errors:
        raise errors[0]
