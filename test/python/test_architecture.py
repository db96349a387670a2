"""The layering rules of docs/contracts.md, checked on the import graph.

The simulator is the only eye on correctness, so it must not share code with the
compiler it checks; and only bindings.py may import the MLIR bindings.
"""

import ast
import pathlib
import subprocess
import sys

import numpy as np

import accel

ROOT = pathlib.Path(accel.__file__).parent
SOURCES = [p for p in ROOT.rglob("*.py")
           if not any(part in (".venv", "test", "build") for part in p.relative_to(ROOT).parts)]


def imported_modules(path: pathlib.Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_only_bindings_module_imports_mlir():
    offenders = [str(p.relative_to(ROOT)) for p in SOURCES
                 if p.name != "bindings.py"
                 and any(m.startswith(("flydsl", "mlir")) for m in imported_modules(p))]
    assert offenders == []


# The layers, lowest first (docs/contracts.md: tools -> pipelines -> passes -> dialect -> bindings,
# target). A module may import its own group and any lower layer, nothing above it; the
# simulator's stricter rule (no compiler code at all) is the next test's.
LAYERS = (("bindings", "diagnostics", "compiled"), ("validate",), ("target",), ("dialect",),
          ("tuning",), ("codegen",), ("migraphx",), ("sim",), ("passes",), ("pipelines",),
          ("api", "launches"), ("cache", "batch", "batch_compile"), ("check",), ("tools",))
RANK = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}


def package_of(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def test_imports_run_down_the_layers():
    offenders = []
    for p in SOURCES:
        own = package_of(p)
        if own in ("__init__", "benchmarks", "scripts"):
            continue   # the package's exports; scripts that use every layer
        assert own in RANK, f"{own} is in no layer of LAYERS"
        for m in imported_modules(p):
            if not m.startswith("accel."):
                continue
            dep = m.split(".")[1]
            if RANK[dep] > RANK[own]:
                offenders.append(f"{p.relative_to(ROOT)} imports {m}")
    assert offenders == []


def test_every_pass_module_is_listed():
    from accel.passes.registry import PASS_MODULES
    defining = sorted(p.stem for p in (ROOT / "passes").glob("*.py")
                      if "@register" in p.read_text() and p.stem != "registry")
    assert sorted(PASS_MODULES) == defining


def test_generic_ir_helpers_know_no_accel_op():
    """dialect/ir_helpers.py is the layer every op class and pass reads IR through: it
    may use the bindings and the diagnostics, nothing of the dialect above it."""
    deps = {m for m in imported_modules(ROOT / "dialect" / "ir_helpers.py")
            if m.startswith("accel")}
    assert deps <= {"accel.bindings", "accel.diagnostics"}


def test_module_verifier_lists_every_op_class():
    """module_errors reports an accel op missing from OP_CLASSES as unknown, so every op
    class the dialect defines must be in it."""
    import importlib
    from accel.dialect.ir_helpers import OpView
    from accel.dialect.verify import OP_CLASSES
    for p in (ROOT / "dialect").glob("*.py"):
        if p.stem != "__init__":
            importlib.import_module(f"accel.dialect.{p.stem}")

    def op_classes(cls):
        for sub in cls.__subclasses__():
            if sub.OP_NAME:
                yield sub
            yield from op_classes(sub)

    defined = {c.OP_NAME: c for c in op_classes(OpView)}
    assert defined == OP_CLASSES
    assert sorted(defined) == ["accel.copy", "accel.elementwise", "accel.gemm",
                               "accel.grouped_gemm", "accel.pack", "accel.unpack"]


def test_simulator_imports_no_compiler_module():
    compiler = ("accel.passes", "accel.pipelines", "accel.codegen", "accel.tuning", "accel.api")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "sim").rglob("*.py")
                 if any(m.startswith(compiler) for m in imported_modules(p))]
    assert offenders == []
    # And loading it does not pull the compiler in through a package __init__.
    probe = ("import sys, accel.sim; "
             f"print([m for m in sys.modules if m.startswith({compiler!r})])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_nothing_below_tools_prints_or_exits():
    offenders = []
    for p in SOURCES:
        rel = p.relative_to(ROOT)
        if rel.parts[0] in ("tools", "benchmarks"):
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("print", "exit", "quit"):
                offenders.append(f"{rel}:{node.lineno}")
            if isinstance(node, ast.Attribute) and node.attr == "exit" \
                    and isinstance(node.value, ast.Name) and node.value.id == "sys":
                offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []


def test_library_exports():
    tile = accel.AccelTile(d_per_block=16, kpack_per_block=2, kpack=4)
    x = np.arange(2 * 19 * 13, dtype=np.float32).reshape(2, 19, 13)
    packed = accel.pack(x, tile)
    assert packed.shape == (2, 2, 2, 2, 16, 4)
    assert np.array_equal(accel.unpack(packed, 19, 13), x)
    assert str(accel.PerfConfig.parse("v4:64,64,8,32,32,16,4,2,3,2,0,0,1,1")) == \
        "v4:64,64,8,32,32,16,4,2,3,2,0,0,1,1"
    result = accel.compile_gemm("gfx1100", m=16, n=16, k=16, assembly=False)
    assert result.kernels[0].code_object[:4] == b"\x7fELF"
