"""accel.gemm's fused epilogue: a small op list over the product and extra operands.

The `epilogue` attribute of accel.gemm is one of the fixed names "none", "bias", "relu",
"bias_relu", or an op list, one step per `;`, each defining the next numbered value:

  epilogue = "%0 = mul %acc, %e0; %1 = add %0, 1.5; %2 = relu %1"

`%acc` is A*B (+ C_old with `accumulate`) in the accumulator type (f32; i32 for i8
inputs), `%eN` the gemm's (3+N)-th operand, `%K` an earlier step, a number a literal.
Every step computes in the accumulator type; the last step's value is converted once to
C's type. The extra operands are broadcast to C's [G, M, N]; `epilogue_operands` names,
per extra operand, the indices it varies with: "gmn" (a full [G, M, N] buffer), "n" ([N]),
"gn" ([G, N]), "m" ([M]), "gm" ([G, M]) or "" (a scalar, [1]). An operand of another
element type is converted to the accumulator type on load (floats extended, integers
sign-converted; a float operand of an integer chain is an error).

The fixed names are the op lists `bias` = "%0 = add %acc, %e0", `relu` = "%0 = relu %acc"
and `bias_relu`, their bias of C's element type and kind "n" or "gn" read off its shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accel.diagnostics import AccelError

LEGACY = {"none": "", "bias": "%0 = add %acc, %e0", "relu": "%0 = relu %acc",
          "bias_relu": "%0 = add %acc, %e0; %1 = relu %0"}
EPILOGUES = tuple(LEGACY)
# The fixed epilogues that read a bias operand (the gemm's 4th).
BIAS_EPILOGUES = ("bias", "bias_relu")
KINDS = ("gmn", "n", "gn", "m", "gm", "")

# name -> (operand count, float chains only). `convert_T` rounds through type T and
# back (a MIGraphX convert inside the chain); a convert to C's type is C's conversion.
OPS = {
    "add": (2, False), "sub": (2, False), "mul": (2, False), "div": (2, False),
    "max": (2, False), "min": (2, False), "greater": (2, False), "less": (2, False),
    "relu": (1, False), "neg": (1, False), "abs": (1, True), "exp": (1, True),
    "sigmoid": (1, True), "tanh": (1, True), "erf": (1, True),
    "where": (3, False), "clip": (3, False),
}
ROUND_TYPES = ("f16", "bf16", "f32", "i8", "i32")
for _t in ROUND_TYPES:
    OPS[f"convert_{_t}"] = (1, False)

_STEP = re.compile(r"^\s*%(\d+)\s*=\s*([a-z0-9_]+)\s+(.+?)\s*$")
_ARG = re.compile(r"^(%acc|%e\d+|%\d+|-?\d+(\.\d*)?([eE][-+]?\d+)?|-?inf|nan)$")


@dataclass(frozen=True)
class Step:
    op: str
    args: tuple[str, ...]    # "%acc", "%eN", "%K" or a literal's text


@dataclass(frozen=True)
class Program:
    steps: tuple[Step, ...]

    @staticmethod
    def parse(text: str) -> "Program":
        """The op list in `text` (a fixed name or `%0 = op args; ...`); AccelError naming
        the bad step."""
        text = LEGACY.get(text, text)
        steps = []
        for i, part in enumerate(p for p in text.split(";") if p.strip()):
            m = _STEP.match(part)
            if not m:
                raise AccelError(f"epilogue step {i} '{part.strip()}': expected "
                                 f"'%{i} = <op> <operands>'")
            if int(m.group(1)) != i:
                raise AccelError(f"epilogue step {i} defines %{m.group(1)}; steps number "
                                 f"their values %0, %1, ... in order")
            op, args = m.group(2), tuple(a.strip() for a in m.group(3).split(","))
            if op not in OPS:
                raise AccelError(f"epilogue step {i}: unknown op '{op}' (known: "
                                 f"{', '.join(sorted(OPS))})")
            if len(args) != OPS[op][0]:
                raise AccelError(f"epilogue step {i}: '{op}' takes {OPS[op][0]} operand(s), "
                                 f"got {len(args)}")
            for a in args:
                if not _ARG.match(a):
                    raise AccelError(f"epilogue step {i}: bad operand '{a}'")
                if re.fullmatch(r"%\d+", a) and int(a[1:]) >= i:
                    raise AccelError(f"epilogue step {i} uses {a} before it is defined")
            steps.append(Step(op, args))
        return Program(tuple(steps))

    def __str__(self) -> str:
        return "; ".join(f"%{i} = {s.op} {', '.join(s.args)}" for i, s in enumerate(self.steps))

    @property
    def extra_count(self) -> int:
        """Extra operands the steps read: one more than the highest %eN."""
        used = [int(a[2:]) for s in self.steps for a in s.args if a.startswith("%e")]
        return max(used) + 1 if used else 0

    def verify(self, acc: str, extras: list[tuple[str, str]]) -> None:
        """`extras`: (kind, element type) of each extra operand."""
        if self.extra_count > len(extras):
            raise AccelError(f"epilogue reads %e{self.extra_count - 1} but the gemm has "
                             f"{len(extras)} extra operand(s)")
        for i, s in enumerate(self.steps):
            if acc == "i32" and OPS[s.op][1]:
                raise AccelError(f"epilogue step {i}: '{s.op}' needs a float accumulator, "
                                 f"not {acc}")
            if acc == "i32" and s.op.startswith("convert_") and s.op[8:] not in ("i8", "i32"):
                raise AccelError(f"epilogue step {i}: an {acc} chain cannot round to "
                                 f"{s.op[8:]}")
            for a in s.args:
                if acc == "i32" and not a.startswith("%") and not re.fullmatch(r"-?\d+", a):
                    raise AccelError(f"epilogue step {i}: literal {a} in an {acc} chain")
        for j, (kind, elem) in enumerate(extras):
            if kind not in KINDS:
                raise AccelError(f"epilogue operand {j} kind '{kind}' is not one of "
                                 f"{', '.join(repr(k) for k in KINDS)}")
            if acc == "i32" and elem.startswith(("f", "bf")):
                raise AccelError(f"epilogue operand {j} of type {elem} in an {acc} chain")


def kind_shape(kind: str, g: int, m: int, n: int) -> list[int]:
    """The buffer shape of an extra operand of `kind`."""
    sizes = {"g": g, "m": m, "n": n}
    return [sizes[c] for c in kind] or [1]
