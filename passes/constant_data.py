"""Constant operands: their values read out of the IR, and packed copies written back.

accel-layout packs a constant weight at compile time: its dense value is read
(`constant_data`, bf16 included, which the bindings hand out as no buffer), packed with
numpy and stored as a new private constant global (`new_constant_global`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accel.bindings import ir, memref
from accel.dialect import element_types
from accel.dialect.element_types import is_fp8
from accel.passes.layout_chains import is_identity

if TYPE_CHECKING:
    import numpy as np   # imported where used (dialect/element_types.py: start-up)


def constant_data(module: ir.Module, root: ir.Value) -> np.ndarray | None:
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
    return dense_to_numpy(attr)


def _is_identity_or_tensor(t) -> bool:
    return isinstance(t, ir.RankedTensorType) or is_identity(t)


def _lookup_global(module: ir.Module, get_global) -> ir.Operation | None:
    name = get_global.attributes["name"].value
    try:
        return ir.SymbolTable(module.operation)[name]
    except KeyError:
        return None


def dense_to_numpy(attr: ir.DenseElementsAttr) -> np.ndarray | None:
    import ml_dtypes
    import numpy as np
    t = attr.type
    dtype = element_types.NUMPY_TYPES.get(str(t.element_type))
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
    import ml_dtypes
    import numpy as np
    t = ir.RankedTensorType.get(list(data.shape), element_type)
    if data.dtype == ml_dtypes.bfloat16:
        return ir.DenseElementsAttr.get(data.view(np.uint16), type=t)
    if data.dtype.itemsize == 1 and is_fp8(str(element_type)):
        return ir.DenseElementsAttr.get(data.view(np.uint8), type=t)
    return ir.DenseElementsAttr.get(data, type=t)


def new_constant_global(module: ir.Module, root: ir.Value, packed: np.ndarray) -> ir.Operation:
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
