"""The function boundary of a MIGraphX kernel: its arguments and results as memrefs.

Each argument becomes a memref of its storage: the MIGraphX strides of an argument
describe memory, so a packed row-major type keeps its shape, and a permuted-stride type
becomes the packed buffer in memory order (dimensions by decreasing stride; stride-0
dimensions own no memory and are dropped). Other strides (gaps, as a slice of a larger
buffer leaves; overlaps) make a flat buffer spanning every element, read through the
view; a result that would write one address twice is rejected. Each result becomes such
a memref appended as an out-parameter; the function returns nothing.

A gemm writes its C into a result in place through a strided view of the out-parameter
(`Boundary.strided_out`) when the result, with the transposes and reshapes between the
gemm and `return` undone, is a [G, M, N] of one stride per dimension and N or M of stride
1: rows or batches further apart than they are long (rocMLIR's non-contiguous-strides
sigmoid, `<4x24x24xf16, 1152x24x1>`), or C transposed (mixr-gemm-transpose).

The arch is the function's `arch` or `rock.arch` attribute (an empty one counting as
not given), else the pass's option.
"""

from __future__ import annotations

from math import prod

from accel.bindings import func, ir, memref
from accel.diagnostics import AccelError, located
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.ir_helpers import collect_ops, memref_info
from accel.migraphx import memrefs
from accel.migraphx.copies import copy_into
from accel.migraphx.shaped import ShapedType, standard_strides
from accel.migraphx.strided import VECTOR_BYTES, fill_unit_strides, single_strides
from accel.migraphx.tensor import Tensor
from accel.migraphx.view import View
from accel.migraphx.view_ops import PURE_VIEWS, int_list, shaped


def is_migraphx_func(f: ir.Operation) -> bool:
    ftype = f.attributes["function_type"].value
    if any(str(t).startswith("!migraphx.shaped<")
           for t in list(ftype.inputs) + list(ftype.results)):
        return True
    return any(op.name.startswith("migraphx.") for op in collect_ops(f))


def func_arch(f: ir.Operation, option: str, loc) -> str:
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


def storage(st: ShapedType, loc, written: bool) -> tuple[list[int], View]:
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


def _boundary_type(t: ir.Type, loc) -> ShapedType:
    with located(loc):
        st = shaped(t)
    if st is None:
        raise AccelError(f"expected a !migraphx.shaped type at the function boundary, "
                         f"got {t}", loc)
    return st


class Boundary:
    """The memref function replacing MIGraphX function `old`: `args` (the lowered
    values of the old arguments), `outs` (per result: out-parameter, view, type), and
    which results a producer already wrote in place (`written`)."""

    def __init__(self, old: ir.Operation, producers) -> None:
        loc = old.location
        old_block = old.regions[0].blocks[0]
        ftype = old.attributes["function_type"].value
        arg_sts = [_boundary_type(a.type, a.location) for a in old_block.arguments]
        res_sts = [_boundary_type(t, loc) for t in ftype.results]
        arg_storage = [storage(st, a.location, False)
                       for st, a in zip(arg_sts, old_block.arguments)]
        res_storage = [storage(st, loc, True) for st in res_sts]
        mtypes = [ir.MemRefType.get(shape, ir.Type.parse(st.mlir_elem))
                  for st, (shape, _) in zip(arg_sts + res_sts, arg_storage + res_storage)]
        with ir.InsertionPoint(old), loc:
            self.func = func.FuncOp(old.attributes["sym_name"].value,
                                    ir.FunctionType.get(mtypes, []))
        for name in list(old.attributes):
            if name not in ("sym_name", "function_type", "arg_attrs", "res_attrs"):
                self.func.attributes[name] = old.attributes[name]
        locs = [a.location for a in old_block.arguments] + [loc] * len(res_sts)
        self.block = self.func.add_entry_block(arg_locs=locs)
        n_args = len(arg_sts)
        self.args = {old_arg: Tensor(new_arg, view, st)
                     for old_arg, st, (_, view), new_arg in zip(
                         old_block.arguments, arg_sts, arg_storage, self.block.arguments)}
        self.outs = [(self.block.arguments[n_args + i], view, st)
                     for i, (st, (_, view)) in enumerate(zip(res_sts, res_storage))]
        self.destinations = _destinations(list(old_block.operations)[-1],
                                          producers)
        self.written: set[int] = set()

    def strided_out(self, r: int, chain, gmn) -> ir.Value | None:
        """Result `r`'s out-parameter as the strided memref [G, M, N] (`gmn`) a gemm's C
        writes in place (dialect/gemm_verifier.check_c_view), for a value that reaches
        `return` through view ops `chain`; None when that view is not one
        stride per dimension with N or M of stride 1, or, N of stride 1, its offset and
        G and M strides are not whole 16-byte multiples (the C stores' vectors, up to
        128 bits, are then as aligned as in a packed C; a transposed C stores single
        elements). Marks the result written when it returns the memref."""
        out, out_view, st = self.outs[r]
        view = undo_views(chain, out_view)
        view = view and view.reshape(gmn)
        if view is None:
            return None
        strides, why = single_strides(view, ("G", "M", "N"))
        if why:
            return None
        strides = fill_unit_strides(gmn, strides)
        (_, m, n), (s_g, s_m, s_n) = gmn, strides
        if st.elem not in ELEMENT_BYTES:
            return None     # no gemm writes it (its verifier names the type)
        per_vector = VECTOR_BYTES // ELEMENT_BYTES[st.elem]
        if n == 1 or s_n == 1:
            if any(x % per_vector for x in (view.offset, s_g, s_m)):
                return None
        elif not (m == 1 or s_m == 1):
            return None
        flat = memrefs.reshape(out, [prod(memref_info(out)[0])])
        layout = ir.Attribute.parse(f"strided<[{', '.join(map(str, strides))}], "
                                    f"offset: {view.offset}>")
        result_t = ir.MemRefType.get(list(gmn), ir.MemRefType(out.type).element_type, layout)
        self.written.add(r)
        return memref.ReinterpretCastOp(result_t, flat, [], [], [], [view.offset], list(gmn),
                                        strides).result

    def copy_to_out(self, t: Tensor, r: int, loc, arch: str) -> None:
        """Store value `t` into result `r`'s out-parameter (through its view), by a copy
        kernel on `arch`."""
        out, view, st = self.outs[r]
        if t.st.elem != st.elem or t.view.shape != tuple(st.dims):
            raise AccelError(f"returned value of type {t.st} does not match result type {st}",
                             loc)
        copy_into(t, out, view.index_exprs(memref_info(out)[0]), arch,
                  "a returned value that no kernel wrote into its result in place")


def undo_views(chain, view: View) -> View | None:
    """The view a value had before the transposes and reshapes of `chain` (in order) made
    it `view`: each undone, the last first; None where a reshape cannot be undone on the
    view or an op is malformed (its own lowering reports that)."""
    for op in reversed(chain):
        if op.name == "migraphx.transpose":
            perm = int_list(op, "permutation")
            if sorted(perm) != list(range(view.rank)):
                return None
            view = view.transpose([perm.index(i) for i in range(len(perm))])
        else:
            before = shaped(op.operands[0].type)
            if before is None or prod(before.dims) != prod(view.shape):
                return None
            view = view.reshape(before.dims)
        if view is None:
            return None
    return view


def _destinations(ret: ir.Operation, producers) -> dict:
    """Producer op -> (result index, view ops between it and `return`), for results
    that flow from one op named in `producers` to `return` through single-use
    transposes/reshapes: such a producer may write the out-parameter in place."""
    plan = {}
    for r, v in enumerate(ret.operands):
        chain = []
        while isinstance(v, ir.OpResult) and sum(1 for _ in v.uses) == 1:
            op = v.owner.operation
            if op.name in PURE_VIEWS:
                chain.insert(0, op)
                v = op.operands[0]
                continue
            if op.name in producers:
                plan[op] = (r, chain)
            break
    return plan
