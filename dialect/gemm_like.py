"""What the GEMM-like ops (accel.gemm, accel.grouped_gemm) share: A and B as the first
two operands, the arch, the perf config parsed for the arch's MMA kind, A's and C's
element types, and the rules their verifiers check first.
"""

from __future__ import annotations

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.dialect.ir_helpers import OpView, memref_info, string_attr
from accel.dialect.op_rules import check_attribute_names, check_host_code
from accel.dialect.perf_config import PerfConfig
from accel.target.database import ArchInfo, get_arch


class GemmLikeOp(OpView):
    """The base of GemmOp and GroupedGemmOp; each says where C is (`c`)."""

    @property
    def a(self) -> ir.Value:
        return self.op.operands[0]

    @property
    def b(self) -> ir.Value:
        return self.op.operands[1]

    @property
    def arch(self) -> str | None:
        return string_attr(self.op, "arch")

    @property
    def perf_config_text(self) -> str | None:
        return string_attr(self.op, "perf_config")

    @property
    def perf_config(self) -> PerfConfig | None:
        text = self.perf_config_text
        if text is None:
            return None
        try:
            return PerfConfig.parse(text, get_arch(self.arch).mma_kind)
        except AccelError as e:
            raise AccelError(e.message, self.location) from None

    @property
    def in_type(self) -> str:
        """A's element type."""
        return memref_info(self.a)[1]

    @property
    def out_type(self) -> str:
        return memref_info(self.c)[1]

    def check_frame(self, attributes: tuple[str, ...]) -> ArchInfo:
        """The rules checked right after the operand count: host code, the attribute
        names, a named arch; that arch's database entry."""
        check_host_code(self.op)
        check_attribute_names(self.op, attributes)
        if self.arch is None:
            raise AccelError(f"'{self.OP_NAME}' requires an 'arch' attribute")
        return get_arch(self.arch)
