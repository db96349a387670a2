"""Pass `accel-layout`: put GEMM operands into the tiled accel layout of their perf config.

Per operand (option `a`, `b`), in order of cost:
  1. fold: the operand is a transpose/reshape chain that reads a 6-D buffer already in
     the accel layout of the gemm's perf config (seed 001: transpose [0,1,4,2,3,5] of the
     6-D tensor, reshape to [G, D, K], for B one more [0,2,1] transpose). The gemm reads
     the 6-D source directly; the chain is erased when nothing else uses it.
  2. constant weight: the chain starts at a constant (`memref.global ... constant` or a
     tensor `arith.constant`): its packed value becomes a new constant global, so no
     kernel runs for it.
  3. forced (`accel`): a runtime operand gets a 6-D `memref.alloc` and an `accel.pack`.
`auto` does 1 and 2 and leaves other operands plain; `row`/`transposed` keep the
operand as it is (and reject an operand in another layout). Option `c=accel` makes the
gemm write C in the accel layout [G, M/mPB, N/kPB, kpackPB, mPB, kpack] and
`accel.unpack`s it into the original C buffer afterwards. A gemm left with A and C
both in the accel layout gets attribute `m`, the exact M read off the plain operand
before the rewrite (B and C: `n`, the exact N): neither 6-D shape holds it, and the
kernel needs it to keep C's padding zero under a bias (dialect/gemm.py).

Chains are traced by passes/layout_chains.py, constants read and written by
passes/constant_data.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import ir, memref
from accel.diagnostics import AccelError
from accel.dialect.accel_tile import AccelTile, pack, unpack
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.dialect.operand_layouts import plain_view
from accel.dialect.pack import PackOp, UnpackOp
from accel.dialect.perf_config import PerfConfig
from accel.passes.constant_data import constant_data, new_constant_global
from accel.passes.layout_chains import Chain, erase_if_dead, shape_of
from accel.passes.registry import AccelPass, option, register

OPERAND_CHOICES = ("auto", "row", "transposed", "accel")


@register
@dataclass(frozen=True)
class AccelLayout(AccelPass):
    NAME = "accel-layout"
    SUMMARY = ("Rewrite accel.gemm operands into the accel layout: fold transpose/reshape "
               "chains, pack constant weights at compile time, insert accel.pack")

    a: str = option("auto", "layout A is consumed in (auto: fold chains and constants only)",
                    choices=OPERAND_CHOICES)
    b: str = option("auto", "layout B is consumed in (auto: fold chains and constants only)",
                    choices=OPERAND_CHOICES)
    c: str = option("row", "layout the gemm writes C in (accel: unpack into C afterwards)",
                    choices=("row", "accel"))

    def run(self, module: ir.Module) -> None:
        for op in collect_ops(module, GemmOp.OP_NAME):
            gemm = GemmOp(op)
            gemm.verify()
            config = gemm.perf_config
            if config is None:
                raise AccelError("accel-layout needs a perf_config on 'accel.gemm' "
                                 "(run accel-affix-perf-config first)", gemm.location)
            shape = gemm.shape()   # M (N) exact while A (B) or C is plain
            before = {"m": gemm.a_layout, "n": gemm.b_layout, "c": gemm.c_layout}
            with gemm.location:
                for index, want in ((0, self.a), (1, self.b)):
                    _Operand(module, gemm, index, config).rewrite(want)
                if self.c == "accel" and gemm.c_layout != "accel":
                    _write_c_in_accel_layout(gemm, config)
            for dim, layout, exact in (("m", gemm.a_layout, shape.m),
                                       ("n", gemm.b_layout, shape.n)):
                if (before[dim], before["c"]) != ("accel", "accel") and \
                        (layout, gemm.c_layout) == ("accel", "accel"):
                    gemm.set_exact(dim, exact)
            gemm.verify()


class _Operand:
    """Operand A (index 0) or B (index 1) of one gemm."""

    def __init__(self, module: ir.Module, gemm: GemmOp, index: int, config: PerfConfig):
        self.module, self.gemm, self.index = module, gemm, index
        self.name = "AB"[index]
        self.layout_attr = ("a_layout", "b_layout")[index]
        self.layout = (gemm.a_layout, gemm.b_layout)[index]
        d_per_block = (config.m_per_block, config.n_per_block)[index]
        self.tile = AccelTile(d_per_block, config.kpack_per_block, config.kpack)
        # The plain side is [G, K, D] for A transposed and for B row ([G, K, N]).
        self.transposed = (index == 0) == (self.layout == "transposed")

    @property
    def value(self) -> ir.Value:
        return self.gemm.op.operands[self.index]

    def rewrite(self, want: str) -> None:
        if want in ("row", "transposed"):
            if self.layout != want:
                raise AccelError(f"accel-layout cannot turn {self.name} from '{self.layout}' "
                                 f"into '{want}' layout; it only converts into 'accel'",
                                 self.gemm.location)
            return
        if self.layout == "accel":
            return
        chain = Chain.trace(self.value, self.gemm.op)
        if self._fold(chain) or self._pack_constant(chain):
            return
        if want == "accel":
            self._pack_at_run_time()

    def _plain_gdk(self) -> tuple[int, int, int]:
        return plain_view(shape_of(self.value), self.layout, self.name)

    def _use(self, value: ir.Value) -> None:
        old = self.value
        self.gemm.op.operands[self.index] = value
        self.gemm.op.attributes[self.layout_attr] = ir.StringAttr.get("accel")
        erase_if_dead(self.module, old)

    # ---- 1. fold a chain that already reads the accel layout ----------------------
    def _fold(self, chain: "Chain") -> bool:
        g, d, k = self._plain_gdk()
        want = self.tile.shape(g, d, k)
        candidates = [link for link in reversed(chain.links)
                      if tuple(shape_of(link.value)) == want and link.usable_as_source()]
        if not candidates:
            return False
        maps = chain.index_maps()
        target = maps[0]
        import numpy as np   # imported where used (dialect/element_types.py: start-up)
        for link in candidates:
            source_map = maps[chain.links.index(link)]
            if np.array_equal(target, unpack(source_map, d, k, self.transposed)):
                source = link.value
                if isinstance(source.type, ir.RankedTensorType):
                    with ir.InsertionPoint(self.gemm.op):
                        source = _to_buffer(source)
                self._use(source)
                return True
        return False

    # ---- 2. pack a constant weight at compile time --------------------------------
    def _pack_constant(self, chain: "Chain") -> bool:
        data = constant_data(self.module, chain.root.value)
        if data is None:
            return False
        plain = data.reshape(-1)[chain.index_maps()[0]]
        packed = pack(plain, self.tile, self.transposed)
        global_op = new_constant_global(self.module, chain.root.value, packed)
        with ir.InsertionPoint(self.gemm.op):
            value = memref.GetGlobalOp(_memref_type(packed.shape, self.value),
                                       global_op.attributes["sym_name"].value).result
        self._use(value)
        return True

    # ---- 3. convert at run time ---------------------------------------------------
    def _pack_at_run_time(self) -> None:
        g, d, k = self._plain_gdk()
        plain = self.value
        with ir.InsertionPoint(self.gemm.op):
            packed = memref.AllocOp(_memref_type(self.tile.shape(g, d, k), plain), [], []).result
            PackOp.build(plain, packed, transposed=self.transposed, loc=self.gemm.location)
        with ir.InsertionPoint.after(self.gemm.op):
            memref.DeallocOp(packed)
        self._use(packed)


def _write_c_in_accel_layout(gemm: GemmOp, config: PerfConfig) -> None:
    """C -> a 6-D buffer in the accel layout (D=M, "K"=N), unpacked into C afterwards."""
    plain = gemm.c
    g, m, n = shape_of(plain)
    tile = AccelTile(config.m_per_block, config.kpack_per_block, config.kpack)
    with ir.InsertionPoint(gemm.op):
        packed = memref.AllocOp(_memref_type(tile.shape(g, m, n), plain), [], []).result
        if gemm.accumulate:  # the gemm adds into C, so it must start from C's values
            PackOp.build(plain, packed, transposed=False)
    with ir.InsertionPoint.after(gemm.op):
        dealloc = memref.DeallocOp(packed)
    with ir.InsertionPoint(dealloc):
        UnpackOp.build(packed, plain, transposed=False)
    gemm.op.operands[2] = packed
    gemm.op.attributes["c_layout"] = ir.StringAttr.get("accel")


# ---- IR helpers ---------------------------------------------------------------------------

def _memref_type(shape, like: ir.Value) -> ir.MemRefType:
    return ir.MemRefType.get(list(shape), like.type.element_type)


def _to_buffer(tensor: ir.Value) -> ir.Value:
    t = tensor.type
    result = ir.MemRefType.get(list(t.shape), t.element_type)
    return ir.Operation.create("bufferization.to_buffer", results=[result],
                               operands=[tensor]).result
