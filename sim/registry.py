"""The table from op name to its interpreter-compile function.

An op module registers `compile_fn(compiler, op) -> closure` for the op names it
implements; the compiler looks the name up and reports anything missing as outside the
Kernel IR subset. A closure takes the thread-batch `State` and returns nothing.
"""

from __future__ import annotations

OPS: dict = {}
# Ops only the host interpreter (accel.sim.host) runs: launches, allocations, globals.
HOST_OPS: dict = {}


def _registrar(table: dict, names):
    def register(fn):
        for name in names:
            table[name] = fn
        return fn

    return register


def op(*names: str):
    return _registrar(OPS, names)


def host_op(*names: str):
    return _registrar(HOST_OPS, names)
