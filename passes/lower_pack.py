"""Pass `accel-lower-pack`: each `accel.pack` / `accel.unpack` becomes a small GPU kernel.

One thread per destination element (a 1-D grid of 256-thread workgroups); the kernel
takes (src, dst) as bare pointers in the Kernel IR subset of docs/contracts.md and the op is
replaced, in its host function, by a `gpu.launch_func`. The kernel has no branch: the
threads of the last workgroup past the end store past the destination buffer, where
`amdgpu.raw_buffer_store` drops the write (and their loads read 0).

  pack:   dst[g, db, kb, kq, dp, kk] = plain[g, d, k],  d = db*dPB + dp,
          k = kb*kPB + kq*kpack + kk. The padding (d >= D or k >= K) is read with
          batch index G, past the end of the buffer, where `amdgpu.raw_buffer_load`
          returns 0: no branch, and every destination element is written.
  unpack: dst[g, d, k] = packed[g, d//dPB, k//kPB, (k%kPB)//kpack, d%dPB, k%kpack].

Kernels are named after what they convert, so identical ops share one kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import arith, gpu, ir
from accel.codegen.builder import memref_text
from accel.diagnostics import AccelError
from accel.dialect.element_types import ELEMENT_BYTES, FP8_FORMATS
from accel.dialect.ir_helpers import append_kernel_modules, collect_ops, memref_info
from accel.dialect.pack import PackOp, UnpackOp
from accel.passes.registry import AccelPass, register

BLOCK = 256
# Raw buffer offsets are 32-bit byte offsets; the padding reads address one batch
# past the end, so that must fit too.
MAX_BYTES = 2 ** 31


@register
@dataclass(frozen=True)
class LowerPack(AccelPass):
    NAME = "accel-lower-pack"
    SUMMARY = "Lower accel.pack/accel.unpack to Kernel IR kernels and gpu.launch_func"

    def run(self, module: ir.Module) -> None:
        lower_packs(module)


def lower_packs(module: ir.Module) -> list["PackKernel"]:
    """Lower every accel.pack/unpack in `module`; returns their kernels in program order."""
    ops = [cls(op) for op in collect_ops(module)
           for cls in (PackOp, UnpackOp) if op.name == cls.OP_NAME]
    kernels = []
    for op in ops:
        op.verify()
        kernels.append(PackKernel.of(op))  # every diagnostic before any rewrite
    append_kernel_modules(module, kernels)
    for op, kernel in zip(ops, kernels):
        _replace_with_launch(op, kernel)
    if ops:
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
    return kernels


@dataclass(frozen=True)
class PackKernel:
    """One conversion: `pack` (plain -> 6-D) or not (6-D -> plain), with its types."""
    pack: bool
    transposed: bool
    plain: tuple[int, int, int]       # [G, D, K], or [G, K, D] when transposed
    packed: tuple[int, ...]           # [G, D/dPB, K/kPB, kpackPB, dPB, kpack]
    element: str

    @classmethod
    def of(cls, op) -> "PackKernel":
        plain, element = memref_info(op.plain)
        packed, _ = memref_info(op.packed)
        if element not in COPYABLE:
            raise AccelError(f"'{op.OP_NAME}' of {element} elements has no copy kernel "
                             f"(supported: {', '.join(COPYABLE)})", op.op.location)
        for shape in (plain, packed):
            nbytes = (shape[0] + 1) * _count(shape[1:]) * ELEMENT_BYTES[element]
            if nbytes >= MAX_BYTES:
                raise AccelError(f"'{op.OP_NAME}' of {list(shape)}x{element} exceeds the "
                                 f"2 GiB a raw buffer addresses", op.op.location)
        return cls(isinstance(op, PackOp), op.transposed, tuple(plain), tuple(packed), element)

    @property
    def symbol(self) -> str:
        kind = "pack" if self.pack else "unpack"
        t = "_t" if self.transposed else ""
        shape = "x".join(map(str, self.plain))
        blocks = "x".join(map(str, self.packed[3:]))
        return f"accel_{kind}{t}_{shape}_{blocks}_{self.element}"

    @property
    def threads(self) -> int:
        return _count(self.packed if self.pack else self.plain)

    @property
    def grid(self) -> int:
        return -(-self.threads // BLOCK)

    def _type(self, shape) -> str:
        return memref_text(shape, self.element)

    def module_text(self) -> str:
        src, dst = (self.plain, self.packed) if self.pack else (self.packed, self.plain)
        e = _I32Emitter()
        lines = e.lines
        lines.append("%tid = gpu.thread_id x")
        lines.append("%bid = gpu.block_id x")
        lines.append(f"%block = arith.constant {BLOCK} : index")
        lines.append("%first = arith.muli %bid, %block : index")
        lines.append("%idx = arith.addi %first, %tid : index")
        lines.append("%lin = arith.index_cast %idx : index to i32")
        out = e.delinearize("%lin", dst)
        _, _, _, kpb, dpb, kp = self.packed
        if self.pack:
            g, db, kb, kq, dp, kk = out
            d = e.add(e.mul(db, dpb), dp)
            k = e.add(e.add(e.mul(kb, kpb * kp), e.mul(kq, kp)), kk)
            plain_d, plain_k = (self.plain[2], self.plain[1]) if self.transposed \
                else (self.plain[1], self.plain[2])
            inside = e.and_(e.ult(d, plain_d), e.ult(k, plain_k))
            # Batch index G puts the padding reads past the buffer: they return 0.
            g = e.select(inside, g, self.plain[0])
            src_idx = [g, k, d] if self.transposed else [g, d, k]
        else:
            g, x, y = out
            d, k = (y, x) if self.transposed else (x, y)
            kpbk = kpb * kp
            src_idx = [g, e.div(d, dpb), e.div(k, kpbk), e.div(e.rem(k, kpbk), kp),
                       e.rem(d, dpb), e.rem(k, kp)]
        i32s = ", ".join(["i32"] * len(src_idx))
        lines.append(f"%v = amdgpu.raw_buffer_load %src[{', '.join(src_idx)}] : "
                     f"{self._type(src)}, {i32s} -> {self.element}")
        o32s = ", ".join(["i32"] * len(out))
        lines.append(f"amdgpu.raw_buffer_store %v -> %dst[{', '.join(out)}] : "
                     f"{self.element} -> {self._type(dst)}, {o32s}")
        body = "\n".join("      " + line for line in lines)
        return (f"gpu.module @{self.symbol} {{\n"
                f"  gpu.func @{self.symbol}(%src: {self._type(src)}, %dst: {self._type(dst)})"
                f" kernel attributes {{known_block_size = array<i32: {BLOCK}, 1, 1>}} {{\n"
                f"{body}\n      gpu.return\n  }}\n}}\n")


class _I32Emitter:
    """Index arithmetic in i32, folding multiplications and divisions by 1."""

    def __init__(self):
        self.lines: list[str] = []
        self._n = 0
        self._consts: dict[int, str] = {}

    def _emit(self, rhs: str) -> str:
        self._n += 1
        name = f"%t{self._n}"
        self.lines.append(f"{name} = {rhs}")
        return name

    def const(self, v: int) -> str:
        if v not in self._consts:
            self._consts[v] = self._emit(f"arith.constant {v} : i32")
        return self._consts[v]

    def _bin(self, op: str, a: str, b) -> str:
        b = self.const(b) if isinstance(b, int) else b
        return self._emit(f"arith.{op} {a}, {b} : i32")

    def mul(self, a: str, v: int) -> str:
        return a if v == 1 else self._bin("muli", a, v)

    def add(self, a: str, b: str) -> str:
        return self._bin("addi", a, b)

    def div(self, a: str, v: int) -> str:
        return a if v == 1 else self._bin("divui", a, v)

    def rem(self, a: str, v: int) -> str:
        return self.const(0) if v == 1 else self._bin("remui", a, v)

    def ult(self, a: str, v: int) -> str:
        return self._emit(f"arith.cmpi ult, {a}, {self.const(v)} : i32")

    def and_(self, a: str, b: str) -> str:
        return self._emit(f"arith.andi {a}, {b} : i1")

    def select(self, cond: str, a: str, v: int) -> str:
        return self._emit(f"arith.select {cond}, {a}, {self.const(v)} : i32")

    def delinearize(self, lin: str, shape) -> list[str]:
        """Row-major indices of `lin` in `shape` (the leading one is not reduced)."""
        out = []
        rest = lin
        for axis in range(len(shape) - 1, 0, -1):
            out.append(self.rem(rest, shape[axis]))
            rest = self.div(rest, shape[axis])
        out.append(rest)
        return out[::-1]


def _count(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


# The element types a copy kernel moves (it moves bits: fp8 codes pass unchanged).
COPYABLE = ("i8", "f16", "bf16", "f32", "i32") + tuple(FP8_FORMATS)


def _replace_with_launch(op, kernel: PackKernel) -> None:
    with ir.InsertionPoint(op.op), op.op.location:
        index = ir.IndexType.get()
        grid, block, one = (arith.ConstantOp(index, v).result for v in (kernel.grid, BLOCK, 1))
        gpu.LaunchFuncOp([kernel.symbol, kernel.symbol], (grid, one, one), (block, one, one),
                         kernel_operands=[op.source, op.dest])
    op.op.erase()
