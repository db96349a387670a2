"""accel-from-migraphx: MIGraphX kernels (generic form, see accel.migraphx) -> accel.gemm.

The conversion, per `func.func` whose signature uses `!migraphx.shaped`:

* Function boundary. Each argument becomes a memref of its storage: the MIGraphX
  strides of an argument describe memory, so a packed row-major type keeps its shape,
  and a permuted-stride type becomes the packed buffer in memory order (dimensions by
  decreasing stride; stride-0 dimensions own no memory and are dropped). Each result
  becomes such a memref appended as an out-parameter; the function returns nothing.
  Other strides (gaps, overlaps) are rejected.
* transpose / reshape / multibroadcast move no data: they compose a view (see
  accel.migraphx.view) of the buffer underneath.
* dot and quant_dot (i8 x i8 -> i32, fp8 x fp8 -> f32; its two fp8 operands may be
  different formats) -> accel.gemm, keeping `perf_config` and the function's `arch`. Each operand's
  view is matched against the layouts accel.gemm reads in place: `row`, `transposed`,
  and, when the dot has a perf config, `accel` with that config's blocking (seed 001's
  transpose [0,1,4,2,3,5] + reshape chain, i.e. rocMLIR's aAccelLayout/bAccelLayout).
  A view that matches none, e.g. an accel-like chain blocked differently from the perf
  config, is materialised: copied by a linalg.generic into a row-major buffer.
  C is written in place into the function's out-parameter when the dot's result
  reaches `return` through transposes/reshapes that spell `row` or `accel`
  (c_layout = "accel", blocked mPerBlock x kpackPerBlock x kpack with N as the
  blocked reduction-like side) in that out-parameter's memory; otherwise into a
  temporary row-major buffer.
* Epilogue fusion: a dot followed by an `add` of a bias and/or a `relu` becomes one
  accel.gemm with `epilogue` = bias | relu | bias_relu (dialect/ops.py), when each
  value of the chain dot -> add -> relu (add and relu each optional, in that order) has
  that next op as its only use, and the add's other operand is a bias the gemm reads in
  place: a view that is an [N] buffer broadcast over batches and rows, or a [G, N]
  buffer (G the flattened batch) broadcast over rows, of the output element type. The
  dot is lowered where its chain ends (the bias is defined by then); the chain's last
  value takes the dot's place for the destination below.
* Other add / sub / mul / relu / convert ops stay separate: each becomes an elementwise
  linalg.generic on memrefs (reading its operands through their views) that writes a
  new buffer, or the out-parameter if it is returned.
* literal -> a private constant memref.global.
Errors (wrong rank, bad permutation, mismatched shapes or types) are raised at the
MIGraphX op's location.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from math import prod

from accel.bindings import func, ir, memref
from accel.diagnostics import AccelError
from accel.dialect.accel_layout import AccelTile
from accel.dialect.element_types import is_fp8
from accel.dialect.ops import GemmOp, collect_ops, memref_info
from accel.dialect.perf_config import PerfConfig
from accel.migraphx import memrefs
from accel.migraphx.shaped import ShapedType, standard_strides
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
    if any(_shaped(t) for t in list(ftype.inputs) + list(ftype.results)):
        return True
    return any(op.name.startswith("migraphx.") for op in collect_ops(f))


def _shaped(t: ir.Type) -> ShapedType | None:
    return ShapedType.from_mlir(str(t))


def _is_float(elem: str) -> bool:
    return elem.startswith(("f", "bf"))


def _width(elem: str) -> int:
    return int(re.search(r"\d+", elem).group())


@dataclass(frozen=True)
class _Fusion:
    """A dot waiting for its epilogue: the ops absorbed so far end with `last`."""
    dot: ir.Operation
    last: ir.Operation
    bias: ir.Value | None = None    # the bias memref ([N] or [G, N])
    relu: bool = False

    @property
    def epilogue(self) -> str:
        kinds = (["bias"] if self.bias is not None else []) + (["relu"] if self.relu else [])
        return "_".join(kinds) or "none"


@dataclass
class _Tensor:
    """A MIGraphX value: `view` places its elements in the identity-layout memref `base`."""
    base: ir.Value
    view: View
    st: ShapedType

    @property
    def base_shape(self) -> list[int]:
        return memref_info(self.base)[0]


def _storage(st: ShapedType, loc) -> tuple[list[int], View]:
    """Storage shape of a function argument/result and its logical view over it."""
    view = View.strided(st.dims, st.strides)
    if st.strides == standard_strides(st.dims):
        return list(st.dims) or [1], view
    owned = sorted(((s, d) for d, s in zip(st.dims, st.strides) if not (s == 0 and d > 1)),
                   key=lambda sd: -sd[0])
    expect = 1
    for s, d in reversed(owned):
        if d == 1:
            continue
        if s != expect:
            raise AccelError(f"strides of {st} do not describe a packed buffer (possibly "
                             f"permuted or broadcast); such a buffer cannot cross the "
                             f"function boundary", loc)
        expect *= d
    return [d for _, d in owned] or [1], view


class _FuncLowering:
    def __init__(self, module: ir.Module, f: ir.Operation, arch_option: str):
        self.module = module
        self.old = f
        self.loc = f.location
        self.values: dict = {}          # old ir.Value -> _Tensor
        self.pending: dict = {}         # old ir.Value -> _Fusion whose `last` defines it
        self.written: set[int] = set()  # results already stored in their out-parameter
        arch = arch_option
        if "arch" in f.attributes:
            if not isinstance(f.attributes["arch"], ir.StringAttr):
                raise AccelError("MIGraphX function attribute 'arch' must be a string", self.loc)
            arch = f.attributes["arch"].value
        if not arch:
            raise AccelError("MIGraphX function has no 'arch' attribute and no arch option "
                             "was given", self.loc)
        self.arch = arch.split(":")[0]
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
        arg_storage = [_storage(st, a.location) for st, a in zip(arg_sts, old_block.arguments)]
        res_storage = [_storage(st, self.loc) for st in res_sts]
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
            self.values[old_arg] = _Tensor(new_arg, view, st)
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
                if op.name in _DOTS or op.name in _ELEMENTWISE:
                    plan[op] = (r, chain)
                break
        return plan

    # ---- ops -----------------------------------------------------------------
    def _lower(self, op: ir.Operation) -> None:
        name = op.name
        if name == "migraphx.literal":
            self._define(op, self._literal(op))
            return
        if self._fuse(op):
            return
        ins = [self.values[v] for v in op.operands]
        out_st = self._result_type(op)
        if name == "migraphx.transpose":
            t = ins[0]
            self._define(op, _Tensor(t.base, self._transpose_view(op, t.view), out_st))
        elif name == "migraphx.reshape":
            t = ins[0]
            view = self._reshape_view(op, t.view)
            if view is None:  # the regrouping needs a copy
                t = self._materialize(t)
                view = self._reshape_view(op, t.view)
            self._define(op, _Tensor(t.base, view, out_st))
        elif name == "migraphx.multibroadcast":
            self._define(op, self._broadcast(op, ins[0]))
        elif name in _DOTS:
            self._define(op, self._dot(op, ins, out_st))
        elif name in _ELEMENTWISE:
            self._define(op, self._elementwise(op, ins, out_st))
        else:
            raise AccelError(f"'{name}' is not supported by accel-from-migraphx", op.location)
        self._check_shape(op, self.values[op.results[0]].view.shape, out_st)

    # ---- epilogue fusion -------------------------------------------------------
    def _fuse(self, op: ir.Operation) -> bool:
        """Defer a dot to its epilogue, or absorb `op` into a deferred one; True when
        `op` needs no lowering of its own. A deferred dot that `op` cannot absorb is
        lowered first, unfused."""
        if op.name in _DOTS:
            if (len(op.results) != 1
                    or _only_user(op.results[0], ("migraphx.add", "migraphx.relu")) is None):
                return False
            self.pending[op.results[0]] = _Fusion(op, op)
            return True
        waiting = [v for v in op.operands if v in self.pending]
        for v in waiting[1:]:
            self._finish(self.pending.pop(v))
        if not waiting:
            return False
        fusion = self.pending.pop(waiting[0])
        grown = self._absorb(fusion, op, waiting[0])
        if grown is None:
            self._finish(fusion)
            return False
        if not grown.relu and _only_user(op.results[0], ("migraphx.relu",)) is not None:
            self.pending[op.results[0]] = grown
        else:
            self._finish(grown)
        return True

    def _absorb(self, fusion: _Fusion, op: ir.Operation, value: ir.Value) -> _Fusion | None:
        """`fusion` extended by `op` (which reads `value`, its last result), or None."""
        dot_st = self._result_type(fusion.dot)
        st = _shaped(op.results[0].type) if len(op.results) == 1 else None
        if (st is None or fusion.relu or st.dims != dot_st.dims or st.elem != dot_st.elem
                or st.is_unsigned):
            return None
        if op.name == "migraphx.relu" and len(op.operands) == 1:
            return replace(fusion, last=op, relu=True)
        if op.name != "migraphx.add" or len(op.operands) != 2 or fusion.bias is not None:
            return None
        other = self.values[op.operands[1] if op.operands[0] == value else op.operands[0]]
        if other.st.elem != st.elem:
            return None
        bias = _bias_buffer(other, st.dims)
        return None if bias is None else replace(fusion, last=op, bias=bias)

    def _finish(self, fusion: _Fusion) -> None:
        """Lower the fused dot where its chain ends; its result is the chain's last."""
        dot, last = fusion.dot, fusion.last
        with dot.location:
            t = self._dot(dot, [self.values[v] for v in dot.operands],
                          self._result_type(dot), fusion)
        self._define(last, replace(t, st=self._result_type(last)))

    def _define(self, op: ir.Operation, t: _Tensor) -> None:
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

    def _broadcast(self, op, t: _Tensor) -> _Tensor:
        lens = self._int_list(op, "out_lens")
        view = t.view.broadcast(lens)
        if view is None:
            raise AccelError(f"cannot broadcast shape {list(t.view.shape)} to {lens}",
                             op.location)
        return _Tensor(t.base, view, _shaped(op.results[0].type))

    def _literal(self, op) -> _Tensor:
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
        return _Tensor(base, View.contiguous(shape), st)

    def _fresh_symbol(self, stem: str) -> str:
        taken = {op.attributes["sym_name"].value for op in self.module.body.operations
                 if "sym_name" in op.attributes}
        i = 0
        while f"{stem}_{i}" in taken:
            i += 1
        return f"{stem}_{i}"

    # ---- dot -----------------------------------------------------------------
    def _dot(self, op, ins: list[_Tensor], out_st: ShapedType,
             fusion: _Fusion | None = None) -> _Tensor:
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
            try:
                config = PerfConfig.parse(config_text, self.mma_kind)
            except AccelError as e:
                raise AccelError(e.message, op.location) from None
        a_mem, a_layout = self._gemm_operand(a, "A", g, m, k, config)
        b_mem, b_layout = self._gemm_operand(b, "B", g, n, k, config)
        elem_t = ir.Type.parse(out_st.mlir_elem)
        dest = self._dot_destination(fusion.last if fusion else op, want, g, m, n, config)
        if dest is None:
            c_mem, c_layout = memrefs.alloc([g, m, n], elem_t), "row"
        else:
            c_mem, c_layout = dest
        gemm = GemmOp.build(a_mem, b_mem, c_mem, arch=self.arch, a_layout=a_layout,
                            b_layout=b_layout, c_layout=c_layout, perf_config=config_text,
                            bias=fusion.bias if fusion else None,
                            epilogue=fusion.epilogue if fusion else "none", loc=op.location)
        gemm.verify()
        if c_layout == "row":
            return _Tensor(c_mem, View.contiguous([g, m, n]).reshape(want), out_st)
        return _Tensor(c_mem, _accel_view(c_mem, g, m, n, False).reshape(want), out_st)

    def _gemm_operand(self, t: _Tensor, name: str, g: int, d: int, k: int,
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

    def _dot_destination(self, op, want, g: int, m: int, n: int,
                         config: PerfConfig | None) -> tuple[ir.Value, str] | None:
        if op not in self.plan:
            return None
        r, chain = self.plan[op]
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
    def _elementwise(self, op, ins: list[_Tensor], out_st: ShapedType) -> _Tensor:
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
            out = _Tensor(base, View.contiguous(out_st.dims), out_st)
        else:
            out = dest
        body = _body(name, ins[0].st, out_st, elem_t)
        memrefs.generic([self._indexing(t) for t in ins], self._indexing(out), len(out_st.dims),
                        body)
        return out

    def _elementwise_destination(self, op) -> _Tensor | None:
        if op not in self.plan or self.plan[op][1]:
            return None
        r = self.plan[op][0]
        out, view, st = self.outs[r]
        if view.index_exprs(memref_info(out)[0]) is None:
            return None
        self.written.add(r)
        return _Tensor(out, view, st)

    def _indexing(self, t: _Tensor) -> tuple[ir.Value, list[str]]:
        exprs = t.view.index_exprs(t.base_shape)
        if exprs is not None:
            return t.base, exprs
        return memrefs.reshape(t.base, [prod(t.base_shape)]), [t.view.offset_expr()]

    def _materialize(self, t: _Tensor) -> _Tensor:
        """Copy `t` into a fresh row-major buffer of its logical shape."""
        elem_t = t.base.type.element_type
        shape = list(t.view.shape)
        base = memrefs.alloc(shape, elem_t)
        out = _Tensor(base, View.contiguous(shape), t.st)
        memrefs.generic([self._indexing(t)], self._indexing(out), len(shape), lambda a: a[0])
        return out

    def _copy_to_out(self, t: _Tensor, r: int, loc) -> None:
        out, view, st = self.outs[r]
        if t.st.elem != st.elem or t.view.shape != tuple(st.dims):
            raise AccelError(f"returned value of type {t.st} does not match result type {st}",
                             loc)
        exprs = view.index_exprs(memref_info(out)[0])
        memrefs.generic([self._indexing(t)], (out, exprs), len(st.dims), lambda a: a[0])


def _only_user(value: ir.Value, names: tuple[str, ...]) -> ir.Operation | None:
    """The op using `value`, if that is its only use and the op is one of `names`."""
    uses = list(value.uses)
    if len(uses) != 1 or uses[0].owner.name not in names:
        return None
    return uses[0].owner


def _bias_buffer(t: _Tensor, dims) -> ir.Value | None:
    """`t` as the memref a fused bias epilogue reads: [N] when its view broadcasts an
    [N] buffer over batches and rows, [G, N] when it broadcasts [G, N] over rows."""
    *batch, _, n = dims
    g = prod(batch)
    numel = prod(t.base_shape)
    for source, shape in (([n], [n]), (batch + [1, n], [g, n])):
        view = View.contiguous(source).broadcast(list(dims))
        if view is not None and t.view.same_as(view) and numel == prod(shape):
            return memrefs.reshape(t.base, shape)
    return None


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
