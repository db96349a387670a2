"""An index map's expression (dialect/copy.py's Expr trees) evaluated in a kernel, in i32.

Every subexpression is non-negative and every divisor a positive constant (the ops'
verifiers check both), so unsigned division and remainder compute floordiv and mod.
"""

from __future__ import annotations

from accel.codegen.builder import Emitter, Value
from accel.dialect.copy import Expr


def index_value(em: Emitter, x: Expr, dims: list[Value]) -> Value:
    """`x` at the index `dims` (one value per dimension of the map)."""
    if x[0] == "dim":
        return dims[x[1]]
    if x[0] == "const":
        return x[1]
    a = index_value(em, x[1], dims)
    if x[0] == "add":
        return em.add(a, index_value(em, x[2], dims))
    if x[0] == "mul":
        return em.mul(a, index_value(em, x[2], dims))
    c = x[2][1]
    if x[0] == "floordiv":
        return em.div(a, c)
    if x[0] == "ceildiv":
        return em.div(em.add(a, c - 1), c)
    return em.rem(a, c)
