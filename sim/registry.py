"""The table from op name to its interpreter-compile function.

An op module registers `compile_fn(compiler, op) -> closure` for the op names it
implements; the compiler looks the name up and reports anything missing as outside the
Kernel IR subset. A closure takes the thread-batch `State` and returns nothing.
"""

from __future__ import annotations

OPS: dict = {}


def op(*names: str):
    def register(fn):
        for name in names:
            OPS[name] = fn
        return fn

    return register
