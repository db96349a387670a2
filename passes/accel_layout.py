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
`accel.unpack`s it into the original C buffer afterwards.

Recognising a chain. Every op on a chain only moves elements, so each value on it is
described by an index map: an integer array of the value's shape holding, per element,
the flat position in the chain's root storage it reads. Views (memref.transpose,
collapse_shape, expand_shape, reinterpret_cast, subview, cast) are read off their result
type's strides and offset; a copy into a fresh buffer (memref.copy, linalg.copy,
linalg.transpose on memrefs), tensor transposes and reshapes, and to_buffer/to_tensor
compose maps. A 6-D value `s` on the chain can replace operand `x` exactly when
map(x) == unpack(map(s)) for the tile of the perf config: the same test decides every
equivalent spelling, and rejects a wrong permutation or a mismatched blocking.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from accel.bindings import ir, memref
from accel.diagnostics import AccelError
from accel.dialect.accel_layout import AccelTile, pack, unpack
from accel.dialect.element_types import NUMPY_TYPES, is_fp8
from accel.dialect.ops import GemmOp, PackOp, UnpackOp, collect_ops
from accel.dialect.perf_config import PerfConfig
from accel.passes.registry import AccelPass, option, register

OPERAND_CHOICES = ("auto", "row", "transposed", "accel")

# Ops whose result is a view of operand 0's storage, fully described by the result type.
VIEW_OPS = ("memref.transpose", "memref.collapse_shape", "memref.expand_shape",
            "memref.reinterpret_cast", "memref.subview", "memref.cast")
# Ops that copy operand 0 into operand 1 (a buffer), with an optional permutation.
COPY_OPS = ("memref.copy", "linalg.copy", "linalg.transpose")
TENSOR_RESHAPES = ("tensor.collapse_shape", "tensor.expand_shape", "tensor.reshape",
                   "tensor.cast")
# Side-effect free producers that may be erased once unused.
PURE_OPS = VIEW_OPS + TENSOR_RESHAPES + (
    "tensor.empty", "linalg.transpose", "bufferization.to_buffer", "bufferization.to_tensor",
    "memref.get_global", "arith.constant")


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
            with gemm.location:
                for index, want in ((0, self.a), (1, self.b)):
                    _Operand(module, gemm, index, config).rewrite(want)
                if self.c == "accel" and gemm.c_layout != "accel":
                    _write_c_in_accel_layout(gemm, config)
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
        chain = _Chain.trace(self.value, self.gemm.op)
        if self._fold(chain) or self._pack_constant(chain):
            return
        if want == "accel":
            self._pack_at_run_time()

    def _plain_gdk(self) -> tuple[int, int, int]:
        g, x, y = _shape(self.value)
        return (g, y, x) if self.transposed else (g, x, y)

    def _use(self, value: ir.Value) -> None:
        old = self.value
        self.gemm.op.operands[self.index] = value
        self.gemm.op.attributes[self.layout_attr] = ir.StringAttr.get("accel")
        _erase_if_dead(self.module, old)

    # ---- 1. fold a chain that already reads the accel layout ----------------------
    def _fold(self, chain: "_Chain") -> bool:
        g, d, k = self._plain_gdk()
        want = self.tile.shape(g, d, k)
        candidates = [link for link in reversed(chain.links)
                      if tuple(_shape(link.value)) == want and link.usable_as_source()]
        if not candidates:
            return False
        maps = chain.index_maps()
        target = maps[0]
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
    def _pack_constant(self, chain: "_Chain") -> bool:
        data = _constant_data(self.module, chain.root.value)
        if data is None:
            return False
        plain = data.reshape(-1)[chain.index_maps()[0]]
        packed = pack(plain, self.tile, self.transposed)
        global_op = _new_constant_global(self.module, chain.root.value, packed)
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
            PackOp.build(plain, packed, transposed=self.transposed)
        with ir.InsertionPoint.after(self.gemm.op):
            memref.DeallocOp(packed)
        self._use(packed)


def _write_c_in_accel_layout(gemm: GemmOp, config: PerfConfig) -> None:
    """C -> a 6-D buffer in the accel layout (D=M, "K"=N), unpacked into C afterwards."""
    plain = gemm.c
    g, m, n = _shape(plain)
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


# ---- chains and their index maps -----------------------------------------------------

@dataclass
class _Link:
    """One value on a chain and how it derives from the next link (towards the root).

    kind: "root" | "view" | "copy" | "permute" | "reshape" | "same"
    """
    value: ir.Value
    kind: str
    permutation: tuple[int, ...] | None = None

    def usable_as_source(self) -> bool:
        """Can the gemm read this value in place of its operand? (It dominates the gemm:
        it is an ancestor of the operand, and copies are only followed from before it.)"""
        v = self.value
        if isinstance(v.type, ir.MemRefType):
            return _is_identity(v.type)
        return isinstance(v.type, ir.RankedTensorType) and v.type.has_static_shape


@dataclass
class _Chain:
    """Links from a gemm operand (links[0]) back to the root (links[-1])."""
    links: list[_Link]

    @property
    def root(self) -> _Link:
        return self.links[-1]

    @classmethod
    def trace(cls, value: ir.Value, reader: ir.Operation) -> "_Chain":
        links = []
        while True:
            link, parent = _step(value, reader)
            links.append(link)
            if parent is None:
                return cls(links)
            value = parent

    def index_maps(self) -> list[np.ndarray]:
        """Per link, the flat root-storage position each of its elements reads."""
        maps: list[np.ndarray] = [None] * len(self.links)
        storage = None  # flat map of the memref storage the current views look into
        for i in range(len(self.links) - 1, -1, -1):
            link = self.links[i]
            shape = _shape(link.value)
            if link.kind == "root":
                if isinstance(link.value.type, ir.MemRefType):
                    storage = np.arange(_storage_size(link.value.type), dtype=np.int64)
                    current = _view(storage, link.value.type)
                else:
                    current = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
            elif link.kind == "view":
                current = _view(storage, link.value.type)
            elif link.kind == "permute":
                current = maps[i + 1].transpose(link.permutation)
            elif link.kind == "reshape":
                current = maps[i + 1].reshape(shape)
            else:  # "copy" into an identity buffer, or "same" (to_buffer / to_tensor)
                current = maps[i + 1].reshape(shape)
            if link.kind in ("copy", "same", "permute") and isinstance(link.value.type,
                                                                       ir.MemRefType):
                storage = np.ascontiguousarray(current).reshape(-1)
            maps[i] = current
        return maps


def _step(value: ir.Value, reader: ir.Operation) -> tuple[_Link, ir.Value | None]:
    """The link for `value` and the value it derives from (None at the root).

    A buffer is followed through the copy that fills it only when that copy runs
    before `reader` in its block, so the copy's source still holds the data there.
    """
    owner = value.owner
    if isinstance(owner, ir.Block):
        return _Link(value, "root"), None
    owner = owner.operation  # OpView.name may be an attribute (memref.get_global's)
    name = owner.name
    if name in VIEW_OPS and _static_strides(value.type):
        return _Link(value, "view"), owner.operands[0]
    if name in TENSOR_RESHAPES and value.type.has_static_shape:
        return _Link(value, "reshape"), owner.operands[0]
    if name == "linalg.transpose" and len(owner.results) == 1:
        return _Link(value, "permute", _permutation(owner)), owner.operands[0]
    if name in ("bufferization.to_buffer", "bufferization.to_tensor") and (
            not isinstance(value.type, ir.MemRefType) or _is_identity(value.type)):
        return _Link(value, "same"), owner.operands[0]
    if name in ("memref.alloc", "memref.alloca") and _is_identity(value.type):
        writer = _single_writer(value)
        if writer is not None and writer.block == reader.block \
                and writer.is_before_in_block(reader):
            perm = _permutation(writer) if writer.name == "linalg.transpose" else None
            kind = "permute" if perm is not None else "copy"
            return _Link(value, kind, perm), writer.operands[0]
    return _Link(value, "root"), None


def _single_writer(buffer: ir.Value) -> ir.Operation | None:
    """The one copy that fills `buffer`, if every other use only reads or frees it."""
    writers = []
    for use in buffer.uses:
        user = use.owner.operation
        if user.name in COPY_OPS and use.operand_number == 1:
            writers.append(user)
        elif user.name not in VIEW_OPS + ("memref.dealloc", GemmOp.OP_NAME):
            return None
    return writers[0] if len(writers) == 1 else None


def _permutation(op) -> tuple[int, ...]:
    return tuple(int(p) for p in op.attributes["permutation"])


def _shape(value: ir.Value) -> list[int]:
    return list(value.type.shape)


def _static_strides(t) -> bool:
    if not isinstance(t, ir.MemRefType) or not t.has_static_shape:
        return False
    strides, offset = t.get_strides_and_offset()
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    return dynamic not in strides and offset != dynamic


def _is_identity(t) -> bool:
    return (isinstance(t, ir.MemRefType) and t.has_static_shape
            and isinstance(t.layout, ir.AffineMapAttr)
            and t.layout.value == ir.AffineMap.get_identity(t.rank))


def _storage_size(t: ir.MemRefType) -> int:
    strides, offset = t.get_strides_and_offset()
    return offset + sum((n - 1) * s for n, s in zip(t.shape, strides)) + 1


def _view(storage: np.ndarray, t: ir.MemRefType) -> np.ndarray:
    """storage[offset + sum(i_j * stride_j)] over the index space of `t`."""
    strides, offset = t.get_strides_and_offset()
    position = np.full(list(t.shape), offset, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(t.shape, strides)):
        shape = [1] * len(t.shape)
        shape[axis] = n
        position = position + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return storage[position]


# ---- constants --------------------------------------------------------------------------

def _constant_data(module: ir.Module, root: ir.Value) -> np.ndarray | None:
    """The value of a constant root (memref.get_global of a constant, arith.constant)."""
    owner = root.owner
    if isinstance(owner, ir.Block):
        return None
    owner = owner.operation
    if owner.name == "arith.constant":
        attr = owner.attributes["value"]
    elif owner.name == "memref.get_global":
        global_op = _lookup_global(module, owner)
        if global_op is None or "constant" not in global_op.attributes \
                or "initial_value" not in global_op.attributes:
            return None
        attr = global_op.attributes["initial_value"]
    else:
        return None
    if not isinstance(attr, ir.DenseElementsAttr) or not _is_identity_or_tensor(root.type):
        return None
    return _dense_to_numpy(attr)


def _is_identity_or_tensor(t) -> bool:
    return isinstance(t, ir.RankedTensorType) or _is_identity(t)


def _lookup_global(module: ir.Module, get_global) -> ir.Operation | None:
    name = get_global.attributes["name"].value
    try:
        return ir.SymbolTable(module.operation)[name]
    except KeyError:
        return None


def _dense_to_numpy(attr: ir.DenseElementsAttr) -> np.ndarray | None:
    t = attr.type
    dtype = NUMPY_TYPES.get(str(t.element_type))
    if dtype is None:
        return None
    if dtype is not ml_dtypes.bfloat16 and not is_fp8(str(t.element_type)):
        return np.array(attr).astype(dtype).reshape(t.shape)
    # The bindings hand out no buffer for bf16 or fp8: read the printed form, which is
    # hex for large attributes and decimals otherwise (7 significant digits round-trip
    # bf16's 8 and fp8's at most 4 significand bits).
    text = str(attr)
    body = text[text.index("<") + 1:text.rindex("> :")]
    if body.startswith('"0x'):
        bits = np.uint16 if dtype is ml_dtypes.bfloat16 else np.uint8
        raw = np.frombuffer(bytes.fromhex(body[3:-1]), dtype=bits).view(dtype)
        return np.broadcast_to(raw, t.shape).copy() if raw.size == 1 else raw.reshape(t.shape)
    values = np.array(body.replace("[", " ").replace("]", " ").replace(",", " ").split(),
                      dtype=np.float64).astype(dtype)
    return np.broadcast_to(values, t.shape).copy() if values.size == 1 else values.reshape(t.shape)


def _dense_attr(data: np.ndarray, element_type: ir.Type) -> ir.DenseElementsAttr:
    t = ir.RankedTensorType.get(list(data.shape), element_type)
    if data.dtype == ml_dtypes.bfloat16:
        return ir.DenseElementsAttr.get(data.view(np.uint16), type=t)
    if data.dtype.itemsize == 1 and is_fp8(str(element_type)):
        return ir.DenseElementsAttr.get(data.view(np.uint8), type=t)
    return ir.DenseElementsAttr.get(data, type=t)


def _new_constant_global(module: ir.Module, root: ir.Value, packed: np.ndarray) -> ir.Operation:
    """A private constant global holding `packed`, after the one `root` reads (if any)."""
    element_type = root.type.element_type
    owner = root.owner
    owner = owner if isinstance(owner, ir.Block) else owner.operation
    base = (owner.attributes["name"].value if not isinstance(owner, ir.Block)
            and owner.name == "memref.get_global" else "accel_weight")
    symbols = ir.SymbolTable(module.operation)
    name, n = f"{base}_accel", 0
    while name in symbols:
        n += 1
        name = f"{base}_accel_{n}"
    anchor = symbols[base] if base in symbols else None
    point = (ir.InsertionPoint.after(anchor) if anchor is not None
             else ir.InsertionPoint.at_block_begin(module.body))
    with point:
        op = memref.GlobalOp(
            sym_name=name,
            type_=ir.MemRefType.get(list(packed.shape), element_type),
            sym_visibility="private",
            initial_value=_dense_attr(packed, element_type),
            constant=True)
    if anchor is not None and "alignment" in anchor.attributes:
        op.operation.attributes["alignment"] = anchor.attributes["alignment"]
    return op.operation


# ---- IR helpers ---------------------------------------------------------------------------

def _memref_type(shape, like: ir.Value) -> ir.MemRefType:
    return ir.MemRefType.get(list(shape), like.type.element_type)


def _to_buffer(tensor: ir.Value) -> ir.Value:
    t = tensor.type
    result = ir.MemRefType.get(list(t.shape), t.element_type)
    return ir.Operation.create("bufferization.to_buffer", results=[result],
                               operands=[tensor]).result


def _erase_if_dead(module: ir.Module, value: ir.Value) -> None:
    """Erase the producers of `value` that nothing uses any more, walking up the chain."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return
    op = owner.operation
    if op.name in ("memref.alloc", "memref.alloca"):
        # A buffer only written (by copies into it) and freed is dead.
        uses = [(use.owner.operation, use.operand_number) for use in value.uses]
        if not all((u.name in COPY_OPS and i == 1) or u.name == "memref.dealloc"
                   for u, i in uses):
            return
        sources = [u.operands[0] for u, _ in uses if u.name in COPY_OPS]
        for u, _ in uses:
            u.erase()
        op.erase()
        for s in sources:
            _erase_if_dead(module, s)
        return
    if op.name not in PURE_OPS or any(len(list(r.uses)) for r in op.results):
        return
    operands = list(op.operands)
    symbol = op.attributes["name"].value if op.name == "memref.get_global" else None
    op.erase()
    for v in operands:
        _erase_if_dead(module, v)
    if symbol is not None and not any(g.attributes["name"].value == symbol for g in
                                       collect_ops(module, "memref.get_global")):
        symbols = ir.SymbolTable(module.operation)
        if symbol in symbols and _is_private(symbols[symbol]):
            symbols[symbol].operation.erase()


def _is_private(op) -> bool:
    attrs = op.operation.attributes
    return "sym_visibility" in attrs and attrs["sym_visibility"].value == "private"
