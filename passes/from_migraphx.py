"""accel-from-migraphx: MIGraphX kernels (generic form, see accel.migraphx) -> accel.gemm.

The conversion, per `func.func` whose signature uses `!migraphx.shaped` (or whose body
holds MIGraphX ops; `tensor<...>` types of the older form are packed row-major):

* Arch: the function's `arch` or `rock.arch` attribute, an empty one counting as not
  given, else the pass's `arch` option.
* Function boundary. Each argument becomes a memref of its storage: the MIGraphX
  strides of an argument describe memory, so a packed row-major type keeps its shape,
  and a permuted-stride type becomes the packed buffer in memory order (dimensions by
  decreasing stride; stride-0 dimensions own no memory and are dropped). Other strides
  (gaps, as a slice of a larger buffer leaves; overlaps) make a flat buffer spanning
  every element, read through the view; a result that would write one address twice is
  rejected. Each result becomes such a memref appended as an out-parameter; the
  function returns nothing.
* transpose / reshape / multibroadcast / broadcast / slice move no data: they compose a
  view (see accel.migraphx.view) of the buffer underneath, folded into the addressing
  of whatever reads it.
* dot and quant_dot (i8 x i8 -> i32, fp8 x fp8 -> f32; its two fp8 operands may be
  different formats) -> accel.gemm, keeping `perf_config` (v2/v3/v4; an attention config is ignored
  with a warning, a split-K one runs with splitKFactor 1 and a warning) and the arch.
  Each operand's view is matched against the layouts accel.gemm reads in place: `row`,
  `transposed`, and, when the dot has a perf config, `accel` with that config's
  blocking (seed 001's transpose [0,1,4,2,3,5] + reshape chain, i.e. rocMLIR's
  aAccelLayout/bAccelLayout). A view that matches none (an accel-like chain blocked
  differently from the perf config, a slice) is materialised: copied by a
  linalg.generic into a row-major buffer.
  C is written in place into the function's out-parameter when the result reaches
  `return` through transposes/reshapes that spell `row` or `accel`
  (c_layout = "accel", blocked mPerBlock x kpackPerBlock x kpack with N as the
  blocked reduction-like side) in that out-parameter's memory; otherwise into a
  temporary row-major buffer.
* Epilogue fusion (accel.migraphx.epilogue): the elementwise chain after a dot, and
  the elementwise ops computing its other operands, become the gemm's epilogue op
  list; the dot is lowered where its chain ends (every extra operand is defined by
  then), the chain's last value takes the dot's place for the destination above.
* Elementwise ops that do not fuse (add / sub / mul / relu / convert) stay separate:
  each becomes an elementwise linalg.generic on memrefs (reading its operands through
  their views) that writes a new buffer, or the out-parameter if it is returned.
* literal -> a private constant memref.global.
Errors (wrong rank, bad permutation, mismatched shapes or types) are raised at the
MIGraphX op's location.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from math import prod

from accel.bindings import func, ir, memref
from accel.diagnostics import AccelError, warn
from accel.dialect.accel_tile import AccelTile
from accel.dialect.element_types import is_fp8
from accel.dialect.gemm import GemmOp
from accel.dialect.gemm_types import ACCUMULATOR
from accel.dialect.ir_helpers import collect_ops, memref_info
from accel.dialect.perf_config import PerfConfig
from accel.migraphx import memrefs
from accel.migraphx.shaped import ShapedType, standard_strides
from accel.migraphx.epilogue import FUSIBLE, Fused, Fuser, operand_trees, region_after
from accel.migraphx.tensor import Tensor
from accel.migraphx.view import View
from accel.passes.registry import AccelPass, option, register
from accel.target.database import get_arch

# Binary elementwise ops: (float op, integer op).
_BINARY = {"migraphx.add": ("arith.addf", "arith.addi"),
           "migraphx.sub": ("arith.subf", "arith.subi"),
           "migraphx.mul": ("arith.mulf", "arith.muli")}
_ELEMENTWISE = set(_BINARY) | {"migraphx.relu", "migraphx.convert"}
# quant_dot is MIGraphX's GEMM on quantized types: i8 x i8 -> i32, fp8 x fp8 -> f32.
_DOTS = ("migraphx.dot", "migraphx.quant_dot")
_PURE_VIEWS = ("migraphx.transpose", "migraphx.reshape")
# Perf configs rocMLIR writes for kernels other than a GEMM (attention: `attn:` with
# named fields) that MIGraphX may attach to a dot.
NON_GEMM_CONFIG_PREFIXES = ("attn:",)


@register
@dataclass(frozen=True)
class FromMigraphx(AccelPass):
    NAME = "accel-from-migraphx"
    SUMMARY = ("Lower MIGraphX dot / quant_dot (+ transpose/reshape chains, elementwise ops) "
               "to accel.gemm on memrefs")
    arch: str = option("", "target arch for functions without an 'arch' attribute")

    def run(self, module: ir.Module) -> None:
        if self.arch:  # checked even when every function names its own arch
            get_arch(self.arch.split(":")[0])
        for f in collect_ops(module, "func.func"):
            if _is_migraphx_func(f):
                with f.location:
                    _FuncLowering(module, f, self.arch).run()


def _is_migraphx_func(f: ir.Operation) -> bool:
    ftype = f.attributes["function_type"].value
    if any(str(t).startswith("!migraphx.shaped<")
           for t in list(ftype.inputs) + list(ftype.results)):
        return True
    return any(op.name.startswith("migraphx.") for op in collect_ops(f))


def _shaped(t: ir.Type) -> ShapedType | None:
    return ShapedType.from_mlir(str(t))


def _is_float(elem: str) -> bool:
    return elem.startswith(("f", "bf"))


def _width(elem: str) -> int:
    return int(re.search(r"\d+", elem).group())


def _storage(st: ShapedType, loc, written: bool) -> tuple[list[int], View]:
    """Storage shape of a function argument/result and its logical view over it.

    Packed strides (row-major, or permuted) keep the buffer's shape in memory order;
    other strides (gaps: a slice of a larger buffer, or overlaps) make a flat buffer
    spanning every element the view reaches, read through the view. A result (written)
    must not overlap itself."""
    view = View.strided(st.dims, st.strides)
    if st.strides == standard_strides(st.dims):
        return list(st.dims) or [1], view
    owned = sorted(((s, d) for d, s in zip(st.dims, st.strides) if not (s == 0 and d > 1)),
                   key=lambda sd: -sd[0])
    inner, span, packed, overlap = 1, 1, True, False  # from the smallest stride up
    for s, d in reversed(owned):
        if d == 1:
            continue
        packed &= s == inner
        overlap |= s < span
        inner, span = inner * d, span + (d - 1) * s
    if packed:
        return [d for _, d in owned] or [1], view
    if written and (overlap or len(owned) < len(st.dims)):
        raise AccelError(f"strides of result {st} place several elements at one address; "
                         f"such a result cannot be written", loc)
    span = sum((d - 1) * s for d, s in zip(st.dims, st.strides)) + 1
    return [span], view


def _func_arch(f: ir.Operation, option: str, loc) -> str:
    """The function's `arch` (or MIGraphX's own `rock.arch`) attribute, else the pass
    option; an empty attribute (a harness placeholder) counts as not given."""
    for name in ("arch", "rock.arch"):
        if name in f.attributes:
            if not isinstance(f.attributes[name], ir.StringAttr):
                raise AccelError(f"MIGraphX function attribute '{name}' must be a string", loc)
            if f.attributes[name].value:
                return f.attributes[name].value
    if not option:
        raise AccelError("MIGraphX function has no 'arch' (or 'rock.arch') attribute and no "
                         "arch option was given", loc)
    return option


class _FuncLowering:
    def __init__(self, module: ir.Module, f: ir.Operation, arch_option: str):
        self.module = module
        self.old = f
        self.loc = f.location
        self.values: dict = {}          # old ir.Value -> Tensor
        self.absorbed: set = set()      # ops lowered with the chain they belong to
        self.chain_ends: dict = {}      # last op of a fusible chain -> (dot, chain)
        self.written: set[int] = set()  # results already stored in their out-parameter
        self.arch = _func_arch(f, arch_option, self.loc).split(":")[0]
        try:
            self.mma_kind = get_arch(self.arch).mma_kind
        except AccelError as e:
            raise AccelError(e.message, self.loc) from None

    # ---- driver --------------------------------------------------------------
    def run(self) -> None:
        old_block = self.old.regions[0].blocks[0]
        ftype = self.old.attributes["function_type"].value
        arg_sts = [self._boundary_type(a.type, a.location) for a in old_block.arguments]
        res_sts = [self._boundary_type(t, self.loc) for t in ftype.results]
        arg_storage = [_storage(st, a.location, False)
                       for st, a in zip(arg_sts, old_block.arguments)]
        res_storage = [_storage(st, self.loc, True) for st in res_sts]
        mtypes = [ir.MemRefType.get(shape, ir.Type.parse(st.mlir_elem))
                  for st, (shape, _) in zip(arg_sts + res_sts, arg_storage + res_storage)]
        with ir.InsertionPoint(self.old), self.loc:
            new = func.FuncOp(self.old.attributes["sym_name"].value,
                              ir.FunctionType.get(mtypes, []))
        for name in list(self.old.attributes):
            if name not in ("sym_name", "function_type", "arg_attrs", "res_attrs"):
                new.attributes[name] = self.old.attributes[name]
        locs = [a.location for a in old_block.arguments] + [self.loc] * len(res_sts)
        block = new.add_entry_block(arg_locs=locs)
        n_args = len(arg_sts)
        for old_arg, st, (_, view), new_arg in zip(old_block.arguments, arg_sts, arg_storage,
                                                   block.arguments):
            self.values[old_arg] = Tensor(new_arg, view, st)
        self.outs = [(block.arguments[n_args + i], view, st)
                     for i, (st, (_, view)) in enumerate(zip(res_sts, res_storage))]
        ops = list(old_block.operations)
        ret = ops[-1]
        self.plan = self._plan_destinations(ret)
        with ir.InsertionPoint(block):
            for op in ops[:-1]:
                with op.location:
                    self._lower(op)
            with ret.location:
                for r, value in enumerate(ret.operands):
                    if r not in self.written:
                        self._copy_to_out(self.values[value], r, ret.location)
                func.ReturnOp([])
        self.old.erase()

    def _boundary_type(self, t: ir.Type, loc) -> ShapedType:
        st = _shaped(t)
        if st is None:
            raise AccelError(f"expected a !migraphx.shaped type at the function boundary, "
                             f"got {t}", loc)
        return st

    def _plan_destinations(self, ret: ir.Operation) -> dict:
        """Producer op -> (result index, view ops between it and `return`), for results
        that flow from one producer to `return` through single-use transposes/reshapes."""
        plan = {}
        for r, v in enumerate(ret.operands):
            chain = []
            while isinstance(v, ir.OpResult) and sum(1 for _ in v.uses) == 1:
                op = v.owner.operation
                if op.name in _PURE_VIEWS:
                    chain.insert(0, op)
                    v = op.operands[0]
                    continue
                if op.name in _DOTS or op.name in _ELEMENTWISE or op.name in FUSIBLE:
                    plan[op] = (r, chain)
                break
        return plan

    # ---- ops -----------------------------------------------------------------
    def _lower(self, op: ir.Operation) -> None:
        if op in self.absorbed:        # a dot or chain op, lowered where its chain ends
            return
        if op in self.chain_ends:
            self._lower_chain(*self.chain_ends.pop(op))
            return
        if op.name in _DOTS and self._defer(op):
            return
        self._lower_op(op)

    def _lower_op(self, op: ir.Operation) -> None:
        name = op.name
        if name == "migraphx.literal":
            self._define(op, self._literal(op))
            return
        ins = [self._value(v) for v in op.operands]
        out_st = self._result_type(op)
        if name in _PURE_VIEWS:
            self._define(op, self._view_of(op, ins[0], out_st))
        elif name == "migraphx.multibroadcast":
            self._define(op, self._broadcast(op, ins[0]))
        elif name == "migraphx.broadcast":
            self._define(op, self._axis_broadcast(op, ins[0]))
        elif name == "migraphx.slice":
            t = ins[0]
            view = self._slice_view(op, t.view)
            if view is None:  # a slice across a merged dimension: copy, then slice
                t = self._materialize(t)
                view = self._slice_view(op, t.view)
            self._define(op, Tensor(t.base, view, out_st))
        elif name in _DOTS:
            self._define(op, self._dot(op, ins, out_st))
        elif name in _ELEMENTWISE:
            self._define(op, self._elementwise(op, ins, out_st))
        else:
            raise AccelError(f"'{name}' is not supported by accel-from-migraphx", op.location)
        self._check_shape(op, self.values[op.results[0]].view.shape, out_st)

    def _value(self, v: ir.Value) -> Tensor:
        """The lowered value of `v`; an operand-tree op held for an epilogue that did not
        take it is lowered now (its operands are all defined by then)."""
        if v not in self.values:
            op = v.owner.operation
            with op.location:
                self._lower_op(op)
        return self.values[v]

    def _view_of(self, op: ir.Operation, t: Tensor, out_st: ShapedType) -> Tensor:
        """`t` through transpose or reshape `op` (a reshape that cannot regroup `t`'s
        view copies it first)."""
        if op.name == "migraphx.transpose":
            return Tensor(t.base, self._transpose_view(op, t.view), out_st)
        view = self._reshape_view(op, t.view)
        if view is None:
            t = self._materialize(t)
            view = self._reshape_view(op, t.view)
        return Tensor(t.base, view, out_st)

    # ---- epilogue fusion (accel.migraphx.epilogue) ------------------------------
    def _defer(self, dot: ir.Operation) -> bool:
        """Hold a dot with a fusible chain after it until the chain's end (where every
        extra operand is defined); True when deferred."""
        if len(dot.results) != 1 or _shaped(dot.results[0].type) is None:
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
        it) as fuses; the rest after it (a tree op not fused is lowered where it is
        first needed, `_value`)."""
        ins = [self._value(v) for v in dot.operands]
        dot_st = self._result_type(dot)
        in_type = ins[0].st.mlir_elem if ins else ""
        fused = None
        # Two fp8 formats may meet (fp8 x bf8); any other pair must agree.
        if in_type in ACCUMULATOR and len(ins) == 2 and (
                ins[1].st.mlir_elem == in_type or is_fp8(in_type) and is_fp8(ins[1].st.mlir_elem)):
            fuser = Fuser(in_type, dot.results[0], self._value, self._materialize, trees,
                          closed)
            for op in chain:
                with op.location:
                    if not fuser.take(op):
                        break
            fused = fuser.result()
        taken = fused.ops if fused else 0
        last = chain[taken - 1] if taken else dot
        views = [op for op in chain[:taken] if op.name in _PURE_VIEWS]
        with dot.location:
            t = self._dot(dot, ins, dot_st, last, fused if taken else None, views)
        for op in views:   # the result, seen through the views the chain went through
            with op.location:
                t = self._view_of(op, t, self._result_type(op))
        self._define(last, replace(t, st=self._result_type(last)))
        for op in chain[taken:]:
            with op.location:
                self._lower_op(op)

    def _define(self, op: ir.Operation, t: Tensor) -> None:
        if len(op.results) != 1:
            raise AccelError(f"'{op.name}' must have one result", op.location)
        self.values[op.results[0]] = t

    def _result_type(self, op: ir.Operation) -> ShapedType:
        if len(op.results) != 1 or _shaped(op.results[0].type) is None:
            raise AccelError(f"'{op.name}' must have one !migraphx.shaped result", op.location)
        return _shaped(op.results[0].type)

    @staticmethod
    def _check_shape(op, shape, st: ShapedType) -> None:
        if tuple(shape) != tuple(st.dims):
            raise AccelError(f"result type {st} does not match the computed shape "
                             f"[{', '.join(map(str, shape))}]", op.location)

    @staticmethod
    def _int_list(op, name: str) -> list[int]:
        if name not in op.attributes or not isinstance(op.attributes[name], ir.ArrayAttr):
            raise AccelError(f"'{op.name}' requires an integer array attribute '{name}'",
                             op.location)
        values = list(op.attributes[name])
        if not all(isinstance(a, ir.IntegerAttr) for a in values):
            raise AccelError(f"'{op.name}' attribute '{name}' must hold integers", op.location)
        return [a.value for a in values]

    def _transpose_view(self, op, view: View) -> View:
        perm = self._int_list(op, "permutation")
        if sorted(perm) != list(range(view.rank)):
            raise AccelError(f"permutation {perm} is not a permutation of the {view.rank} "
                             f"dimensions of the operand", op.location)
        return view.transpose(perm)

    def _reshape_view(self, op, view: View) -> View | None:
        dims = self._int_list(op, "dims")
        if min(dims, default=1) < 1:
            raise AccelError(f"reshape dims {dims} must be positive", op.location)
        if prod(dims) != prod(view.shape):
            raise AccelError(f"reshape to {dims} changes the element count "
                             f"({prod(view.shape)} -> {prod(dims)})", op.location)
        return view.reshape(dims)

    def _broadcast(self, op, t: Tensor) -> Tensor:
        lens = self._int_list(op, "out_lens")
        view = t.view.broadcast(lens)
        if view is None:
            raise AccelError(f"cannot broadcast shape {list(t.view.shape)} to {lens}",
                             op.location)
        return Tensor(t.base, view, _shaped(op.results[0].type))

    def _axis_broadcast(self, op, t: Tensor) -> Tensor:
        """MIGraphX broadcast: the operand's dimensions placed at `axis` of `out_lens`,
        every other dimension repeated (stride 0)."""
        lens = self._int_list(op, "out_lens")
        axis = op.attributes["axis"].value if "axis" in op.attributes else 0
        rank = t.view.rank
        if not (0 <= axis <= len(lens) - rank) or list(t.view.shape) != lens[axis:axis + rank]:
            raise AccelError(f"cannot broadcast shape {list(t.view.shape)} at axis {axis} to "
                             f"{lens}", op.location)
        dims = tuple(((n, 0),) if n != 1 else () for n in lens[:axis]) + t.view.dims + \
            tuple(((n, 0),) if n != 1 else () for n in lens[axis + rank:])
        return Tensor(t.base, View(dims, t.view.offset), _shaped(op.results[0].type))

    def _slice_view(self, op, view: View) -> View | None:
        axes, starts, ends = (self._int_list(op, a) for a in ("axes", "starts", "ends"))
        if not len(axes) == len(starts) == len(ends):
            raise AccelError("'migraphx.slice' needs as many starts and ends as axes",
                             op.location)
        for axis, start, end in zip(axes, starts, ends):
            if axis < 0:
                axis += view.rank
            if not 0 <= axis < view.rank:
                raise AccelError(f"slice axis {axis} is out of range for rank {view.rank}",
                                 op.location)
            n = view.shape[axis]
            # MIGraphX clamps like numpy: negative bounds count from the end.
            lo, hi = (max(0, min(n, b + n if b < 0 else b)) for b in (start, end))
            if lo >= hi:
                raise AccelError(f"slice [{start}, {end}) of axis {axis} (extent {n}) is "
                                 f"empty", op.location)
            view = view.slice(axis, lo, hi)
            if view is None:
                return None
        return view

    def _literal(self, op) -> Tensor:
        st = self._result_type(op)
        value = op.attributes["value"] if "value" in op.attributes else None
        if not isinstance(value, ir.DenseElementsAttr):
            raise AccelError("'migraphx.literal' requires a dense elements value", op.location)
        shape = list(value.type.shape)
        if shape != list(st.dims):
            raise AccelError(f"literal of shape {shape} does not match its type {st}",
                             op.location)
        # MLIR globals are signless: retype si/ui constants through their text.
        value = ir.Attribute.parse(re.sub(r"x[su]i(\d+)>$", r"xi\1>", str(value))
                                   .replace("tensor<si", "tensor<i").replace("tensor<ui", "tensor<i"))
        mtype = ir.MemRefType.get(shape, value.type.element_type)
        name = self._fresh_symbol("__migraphx_literal")
        with ir.InsertionPoint.at_block_begin(self.module.body):
            memref.GlobalOp(name, ir.TypeAttr.get(mtype), sym_visibility="private",
                            initial_value=value, constant=True)
        base = memref.GetGlobalOp(mtype, name).result
        return Tensor(base, View.contiguous(shape), st)

    def _fresh_symbol(self, stem: str) -> str:
        taken = {op.attributes["sym_name"].value for op in self.module.body.operations
                 if "sym_name" in op.attributes}
        i = 0
        while f"{stem}_{i}" in taken:
            i += 1
        return f"{stem}_{i}"

    # ---- dot -----------------------------------------------------------------
    def _dot(self, op, ins: list[Tensor], out_st: ShapedType,
             last: ir.Operation | None = None, fused: Fused | None = None,
             views: list[ir.Operation] = ()) -> Tensor:
        """accel.gemm for dot `op`; with `fused`, its epilogue up to chain op `last`,
        through the chain's `views`."""
        if len(ins) != 2:
            raise AccelError(f"'{op.name}' takes two operands", op.location)
        a, b = ins
        (a_dims, b_dims) = (a.view.shape, b.view.shape)
        for name, dims in (("A", a_dims), ("B", b_dims)):
            if len(dims) < 2:
                raise AccelError(f"dot operand {name} must have rank >= 2, got rank "
                                 f"{len(dims)}", op.location)
        if len(a_dims) != len(b_dims) or a_dims[:-2] != b_dims[:-2]:
            raise AccelError(f"dot batch dimensions differ: A {list(a_dims)}, B {list(b_dims)}",
                             op.location)
        if op.name == "migraphx.quant_dot":
            _check_quant_types(op, a.st.elem, b.st.elem, out_st.elem)
        elif a.st.elem != b.st.elem:
            raise AccelError(f"dot operand element types differ: {a.st.elem} vs {b.st.elem}",
                             op.location)
        m, k = a_dims[-2:]
        k2, n = b_dims[-2:]
        if k != k2:
            raise AccelError(f"dot reduction sizes differ: A has K={k}, B has K={k2}",
                             op.location)
        g = prod(a_dims[:-2])
        if 0 in (g, m, n, k):  # the view algebra below divides by extents
            raise AccelError(f"dot has a zero extent: A {list(a_dims)}, B {list(b_dims)}",
                             op.location)
        want = tuple(a_dims[:-2]) + (m, n)
        self._check_shape(op, want, out_st)
        config_text = None
        config = None
        if "perf_config" in op.attributes:
            if not isinstance(op.attributes["perf_config"], ir.StringAttr):
                raise AccelError(f"'{op.name}' attribute 'perf_config' must be a string",
                                 op.location)
            config_text = op.attributes["perf_config"].value
            if config_text.startswith(NON_GEMM_CONFIG_PREFIXES):
                # MIGraphX attaches a fused kernel's config (attention's) to each of its
                # dots; it says nothing about this GEMM's tile, so one is chosen instead.
                warn(f"perf config '{config_text}' is not a GEMM config; it is ignored "
                     f"and one is chosen", op.location)
                config_text = None
            else:
                try:
                    config = PerfConfig.parse(config_text, self.mma_kind)
                except AccelError as e:
                    raise AccelError(e.message, op.location) from None
                if config.split_k > 1:
                    # The kernel has no split-K: the same tile over the whole K computes
                    # the same product (in one pass instead of split_k partial ones).
                    warn(f"perf config '{config_text}' asks for splitKFactor "
                         f"{config.split_k}, which accel does not implement; the GEMM runs "
                         f"with splitKFactor 1", op.location)
                    config = config.replace(split_k=1)
                    config_text = str(config)
        a_mem, a_layout = self._gemm_operand(a, "A", g, m, k, config)
        b_mem, b_layout = self._gemm_operand(b, "B", g, n, k, config)
        elem_t = ir.Type.parse(fused.out_elem if fused else out_st.mlir_elem)
        dest = self._dot_destination(last or op, want, g, m, n, config, views)
        if dest is None:
            c_mem, c_layout = memrefs.alloc([g, m, n], elem_t), "row"
        else:
            c_mem, c_layout = dest
        gemm = GemmOp.build(a_mem, b_mem, c_mem, arch=self.arch, a_layout=a_layout,
                            b_layout=b_layout, c_layout=c_layout, perf_config=config_text,
                            extras=fused.extras if fused else [],
                            epilogue=(fused.program or "none") if fused else "none",
                            epilogue_operands=fused.kinds if fused and fused.program else None,
                            loc=op.location)
        gemm.verify()
        if c_layout == "row":
            return Tensor(c_mem, View.contiguous([g, m, n]).reshape(want), out_st)
        return Tensor(c_mem, _accel_view(c_mem, g, m, n, False).reshape(want), out_st)

    def _gemm_operand(self, t: Tensor, name: str, g: int, d: int, k: int,
                      config: PerfConfig | None) -> tuple[ir.Value, str]:
        """The memref and layout through which accel.gemm reads operand `t` in place,
        else a row-major copy."""
        plain = [g, d, k] if name == "A" else [g, k, d]
        view = t.view.reshape(plain)
        if view is not None:
            swapped = [g, plain[2], plain[1]]
            candidates = [("row", View.contiguous(plain), plain),
                          ("transposed", View.contiguous(swapped).transpose([0, 2, 1]), swapped)]
            if config is not None:
                dpb = config.m_per_block if name == "A" else config.n_per_block
                if d % dpb == 0 and k % config.k_per_block == 0:
                    tile = AccelTile(dpb, config.kpack_per_block, config.kpack)
                    shape6 = list(tile.shape(g, d, k))
                    cand = _accel_chain(shape6, g, d, k, transposed=name == "B")
                    candidates.append(("accel", cand, shape6))
            numel = prod(t.base_shape)
            for layout, cand, shape in candidates:
                if view.same_as(cand) and prod(shape) == numel:
                    return memrefs.reshape(t.base, shape), layout
        copy = self._materialize(t)
        return memrefs.reshape(copy.base, plain), "row"

    def _dot_destination(self, op, want, g: int, m: int, n: int, config: PerfConfig | None,
                         views: list[ir.Operation] = ()) -> tuple[ir.Value, str] | None:
        if op not in self.plan:
            return None
        r, chain = self.plan[op]
        chain = list(views) + chain
        out, out_view, _ = self.outs[r]
        candidates = [("row", View.contiguous([g, m, n]), [g, m, n])]
        if config is not None and m % config.m_per_block == 0 and n % config.k_per_block == 0:
            shape6 = list(AccelTile(config.m_per_block, config.kpack_per_block,
                                    config.kpack).shape(g, m, n))
            candidates.append(("accel", _accel_chain(shape6, g, m, n, transposed=False), shape6))
        numel = prod(memref_info(out)[0])
        for layout, cand, shape in candidates:
            view = cand.reshape(want)
            for cop in chain:
                if view is None:
                    break
                view = (self._transpose_view(cop, view) if cop.name == "migraphx.transpose"
                        else self._reshape_view(cop, view))
            if view is not None and view.same_as(out_view) and prod(shape) == numel:
                self.written.add(r)
                return memrefs.reshape(out, shape), layout
        return None

    # ---- elementwise ---------------------------------------------------------
    def _elementwise(self, op, ins: list[Tensor], out_st: ShapedType) -> Tensor:
        name = op.name
        arity = 2 if name in _BINARY else 1
        if len(ins) != arity:
            raise AccelError(f"'{name}' takes {arity} operand(s)", op.location)
        for t in ins:
            if t.view.shape != tuple(out_st.dims):
                raise AccelError(f"'{name}' operand shape {list(t.view.shape)} differs from "
                                 f"the result shape {list(out_st.dims)}", op.location)
        if name != "migraphx.convert":
            for t in ins:
                if t.st.elem != out_st.elem:
                    raise AccelError(f"'{name}' mixes element types {t.st.elem} and "
                                     f"{out_st.elem}", op.location)
        elem_t = ir.Type.parse(out_st.mlir_elem)
        dest = self._elementwise_destination(op)
        if dest is None:
            base = memrefs.alloc(out_st.dims, elem_t)
            out = Tensor(base, View.contiguous(out_st.dims), out_st)
        else:
            out = dest
        body = _body(name, ins[0].st, out_st, elem_t)
        memrefs.generic([self._indexing(t) for t in ins], self._indexing(out), len(out_st.dims),
                        body)
        return out

    def _elementwise_destination(self, op) -> Tensor | None:
        if op not in self.plan or self.plan[op][1]:
            return None
        r = self.plan[op][0]
        out, view, st = self.outs[r]
        if view.index_exprs(memref_info(out)[0]) is None:
            return None
        self.written.add(r)
        return Tensor(out, view, st)

    def _indexing(self, t: Tensor) -> tuple[ir.Value, list[str]]:
        exprs = t.view.index_exprs(t.base_shape)
        if exprs is not None:
            return t.base, exprs
        return memrefs.reshape(t.base, [prod(t.base_shape)]), [t.view.offset_expr()]

    def _materialize(self, t: Tensor) -> Tensor:
        """Copy `t` into a fresh row-major buffer of its logical shape."""
        elem_t = t.base.type.element_type
        shape = list(t.view.shape)
        base = memrefs.alloc(shape, elem_t)
        out = Tensor(base, View.contiguous(shape), t.st)
        memrefs.generic([self._indexing(t)], self._indexing(out), len(shape), lambda a: a[0])
        return out

    def _copy_to_out(self, t: Tensor, r: int, loc) -> None:
        out, view, st = self.outs[r]
        if t.st.elem != st.elem or t.view.shape != tuple(st.dims):
            raise AccelError(f"returned value of type {t.st} does not match result type {st}",
                             loc)
        exprs = view.index_exprs(memref_info(out)[0])
        memrefs.generic([self._indexing(t)], (out, exprs), len(st.dims), lambda a: a[0])


def _accel_chain(shape6, g: int, d: int, k: int, transposed: bool) -> View:
    """Seed 001's chain on a packed 6-D buffer: transpose [0,1,4,2,3,5], reshape to
    [G, D, K] and, for B, transpose to [G, K, D]."""
    view = View.contiguous(shape6).transpose([0, 1, 4, 2, 3, 5]).reshape([g, d, k])
    return view.transpose([0, 2, 1]) if transposed else view


def _check_quant_types(op, a: str, b: str, out: str) -> None:
    """quant_dot's types: signed i8 x i8 -> i32, or two fp8 formats (they may differ:
    fp8 x bf8) -> f32. Which fp8 formats a chip has, accel.gemm's verifier says."""
    if a in ("i8", "si8") and b in ("i8", "si8"):
        want = ("i32", "si32")
    elif is_fp8(a) and is_fp8(b):
        want = ("f32",)
    else:
        raise AccelError(f"'migraphx.quant_dot' takes i8 x i8 or fp8 x fp8 operands, got "
                         f"{a} x {b}", op.location)
    if out not in want:
        raise AccelError(f"'migraphx.quant_dot' of {a} x {b} yields {want[0]}, got {out}",
                         op.location)


def _accel_view(c_mem: ir.Value, g: int, m: int, n: int, transposed: bool) -> View:
    return _accel_chain(memref_info(c_mem)[0], g, m, n, transposed)


def _body(name: str, in_st: ShapedType, out_st: ShapedType, elem_t: ir.Type):
    """The scalar computation of an elementwise op, as a linalg.generic body builder."""
    src, dst = in_st.mlir_elem, out_st.mlir_elem
    flt = _is_float(dst)

    def op1(opname, result_t, *operands):
        return ir.Operation.create(opname, results=[result_t], operands=list(operands)).result

    if name in _BINARY:
        return lambda a: op1(_BINARY[name][0 if flt else 1], elem_t, a[0], a[1])
    if name == "migraphx.relu":
        zero_attr = ir.FloatAttr.get(elem_t, 0.0) if flt else ir.IntegerAttr.get(elem_t, 0)
        maxop = "arith.maximumf" if flt else ("arith.maxui" if out_st.is_unsigned else "arith.maxsi")

        def relu(a):
            zero = ir.Operation.create("arith.constant", results=[elem_t],
                                       attributes={"value": zero_attr}).result
            return op1(maxop, elem_t, a[0], zero)
        return relu
    # convert
    if src == dst:
        return lambda a: a[0]
    if _is_float(src) and flt:
        if _width(src) == _width(dst):  # e.g. f16 <-> bf16: through f32
            f32 = ir.F32Type.get()
            return lambda a: op1("arith.truncf", elem_t, op1("arith.extf", f32, a[0]))
        opname = "arith.extf" if _width(dst) > _width(src) else "arith.truncf"
    elif _is_float(src):
        opname = "arith.fptoui" if out_st.is_unsigned else "arith.fptosi"
    elif flt:
        opname = "arith.uitofp" if in_st.is_unsigned else "arith.sitofp"
    else:
        opname = ("arith.trunci" if _width(dst) < _width(src)
                  else "arith.extui" if in_st.is_unsigned else "arith.extsi")
    return lambda a: op1(opname, elem_t, a[0])
