"""accel: a Python-driven MLIR compiler that turns a GEMM into AMD GPU code objects.

The library API is re-exported here lazily (PEP 562), so that importing a subpackage
such as `accel.sim` does not load the compiler: the simulator must stay independent
of the passes it checks.
"""

_EXPORTS = {
    "compile_gemm": "accel.api",
    "compile_module": "accel.api",
    "compile_grouped_gemm": "accel.api",
    "compile_batch": "accel.batch",
    "compile_module_batch": "accel.batch",
    "KernelCache": "accel.cache",
    "CompileResult": "accel.compiled",
    "CompiledKernel": "accel.compiled",
    "pack": "accel.dialect.accel_tile",
    "unpack": "accel.dialect.accel_tile",
    "AccelTile": "accel.dialect.accel_tile",
    "PerfConfig": "accel.dialect.perf_config",
    "AccelError": "accel.diagnostics",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        import importlib
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'accel' has no attribute '{name}'")
