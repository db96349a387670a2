"""The kernel of an `accel.elementwise` op: the op list over broadcast inputs, and a
row reduction over N.

Elementwise (`reduce = "none"`): one workgroup grid over the [G, M, N] output, the
split-K reduction's (codegen/split_k_reduce.py): N tiles x M tiles x G, each thread one
run of `width` consecutive columns of one row, LANES_N threads along N and as many rows
as MAX_THREADS allow. Each input is loaded as a gemm's epilogue loads an extra operand
and the op list runs as it does there (codegen/epilogue.py's Epilogue, whose loads,
steps and constants this kernel reuses): in the compute type, converted once at the
store. Loads past M or N read 0 (their index moved past the buffer's end); the stores
there are dropped the same way.

Row reduction (`reduce = "sum" | "max"`): one thread per row, a rolled loop over the
row's N / width column vectors (width divides N, so no column is masked), the program's
value folded into `width` running lanes, then the lanes into one value, in a fixed
order: the same inputs give the same bits. The fold's identity (0, or -inf / the
smallest i32 for max) starts it; the row's result is converted and stored at [g, m, 0].

An input of int4 pairs (`packing` "s4" / "u4", MIGraphX's unpack) is loaded width / 2
bytes at column / 2 (width is even then) and split into its nibbles, low first: signed,
(b << 4) >> 4 and b >> 4 arithmetic; unsigned, b & 15 and b >> 4 logical; interleaved by
one shuffle into the width values, which fit a signed i8 either way. An input of
unsigned bytes ("u8") is loaded as any other and widened by extui / uitofp.

An input with an index map (`input_maps`: a view of its buffer, e.g. a dimension of
several strides) is loaded one element at a time: for each of the thread's `width`
columns the map is evaluated at (batch, row, col + j) and one scalar loaded there,
the scalars then joined into the vector. Its elements need not be adjacent, so there is
no wider load to make. A thread past M or N evaluates the map at row and column 0
(inside the buffer, as the verifier bounds the map over [G, M, N]) and moves the first
index past its extent: the load reads 0.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from accel.codegen.builder import Emitter, kernel_module_text, memref_text
from accel.codegen.epilogue import Epilogue, Extra
from accel.codegen.global_copy import vector_type
from accel.codegen.index_map import index_value
from accel.codegen.loops import counted_loop
from accel.codegen.split_k_reduce import MAX_THREADS, RowRuns
from accel.diagnostics import AccelError
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.copy import Expr
from accel.dialect.elementwise import ElementwiseOp
from accel.dialect.epilogue_program import Program
from accel.dialect.ir_helpers import memref_info

# Threads along N: one wave of 64 (two of 32) covers 64 runs of a row.
LANES_N = 64
# Loads and stores of at most 128 bits per thread (a buffer_load_dwordx4).
MAX_VECTOR_BYTES = 16
# Raw buffer offsets are 32-bit; a dropped access addresses one batch past the end.
MAX_BYTES = 2 ** 31


def _pow2_at_least(x: int) -> int:
    p = 1
    while p < x:
        p *= 2
    return p


@dataclass(frozen=True)
class _Values(Epilogue):
    """The epilogue's loads, steps and constants, with the conversions an elementwise
    kernel writes beyond a gemm's: f32 -> i32 / i8 (truncating) and i32 -> i8, and with
    `unsigned`, inputs widened as unsigned bytes."""
    unsigned: bool = False

    def _widen(self, em: Emitter, x: str, elem: str, w: int) -> str:
        if not self.unsigned or elem == self.acc_elem:
            return super()._widen(em, x, elem, w)
        op = "arith.extui" if self.acc_elem == "i32" else "arith.uitofp"
        return em.assign(f"{op} {x} : {vector_type(w, elem)} to {vector_type(w, self.acc_elem)}")

    def _narrow(self, em: Emitter, x: str, w: int) -> str:
        src, dst = self.acc_elem, self.out_elem
        if src == dst:
            return x
        op = ("arith.trunci" if src == "i32" else
              "arith.fptosi" if dst.startswith("i") else "arith.truncf")
        return em.assign(f"{op} {x} : {vector_type(w, src)} to {vector_type(w, dst)}")


@dataclass(frozen=True)
class ElementwiseKernel:
    symbol: str
    g: int
    m: int
    n: int
    program: str
    inputs: tuple[Extra, ...]
    out_type: str
    acc_type: str
    reduce: str                  # none | sum | max
    width: int                   # elements per thread access
    packing: tuple[str, ...]     # per input: "", int4 pairs ("s4", "u4"), unsigned bytes ("u8")
    maps: tuple[tuple[Expr, ...] | None, ...]   # per input: its index map's results, or None
    map_texts: tuple[str | None, ...]   # the same maps as MLIR prints them, for the metadata

    @classmethod
    def of(cls, op: ElementwiseOp) -> "ElementwiseKernel":
        g, m, n = op.shape
        types = op.input_types + [op.out_type]
        maps = tuple(None if e is None else tuple(e) for e in op.input_maps)
        for v, mapped in zip(op.inputs + [op.out], maps + (None,)):
            shape, elem = memref_info(v)
            count = 1
            for d in shape:
                count *= d
            # A mapped input's dropped load addresses one first-dimension slab past its end.
            reach = 2 * count if mapped is not None else count + m * n
            if reach * ELEMENT_BYTES[elem] >= MAX_BYTES:
                raise AccelError(f"'{op.OP_NAME}' operand {list(shape)}x{elem} exceeds the "
                                 f"2 GiB a raw buffer addresses", op.location)
        packing = tuple(op.packing)
        # An input of int4 pairs is read a byte (two values) at a time: an even width.
        width = next(w for w in (4, 2, 1) if n % w == 0 and all(
            w * ELEMENT_BYTES[t] <= MAX_VECTOR_BYTES for t in types)
            and (w > 1 or not {"s4", "u4"} & set(packing)))
        inputs = tuple(Extra(f"e{i}", str(v.type), tuple(memref_info(v)[0]), k, t)
                       for i, (v, k, t) in enumerate(zip(op.inputs, op.kinds, op.input_types)))
        program = str(op.program)
        key = "|".join([program, op.reduce, op.out_type]
                       + [f"{x.kind}:{x.elem}:{p}" for x, p in zip(inputs, packing)])
        if any(e is not None for e in maps):
            key += "|" + "|".join(f"{x.shape}:{e}" for x, e in zip(inputs, maps))
        digest = hashlib.sha256(key.encode()).hexdigest()[:10]
        kind = "elementwise" if op.reduce == "none" else f"reduce_{op.reduce}"
        return cls(f"accel_{kind}_{g}x{m}x{n}_{digest}", g, m, n, program, inputs,
                   op.out_type, op.compute_type, op.reduce, width, packing, maps,
                   tuple(None if m is None else f"affine_map<{m}>" for m in op.index_maps()))

    @property
    def out_shape(self) -> tuple[int, int, int]:
        return (self.g, self.m, 1 if self.reduce != "none" else self.n)

    @property
    def out_memref_type(self) -> str:
        return memref_text(self.out_shape, self.out_type)

    @property
    def lanes_n(self) -> int:
        if self.reduce != "none":
            return 1
        return min(LANES_N, _pow2_at_least(-(-self.n // self.width)))

    @property
    def n_per_block(self) -> int:
        return self.n if self.reduce != "none" else self.lanes_n * self.width

    @property
    def rows(self) -> int:
        """Rows of a workgroup (one per thread row)."""
        return min(MAX_THREADS // self.lanes_n, _pow2_at_least(self.m))

    @property
    def block_size(self) -> int:
        return self.lanes_n * self.rows

    @property
    def grid(self) -> tuple[int, int, int]:
        return (-(-self.n // self.n_per_block), -(-self.m // self.rows), self.g)

    def module_text(self) -> str:
        em = Emitter()
        values = _Values(mma=RowRuns(self.rows, self.n_per_block, self.width), c="%out",
                         c_type=self.out_memref_type, c_layout="row", g=self.g, m=self.m,
                         n=self.n, m_per_block=self.rows, n_per_block=self.n_per_block,
                         kpack_per_block=1, kpack=1, acc_elem=self.acc_type,
                         out_elem=self.out_type, accumulate=False, width=self.width,
                         program=Program.parse(self.program), extras=self.inputs)
        if self.reduce == "none":
            self._emit_map(em, values)
        else:
            self._emit_reduce(em, values)
        args = [f"{x.memref}: {x.memref_type}" for x in self.inputs]
        args.append(f"%out: {self.out_memref_type}")
        return kernel_module_text(self.symbol, args, em.body_text(), self.block_size,
                                  self.grid)

    def _load(self, em: Emitter, values: _Values, batch: str, row, row_ok, col, col_ok,
              w: int) -> list[str]:
        """Every input's values at (batch, row, col : col + w) in the compute type."""
        out = []
        for x, pack, mapped in zip(self.inputs, self.packing, self.maps):
            if mapped is not None:
                reader = replace(values, unsigned=True) if pack else values
                out.append(self._load_mapped(em, reader, x, mapped, batch, row, row_ok, col,
                                             col_ok, w))
                continue
            if pack in ("", "u8"):
                reader = replace(values, unsigned=True) if pack else values
                out.append(reader._load_extra(em, x, batch, row, row_ok, col, col_ok, w))
                continue
            lanes = w // 2
            b = em.select(em.and_(row_ok, col_ok), batch, self.g)
            idx = ", ".join(em.v(i) for i in (b, row, em.div(col, 2)))
            bytes_ = em.assign(f"amdgpu.raw_buffer_load {x.memref}[{idx}] : {x.memref_type}, "
                               f"i32, i32, i32 -> {vector_type(lanes, 'i8')}", "ep")
            vt = f"vector<{lanes}xi8>"
            if lanes == 1:
                bytes_ = em.assign(f"vector.broadcast {bytes_} : i8 to {vt}")
            four = em.assign(f"arith.constant dense<4> : {vt}")
            if pack == "s4":
                low = em.assign(f"arith.shrsi {em.assign(f'arith.shli {bytes_}, {four} : {vt}')}"
                                f", {four} : {vt}")
                high = em.assign(f"arith.shrsi {bytes_}, {four} : {vt}")
            else:
                mask = em.assign(f"arith.constant dense<15> : {vt}")
                low = em.assign(f"arith.andi {bytes_}, {mask} : {vt}")
                high = em.assign(f"arith.shrui {bytes_}, {four} : {vt}")
            order = ", ".join(str(i // 2 + (i % 2) * lanes) for i in range(w))
            pairs = em.assign(f"vector.shuffle {low}, {high} [{order}] : {vt}, {vt}")
            out.append(values._widen(em, pairs, "i8", w))
        return out

    @staticmethod
    def _load_mapped(em: Emitter, values: _Values, x: Extra, exprs, batch: str, row, row_ok,
                     col, col_ok, w: int) -> str:
        """Input `x`'s values at (batch, row, col : col + w) read through its index map
        `exprs`, one scalar per column, in the compute type."""
        ok = em.and_(row_ok, col_ok)
        row, col = em.select(row_ok, row, 0), em.select(col_ok, col, 0)
        i32s = ", ".join(["i32"] * len(x.shape))
        scalars = []
        for j in range(w):
            idx = [index_value(em, e, [batch, row, em.add(col, j)]) for e in exprs]
            idx[0] = em.select(ok, idx[0], x.shape[0])
            names = ", ".join(em.v(i) for i in idx)
            scalars.append(em.assign(f"amdgpu.raw_buffer_load {x.memref}[{names}] : "
                                     f"{x.memref_type}, {i32s} -> {x.elem}", "ep"))
        v = scalars[0] if w == 1 else em.assign(
            f"vector.from_elements {', '.join(scalars)} : {vector_type(w, x.elem)}")
        return values._widen(em, v, x.elem, w)

    def _store(self, em: Emitter, y: str, ok, batch: str, row, col, w: int) -> None:
        idx = ", ".join(em.v(i) for i in (em.select(ok, batch, self.g), row, col))
        em.line(f"amdgpu.raw_buffer_store {y} -> %out[{idx}] : "
                f"{vector_type(w, self.out_type)} -> {self.out_memref_type}, i32, i32, i32")

    def _emit_map(self, em: Emitter, values: _Values) -> None:
        w = self.width
        tid = em.gpu_id("thread_id x", "tid")
        n_tile = em.gpu_id("block_id x", "bx")
        m_tile = em.gpu_id("block_id y", "by")
        batch = em.gpu_id("block_id z", "bz")
        row = em.add(em.mul(m_tile, self.rows), em.div(tid, self.lanes_n))
        col = em.add(em.mul(n_tile, self.n_per_block), em.mul(em.rem(tid, self.lanes_n), w))
        row_ok = em.lt(row, self.m) if self.m % self.rows else 1
        col_ok = em.lt(col, self.n) if self.n % self.n_per_block else 1
        loaded = self._load(em, values, batch, row, row_ok, col, col_ok, w)
        # An empty program's value is its first input (a convert).
        y = values._narrow(em, values._run_program(em, loaded[0], loaded, w), w)
        self._store(em, y, em.and_(row_ok, col_ok), batch, row, col, w)

    def _emit_reduce(self, em: Emitter, values: _Values) -> None:
        w, acc = self.width, self.acc_type
        tid = em.gpu_id("thread_id x", "tid")
        m_tile = em.gpu_id("block_id y", "by")
        batch = em.gpu_id("block_id z", "bz")
        row = em.add(em.mul(m_tile, self.rows), tid)
        row_ok = em.lt(row, self.m) if self.m % self.rows else 1
        fold = "add" if self.reduce == "sum" else "max"
        identity = 0 if fold == "add" else (float("-inf") if acc == "f32" else -2 ** 31)
        vt = vector_type(w, acc)

        def column_vector(s, totals):
            col = em.mul(s, w)
            loaded = self._load(em, values, batch, row, row_ok, col, 1, w)
            y = values._run_program(em, loaded[0], loaded, w)
            return [values._op(em, fold, w, totals[0], y)]

        # Rolled (NO_UNROLL): the kernel's size does not grow with N.
        lanes = counted_loop(em, self.n // w, [(values._const(em, identity, w), vt)],
                             column_vector, "c", unroll=False)[0]
        total = em.slice(lanes, w, 0, 1, acc)
        for j in range(1, w):
            total = values._op(em, fold, 1, total, em.slice(lanes, w, j, 1, acc))
        self._store(em, values._narrow(em, total, 1), row_ok, batch, row, 0, 1)
