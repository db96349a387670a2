"""The kernel plan: every decision the kernel emitter follows, as attributes of `accel.gemm`.

`accel-plan-kernel` (passes/plan_kernel.py) makes the decisions and writes them; the
emitter (codegen/) reads them and decides nothing. After the pass a gemm carries

  kernel_symbol = "accel_gemm_g1_m64_n48_k256_f16_f16_gfx942"
  mma = "v_mfma_f32_16x16x16_f16"          the MMA instruction (target database mnemonic)
  k_steps_per_read = 2                      MMA k-steps one LDS fragment read serves
  lds_buffers = 2                           LDS copies of the A and B tiles (2: double buffer)
  pipeline_depth = 2                        k-tiles ahead of their MMAs the loaded-ahead
                                            operands' global loads are issued (1, or 2
                                            with two LDS buffers)
  sched_barriers = true                     scheduling barriers keep the next k-tile's global
                                            loads ahead of the MMAs, its LDS stores after (and
                                            a copy not loaded ahead out of the MMAs)
  load_wait_once = true                     the LDS stores of a loaded-ahead tile wait once
                                            for all its loads (vmcnt(0)), not per load
  lds_read_ahead = true                     the MMA fragments of each group of k-steps (one
                                            read each) are read before the previous group's MMAs
  interleave_reads = false                  scheduling-group barriers place those reads among
                                            the first MMAs of the group before
  direct_to_lds = false                     A and B go from global memory straight into LDS
                                            (amdgpu.gather_to_lds, scheduleVersion 3 and 4),
                                            not through registers (codegen/direct_lds_copy.py)
  c_vector = 8                              elements per C store (and bias load)
  waves_per_eu = 0                          occupancy asked of LLVM (amdgpu-waves-per-eu; 0 none)
  grid_group = 1                            M tiles per group of the grid order (1: plain)
  bf16_round = "i32"                        only when the epilogue rounds f32 to bf16 (C or a
                                            convert_bf16 step): "truncf" leaves the rounding
                                            to LLVM, "i32" spells it in i32 ops and packs C's
                                            pairs with v_perm_b32 (codegen/epilogue.py)
  a_copy = {ahead = true, k_chunk = 8, permute = false, rows_first = false,
            sgpr_offset = "k_tile", slab_pad = 1, swizzle = true, swizzle_bit = 0,
            swizzle_shift = 0, vector = 8}
  b_copy = {...}

per operand (`a_copy`, `b_copy`): the global load `vector` width in elements, `k_chunk`
(K rows a transposing copy joins per thread; 1 when the copy does not transpose),
whether it joins its K runs with dword byte `permute`s (v_perm_b32) rather than
vector shuffles, what of the tile's origin its loads take as `sgpr_offset` (SGPR_OFFSETS),
whether LDS rows are XOR-`swizzle`d and by which `swizzle_bit` of
(d // 8) >> `swizzle_shift`, the `slab_pad` rows of padding after each kpack slab,
whether a K-contiguous copy's consecutive units go down 8 rows before along K
(`rows_first`), and whether the tile is loaded a k-tile `ahead` (held in registers
across the MMAs).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from accel.bindings import ir
from accel.diagnostics import AccelError

# The sgprOffset of an operand's global loads: nothing, the k-tile's offset, or the
# whole tile's (D tile and k-tile).
SGPR_OFFSETS = ("none", "k_tile", "tile")
BF16_ROUNDS = ("truncf", "i32")
_OPERAND_KEYS = ("ahead", "k_chunk", "permute", "rows_first", "sgpr_offset", "slab_pad", "swizzle",
                 "swizzle_bit", "swizzle_shift", "vector")


@dataclass(frozen=True)
class OperandPlan:
    """How one operand's tiles travel from global memory to LDS."""
    vector: int          # elements per global load
    k_chunk: int         # K rows one thread transposes at once (1: no transpose)
    permute: bool        # the transpose joins K runs with v_perm_b32 byte permutes
    sgpr_offset: str     # what of the tile's origin is the loads' sgprOffset (SGPR_OFFSETS)
    swizzle: bool        # LDS rows XOR-swizzled (codegen/global_copy.py row_key)
    swizzle_bit: int     # the bit of (d // 8) >> swizzle_shift the swizzle maps to bank-slot bit 2
    slab_pad: int        # LDS rows of padding after each kpack slab
    ahead: bool          # loaded one k-tile ahead of its LDS store
    rows_first: bool     # a K-contiguous copy's units go down 8 rows before along K
    swizzle_shift: int   # the swizzle key is a function of (d // 8) >> swizzle_shift

    def attribute(self) -> ir.Attribute:
        i64 = ir.IntegerType.get_signless(64)
        values = {}
        for f in fields(self):
            v = getattr(self, f.name)
            values[f.name] = ir.BoolAttr.get(v) if isinstance(v, bool) else \
                ir.StringAttr.get(v) if isinstance(v, str) else ir.IntegerAttr.get(i64, v)
        return ir.DictAttr.get(values)

    @classmethod
    def read(cls, attr: ir.Attribute, name: str) -> "OperandPlan":
        if not isinstance(attr, ir.DictAttr):
            raise AccelError(f"attribute '{name}' must be a dictionary")
        keys = sorted(attr[i].name for i in range(len(attr)))
        if keys != sorted(_OPERAND_KEYS):
            raise AccelError(f"attribute '{name}' must have the keys {', '.join(_OPERAND_KEYS)}, "
                             f"got {', '.join(keys) or 'none'}")
        values = {}
        for f in fields(cls):
            a = attr[f.name]
            if f.type == "bool":
                if not isinstance(a, ir.BoolAttr):
                    raise AccelError(f"'{name}.{f.name}' must be true or false")
                values[f.name] = bool(a.value)
            elif f.type == "str":
                if not isinstance(a, ir.StringAttr) or a.value not in SGPR_OFFSETS:
                    raise AccelError(f"'{name}.{f.name}' must be one of "
                                     f"{', '.join(map(repr, SGPR_OFFSETS))}")
                values[f.name] = a.value
            else:
                values[f.name] = _positive_or_zero(a, f"{name}.{f.name}")
        plan = cls(**values)
        for key in ("vector", "k_chunk"):
            v = getattr(plan, key)
            if v < 1 or v & (v - 1):
                raise AccelError(f"'{name}.{key}' must be a power of two, got {v}")
        return plan


@dataclass(frozen=True)
class KernelPlan:
    symbol: str
    mma: str                 # instruction mnemonic
    k_steps_per_read: int
    lds_buffers: int
    pipeline_depth: int      # k-tiles the loaded-ahead operands' loads run ahead (1 or 2)
    sched_barriers: bool
    load_wait_once: bool     # one wait for all loaded-ahead loads before their LDS stores
    lds_read_ahead: bool     # MMA fragments read one group of k-steps ahead
    interleave_reads: bool   # those reads pinned among the previous group's first MMAs
    direct_to_lds: bool      # both operands' tiles written into LDS by gather_to_lds
    c_vector: int
    waves_per_eu: int
    grid_group: int
    a: OperandPlan
    b: OperandPlan
    # How the epilogue rounds f32 to bf16 (BF16_ROUNDS); None when it rounds nothing to
    # bf16, and then no attribute is written.
    bf16_round: str | None = None

    def write(self, op: ir.Operation) -> None:
        i64 = ir.IntegerType.get_signless(64)
        op.attributes["kernel_symbol"] = ir.StringAttr.get(self.symbol)
        op.attributes["mma"] = ir.StringAttr.get(self.mma)
        for name in _INT_KEYS:
            op.attributes[name] = ir.IntegerAttr.get(i64, getattr(self, name))
        for name in _BOOL_KEYS:
            op.attributes[name] = ir.BoolAttr.get(getattr(self, name))
        op.attributes["a_copy"] = self.a.attribute()
        op.attributes["b_copy"] = self.b.attribute()
        if self.bf16_round is not None:
            op.attributes["bf16_round"] = ir.StringAttr.get(self.bf16_round)
        elif "bf16_round" in op.attributes:   # re-planned: nothing rounds to bf16 now
            del op.attributes["bf16_round"]

    @classmethod
    def read(cls, op: ir.Operation) -> "KernelPlan | None":
        """The plan recorded on `op`, None if there is none; AccelError if partial or
        malformed."""
        present = [n for n in PLAN_ATTRIBUTES if n in op.attributes]
        if not present:
            return None
        missing = [n for n in PLAN_ATTRIBUTES if n not in op.attributes]
        if missing:
            raise AccelError(f"kernel plan is missing {', '.join(missing)}; "
                             f"run accel-plan-kernel")
        strings = {}
        for name in ("kernel_symbol", "mma"):
            a = op.attributes[name]
            if not isinstance(a, ir.StringAttr):
                raise AccelError(f"attribute '{name}' must be a string")
            strings[name] = a.value
        ints = {name: _positive_or_zero(op.attributes[name], name) for name in _INT_KEYS}
        if ints["grid_group"] < 1:
            raise AccelError("grid_group must be at least 1")
        if ints["lds_buffers"] not in (1, 2):
            raise AccelError(f"lds_buffers must be 1 or 2, got {ints['lds_buffers']}")
        if ints["pipeline_depth"] not in (1, 2):
            raise AccelError(f"pipeline_depth must be 1 or 2, got {ints['pipeline_depth']}")
        for name in ("k_steps_per_read", "c_vector"):
            v = ints[name]
            if v < 1 or v & (v - 1):
                raise AccelError(f"{name} must be a power of two, got {v}")
        bools = {}
        for name in _BOOL_KEYS:
            a = op.attributes[name]
            if not isinstance(a, ir.BoolAttr):
                raise AccelError(f"attribute '{name}' must be true or false")
            bools[name] = bool(a.value)
        if bools["interleave_reads"] and not bools["lds_read_ahead"]:
            raise AccelError("interleave_reads needs lds_read_ahead")
        if ints["pipeline_depth"] == 2 and (ints["lds_buffers"] != 2 or bools["direct_to_lds"]):
            raise AccelError("pipeline_depth 2 needs lds_buffers 2 and no direct_to_lds")
        bf16_round = None
        if "bf16_round" in op.attributes:
            a = op.attributes["bf16_round"]
            if not isinstance(a, ir.StringAttr) or a.value not in BF16_ROUNDS:
                raise AccelError(f"'bf16_round' must be one of "
                                 f"{', '.join(map(repr, BF16_ROUNDS))}")
            bf16_round = a.value
        return cls(symbol=strings["kernel_symbol"], mma=strings["mma"], **bools,
                   bf16_round=bf16_round,
                   a=OperandPlan.read(op.attributes["a_copy"], "a_copy"),
                   b=OperandPlan.read(op.attributes["b_copy"], "b_copy"), **ints)


def _positive_or_zero(a: ir.Attribute, name: str) -> int:
    if not isinstance(a, ir.IntegerAttr) or isinstance(a, ir.BoolAttr) or a.value < 0:
        raise AccelError(f"'{name}' must be a non-negative integer")
    return a.value


_INT_KEYS = ("k_steps_per_read", "lds_buffers", "pipeline_depth", "c_vector", "waves_per_eu",
             "grid_group")
_BOOL_KEYS = ("sched_barriers", "load_wait_once", "lds_read_ahead", "interleave_reads",
              "direct_to_lds")
PLAN_ATTRIBUTES = ("kernel_symbol", "mma", "sched_barriers", "a_copy", "b_copy") + _INT_KEYS \
    + ("load_wait_once", "lds_read_ahead", "interleave_reads", "direct_to_lds")
