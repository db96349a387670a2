"""A small emitter of MLIR text for Kernel IR, with constant folding of index math.

Kernels are built as text and parsed once: per-op Python binding calls would cost
more than the whole upstream lowering for a large tile (see benchmarks/bench_compile.py).
A value is either a Python int (a compile-time index, folded on the spot) or the name
of an SSA value; index arithmetic on ints never reaches the IR, which keeps kernels
for static shapes small and their text deterministic.
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

    # ---- text ------------------------------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        self._next += 1
        return f"%{hint}{self._next}"

    def line(self, text: str) -> None:
        self._lines.append("  " * self._indent + text)

    def assign(self, rhs: str, hint: str = "v") -> str:
        name = self.fresh(hint)
        self.line(f"{name} = {rhs}")
        return name

    @contextmanager
    def region(self, header: str, footer: str = "}"):
        """`header {` ... `footer` with the body indented."""
        self.line(header + " {")
        self._indent += 1
        try:
            yield
        finally:
            self._indent -= 1
            self.line(footer)

    def body_text(self) -> str:
        """Hoisted constants, then the ops, as lines of the entry block."""
        pad = "  " * 3
        return "\n".join([pad + c for c in self._const_lines] + self._lines)

    # ---- constants ---------------------------------------------------------------
    def const(self, value: int, type_: str = "index") -> str:
        key = (value, type_)
        if key not in self._consts:
            name = f"%c{value}_{type_}".replace("-", "m")
            self._consts[key] = name
            self._const_lines.append(f"{name} = arith.constant {value} : {type_}")
        return self._consts[key]

    def v(self, x: Value) -> str:
        """The SSA name of an index value (materializing a folded constant)."""
        return self.const(x) if isinstance(x, int) else x

    # ---- folded index arithmetic -------------------------------------------------
    def add(self, a: Value, b: Value) -> Value:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0:
            return b
        if b == 0:
            return a
        return self.assign(f"arith.addi {self.v(a)}, {self.v(b)} : index")

    def mul(self, a: Value, b: Value) -> Value:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 0 or b == 0:
            return 0
        if a == 1:
            return b
        if b == 1:
            return a
        return self.assign(f"arith.muli {self.v(a)}, {self.v(b)} : index")

    def div(self, a: Value, b: int) -> Value:
        """Unsigned a // b (every index in a kernel is non-negative)."""
        if isinstance(a, int):
            return a // b
        if b == 1:
            return a
        return self.assign(f"arith.divui {a}, {self.const(b)} : index")

    def rem(self, a: Value, b: int) -> Value:
        if isinstance(a, int):
            return a % b
        if b == 1:
            return 0
        return self.assign(f"arith.remui {a}, {self.const(b)} : index")

    def xor(self, a: Value, b: Value) -> Value:
        if isinstance(a, int) and isinstance(b, int):
            return a ^ b
        if a == 0:
            return b
        if b == 0:
            return a
        return self.assign(f"arith.xori {self.v(a)}, {self.v(b)} : index")

    def lt(self, a: Value, b: Value) -> Value:
        """a < b as i1; an int 0/1 when both are known."""
        if isinstance(a, int) and isinstance(b, int):
            return int(a < b)
        return self.assign(f"arith.cmpi ult, {self.v(a)}, {self.v(b)} : index", "p")

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
        return self.assign(f"arith.select {cond}, {self.v(a)}, {self.v(b)} : index")

    def to_i32(self, x: Value) -> str:
        if isinstance(x, int):
            return self.const(x, "i32")
        return self.assign(f"arith.index_cast {x} : index to i32", "i")
