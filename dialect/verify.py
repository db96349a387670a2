"""Verification of a whole module: every accel op in it, each by its own class."""

from __future__ import annotations

from accel.diagnostics import AccelError
from accel.dialect.copy import CopyOp
from accel.dialect.elementwise import ElementwiseOp
from accel.dialect.gemm import GemmOp
from accel.dialect.grouped_gemm import GroupedGemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.dialect.pack import PackOp, UnpackOp

# Every accel op: an `accel.` op not in this table is reported as unknown.
OP_CLASSES = {c.OP_NAME: c for c in (GemmOp, PackOp, UnpackOp, GroupedGemmOp, ElementwiseOp,
                                                     CopyOp)}


def module_errors(module) -> list[AccelError]:
    """One AccelError per invalid accel op in the module, in program order.

    Each op reports only its first broken rule, as MLIR's verifier does; the ops are
    independent, so a tool can show (and --verify-diagnostics can match) all of them.
    """
    errors = []
    for op in collect_ops(module):
        cls = OP_CLASSES.get(op.name)
        try:
            if cls is not None:
                cls(op).verify()
            elif op.name.startswith("accel."):
                raise AccelError(f"unknown accel op '{op.name}'", op.location)
        except AccelError as e:
            errors.append(e)
    return errors


def verify_module(module) -> None:
    """Verify every accel op in the module; the first error is raised."""
    errors = module_errors(module)
    if errors:
        raise errors[0]
