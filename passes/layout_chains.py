"""Transpose/reshape chains that feed a gemm operand, and the index maps that decide them.

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
from typing import TYPE_CHECKING

from accel.bindings import ir
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops

if TYPE_CHECKING:
    import numpy as np   # imported where used (dialect/element_types.py: start-up)

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


@dataclass
class Link:
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
            return is_identity(v.type)
        return isinstance(v.type, ir.RankedTensorType) and v.type.has_static_shape


@dataclass
class Chain:
    """Links from a gemm operand (links[0]) back to the root (links[-1])."""
    links: list[Link]

    @property
    def root(self) -> Link:
        return self.links[-1]

    @classmethod
    def trace(cls, value: ir.Value, reader: ir.Operation) -> "Chain":
        links = []
        while True:
            link, parent = _step(value, reader)
            links.append(link)
            if parent is None:
                return cls(links)
            value = parent

    def index_maps(self) -> list[np.ndarray]:
        import numpy as np
        """Per link, the flat root-storage position each of its elements reads."""
        maps: list[np.ndarray] = [None] * len(self.links)
        storage = None  # flat map of the memref storage the current views look into
        for i in range(len(self.links) - 1, -1, -1):
            link = self.links[i]
            shape = shape_of(link.value)
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


def _step(value: ir.Value, reader: ir.Operation) -> tuple[Link, ir.Value | None]:
    """The link for `value` and the value it derives from (None at the root).

    A buffer is followed through the copy that fills it only when that copy runs
    before `reader` in its block, so the copy's source still holds the data there.
    """
    owner = value.owner
    if isinstance(owner, ir.Block):
        return Link(value, "root"), None
    owner = owner.operation  # OpView.name may be an attribute (memref.get_global's)
    name = owner.name
    if name in VIEW_OPS and _static_strides(value.type):
        return Link(value, "view"), owner.operands[0]
    if name in TENSOR_RESHAPES and value.type.has_static_shape:
        return Link(value, "reshape"), owner.operands[0]
    if name == "linalg.transpose" and len(owner.results) == 1:
        return Link(value, "permute", _permutation(owner)), owner.operands[0]
    if name in ("bufferization.to_buffer", "bufferization.to_tensor") and (
            not isinstance(value.type, ir.MemRefType) or is_identity(value.type)):
        return Link(value, "same"), owner.operands[0]
    if name in ("memref.alloc", "memref.alloca") and is_identity(value.type):
        writer = _single_writer(value)
        if writer is not None and writer.block == reader.block \
                and writer.is_before_in_block(reader):
            perm = _permutation(writer) if writer.name == "linalg.transpose" else None
            kind = "permute" if perm is not None else "copy"
            return Link(value, kind, perm), writer.operands[0]
    return Link(value, "root"), None


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


def shape_of(value: ir.Value) -> list[int]:
    return list(value.type.shape)


def _static_strides(t) -> bool:
    if not isinstance(t, ir.MemRefType) or not t.has_static_shape:
        return False
    strides, offset = t.get_strides_and_offset()
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    return dynamic not in strides and offset != dynamic


def is_identity(t) -> bool:
    return (isinstance(t, ir.MemRefType) and t.has_static_shape
            and isinstance(t.layout, ir.AffineMapAttr)
            and t.layout.value == ir.AffineMap.get_identity(t.rank))


def _storage_size(t: ir.MemRefType) -> int:
    strides, offset = t.get_strides_and_offset()
    return offset + sum((n - 1) * s for n, s in zip(t.shape, strides)) + 1


def _view(storage: np.ndarray, t: ir.MemRefType) -> np.ndarray:
    import numpy as np
    """storage[offset + sum(i_j * stride_j)] over the index space of `t`."""
    strides, offset = t.get_strides_and_offset()
    position = np.full(list(t.shape), offset, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(t.shape, strides)):
        shape = [1] * len(t.shape)
        shape[axis] = n
        position = position + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return storage[position]


# ---- erasing what a rewrite left unused ---------------------------------------------------

def erase_if_dead(module: ir.Module, value: ir.Value) -> None:
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
            erase_if_dead(module, s)
        return
    if op.name not in PURE_OPS or any(len(list(r.uses)) for r in op.results):
        return
    operands = list(op.operands)
    symbol = op.attributes["name"].value if op.name == "memref.get_global" else None
    op.erase()
    for v in operands:
        erase_if_dead(module, v)
    if symbol is not None and not any(g.attributes["name"].value == symbol for g in
                                       collect_ops(module, "memref.get_global")):
        symbols = ir.SymbolTable(module.operation)
        if symbol in symbols and _is_private(symbols[symbol]):
            symbols[symbol].operation.erase()


def _is_private(op) -> bool:
    attrs = op.operation.attributes
    return "sym_visibility" in attrs and attrs["sym_visibility"].value == "private"
