"""`migraphx.literal` -> a private constant `memref.global` and its `memref.get_global`."""

from __future__ import annotations

import re

from accel.bindings import ir, memref
from accel.diagnostics import AccelError
from accel.migraphx.shaped import ShapedType
from accel.migraphx.tensor import Tensor
from accel.migraphx.view import View


def literal(module: ir.Module, op: ir.Operation, st: ShapedType) -> Tensor:
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
    name = fresh_symbol(module, "__migraphx_literal")
    with ir.InsertionPoint.at_block_begin(module.body):
        memref.GlobalOp(name, ir.TypeAttr.get(mtype), sym_visibility="private",
                        initial_value=value, constant=True)
    base = memref.GetGlobalOp(mtype, name).result
    return Tensor(base, View.contiguous(shape), st)


def fresh_symbol(module: ir.Module, stem: str) -> str:
    taken = {op.attributes["sym_name"].value for op in module.body.operations
             if "sym_name" in op.attributes}
    i = 0
    while f"{stem}_{i}" in taken:
        i += 1
    return f"{stem}_{i}"
