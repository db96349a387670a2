"""accel.elementwise inputs read through an index map (`input_maps`): views of a buffer
that no broadcast kind expresses (a dimension of several strides, a transpose, a
regrouping), read in place. Run in the simulator on every chip against float64 numpy on
ragged shapes (M and N not multiples of the kernel's tile), as map and reduction
kernels, and compiled to code objects; the verifier bounds every map inside its buffer."""

from __future__ import annotations

import numpy as np
import pytest

from accel.api import compile_module
from accel.bindings import ir, new_context
from accel.diagnostics import AccelError
from accel.dialect.elementwise import ElementwiseOp
from accel.dialect.ir_helpers import collect_ops
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

ARCHES = ("gfx942", "gfx1100", "gfx1201")
NP = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i32": np.int32}
# [G, M, N] = [2, 37, 22]: 37 rows leave a partial row tile, 22 columns a partial column
# tile (width 2: 11 runs of 64 lanes), so masked loads through a map are exercised.
G, M, N = 2, 37, 22


def memref(shape, elem):
    return f"memref<{'x'.join(map(str, shape))}x{elem}>"


def elementwise_text(arch, inputs, program, out_shape, out_elem, reduce=None, packing=None):
    """inputs: (buffer shape, elem, kind, map or None)."""
    args = [f"%x{i}: {memref(s, e)}" for i, (s, e, _, _) in enumerate(inputs)]
    types = [memref(s, e) for s, e, _, _ in inputs] + [memref(out_shape, out_elem)]
    kinds = ", ".join(f'"{k}"' for _, _, k, _ in inputs)
    maps = ", ".join("unit" if m is None else f"affine_map<(d0, d1, d2) -> ({m})>"
                     for _, _, _, m in inputs)
    extra = f', reduce = "{reduce}", n = {N}' if reduce else ""
    if packing:
        extra += f", packing = [{', '.join(repr(p).replace(chr(39), chr(34)) for p in packing)}]"
    names = ", ".join(f"%x{i}" for i in range(len(inputs)))
    return (f"func.func @f({', '.join(args)}, %o: {memref(out_shape, out_elem)}) {{\n"
            f"  \"accel.elementwise\"({names}, %o) {{arch = \"{arch}\", operands = [{kinds}], "
            f"program = \"{program}\", input_maps = [{maps}]{extra}}} : "
            f"({', '.join(types)}) -> ()\n  return\n}}\n")


# (name, buffer shape, elem, map, numpy of the buffer giving the [G, M, N] value).
VIEWS = [
    # N of two strides: n = n0 * 2 + n1 over a [2, 11, 2, 37] buffer (a transpose of a
    # reshaped axis, what MIGraphX's transpose after a reshape makes).
    ("n_of_two_strides", (2, 11, 2, 37), "f16", "d0, d2 floordiv 2, d2 mod 2, d1",
     lambda b: b.transpose(0, 3, 1, 2).reshape(G, M, N)),
    # A transpose: [G, N, M] read as [G, M, N].
    ("transpose", (2, 22, 37), "f32", "d0, d2, d1", lambda b: b.transpose(0, 2, 1)),
    # A slice of a flat buffer with gaps between rows and batches, offset 7.
    ("flat_slice", (2 * 40 * 30 + 7,), "i8", "d0 * 1200 + d1 * 30 + d2 + 7",
     lambda b: b[7:].reshape(2, 40, 30)[:, :37, :22]),
    # A batch broadcast (the constant 0: stride 0) of a transposed [22, 37] matrix.
    ("batch_broadcast_transpose", (1, 22, 37), "f16", "0, d2, d1",
     lambda b: np.broadcast_to(b[0].T, (G, M, N))),
]


def _run(arch, text, buffers, out_shape, out_elem):
    out = np.full(out_shape, 77, dtype=NP[out_elem])
    with new_context():
        module = ir.Module.parse(text)
        for op in collect_ops(module, "accel.elementwise"):
            ElementwiseOp(op).verify()
        run_pipeline(module, "accel-elementwise-to-gpu")
        assert not collect_ops(module, "accel.elementwise")
        report = run_host(module, "f", buffers + [out], arch=arch)
        assert len(report.launches) == 1
    return out


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("view", VIEWS, ids=[v[0] for v in VIEWS])
def test_mapped_input_matches_numpy(arch, view):
    _, shape, elem, imap, logical = view
    rng = np.random.default_rng(len(imap))
    buf = rng.integers(-20, 20, shape).astype(NP[elem])
    bias = rng.standard_normal((G, M, N)).astype(np.float32)
    # x * 0.5 + bias: the mapped input beside a packed one, computed in f32.
    text = elementwise_text(arch, [(shape, elem, "gmn", imap), ((G, M, N), "f32", "gmn", None)],
                            "%0 = mul %e0, 0.5; %1 = add %0, %e1", (G, M, N), "f32")
    out = _run(arch, text, [buf, bias], (G, M, N), "f32")
    want = logical(buf).astype(np.float64) * 0.5 + bias.astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    with new_context():   # and it is a code object on the chip
        result = compile_module(text, arch)
    assert [(a["name"], a["shape"], a["dtype"]) for a in result.kernels[0].metadata["args"]][0] \
        == ("e0", list(shape), elem)


@pytest.mark.parametrize("arch", ARCHES)
def test_mapped_input_row_sum(arch):
    _, shape, elem, imap, logical = VIEWS[0]
    buf = np.random.default_rng(3).integers(-20, 20, shape).astype(NP[elem])
    text = elementwise_text(arch, [(shape, elem, "gmn", imap)], "%0 = mul %e0, %e0",
                            (G, M, 1), "f32", reduce="sum")
    out = _run(arch, text, [buf], (G, M, 1), "f32")
    x = logical(buf).astype(np.float64)
    np.testing.assert_allclose(out, (x * x).sum(axis=2, keepdims=True), rtol=1e-6)


@pytest.mark.parametrize("arch", ARCHES)
def test_mapped_unsigned_bytes(arch):
    """A ui8 input (packing "u8") read through a map widens as unsigned: 200 stays 200."""
    shape = (2, 22, 37)
    buf = np.random.default_rng(5).integers(0, 256, shape).astype(np.uint8)
    text = elementwise_text(arch, [(shape, "i8", "gmn", "d0, d2, d1")], "%0 = add %e0, 0.5",
                            (G, M, N), "f32", packing=["u8"])
    out = _run(arch, text, [buf.view(np.int8)], (G, M, N), "f32")
    assert np.array_equal(out, buf.transpose(0, 2, 1).astype(np.float32) + 0.5)


def test_identity_map_kernel_differs_only_in_name_from_packed():
    """A map that reads the packed buffer as it lies gives the packed kernel's values but
    is its own kernel (its symbol names the map), so packed kernels never change."""
    with new_context():
        a = ir.Module.parse(elementwise_text("gfx942", [((G, M, N), "f32", "gmn", "d0, d1, d2")],
                                             "", (G, M, N), "f32"))
        b = ir.Module.parse(elementwise_text("gfx942", [((G, M, N), "f32", "gmn", None)],
                                             "", (G, M, N), "f32"))
        names = []
        for module in (a, b):
            run_pipeline(module, "accel-elementwise-to-gpu")
            names.append(str(module).split("gpu.module @")[1].split(" ")[0])
    assert names[0] != names[1]


@pytest.mark.parametrize("imap, shape, message", [
    ("d0, d2, d1", (2, 22, 36), "input 0's map index 2 (d1) reaches 36, past the buffer's 36"),
    ("d0, d1", (2, 37, 22), "input 0's map gives 2 indices for a rank 3 buffer"),
    ("d0, d1 - 1, d2", (2, 37, 22), "negative constant"),
])
def test_verifier_bounds_every_map(imap, shape, message):
    text = elementwise_text("gfx942", [(shape, "f32", "gmn", imap)], "", (G, M, N), "f32")
    with new_context():
        module = ir.Module.parse(text)
        with pytest.raises(AccelError, match=message.replace("(", r"\(").replace(")", r"\)")):
            ElementwiseOp(collect_ops(module, "accel.elementwise")[0]).verify()


def test_a_mapped_input_must_be_gmn():
    text = elementwise_text("gfx942", [((N,), "f32", "n", "d2")], "", (G, M, N), "f32")
    with new_context():
        module = ir.Module.parse(text)
        with pytest.raises(AccelError, match="must be of kind 'gmn'"):
            ElementwiseOp(collect_ops(module, "accel.elementwise")[0]).verify()
