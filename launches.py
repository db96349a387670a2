"""The code object contract's `launches` section: how the host runs a module's kernels.

A MIGraphX function can become several kernels (copies into a gemm's layout, the gemm,
elementwise kernels after it, a split-K gemm's reduction); the host function that
launches them is the only place that says which of the function's parameters each
kernel argument is, which buffers the host allocates between kernels, and where a view
starts. `host_launches` reads that function, after the *-to-gpu passes and before the
host is lowered, into plain values: per function its parameters (a result is a
parameter some kernel writes), the buffers it allocates, and its `gpu.launch_func`s in
program order, each argument bound to a parameter, a buffer, a constant (a
memref.global the module holds) or a scalar value.

Kernels take bare pointers (pipelines/kernel.py): a view's pointer is its root
buffer's start and the kernel adds the view's static offset itself, so a binding's
`offset` is information (where the view's first element lies), never something the
host adds to the pointer.
"""

from __future__ import annotations

from accel.bindings import ir
from accel.diagnostics import AccelError

# Host ops that re-describe a buffer without copying it: the result aliases operand 0.
VIEW_OPS = ("memref.collapse_shape", "memref.expand_shape", "memref.reinterpret_cast",
            "memref.subview", "memref.cast", "memref.assume_alignment")
# gpu.launch_func's operand groups, in its operandSegmentSizes order.
_LAUNCH_SEGMENTS = ("async", "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
                    "cluster_x", "cluster_y", "cluster_z", "dynamic_lds", "args", "object")
# An allocation without an `alignment` attribute is assumed aligned to 16 bytes: the
# widest global access an accel kernel makes (buffer_load_dwordx4 of 16 bytes).
DEFAULT_ALIGNMENT = 16


def host_launches(module: ir.Module) -> list[dict]:
    """One entry per top-level func.func that launches a kernel, in module order:
    {"function", "params", "buffers", "launches"} (docs/contracts.md "Launches").
    AccelError at the op if the host code does something else than allocate, view and
    launch (such a function could not be run from this section)."""
    access = kernel_access(module)
    module_globals = {ir.StringAttr(top.operation.attributes["sym_name"]).value: top.operation
                      for top in module.body.operations
                      if top.operation.name == "memref.global"}
    out = []
    for top in module.body.operations:
        op = top.operation
        if op.name != "func.func" or not op.regions[0].blocks:
            continue
        entry = _function(op, access, module_globals)
        if entry["launches"]:
            out.append(entry)
    return out


def kernel_access(module: ir.Module) -> dict[str, list[str]]:
    """symbol -> per kernel argument "read", "write", "read_write" or "none": what the
    kernel's Kernel IR does to the memory of each argument (through its views)."""
    out = {}
    for top in module.body.operations:
        gm = top.operation
        if gm.name != "gpu.module":
            continue
        for f in gm.regions[0].blocks[0].operations:
            f = f.operation
            if f.name != "gpu.func" or "kernel" not in f.attributes:
                continue
            # The entry block's arguments: the kernel's, then its workgroup buffers.
            inputs = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value).inputs
            args = list(f.regions[0].blocks[0].arguments)[:len(inputs)]
            reads, writes = set(), set()

            def visit(op, args=args, reads=reads, writes=writes):
                kind = _memory_effect(op.name)
                if kind:
                    for v in op.operands:
                        i = _root_argument(v, args)
                        if i is not None:
                            if kind in ("read", "read_write"):
                                reads.add(i)
                            if kind in ("write", "read_write"):
                                writes.add(i)
                return ir.WalkResult.ADVANCE

            f.walk(visit, ir.WalkOrder.PRE_ORDER)
            out[ir.StringAttr(f.attributes["sym_name"]).value] = [
                {(True, True): "read_write", (True, False): "read", (False, True): "write",
                 (False, False): "none"}[(i in reads, i in writes)]
                for i in range(len(args))]
    return out


def _memory_effect(name: str) -> str | None:
    if "atomic" in name:
        return "read_write"
    if "store" in name or name == "vector.transfer_write":
        return "write"
    if "load" in name or name == "vector.transfer_read":
        return "read"
    return None


def _root_argument(v: ir.Value, args: list) -> int | None:
    """The index of the kernel argument memref `v` is (a view of), else None."""
    while True:
        for i, a in enumerate(args):
            if a == v:
                return i
        owner = v.owner
        if isinstance(owner, ir.Block):
            return None
        owner = owner.operation
        if owner.name not in VIEW_OPS:
            return None
        v = owner.operands[0]


def _function(f: ir.Operation, access: dict, module_globals: dict) -> dict:
    fname = ir.StringAttr(f.attributes["sym_name"]).value
    body = f.regions[0].blocks[0]
    params = []
    roots: dict = {}          # memref value -> ("param" | "buffer" | "constant", index)
    values: dict = {}         # scalar value -> its number (arith.constant, or a param)
    for i, a in enumerate(body.arguments):
        if isinstance(a.type, ir.MemRefType):
            t = _Memref(a.type, a.location)
            params.append({"index": i, "name": f"arg{i}", **t.describe(), "bytes": t.bytes,
                           "role": "argument"})
            roots[a] = ("param", i)
        else:
            params.append({"index": i, "name": f"arg{i}", "dtype": str(a.type),
                           "role": "argument"})
            values[a] = ("param", i)
    buffers: list[dict] = []
    constants: list[dict] = []
    launches = []
    for op in body.operations:
        op = op.operation
        kind = op.name
        if kind == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, (ir.IntegerAttr, ir.FloatAttr)):
                values[op.results[0]] = ("scalar", attr.value)
        elif kind == "memref.alloc":
            if len(op.operands):
                raise AccelError("launches: a dynamically sized memref.alloc cannot be "
                                 "listed", op.location)
            align = (ir.IntegerAttr(op.attributes["alignment"]).value
                     if "alignment" in op.attributes else DEFAULT_ALIGNMENT)
            roots[op.results[0]] = ("buffer", len(buffers))
            t = _Memref(op.results[0].type, op.location)
            buffers.append({"index": len(buffers), **t.describe(), "bytes": t.bytes,
                            "alignment": align, "kind": "intermediate"})
        elif kind == "memref.get_global":
            sym = ir.FlatSymbolRefAttr(op.attributes["name"]).value
            known = next((c for c in constants if c["global"] == sym), None)
            if known is None:
                t = _Memref(op.results[0].type, op.location)
                known = {"index": len(constants), "global": sym, **t.describe(),
                         "bytes": t.bytes, **_initial_value(module_globals.get(sym), sym,
                                                             t, op.location)}
                constants.append(known)
            roots[op.results[0]] = ("constant", known["index"])
        elif kind in VIEW_OPS:
            src = op.operands[0]
            if src not in roots:
                raise AccelError(f"launches: '{kind}' of a buffer the function does not "
                                 f"own", op.location)
            roots[op.results[0]] = roots[src]
        elif kind == "gpu.launch_func":
            launches.append(_launch(op, roots, values, access))
        elif kind in ("memref.dealloc", "func.return"):
            if kind == "func.return" and len(op.operands):
                raise AccelError("launches: a host function that returns values cannot be "
                                 "listed", op.location)
        else:
            raise AccelError(f"launches: host op '{kind}' of @{fname} is neither an "
                             f"allocation, a view nor a kernel launch", op.location)
    for launch in launches:
        for arg in launch["args"]:
            if "param" in arg and arg.get("access") in ("write", "read_write"):
                params[arg["param"]]["role"] = "result"
    out = {"function": fname, "params": params, "buffers": buffers}
    if constants:
        out["constants"] = constants
    out["launches"] = launches
    return out


def _initial_value(g: ir.Operation | None, sym: str, t: "_Memref", location) -> dict:
    """A constant global's contents: `data`, the hex of its row-major little-endian
    bytes, or where numpy cannot read the attribute (bf16, fp8), `initial_value`, the
    attribute as MLIR prints it."""
    if g is None or "constant" not in g.attributes or \
            not isinstance(g.attributes["initial_value"], ir.DenseElementsAttr):
        raise AccelError(f"launches: @{sym} is not a constant memref.global with a dense "
                         f"initial value", location)
    import numpy as np   # only for a constant's bytes (dialect/element_types.py: start-up)
    init = g.attributes["initial_value"]
    try:
        data = np.array(init)
    except (TypeError, ValueError, RuntimeError):
        data = None
    if data is None or data.dtype.itemsize != t.elem_bytes or data.size * t.elem_bytes != \
            t.bytes:
        return {"initial_value": str(init)}
    return {"data": np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<")).tobytes()
            .hex()}


def _launch(op: ir.Operation, roots: dict, values: dict, access: dict) -> dict:
    sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    if len(sizes) != len(_LAUNCH_SEGMENTS):
        raise AccelError("launches: gpu.launch_func has an unknown operand layout",
                         op.location)
    groups, at = {}, 0
    for seg, n in zip(_LAUNCH_SEGMENTS, sizes):
        groups[seg] = list(op.operands)[at:at + n]
        at += n
    if groups["async"] or groups["cluster_x"] or groups["object"]:
        raise AccelError("launches: an asynchronous, clustered or object launch cannot be "
                         "listed", op.location)

    def constant(v, what):
        if values.get(v, ("",))[0] != "scalar":
            raise AccelError(f"launches: the launch's {what} is not a constant", op.location)
        return values[v][1]

    symbol = str(op.attributes["kernel"]).rsplit("::@", 1)[-1]
    kernel_access_ = access.get(symbol)
    if kernel_access_ is None or len(kernel_access_) != len(groups["args"]):
        raise AccelError(f"launches: kernel '{symbol}' is not a kernel of the module with "
                         f"{len(groups['args'])} arguments", op.location)
    args = []
    for i, v in enumerate(groups["args"]):
        if isinstance(v.type, ir.MemRefType):
            if v not in roots:
                raise AccelError(f"launches: argument {i} of '{symbol}' is no parameter or "
                                 f"allocation of the function", op.location)
            kind, index = roots[v]
            view = _Memref(v.type, op.location)
            args.append({kind: index, **view.describe(), "offset": view.offset,
                         "byte_offset": view.offset * view.elem_bytes,
                         "access": kernel_access_[i]})
        elif values.get(v, ("",))[0] == "param":
            args.append({"param": values[v][1], "dtype": str(v.type)})
        else:
            args.append({"scalar": constant(v, f"argument {i}"), "dtype": str(v.type)})
    entry = {"kernel": symbol,
             "grid": [constant(v[0], "grid") for v in (groups["grid_x"], groups["grid_y"],
                                                        groups["grid_z"])],
             "block": [constant(v[0], "block") for v in (groups["block_x"], groups["block_y"],
                                                          groups["block_z"])]}
    if groups["dynamic_lds"]:
        entry["dynamic_lds_bytes"] = constant(groups["dynamic_lds"][0], "dynamic LDS size")
    entry["args"] = args
    return entry


class _Memref:
    """A static memref type's facts: dtype, shape, strides and offset (elements), the
    element's bytes, and `bytes`, the span from the pointer to one past its last element."""

    def __init__(self, t: ir.Type, location) -> None:
        if not isinstance(t, ir.MemRefType):
            raise AccelError(f"launches: expected a memref, got {t}", location)
        strides, offset = t.get_strides_and_offset()
        if not t.has_static_shape or any(s < 0 for s in strides) or offset < 0:
            raise AccelError(f"launches: memref {t} is not static", location)
        self.dtype, self.shape = str(t.element_type), list(t.shape)
        self.strides, self.offset = [int(s) for s in strides], int(offset)
        elem = t.element_type
        width = (ir.IntegerType(elem).width if isinstance(elem, ir.IntegerType)
                 else ir.FloatType(elem).width)
        self.elem_bytes = -(-width // 8)
        span = 0 if 0 in self.shape else \
            1 + sum((n - 1) * s for n, s in zip(self.shape, self.strides))
        self.bytes = (self.offset + span) * self.elem_bytes

    def describe(self) -> dict:
        """dtype and shape, and the strides when they are not the row-major ones."""
        row_major, s = [], 1
        for n in reversed(self.shape):
            row_major.insert(0, s)
            s *= n
        out = {"dtype": self.dtype, "shape": self.shape}
        if any(n > 1 and a != b for n, a, b in zip(self.shape, self.strides, row_major)):
            out["strides"] = self.strides
        return out


def mark_workspace(functions: list[dict], kernels: dict[str, dict],
                   workspace: dict | None) -> list[dict]:
    """`functions` with each buffer some kernel takes as a `kind: "workspace"` argument
    (its metadata says so) marked `kind: "workspace"` and, where the top-level workspace
    lists it (by that kernel and argument name), its index there."""
    listed = workspace["buffers"] if workspace else []
    for fn in functions:
        for launch in fn["launches"]:
            meta_args = kernels.get(launch["kernel"], {}).get("args", [])
            for arg, meta in zip(launch["args"], meta_args):
                if "buffer" not in arg or meta.get("kind") != "workspace":
                    continue
                buf = fn["buffers"][arg["buffer"]]
                buf["kind"] = "workspace"
                for j, w in enumerate(listed):
                    if w["name"] == meta["name"] and launch["kernel"] in w["kernels"]:
                        buf["workspace"] = j
    return functions
