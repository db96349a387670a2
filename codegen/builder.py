"""A small emitter of MLIR text for Kernel IR, with constant folding of index math.

Kernels are built as text and parsed once: per-op Python binding calls would cost
more than the whole upstream lowering for a large tile (see benchmarks/bench_compile.py).
A value is either a Python int (a compile-time index, folded on the spot) or the name
of an SSA value; index arithmetic on ints never reaches the IR, which keeps kernels
for static shapes small and their text deterministic.

Index arithmetic is emitted in i32, not `index`: every offset fits (operands are
below 2 GiB, codegen/kernel.py) and buffer ops take i32 anyway, while `index` lowers
to i64, which the AMDGPU backend splits into 32-bit halves (v_mad_u64_u32,
v_cmp_*_u64, two VGPRs per value). Only LDS subscripts become `index`, at the access.
Measured on gfx942, i8 M=77 N=1001 K=320 (tile 16x16, scalar B copy with edge
predicates): 388 -> 294 instructions, 92 -> 51 VGPRs, no 64-bit VALU op left (there were
21 v_cmp_gt_u64 and 15 v_mad_u64_u32); the large f16 tiles change by +-2 VGPRs.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Union

Value = Union[int, str]   # int: a folded index constant; str: an SSA name ("%v12")


class Emitter:
    """Appends ops to the current region; index constants are hoisted to the entry."""

    def __init__(self, indent: int = 3):
        self._lines: list[str] = []
        self._consts: dict[tuple[int, str], str] = {}
        self._const_lines: list[str] = []
        self._indent = indent
        self._next = 0
        # Pure ops already emitted, per open region (innermost last): the same
        # right-hand side reuses its value instead of being emitted again.
        self._seen: list[dict[str, str]] = [{}]

    # ---- text ------------------------------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        self._next += 1
        return f"%{hint}{self._next}"

    def line(self, text: str) -> None:
        self._lines.append("  " * self._indent + text)

    def assign(self, rhs: str, hint: str = "v") -> str:
        """`%name = rhs`. Pure ops (arith, vector element moves) are emitted once per
        region: index math repeats across MMA repeats and copy units, and every
        duplicate is IR that the lowering and LLVM would otherwise process."""
        pure = rhs.startswith(("arith.", "vector.extract ", "vector.insert ", "vector.shuffle "))
        if pure:
            for scope in reversed(self._seen):
                if rhs in scope:
                    return scope[rhs]
        name = self.fresh(hint)
        self.line(f"{name} = {rhs}")
        if pure:
            self._seen[-1][rhs] = name
        return name

    @contextmanager
    def region(self, header: str, footer: str = "}"):
        """`header {` ... `footer` with the body indented; values defined inside are
        not reused after it."""
        self.line(header + " {")
        self._indent += 1
        self._seen.append({})
        try:
            yield
        finally:
            self._seen.pop()
            self._indent -= 1
            self.line(footer)

    def body_text(self) -> str:
        """Hoisted constants, then the ops, as lines of the entry block."""
        pad = "  " * 3
        return "\n".join([pad + c for c in self._const_lines] + self._lines)

    # ---- constants ---------------------------------------------------------------
    def const(self, value: int, type_: str = "i32") -> str:
        key = (value, type_)
        if key not in self._consts:
            name = f"%c{value}_{type_}".replace("-", "m")
            self._consts[key] = name
            self._const_lines.append(f"{name} = arith.constant {value} : {type_}")
        return self._consts[key]

    def v(self, x: Value) -> str:
        """The SSA name (i32) of an index value, materializing a folded constant."""
        return self.const(x) if isinstance(x, int) else x

    def index(self, x: Value) -> str:
        """An index value as an `index` SSA name, for a memref subscript."""
        if isinstance(x, int):
            return self.const(x, "index")
        return self.assign(f"arith.index_castui {x} : i32 to index", "ix")

    def gpu_id(self, op: str, hint: str) -> str:
        """A gpu dialect id (`thread_id x`, `block_id y`, ...) as an i32 index value."""
        return self.assign(f"arith.index_castui {self.assign(f'gpu.{op}', hint)} : index to i32",
                           hint)

    def for_header(self, iv: str, trips: int, iter_args: str = "") -> str:
        """`scf.for` over [0, trips) with an i32 induction variable (the opening line,
        without the region); `iter_args` is `iter_args(...) -> (...)` or empty."""
        args = f" {iter_args}" if iter_args else ""
        return (f"scf.for {iv} = {self.const(0)} to {self.const(trips)} step "
                f"{self.const(1)}{args} : i32")

    # ---- folded index arithmetic -------------------------------------------------
    def add(self, a: Value, b: Value) -> Value:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0:
            return b
        if b == 0:
            return a
        return self.assign(f"arith.addi {self.v(a)}, {self.v(b)} : i32")

    def mul(self, a: Value, b: Value) -> Value:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 0 or b == 0:
            return 0
        if a == 1:
            return b
        if b == 1:
            return a
        return self.assign(f"arith.muli {self.v(a)}, {self.v(b)} : i32")

    def div(self, a: Value, b: int) -> Value:
        """Unsigned a // b (every index in a kernel is non-negative)."""
        if isinstance(a, int):
            return a // b
        if b == 1:
            return a
        return self.assign(f"arith.divui {a}, {self.const(b)} : i32")

    def rem(self, a: Value, b: int) -> Value:
        if isinstance(a, int):
            return a % b
        if b == 1:
            return 0
        return self.assign(f"arith.remui {a}, {self.const(b)} : i32")

    def xor(self, a: Value, b: Value) -> Value:
        if isinstance(a, int) and isinstance(b, int):
            return a ^ b
        if a == 0:
            return b
        if b == 0:
            return a
        return self.assign(f"arith.xori {self.v(a)}, {self.v(b)} : i32")

    def lt(self, a: Value, b: Value) -> Value:
        """a < b as i1; an int 0/1 when both are known."""
        if isinstance(a, int) and isinstance(b, int):
            return int(a < b)
        return self.assign(f"arith.cmpi ult, {self.v(a)}, {self.v(b)} : i32", "p")

    def and_(self, a: Value, b: Value) -> Value:
        if isinstance(a, int):
            return b if a else 0
        if isinstance(b, int):
            return a if b else 0
        return self.assign(f"arith.andi {a}, {b} : i1", "p")

    def select(self, cond: Value, a: Value, b: Value) -> Value:
        """cond ? a : b on index values."""
        if isinstance(cond, int):
            return a if cond else b
        if a == b:
            return a
        return self.assign(f"arith.select {cond}, {self.v(a)}, {self.v(b)} : i32")

    # ---- vectors -------------------------------------------------------------------
    # Vector pieces are moved with vector.shuffle (one llvm.shufflevector each), not
    # element by element: vector.extract_strided_slice and insert_strided_slice have no
    # ROCDL lowering inside a gpu.module with the pinned bindings, and per-element
    # extract/insert chains were 20-40% of a large kernel's ops. Measured over
    # benchmarks/bench_compile.py's 18 kernels: module text 7385 -> 5558 lines, lowering
    # to the LLVM dialect 15.6 -> 13.2 ms (median, alternating A/B runs), LLVM's own
    # time within noise; the ISA is the same instruction sequence on 40 of 42 kernels
    # (with B row-major and transposed), 2 instructions shorter on the other two.
    def slice(self, vec: str, length: int, start: int, n: int, elem: str) -> str:
        """Elements [start, start + n) of a vector<length x elem> (a scalar if n = 1)."""
        if n == length:
            return vec
        src = f"vector<{length}x{elem}>"
        if n == 1:
            return self.assign(f"vector.extract {vec}[{start}] : {elem} from {src}")
        return self.pick(vec, length, [start + i for i in range(n)], elem)

    def pick(self, vec: str, length: int, positions: list[int], elem: str) -> str:
        """vector<len(positions) x elem> of the given elements of a vector<length x elem>."""
        src = f"vector<{length}x{elem}>"
        idx = ", ".join(str(i) for i in positions)
        return self.assign(f"vector.shuffle {vec}, {vec} [{idx}] : {src}, {src}")

    def concat(self, parts: list[str], n: int, elem: str) -> str:
        """parts (vector<n x elem> each, a power-of-two count) joined in order, pairwise:
        llvm.shufflevector takes two operands of one type."""
        assert len(parts) & (len(parts) - 1) == 0, "concat takes a power-of-two count"
        while len(parts) > 1:
            t = f"vector<{n}x{elem}>"
            idx = ", ".join(str(i) for i in range(2 * n))
            parts = [self.assign(f"vector.shuffle {a}, {b} [{idx}] : {t}, {t}")
                     for a, b in zip(parts[::2], parts[1::2])]
            n *= 2
        return parts[0]


def memref_text(shape, elem: str) -> str:
    """The MLIR text of a memref type of `shape` and element type `elem`."""
    return f"memref<{'x'.join(map(str, shape))}x{elem}>"


def kernel_module_text(symbol: str, args: list[str], body: str, block_size: int,
                       grid: tuple[int, int, int], workgroup: list[str] = (),
                       waves_per_eu: int = 0) -> str:
    """The `gpu.module` holding one kernel `symbol`: its arguments, its LDS buffers
    (workgroup attributions), the launch sizes LLVM may assume (known block and grid
    sizes), and `rocdl.waves_per_eu` when set (it reaches LLVM as the
    amdgpu-waves-per-eu function attribute)."""
    lds = f"\n      workgroup({', '.join(workgroup)})" if workgroup else ""
    occupancy = f"rocdl.waves_per_eu = {waves_per_eu} : i32, " if waves_per_eu else ""
    gx, gy, gz = grid
    return (f"gpu.module @{symbol} {{\n"
            f"  gpu.func @{symbol}({', '.join(args)}){lds} kernel attributes {{"
            f"{occupancy}known_block_size = array<i32: {block_size}, 1, 1>, "
            f"known_grid_size = array<i32: {gx}, {gy}, {gz}>}} {{\n"
            f"{body}\n"
            f"      gpu.return\n"
            f"  }}\n"
            f"}}\n")
