"""One MIGraphX function -> a memref function of accel.gemm ops: the driver.

The function boundary (accel.migraphx.boundary) gives the new function and its
out-parameters; then the body is lowered op by op, in order:

* view ops (accel.migraphx.view_ops) compose a view of the buffer underneath;
* literal -> a private constant memref.global (accel.migraphx.literal);
* a dot or quant_dot (accel.migraphx.dot) with a fusible chain after it
  (accel.migraphx.epilogue) is held until the chain's last op, where every extra
  operand is defined; there it becomes one accel.gemm with the chain as its epilogue
  op list, and the chain's last value takes the dot's place (for the destination too);
* an elementwise op no gemm epilogue takes, and quantizelinear, dequantizelinear,
  unpack (int4), reduce_sum / reduce_max and softmax over the last axis, become
  accel.elementwise kernels (accel.migraphx.elementwise): never host-only IR.
Values are returned by writing the out-parameters (in place when the producer could,
else by an accel.copy kernel, accel.migraphx.copies, as is a view no kernel reads in
place).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from accel.bindings import func, ir
from accel.diagnostics import AccelError
from accel.dialect.element_types import is_fp8
from accel.dialect.gemm_types import ACCUMULATOR
from accel.migraphx import copies
from accel.migraphx.boundary import Boundary, func_arch
from accel.migraphx.dot import DOTS, DotLowering, check_shape
from accel.migraphx.elementwise import KERNEL_OPS, ElementwiseLowering
from accel.migraphx.epilogue import CONVERT, FUSIBLE, Fuser, operand_trees, region_after
from accel.migraphx.literal import literal
from accel.migraphx.shaped import ShapedType
from accel.migraphx.tensor import Tensor
from accel.migraphx.view_ops import PURE_VIEWS, VIEW_OPS, shaped, view_op
from accel.target.database import get_arch


class FuncLowering:
    def __init__(self, module: ir.Module, f: ir.Operation, arch_option: str):
        self.module = module
        self.old = f
        self.loc = f.location
        self.values: dict = {}          # old ir.Value -> Tensor
        self.absorbed: set = set()      # ops lowered with the chain they belong to
        self.chain_ends: dict = {}      # last op of a fusible chain -> (dot, chain, ...)
        self.refusals: dict = {}        # chain op a gemm did not take -> why
        arch = func_arch(f, arch_option, self.loc).split(":")[0]
        try:
            mma_kind = get_arch(arch).mma_kind
        except AccelError as e:
            raise AccelError(e.message, self.loc) from None
        self.arch, self.mma_kind = arch, mma_kind

    def run(self) -> None:
        self.boundary = Boundary(self.old, DOTS + tuple(FUSIBLE) + (CONVERT,) + KERNEL_OPS)
        self.materialize = partial(copies.materialize, arch=self.arch)
        self.dots = DotLowering(self.arch, self.mma_kind, self.boundary, self.materialize)
        self.kernels = ElementwiseLowering(self.arch, self.boundary, self.materialize)
        self.values.update(self.boundary.args)
        ops = list(self.old.regions[0].blocks[0].operations)
        ret = ops[-1]
        with ir.InsertionPoint(self.boundary.block):
            for op in ops[:-1]:
                with op.location:
                    self._lower(op)
            with ret.location:
                for r, value in enumerate(ret.operands):
                    if r not in self.boundary.written:
                        self.boundary.copy_to_out(self.values[value], r, ret.location,
                                                  self.arch)
                func.ReturnOp([])
        self.old.erase()

    def _lower(self, op: ir.Operation) -> None:
        if op in self.absorbed:        # a dot or chain op, lowered where its chain ends
            return
        if op in self.chain_ends:
            self._lower_chain(*self.chain_ends.pop(op))
            return
        if op.name in DOTS and self._defer(op):
            return
        self._lower_op(op)

    def _lower_op(self, op: ir.Operation) -> None:
        name = op.name
        if name == "migraphx.literal":
            self._define(op, literal(self.module, op, self._result_type(op)))
            return
        ins = [self._value(v) for v in op.operands]
        out_st = self._result_type(op)
        if name in FUSIBLE or name == CONVERT or name in KERNEL_OPS:
            # What no gemm's epilogue took is a kernel of its own, which records why.
            self._define(op, self.kernels.lower(op, ins, out_st, self.refusals.get(op)))
        elif name in VIEW_OPS:
            self._define(op, view_op(op, ins[0], out_st, self.materialize))
        elif name in DOTS:
            self._define(op, self.dots.lower(op, ins, out_st))
        else:
            raise AccelError(f"'{name}' is not supported by accel-from-migraphx", op.location)
        check_shape(op, self.values[op.results[0]].view.shape, out_st)

    def _value(self, v: ir.Value) -> Tensor:
        """The lowered value of `v`; an operand-tree op held for an epilogue that did not
        take it is lowered now (its operands are all defined by then)."""
        if v not in self.values:
            op = v.owner.operation
            with op.location:
                self._lower_op(op)
        return self.values[v]

    # ---- epilogue fusion (accel.migraphx.epilogue) ------------------------------
    def _defer(self, dot: ir.Operation) -> bool:
        """Hold a dot with a fusible chain after it until the chain's end (where every
        extra operand is defined); True when deferred."""
        if len(dot.results) != 1 or shaped(dot.results[0].type) is None:
            return False
        region = region_after(dot)
        chain = region.ops
        if max(region.closed) == 0:
            return False
        trees = operand_trees(chain)
        self.absorbed.update([dot] + chain[:-1] + trees)
        self.chain_ends[chain[-1]] = (dot, chain, frozenset(trees), region.closed)
        return True

    def _lower_chain(self, dot: ir.Operation, chain: list[ir.Operation],
                     trees: frozenset, closed: frozenset) -> None:
        """The dot as one gemm with as much of its chain (and the operand trees feeding
        it) as fuses; what is left is lowered after it, as `_lower_op` says (a tree op
        not fused is lowered where it is first needed, `_value`)."""
        ins = [self._value(v) for v in dot.operands]
        dot_st = self._result_type(dot)
        in_type = ins[0].st.mlir_elem if ins else ""
        fused = None
        # Two fp8 formats may meet (fp8 x bf8); any other pair must agree.
        if in_type in ACCUMULATOR and len(ins) == 2 and (
                ins[1].st.mlir_elem == in_type or is_fp8(in_type) and is_fp8(ins[1].st.mlir_elem)):
            fuser = Fuser(in_type, dot.results[0], self._value, self.materialize, trees,
                          closed)
            for op in chain:
                with op.location:
                    if not fuser.take(op):
                        break
            fused = fuser.result()
            taken = fused.ops if fused else 0
            for op in chain[taken:] + [t for t in trees if t not in fuser.taken_trees]:
                self.refusals[op] = fuser.refusal or "the gemm cannot write its value's type"
        taken = fused.ops if fused else 0
        last = chain[taken - 1] if taken else dot
        views = [op for op in chain[:taken] if op.name in PURE_VIEWS]
        with dot.location:
            t = self.dots.lower(dot, ins, dot_st, last, fused if taken else None, views)
        for op in views:   # the result, seen through the views the chain went through
            with op.location:
                t = view_op(op, t, self._result_type(op), self.materialize)
        self._define(last, replace(t, st=self._result_type(last)))
        for op in chain[taken:]:
            with op.location:
                self._lower_op(op)

    def _define(self, op: ir.Operation, t: Tensor) -> None:
        if len(op.results) != 1:
            raise AccelError(f"'{op.name}' must have one result", op.location)
        self.values[op.results[0]] = t

    def _result_type(self, op: ir.Operation) -> ShapedType:
        if len(op.results) != 1 or shaped(op.results[0].type) is None:
            raise AccelError(f"'{op.name}' must have one !migraphx.shaped result", op.location)
        return shaped(op.results[0].type)
