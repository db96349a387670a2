"""`migraphx.dot` and `migraphx.quant_dot` -> `accel.gemm`.

quant_dot is MIGraphX's GEMM on quantized types: i8 x i8 -> i32, fp8 x fp8 -> f32 (its
two fp8 operands may be different formats); its MX-scaled form (operands given block
scales, `%a scaled by %sa`) has no accel.gemm and is diagnosed. The dot keeps its
`perf_config` (v2/v3/v4, a split-K one included; an attention config is ignored with a
warning) and the arch.

Each operand's view is matched against the layouts accel.gemm reads in place: `row`,
`transposed`, and, when the dot has a perf config, `accel` with that config's blocking
(seed 001's transpose [0,1,4,2,3,5] + reshape chain, i.e. rocMLIR's
aAccelLayout/bAccelLayout). Failing those, a view whose three dimensions are each one
stride (a slice, a batch stride, a broadcast batch; with one inner side contiguous, or
none: a batch-first operand, a broadcast scalar, read an element per load), or whose K
alone has two (heads merged into K), is read in place as a strided memref
(accel.migraphx.strided). Any other view (an accel-like chain blocked differently from
the perf config, a batch or D of several strides, a K of more than two) is
materialised: copied into a row-major buffer, the copy naming why.
C is written in place into the function's out-parameter when the result reaches
`return` through transposes/reshapes that spell `row` or `accel` (c_layout = "accel",
blocked mPerBlock x kpackPerBlock x kpack with N as the blocked reduction-like side) in
that out-parameter's memory, or through a strided view of it (one stride per G, M, N;
N or M of stride 1: accel.migraphx.boundary.Boundary.strided_out); otherwise into a
temporary row-major buffer.
"""

from __future__ import annotations

from math import prod

from accel.bindings import ir
from accel.diagnostics import AccelError, warn
from accel.dialect.accel_tile import AccelTile
from accel.dialect.element_types import is_fp8
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import memref_info
from accel.dialect.perf_config import PerfConfig
from accel.migraphx import memrefs
from accel.migraphx.boundary import Boundary
from accel.migraphx.epilogue import Fused
from accel.migraphx.shaped import ShapedType
from accel.migraphx.strided import as_strided, single_strides
from accel.migraphx.tensor import Tensor
from accel.migraphx.view import View
from accel.migraphx.view_ops import pure_view

DOTS = ("migraphx.dot", "migraphx.quant_dot")
# Perf configs rocMLIR writes for kernels other than a GEMM (attention: `attn:` with
# named fields) that MIGraphX may attach to a dot.
NON_GEMM_CONFIG_PREFIXES = ("attn:",)


def mx_scaled(op: ir.Operation) -> bool:
    """Is `op` a quant_dot whose operands carry MX block scales? The translator
    (accel.migraphx.translate) gives the scales after the operands, counted by
    `operandSegmentSizes`."""
    if op.name != "migraphx.quant_dot" or "operandSegmentSizes" not in op.attributes:
        return False
    sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    return any(sizes[2:])


def reject_mx_scaled(f: ir.Operation) -> None:
    """One diagnostic for an MX-scaled quant_dot anywhere in `f`, before anything else
    of the function is read (it decides that nothing of the function converts)."""
    for block in f.regions[0].blocks:
        for op in block.operations:
            if mx_scaled(op.operation):
                raise AccelError("MX-scaled 'migraphx.quant_dot' (operands 'scaled by' block "
                                 "scales, e.g. MXFP4) is not supported by accel-from-migraphx",
                                 op.location)


def check_quant_types(op, a: str, b: str, out: str) -> None:
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


def dot_config(op: ir.Operation, mma_kind: str) -> tuple[str | None, PerfConfig | None]:
    """(text, value) of the dot's GEMM perf config, (None, None) without one."""
    if "perf_config" not in op.attributes:
        return None, None
    if not isinstance(op.attributes["perf_config"], ir.StringAttr):
        raise AccelError(f"'{op.name}' attribute 'perf_config' must be a string", op.location)
    text = op.attributes["perf_config"].value
    if text.startswith(NON_GEMM_CONFIG_PREFIXES):
        # MIGraphX attaches a fused kernel's config (attention's) to each of its dots;
        # it says nothing about this GEMM's tile, so one is chosen instead.
        warn(f"perf config '{text}' is not a GEMM config; it is ignored and one is chosen",
             op.location)
        return None, None
    try:
        return text, PerfConfig.parse(text, mma_kind)
    except AccelError as e:
        raise AccelError(e.message, op.location) from None


def accel_chain(shape6, g: int, d: int, k: int, transposed: bool) -> View:
    """Seed 001's chain on a packed 6-D buffer: transpose [0,1,4,2,3,5], reshape to
    [G, D, K] and, for B, transpose to [G, K, D]."""
    view = View.contiguous(shape6).transpose([0, 1, 4, 2, 3, 5]).reshape([g, d, k])
    return view.transpose([0, 2, 1]) if transposed else view


def _contiguous(dim) -> bool:
    """Is a view dimension (its digits) of extent 1 or one run of stride 1?"""
    return dim == () or len(dim) == 1 and dim[0][1] == 1


def _packed(mem: ir.Value) -> bool:
    """Is `mem` an identity-layout memref (memrefs.reshape can regroup it)?"""
    t = ir.MemRefType(mem.type)
    layout = t.layout
    return (isinstance(layout, ir.AffineMapAttr) and
            layout.value == ir.AffineMap.get_identity(t.rank))


def check_shape(op, shape, st: ShapedType) -> None:
    if tuple(shape) != tuple(st.dims):
        raise AccelError(f"result type {st} does not match the computed shape "
                         f"[{', '.join(map(str, shape))}]", op.location)


class DotLowering:
    """Builds the accel.gemm of a dot for one function: its arch, where results go
    (`boundary`), and how an operand is copied row-major (`materialize`)."""

    def __init__(self, arch: str, mma_kind: str, boundary: Boundary, materialize) -> None:
        self.arch = arch
        self.mma_kind = mma_kind
        self.boundary = boundary
        self.materialize = materialize

    def lower(self, op, ins: list[Tensor], out_st: ShapedType,
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
            check_quant_types(op, a.st.elem, b.st.elem, out_st.elem)
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
        check_shape(op, want, out_st)
        config_text, config = dot_config(op, self.mma_kind)
        elem_t = ir.Type.parse(fused.out_elem if fused else out_st.mlir_elem)
        extras = fused.extras if fused else []
        kinds = fused.kinds if fused and fused.program else None
        found: list = []   # the destination, looked up once (it emits a reshape)

        def destination():
            if not found:
                found.append(self._destination(last or op, want, g, m, n, config, views))
            return found[0]

        grouped = self._grouped(a, b, g, m, n, k, config, fused, destination, elem_t)
        if grouped is not None:
            a_mem, a_layout, b_mem, b_layout, c_mem, c_layout, extras, kinds = grouped
        else:
            a_mem, a_layout = self._operand(a, "A", g, m, k, config)
            b_mem, b_layout = self._operand(b, "B", g, n, k, config)
            dest = destination()
            if dest is None:
                c_mem, c_layout = memrefs.alloc([g, m, n], elem_t), "row"
            else:
                c_mem, c_layout = dest
        gemm = GemmOp.build(a_mem, b_mem, c_mem, arch=self.arch, a_layout=a_layout,
                            b_layout=b_layout, c_layout=c_layout, perf_config=config_text,
                            extras=extras,
                            epilogue=(fused.program or "none") if fused else "none",
                            epilogue_operands=kinds,
                            m=m if (a_layout, c_layout) == ("accel", "accel") else None,
                            n=n if (b_layout, c_layout) == ("accel", "accel") else None,
                            loc=op.location)
        gemm.verify()
        if c_layout == "row":
            c_view = View.contiguous(memref_info(c_mem)[0]).reshape(want)
            return Tensor(c_mem, c_view, out_st)
        c_view = accel_chain(memref_info(c_mem)[0], g, m, n, False)
        return Tensor(c_mem, c_view.reshape(want), out_st)

    def _grouped(self, a: Tensor, b: Tensor, g: int, m: int, n: int, k: int,
                 config: PerfConfig | None, fused: Fused | None, destination, elem_t):
        """Grouped-query attention's dot as a gemm of fewer, taller batches, or None.

        B's batch of digits (G0, sB) (G1, 0) (B[g] = B'[g // G1]: G1 query heads share
        one key/value head) is one stride only over G0. When A's G1 digit follows its M
        (stride M * sM: a group's rows follow each other) the G1 heads of a group are one
        A of G1 * M rows against the same B, so the dot is a gemm of batch G0 and
        M' = G1 * M; C (packed [G, M, N], whose G1 and M merge likewise) is reshaped to
        [G0, G1 * M, N], and epilogue operands with it (a scalar or [N] as they are,
        packed [G, M, N] / [G, M] reshaped, [M] a scalar when M = 1; [G, N] or [M] are
        not one view there, then no grouping). Returns (A, layout, B, layout, C, layout,
        extras, their kinds); when it returns None it leaves no op behind but the
        destination's reshape (`destination()`, which the caller takes then).
        """
        b_view = b.view.reshape([g, k, n])
        if b_view is None or b_view.windows:   # (a window is no stride of its own)
            return None
        batch = b_view.normalized().dims[0]
        if len(batch) != 2 or batch[1][1] != 0 or batch[0][1] == 0:
            return None
        (g0, _), (g1, _) = batch
        kinds = fused.kinds if fused and fused.program else []
        extras = fused.extras if fused else []
        # With M = 1 an [M] operand is one value: a scalar in the grouped gemm.
        kinds = ["" if kind == "m" and m == 1 else kind for kind in kinds]
        for kind, mem in zip(kinds, extras):
            if kind not in ("", "n") and not (kind in ("gmn", "gm") and _packed(mem)):
                return None
        a_view = a.view.reshape([g, m, k])
        a_view = a_view and a_view.reshape([g0, g1 * m, k])
        if a_view is None or len(a_view.normalized().dims[1]) > 1:
            return None
        dest = destination()
        if dest is not None and (dest[1] != "row" or not _packed(dest[0])):
            # The accel C layout blocks M by the config's mPerBlock; a strided C is not
            # regrouped into [G0, G1 * M, N].
            return None
        b_grouped = Tensor(b.base, View(((batch[0],),) + b_view.dims[1:], b_view.offset),
                           b.st)
        found_b = self._in_place(b_grouped, "B", g0, n, k, config)
        if not isinstance(found_b, tuple):
            return None
        found_a = self._in_place(Tensor(a.base, a_view, a.st), "A", g0, g1 * m, k, config)
        if not isinstance(found_a, tuple):
            memrefs.erase_unused(found_b[0], b.base)
            return None
        shape = [g0, g1 * m, n]
        c_mem = memrefs.alloc(shape, elem_t) if dest is None else memrefs.reshape(dest[0], shape)
        new_extras = [memrefs.reshape(mem, shape if kind == "gmn" else shape[:2])
                      if kind in ("gmn", "gm") else mem for kind, mem in zip(kinds, extras)]
        return (*found_a, *found_b, c_mem, "row", new_extras + extras[len(kinds):],
                kinds if fused and fused.program else None)

    def _operand(self, t: Tensor, name: str, g: int, d: int, k: int,
                 config: PerfConfig | None) -> tuple[ir.Value, str]:
        """The memref and layout through which accel.gemm reads operand `t` in place
        (packed, or a strided view: accel.migraphx.strided), else a row-major copy."""
        found = self._in_place(t, name, g, d, k, config)
        if not isinstance(found, tuple):
            why = found or "a batch that regroups dimensions of several strides"
            plain = [g, d, k] if name == "A" else [g, k, d]
            copy = self.materialize(t, f"a dot operand {name} with {why}")
            return memrefs.reshape(copy.base, plain), "row"
        return found

    def _in_place(self, t: Tensor, name: str, g: int, d: int, k: int,
                  config: PerfConfig | None):
        """(memref, layout) through which accel.gemm reads operand `t` in place, or why
        not (a string; None when its view is not [G, D, K] without a copy). Emits ops
        only when it succeeds."""
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
                    cand = accel_chain(shape6, g, d, k, transposed=name == "B")
                    candidates.append(("accel", cand, shape6))
            numel = prod(t.base_shape)
            for layout, cand, shape in candidates:
                if view.same_as(cand) and prod(shape) == numel:
                    return memrefs.reshape(t.base, shape), layout
            mem, layout, why = self._strided(t, view, name)
            if mem is not None:
                return mem, layout
            return why
        return None

    @staticmethod
    def _strided(t: Tensor, view: View, name: str) -> tuple[ir.Value | None, str, str]:
        """(strided memref, layout, "") of plain view `view` ([G, M, K] for A, [G, K, N]
        for B) in the orientation whose inner side has stride 1 (K: A row, B
        transposed; K when neither has: its copy then loads single elements and needs
        no transpose; K too when K has two digits: the rank-4 [G, D, K1, K0] of
        dialect/operand_layouts.py), or (None, "", why not)."""
        d_name = "M" if name == "A" else "N"
        if view.windows:
            # A window of merged digits (migraphx/view.py) is no stride of its own.
            names = ("the batch", d_name, "K") if name == "A" else ("the batch", "K", d_name)
            windowed = next(n for n, w in zip(names, view.windows) if w is not None)
            return None, "", f"{windowed} of several strides"
        g_dim, *mk = view.normalized().dims
        d_dim, k_dim = mk if name == "A" else mk[::-1]
        if len(k_dim) == 2:
            # K of two digits (heads merged into K): [G, D, K1, K0], K-last.
            names = ("the batch", d_name, "K's outer digit", "K's inner digit")
            mem, why = as_strided(t, View((g_dim, d_dim, k_dim[:1], k_dim[1:]), view.offset),
                                  names, element_loads=k_dim[1][1] != 1)
            return mem, "row" if name == "A" else "transposed", why
        _, why = single_strides(View((g_dim, d_dim, k_dim)), ("the batch", d_name, "K"))
        if why:
            return None, "", why
        element_loads = not (_contiguous(k_dim) or _contiguous(d_dim))
        if element_loads or _contiguous(k_dim):
            names, dims = ("the batch", d_name, "K"), (g_dim, d_dim, k_dim)
            layout = "row" if name == "A" else "transposed"
        else:
            names, dims = ("the batch", "K", d_name), (g_dim, k_dim, d_dim)
            layout = "transposed" if name == "A" else "row"
        mem, why = as_strided(t, View(dims, view.offset), names, element_loads)
        return mem, layout, why

    def _destination(self, op, want, g: int, m: int, n: int, config: PerfConfig | None,
                     views: list[ir.Operation] = ()) -> tuple[ir.Value, str] | None:
        """The out-parameter C is written into in place (and its layout), or None."""
        if op not in self.boundary.destinations:
            return None
        r, chain = self.boundary.destinations[op]
        chain = list(views) + chain
        out, out_view, _ = self.boundary.outs[r]
        candidates = [("row", View.contiguous([g, m, n]), [g, m, n])]
        if config is not None and m % config.m_per_block == 0 and n % config.k_per_block == 0:
            shape6 = list(AccelTile(config.m_per_block, config.kpack_per_block,
                                    config.kpack).shape(g, m, n))
            candidates.append(("accel", accel_chain(shape6, g, m, n, transposed=False), shape6))
        numel = prod(memref_info(out)[0])
        for layout, cand, shape in candidates:
            view = cand.reshape(want)
            for cop in chain:
                if view is None:
                    break
                view = pure_view(cop, view)
            if view is not None and view.same_as(out_view) and prod(shape) == numel:
                self.boundary.written.add(r)
                return memrefs.reshape(out, shape), layout
        strided = self.boundary.strided_out(r, chain, [g, m, n])
        return None if strided is None else (strided, "row")
