"""The one module that imports the MLIR Python bindings.

Everything else in accel takes `ir`, `passmanager` and the dialect op modules from
here, so switching binding provider (flydsl today, upstream `mlir` wheels later)
touches this file only.
"""

import importlib.util
import sys

# flydsl's own __init__.py imports its autotuner (logging, statistics, pathlib, the
# autotuner's cache: 40 modules, ~25 ms of a ~130 ms import of the bindings), which
# accel never uses: where flydsl is not loaded yet, its package module is made without
# running that body, which then runs on the first use of an attribute it defines
# (`flydsl.__version__`, `flydsl.autotune`), so the package stays whole to other code.
_spec = importlib.util.find_spec("flydsl") if "flydsl" not in sys.modules else None
if _spec is not None:   # (not installed: the import below says so)
    _BARE_PACKAGE = importlib.util.module_from_spec(_spec)

    def _run_package_body(name: str):
        del _BARE_PACKAGE.__getattr__
        _spec.loader.exec_module(_BARE_PACKAGE)
        return getattr(_BARE_PACKAGE, name)

    _BARE_PACKAGE.__getattr__ = _run_package_body
    sys.modules["flydsl"] = _BARE_PACKAGE

# The bindings' ir.py imports numpy optionally (`try: import numpy`), only to register
# Python builders of F64/I32/I64/IndexElementsAttr, which none of the bindings' dialect
# modules and no accel code uses. numpy's import is ~60 ms of a ~0.45 s one-GEMM
# compile in a fresh process, which needs no numpy (dialect/element_types.py imports it
# on first use of a host type), so where it is not loaded yet the bindings are imported
# with it hidden, and it is importable again afterwards.
_HIDE_NUMPY = "numpy" not in sys.modules
if _HIDE_NUMPY:
    sys.modules["numpy"] = None     # `import numpy` raises ImportError meanwhile
try:
    from flydsl._mlir import ir, passmanager  # noqa: F401
    # Only the op classes accel builds or reads. Every upstream dialect is registered in
    # a context without its Python module, and the unused ones cost start-up time:
    # rocdl's 42 ms and llvm's 29 ms of a 230 ms import (python -X importtime).
    from flydsl._mlir.dialects import arith, func, gpu, memref  # noqa: F401
finally:
    if _HIDE_NUMPY:
        del sys.modules["numpy"]


def new_context() -> ir.Context:
    """A context that accepts our unregistered `accel.*` ops (printed in generic form)."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    return ctx
