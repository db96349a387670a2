"""`!migraphx.shaped<dims x elem, strides>`: the MIGraphX tensor type, read into Python.

MIGraphX writes a tensor type as its logical lengths, element type and, after a comma,
the stride of each dimension in elements: `1x128x5120xf16, 655360x5120x1`. A scalar
is `<f32>`. The strides of a function argument or result describe how the buffer is
laid out in memory; a transpose permutes them (a view), a broadcast sets them to 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accel.diagnostics import AccelError

_BODY = re.compile(r"^\s*((?:\d+\s*x\s*)*)([A-Za-z][A-Za-z0-9_]*)\s*(?:,\s*(\d+(?:\s*x\s*\d+)*)\s*)?$")

# MIGraphX element type -> (MLIR signless type, signed?) for integers; floats map to themselves.
_INT = re.compile(r"^(si|ui|i)(\d+)$")


@dataclass(frozen=True)
class ShapedType:
    dims: tuple[int, ...]
    elem: str                       # as MIGraphX spells it: f16, si32, ui8, ...
    strides: tuple[int, ...]

    @staticmethod
    def parse_body(body: str) -> "ShapedType":
        """Parse the text between the angle brackets; AccelError (no location) if malformed."""
        m = _BODY.match(body)
        if not m and "?" in body:
            raise AccelError(f"dynamic MIGraphX shape '<{body.strip()}>' is not supported: "
                             f"accel compiles static shapes")
        if not m:
            raise AccelError(f"malformed MIGraphX shaped type '<{body.strip()}>': expected "
                             f"'<dims x element-type, strides>'")
        dims = tuple(int(d) for d in re.findall(r"\d+", m.group(1)))
        strides = tuple(int(s) for s in re.findall(r"\d+", m.group(3) or ""))
        if m.group(3) is None:
            strides = standard_strides(dims)
        if len(strides) != len(dims):
            raise AccelError(f"MIGraphX shaped type '<{body.strip()}>' has {len(dims)} "
                             f"dimension(s) but {len(strides)} stride(s)")
        return ShapedType(dims, m.group(2), strides)

    @staticmethod
    def from_mlir(type_text: str) -> "ShapedType | None":
        """The ShapedType of an opaque `!migraphx.shaped<...>` MLIR type, or of a static
        `tensor<...>` (the older form: packed row-major), else None."""
        for prefix in ("!migraphx.shaped<", "tensor<"):
            if type_text.startswith(prefix) and type_text.endswith(">"):
                body = type_text[len(prefix):-1]
                if prefix == "tensor<" and ("?" in body or "," in body or "<" in body):
                    return None   # dynamic, encoded or nested: not a MIGraphX value
                return ShapedType.parse_body(body)
        return None

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def mlir_elem(self) -> str:
        """The MLIR element type: MIGraphX's signed/unsigned integers become signless."""
        m = _INT.match(self.elem)
        return f"i{m.group(2)}" if m else self.elem

    @property
    def is_unsigned(self) -> bool:
        return self.elem.startswith("ui")

    def __str__(self) -> str:
        dims = "".join(f"{d}x" for d in self.dims)
        strides = "x".join(str(s) for s in self.strides)
        return f"!migraphx.shaped<{dims}{self.elem}" + (f", {strides}>" if self.dims else ">")


def standard_strides(dims) -> tuple[int, ...]:
    """Row-major (packed) strides of `dims`."""
    out, acc = [], 1
    for d in reversed(dims):
        out.append(acc)
        acc *= d
    return tuple(reversed(out))
