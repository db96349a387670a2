"""The kernel of an `accel.copy` op: one thread per element of the copy's shape.

A 1-D grid of BLOCK-thread workgroups over the prod(shape) elements in row-major order:
thread t of block b takes element b * BLOCK + t, splits it into the copy's indices d
(unsigned div / rem by the shape's suffix products), evaluates the input and output maps
on them in i32 (every subexpression is non-negative, which the op's verifier checks) and
moves one element with a raw buffer load and store. The threads past the last element
compute element 0's indices and then move the first one to its buffer's first extent:
that load reads 0 and that store is dropped, so nothing outside the output is written.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from math import prod

from accel.codegen.builder import Emitter, kernel_module_text, memref_text
from accel.codegen.index_map import index_value
from accel.diagnostics import AccelError
from accel.dialect.copy import CopyOp, Expr
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.ir_helpers import memref_info

# Threads of a workgroup: four waves of 64 (eight of 32).
BLOCK = 256
# Raw buffer offsets are 32-bit; a dropped access addresses one first-dimension slab past
# the end, at most twice a buffer's bytes.
MAX_BYTES = 2 ** 31


@dataclass(frozen=True)
class CopyKernel:
    symbol: str
    shape: tuple[int, ...]
    in_shape: tuple[int, ...]
    out_shape: tuple[int, ...]
    elem: str
    input_exprs: tuple[Expr, ...]
    output_exprs: tuple[Expr, ...]
    input_map: str               # the op's maps as MLIR prints them, for the metadata
    output_map: str

    @classmethod
    def of(cls, op: CopyOp) -> "CopyKernel":
        in_shape, elem = memref_info(op.inp)
        out_shape = memref_info(op.out)[0]
        for shape in (in_shape, out_shape):
            if 2 * prod(shape) * ELEMENT_BYTES[elem] >= MAX_BYTES:
                raise AccelError(f"'{op.OP_NAME}' operand {shape}x{elem} exceeds the 1 GiB a "
                                 f"raw buffer addresses with a dropped access past its end",
                                 op.location)
        shape = tuple(op.shape)
        ins, outs = tuple(op.input_exprs), tuple(op.output_exprs)
        key = "|".join(map(str, (shape, in_shape, out_shape, elem, ins, outs)))
        digest = hashlib.sha256(key.encode()).hexdigest()[:10]
        return cls(f"accel_copy_{'x'.join(map(str, shape))}_{digest}", shape,
                   tuple(in_shape), tuple(out_shape), elem, ins, outs,
                   str(op.op.attributes["input_map"]), str(op.op.attributes["output_map"]))

    @property
    def count(self) -> int:
        return prod(self.shape)

    @property
    def block_size(self) -> int:
        return BLOCK

    @property
    def grid(self) -> tuple[int, int, int]:
        return (-(-self.count // BLOCK), 1, 1)

    @property
    def in_memref_type(self) -> str:
        return memref_text(self.in_shape, self.elem)

    @property
    def out_memref_type(self) -> str:
        return memref_text(self.out_shape, self.elem)

    def module_text(self) -> str:
        em = Emitter()
        tid = em.gpu_id("thread_id x", "tid")
        block = em.gpu_id("block_id x", "bx")
        flat = em.add(em.mul(block, BLOCK), tid)
        ok = em.lt(flat, self.count) if self.count % BLOCK else 1
        # A thread past the end computes element 0's indices, so every map stays inside
        # its buffer before its first index is moved past the end.
        flat = em.select(ok, flat, 0)
        dims, stride = [], self.count
        for i, s in enumerate(self.shape):
            stride //= s
            q = em.div(flat, stride)
            dims.append(q if i == 0 else em.rem(q, s))   # flat < count: d0 < shape[0]
        src = self._indices(em, self.input_exprs, dims, ok, self.in_shape[0])
        dst = self._indices(em, self.output_exprs, dims, ok, self.out_shape[0])
        i32s = ", ".join(["i32"] * len(self.in_shape))
        x = em.assign(f"amdgpu.raw_buffer_load %in[{src}] : {self.in_memref_type}, {i32s} "
                      f"-> {self.elem}", "x")
        o32s = ", ".join(["i32"] * len(self.out_shape))
        em.line(f"amdgpu.raw_buffer_store {x} -> %out[{dst}] : {self.elem} -> "
                f"{self.out_memref_type}, {o32s}")
        args = [f"%in: {self.in_memref_type}", f"%out: {self.out_memref_type}"]
        return kernel_module_text(self.symbol, args, em.body_text(), BLOCK, self.grid)

    def _indices(self, em: Emitter, exprs, dims, ok, first_extent: int) -> str:
        values = [index_value(em, x, dims) for x in exprs]
        values[0] = em.select(ok, values[0], first_extent)
        return ", ".join(em.v(v) for v in values)
