"""Epilogue fusion: the elementwise MIGraphX ops after a dot that become accel.gemm's op list.

A MIGraphX GEMM kernel is a dot followed by elementwise work on its result. The ops that
fuse form a chain from the dot: each consumes the previous value as its only use (it may
read it twice, `mul %x, %x`), has the dot's result shape, and is an op the epilogue
computes (FUSIBLE). Its other operands become the gemm's extra operands when their views
are a buffer broadcast to the output the way accel.gemm reads one (epilogue_program's
kinds: the full [G, M, N], [N], [G, N], [M], [G, M] or one scalar); another view is
copied to a full [G, M, N] buffer first. The chain is found before anything is lowered
(`chain_after`); the gemm is emitted where it ends, when every extra operand exists,
and `Fuser` then takes as much of it as the element types allow:

* every value of the chain but the first has the element type of the op's operands
  (MIGraphX's rule), computed in the accumulator type (f32; i32 for i8 inputs);
* a `convert` inside the chain rounds through its type (`convert_T`); the chain's last
  value's type is C's, which must be one accel.gemm writes for the inputs' type;
* unsigned values, and float operands of an integer chain, do not fuse.
When a value of the chain feeds several elementwise ops (`x * s + (x + e)`), the ops after it
that read only fused values and outside operands form a region (`region_after`) taken in
program order; a fused prefix must end where no value but its last is used outside it.
An operand may itself be computed by elementwise ops used only there
(`operand_trees`, e.g. `div %dot, (add %arg, %cst)`): they become steps on the extra
operands they read. What does not fuse is left after the gemm with the reason `Fuser`
recorded (`refusal`), which the front end reports (accel.migraphx.lowering).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from accel.bindings import ir
from accel.dialect.epilogue_program import OPS, ROUND_TYPES
from accel.dialect.gemm_types import ACCUMULATOR, EPILOGUE_OPERAND_TYPES, OUTPUT_TYPES
from accel.migraphx import memrefs
from accel.migraphx.shaped import ShapedType
from accel.migraphx.strided import as_strided
from accel.migraphx.tensor import Tensor
from accel.migraphx.view import View

# MIGraphX op -> epilogue op (dialect/epilogue_program.py); convert is handled apart.
FUSIBLE = {f"migraphx.{name}": name for name in (
    "add", "sub", "mul", "div", "max", "min", "greater", "less", "relu", "neg", "abs",
    "exp", "sigmoid", "tanh", "erf", "where", "clip")}
CONVERT = "migraphx.convert"
# Views between the dot and an elementwise op: the epilogue computes in the dot's
# [G, M, N]; an extra operand read after them is mapped back through their inverses.
VIEWS = ("migraphx.transpose", "migraphx.reshape")


def _shaped(v: ir.Value) -> ShapedType | None:
    return ShapedType.from_mlir(str(v.type))


def chain_after(dot: ir.Operation) -> list[ir.Operation]:
    """The ops that may fuse after `dot`, in order (the structure only: single uses,
    fusible op names, each elementwise op of the shape of the value it reads; transposes
    and reshapes in between are views), ending with an elementwise op."""
    dims = _shaped(dot.results[0]).dims
    chain, v = [], dot.results[0]
    while True:
        users = [u.owner.operation for u in v.uses]
        if not users or any(u != users[0] for u in users):
            break
        op = users[0]
        st = _shaped(op.results[0]) if len(op.results) == 1 else None
        if st is None or not (op.name in FUSIBLE or op.name == CONVERT or op.name in VIEWS):
            break
        if op.name not in VIEWS and st.dims != dims:
            break
        chain.append(op)
        dims, v = st.dims, op.results[0]
    while chain and chain[-1].name in VIEWS:
        chain.pop()
    return chain


@dataclass(frozen=True)
class Region:
    """The ops that may fuse after a dot, in program order, and the op counts at which a
    fused prefix may end: where every value of the prefix but the last is used only
    inside it (for a chain, every count)."""
    ops: list
    closed: frozenset


def region_after(dot: ir.Operation) -> Region:
    """The chain after `dot` (chain_after) or, when a value after the dot feeds several
    elementwise ops (`x * s + x`) and that fuses more, the elementwise ops after it that
    read the dot's value, each other's and outside operands (no views then)."""
    chain = chain_after(dot)
    as_chain = Region(chain, frozenset(range(len(chain) + 1)))
    if any(op.name in VIEWS for op in chain):
        return as_chain
    v = dot.results[0]
    dims = _shaped(v).dims
    inside, ops = {v}, []
    block = [o.operation for o in dot.operation.block.operations]
    for op in block[block.index(dot.operation) + 1:]:
        if any(u in inside for u in op.operands):
            st = _shaped(op.results[0]) if len(op.results) == 1 else None
            if st is None or st.dims != dims or not (op.name in FUSIBLE or op.name == CONVERT):
                break
            ops.append(op)
            inside.add(op.results[0])
    closed = []
    for k in range(len(ops) + 1):
        taken = set(ops[:k])
        values = [v] + [o.results[0] for o in ops[:k]]
        if all(u.owner.operation in taken for x in values[:-1] for u in x.uses):
            closed.append(k)
    if max(closed) <= len(chain):
        return as_chain
    return Region(ops, frozenset(closed))


def operand_trees(chain: list[ir.Operation]) -> list[ir.Operation]:
    """The elementwise ops that compute a chain op's other operands and can be computed
    in the epilogue too: fusible, used once (by that op), of the dot's shape (only
    before the chain's first view), recursively. MIGraphX computes a scale or bias
    this way (`add %arg2, %cst` then `div %dot, %that`)."""
    found: list[ir.Operation] = []
    seen = set(chain)

    def visit(v: ir.Value, dims) -> None:
        if not isinstance(v, ir.OpResult):
            return
        op = v.owner.operation
        if op in seen or (op.name not in FUSIBLE and op.name != CONVERT):
            return
        st = _shaped(op.results[0]) if len(op.results) == 1 else None
        if st is None or st.dims != dims or len(list(v.uses)) != 1:
            return
        seen.add(op)
        found.append(op)
        for u in op.operands:
            visit(u, dims)

    for op in chain:
        if op.name in VIEWS:
            break
        dims = _shaped(op.results[0]).dims
        for v in op.operands:
            visit(v, dims)
    return found


def extra_buffer(t: Tensor, dims) -> tuple[str, ir.Value] | None:
    """(kind, memref) through which the epilogue reads `t` broadcast to `dims` in place,
    or None."""
    *batch, m, n = dims
    g = prod(batch)
    numel = prod(t.base_shape)
    candidates = (("gmn", list(dims), [g, m, n]), ("n", [n], [n]),
                  ("gn", batch + [1, n], [g, n]), ("m", [m, 1], [m]),
                  ("gm", batch + [m, 1], [g, m]), ("", [1], [1]))
    for kind, source, shape in candidates:
        view = View.contiguous(source).broadcast(list(dims))
        if view is not None and t.view.same_as(view) and numel == prod(shape):
            return kind, memrefs.reshape(t.base, shape)
    return None


def strided_extra(t: Tensor, dims) -> tuple[tuple[str, ir.Value] | None, str]:
    """(("gmn", strided memref), "") through which the epilogue reads `t` (of shape
    `dims`) as a view with N contiguous (accel.migraphx.strided: e.g. one [M, N] matrix
    for every batch, batch stride 0), or (None, why not)."""
    *batch, m, n = dims
    view = t.view.reshape([prod(batch), m, n])
    if view is None:
        return None, "a batch that regroups dimensions of several strides"
    mem, why = as_strided(t, view, ("the batch", "M", "N"))
    return (("gmn", mem), "") if mem is not None else (None, why)


@dataclass(frozen=True)
class _Checkpoint:
    ops: int              # chain ops taken
    steps: int
    extras: int
    elem: str             # MLIR element type of the chain's value here
    convert: bool         # the last op taken was a convert


@dataclass(frozen=True)
class Fused:
    """What the gemm takes: `ops` chain ops as `program` over `extras` (of `kinds`),
    writing C in `out_elem`."""
    ops: int
    program: str
    extras: list
    kinds: list
    out_elem: str


class Fuser:
    """Grows an op list along a chain, op by op (`take`); `result` is the longest prefix
    that ends in a type C can be written in."""

    def __init__(self, in_type: str, dot_value: ir.Value, operand, materialize,
                 trees: frozenset = frozenset(), closed: frozenset | None = None):
        # operand(value) -> its Tensor; materialize(tensor, reason) -> a row-major copy;
        # trees: operand_trees' ops, computed in the epilogue where their values are read;
        # closed: the op counts at which the ops taken may end (Region.closed).
        dot_st = _shaped(dot_value)
        self.acc = ACCUMULATOR[in_type]
        self.out_types = OUTPUT_TYPES[in_type]
        self.dims = dot_st.dims
        self.operand = operand
        self.materialize = materialize
        self.steps: list[str] = []
        self.extras: list[ir.Value] = []
        self.kinds: list[str] = []
        self.trees = trees
        self.closed = closed
        self.names = {dot_value: "%acc"}   # fused value -> its name in the op list
        self.views: list[tuple[ir.Operation, tuple]] = []   # (view op, shape it reads)
        self.checkpoints = [_Checkpoint(0, 0, 0, dot_st.mlir_elem, False)]
        self.in_type = in_type
        self.refusal: str | None = None    # why the op `take` last refused does not fuse
        self.taken_trees: set = set()      # operand-tree ops computed in the epilogue

    def _refuse(self, why: str) -> None:
        """Record why the op being taken does not fuse (the caller then refuses it)."""
        self.refusal = why

    def take(self, op: ir.Operation) -> bool:
        """Add `op` (which reads fused values); False if it cannot."""
        if op.name in VIEWS:
            self.views.append((op, _shaped(op.operands[0]).dims))
            self.names[op.results[0]] = self.names[op.operands[0]]
            return True
        st = _shaped(op.results[0])
        if st.is_unsigned or any(_shaped(v) is None or _shaped(v).is_unsigned
                                 for v in op.operands):
            self._refuse("the epilogue computes on signed and float values, not unsigned "
                         "ones")
            return False
        elem = st.mlir_elem
        if op.name == CONVERT:
            why = self._convert_refusal(elem)
            if why:
                self._refuse(why)
                return False
            value = self._add(f"convert_{elem}", [self.names[op.operands[0]]])
        else:
            value = self._elementwise(op, st)
            if value is None:
                return False
        self.names[op.results[0]] = value
        self.checkpoints.append(_Checkpoint(len(self.views) + len(self.checkpoints),
                                            len(self.steps), len(self.extras), elem,
                                            op.name == CONVERT))
        return True

    def result(self) -> Fused | None:
        """The longest fusible prefix of the chain, or None when not even the dot alone
        writes a type the gemm can (the dot's own type is then checked where it lowers)."""
        cp = next((c for c in reversed(self.checkpoints) if c.elem in self.out_types
                   and (self.closed is None or c.ops in self.closed)), None)
        if cp is not self.checkpoints[-1]:
            nxt = self.checkpoints[self.checkpoints.index(cp) + 1 if cp else 0]
            self.refusal = (
                f"a gemm of {self.in_type} ending there would write C as {nxt.elem}, which "
                f"accel.gemm does not write (it writes {', '.join(self.out_types)})"
                if nxt.elem not in self.out_types else
                "a value of the chain before it is also read outside the chain")
        if cp is None:
            return None
        # A convert that ends the chain is C's own conversion.
        steps = self.steps[:cp.steps - 1 if cp.convert else cp.steps]
        return Fused(cp.ops, "; ".join(steps), self.extras[:cp.extras],
                     self.kinds[:cp.extras], cp.elem)

    def _to_dot_space(self, view: View) -> View | None:
        """A view in the chain's current coordinates, in the dot's (the views undone)."""
        for op, in_dims in reversed(self.views):
            if view is None:
                return None
            if op.name == "migraphx.transpose":
                perm = [a.value for a in op.attributes["permutation"]]
                view = view.transpose([perm.index(i) for i in range(len(perm))])
            else:
                view = view.reshape(list(in_dims))
        return view

    def _convert_refusal(self, elem: str) -> str | None:
        if elem not in ROUND_TYPES:
            return f"the epilogue does not round to {elem}"
        if self.acc == "i32" and not elem.startswith("i"):
            return f"an i8 gemm's epilogue computes in i32 and does not convert to {elem}"
        return None

    def _elementwise(self, op: ir.Operation, st: ShapedType) -> str | None:
        """The step of a non-convert op (its operands read as fused values or extras);
        None (and `refusal` says why) if it cannot fuse."""
        name = FUSIBLE[op.name]
        if len(op.operands) != OPS[name][0]:
            return self._refuse(f"'{op.name}' has {len(op.operands)} operand(s), the "
                                f"epilogue's '{name}' takes {OPS[name][0]}")
        if self.acc == "i32" and OPS[name][1]:
            return self._refuse(f"'{name}' is a float operation and an i8 gemm's epilogue "
                                f"computes in i32")
        # where's condition may have any type; the other operands have the result's.
        typed = op.operands[1:] if name == "where" else op.operands
        if any(_shaped(v).elem != st.elem for v in typed):
            return self._refuse("its operands' element types differ from its result's")
        args = []
        for v in op.operands:
            arg = self.names[v] if v in self.names else self._extra(v)
            if arg is None:
                return None
            args.append(arg)
        return self._add(name, args)

    def _add(self, op: str, args: list[str]) -> str:
        value = f"%{len(self.steps)}"
        self.steps.append(f"{value} = {op} {', '.join(args)}")
        return value

    def _extra(self, v: ir.Value) -> str | None:
        producer = v.owner.operation if isinstance(v, ir.OpResult) else None
        if producer is not None and producer in self.trees:
            st = _shaped(producer.results[0])
            if st.is_unsigned or any(_shaped(u).is_unsigned for u in producer.operands):
                return self._refuse("an operand is computed on unsigned values")
            if producer.name == CONVERT:
                inner = self._extra(producer.operands[0])
                if inner is None:
                    return None
                why = self._convert_refusal(st.mlir_elem)
                if why:
                    return self._refuse(why)
                self.taken_trees.add(producer)
                return self._add(f"convert_{st.mlir_elem}", [inner])
            value = self._elementwise(producer, st)
            if value is not None:
                self.taken_trees.add(producer)
            return value
        t = self.operand(v)
        elem = t.st.mlir_elem
        if elem not in EPILOGUE_OPERAND_TYPES or (self.acc == "i32" and not elem.startswith("i")):
            return self._refuse(f"an operand of type {elem} is not one the epilogue of a "
                                f"{self.in_type} gemm reads")
        view = self._to_dot_space(t.view)
        if view is None:   # regrouped unlike the views undo: copy, then map back
            t = self.materialize(t, "an epilogue operand regrouped unlike the chain's views")
            view = self._to_dot_space(t.view)
            if view is None:
                return self._refuse("an operand cannot be read back through the chain's "
                                    "views")
        t = Tensor(t.base, view, t.st)
        found = extra_buffer(t, self.dims)
        if found is None:
            found, why = strided_extra(t, self.dims)
        if found is None:
            found = extra_buffer(self.materialize(t, f"an epilogue operand with {why}"),
                                 self.dims)
        kind, mem = found
        self.extras.append(mem)
        self.kinds.append(kind)
        return f"%e{len(self.extras) - 1}"
