"""`accel.pack` (plain -> accel layout) and `accel.unpack` (accel layout -> plain): the
classes that build, read and verify them. `accel-lower-pack` turns each into a copy
kernel; dialect/accel_tile.py's numpy `pack`/`unpack` are the reference.
"""

from __future__ import annotations

from accel.bindings import ir
from accel.diagnostics import AccelError, located
from accel.dialect.accel_tile import AccelTile
from accel.dialect.ir_helpers import OpView, memref_info
from accel.dialect.op_rules import (
    check_attribute_names, check_host_code, check_nonempty, check_plain_buffer,
)

PACK_ATTRIBUTES = ("transposed",)


class _PackLike(OpView):
    """accel.pack (plain -> accel) and accel.unpack (accel -> plain), destination style.

      "accel.pack"(%src, %dst) {transposed = false} : (memref<GxDxK>, memref<6-D>) -> ()
      "accel.unpack"(%src, %dst) {transposed = false} : (memref<6-D>, memref<GxDxK>) -> ()

    `transposed` means the plain side is [G, K, D] (as B is in row layout). The
    blocking (dPerBlock, kpackPerBlock, kpack) is read off the 6-D type.
    """
    PLAIN_INDEX = 0

    @classmethod
    def build(cls, src: ir.Value, dst: ir.Value, *, transposed: bool,
              loc: ir.Location | None = None):
        op = ir.Operation.create(cls.OP_NAME, results=[], operands=[src, dst],
                                 attributes={"transposed": ir.BoolAttr.get(transposed)},
                                 loc=loc or ir.Location.unknown())
        return cls(op)

    @property
    def source(self) -> ir.Value:
        return self.op.operands[0]

    @property
    def dest(self) -> ir.Value:
        return self.op.operands[1]

    @property
    def plain(self) -> ir.Value:
        return self.op.operands[self.PLAIN_INDEX]

    @property
    def packed(self) -> ir.Value:
        return self.op.operands[1 - self.PLAIN_INDEX]

    @property
    def transposed(self) -> bool:
        a = self.op.attributes["transposed"] if "transposed" in self.op.attributes else None
        return bool(a.value) if a is not None else False

    @property
    def tile(self) -> AccelTile:
        return AccelTile.of_shape(memref_info(self.packed)[0])

    def verify(self) -> None:
        with located(self.op.location):
            if len(self.op.operands) != 2 or len(self.op.results) != 0:
                raise AccelError(f"'{self.OP_NAME}' takes 2 operands (source, dest) "
                                 f"and has no results")
            check_host_code(self.op)
            check_attribute_names(self.op, PACK_ATTRIBUTES)
            if "transposed" in self.op.attributes and not isinstance(
                    self.op.attributes["transposed"], ir.BoolAttr):
                raise AccelError("attribute 'transposed' must be a bool")
            plain, pt = memref_info(self.plain)
            packed, kt = memref_info(self.packed)
            if pt != kt:
                raise AccelError(f"element types differ: plain {pt} vs accel {kt}")
            if len(plain) != 3:
                raise AccelError(f"plain operand must be rank 3, got rank {len(plain)}")
            if len(packed) != 6:
                raise AccelError(f"accel operand must be rank 6, got rank {len(packed)}")
            check_nonempty(plain, "plain operand")
            check_nonempty(packed, "accel operand")
            check_plain_buffer(self.plain, "plain operand")
            check_plain_buffer(self.packed, "accel operand")
            g, x, y = plain
            d, k = (y, x) if self.transposed else (x, y)
            want = AccelTile.of_shape(packed).shape(g, d, k)
            if tuple(packed) != want:
                raise AccelError(f"accel shape {list(packed)} does not hold a [G={g}, D={d}, "
                                 f"K={k}] operand; expected {list(want)}")


class PackOp(_PackLike):
    OP_NAME = "accel.pack"
    PLAIN_INDEX = 0


class UnpackOp(_PackLike):
    OP_NAME = "accel.unpack"
    PLAIN_INDEX = 1
