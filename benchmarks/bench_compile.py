"""Compile latency per GEMM kernel: accel.gemm -> ELF code object, in-process.

    python benchmarks/bench_compile.py [--repeat 5] [--assembly] [--stages | --kinds]
        [--only-type T] [--bf16-round truncf|i32]

Times `accel.api.compile_gemm` (perf-config selection, codegen, ROCDL lowering, LLVM
backend, link) per shape and arch after one warm-up compile per arch, so process start
and first-use initialization are excluded. Prints one line per kernel and, over the
18 kernels, the median of each kernel's best and of each kernel's median time; the
target is 100 ms per kernel. `--assembly` also produces the assembly (a second LLVM
backend run).

Why the best of N: on a shared machine the same compile, repeated in one process,
took anywhere from 64 to 169 ms (a 1x11008x4096 f16 kernel, gfx1201, 40 compiles);
the compiler does the same work every time, so the fastest repeat is its latency
and the rest is the neighbours' load (the `timeit` convention). The median of the
repeats is printed beside it, and CPU time (this process and the linker it starts)
beside wall time.

`--stages` prints where each kernel's CPU time goes instead, a stage at a time (best
of N each, the library's steps run one by one): the module text with perf-config
selection, parse and Kernel IR (accel's passes and codegen), each upstream pass of the
kernel lowering on its own, LLVM's translation and middle end alone (gpu-module-to-binary
format=offloading: the LLVM IR the backend would take), LLVM to assembly alone
(format=isa: the same plus the AMDGPU backend and the assembly print), on WMMA chips
accel-wmma-banks' renumbering of that assembly (Python, wmma_banks.renumber), and the
serialization as the library runs it (the backend again, plus assembling and linking,
and on WMMA chips the renumbering), with the ld.lld link's own CPU. Each row names the
kernel's tile (MxNxK, the MMA size) and how many kernels the GEMM has (2: split-K's
partial products and reduction), since a kernel's time follows its tile; the load
average before and after is printed, the measure of how much the neighbours took.
`--kinds` prints the same stages for the other kernel kinds (OTHER_KINDS: an
elementwise chain, a row reduction, a transposing copy; seed 003's grouped GEMM), each
row naming how many kernels its module has.

`--ir-size` prints, per kernel, the size of the IR accel hands to LLVM against the
machine code that comes out: the LLVM dialect ops of the lowered gpu.module (after
kernel_lowering; each is one LLVM IR instruction when translated, before LLVM's middle
end; constants and the function itself not counted), the most frequent of them, the
elements their vector shuffles produce (llvm.shufflevector's mask length summed, and
the widest vector shuffled), and the machine instructions of the kernel's assembly.

`--llvm-instructions` prints, per GEMM of SHAPES, the machine instructions LLVM executes
to serialize its lowered gpu.module to assembly (gpu-module-to-binary format=isa: the
translation, middle end and backend), counted by valgrind's callgrind with
instrumentation switched on around that pass alone, in one child process for all of
them (~30 min; needs valgrind). Unlike a time on this shared machine (gfx942 4096^3's
serialization took 116-155 ms CPU, best of 4, at load average 0.2-0.4) the count
repeats within 0.1%, so it shows a change of a few percent in LLVM's work; beside it
the kernels' machine instructions, which LLVM's work follows.

`--only-type T` keeps the GEMMs of SHAPES whose input type is T (bf16: 3402x4096x1024
on each chip) in the timings, `--ir-size` and `--llvm-instructions`. `--bf16-round`
makes the plan round f32 to bf16 that way wherever it rounds to bf16
(passes/plan_kernel.py `bf16_round`): the figures of both ways from one tree.

`--first-select` prints the CPU milliseconds of the first perf-config selection of each
arch and element type in a fresh process (it builds the shape-independent candidate
table, tuning/selection.py's ladder, that a one-GEMM `accel-compile` pays for) and of a
second selection (another shape, the table reused), best of `--repeat` processes, with
the table's size. `--pythonpath DIR` times another checkout's selector the same way
(DIR holds its `accel` package): a before/after.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter

from accel.api import (compile_gemm, gemm_module_text, grouped_gemm_module_text,
                       shared_context)
from accel.bindings import ir
from accel.dialect.kernel_plan import BF16_ROUNDS
from accel.passes import plan_kernel, wmma_banks
from accel.pipelines.kernel import LLVM_ASSEMBLY, KernelPipeline, binaries, kernel_lowering
from accel.pipelines.serialize import serialize
from accel.pipelines.textual import UpstreamSegment, run_steps, split_top_level

ARCHES = ("gfx942", "gfx1100", "gfx1201")
# (g, m, n, k, in_type): model-like shapes, ragged ones, a batched one, seed 001's.
SHAPES = (
    (1, 4096, 4096, 4096, "f16"),
    (1, 128, 1280, 5120, "f16"),
    (1, 1, 11008, 4096, "f16"),
    (1, 3402, 4096, 1024, "bf16"),
    (8, 512, 512, 64, "f16"),
    (1, 77, 1001, 320, "i8"),
)
# Every input type of each chip (fp8: one format a family).
FIRST_SELECT = (("gfx942", "f16"), ("gfx942", "bf16"), ("gfx942", "f32"), ("gfx942", "i8"),
                ("gfx942", "f8E4M3FNUZ"), ("gfx1100", "f16"), ("gfx1100", "bf16"),
                ("gfx1100", "i8"), ("gfx1201", "f16"), ("gfx1201", "bf16"), ("gfx1201", "i8"),
                ("gfx1201", "f8E4M3FN"))
# Run in a fresh process per measurement: prints the first and second selection's CPU
# milliseconds and the number of candidates the table admits.
_FIRST_SELECT_CHILD = """
import sys, time
from accel.api import default_out_type
from accel.dialect.gemm import GemmShape
from accel.target.database import get_arch
from accel.tuning import selection
arch, in_type = get_arch(sys.argv[1]), sys.argv[2]
out_type = default_out_type(in_type)
t0 = time.process_time()
selection.select(arch, in_type, out_type, GemmShape(1, 4096, 4096, 4096))
t1 = time.process_time()
second = selection.select(arch, in_type, out_type, GemmShape(1, 3402, 1001, 320))
t2 = time.process_time()
print((t1 - t0) * 1e3, (t2 - t1) * 1e3, len(second.ranked) + len(second.rejected))
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5, help="compiles per kernel")
    p.add_argument("--assembly", action="store_true", help="also produce the assembly")
    p.add_argument("--without-wmma-banks", action="store_true",
                   help="serialize as LLVM allocated (wmma_banks.ENABLED = False): the before")
    p.add_argument("--stages", action="store_true",
                   help="print each stage's CPU time per kernel instead of whole compiles")
    p.add_argument("--kinds", action="store_true",
                   help="--stages for the other kernel kinds: elementwise, row reduction, "
                        "copy, grouped GEMM")
    p.add_argument("--ir-size", action="store_true",
                   help="the LLVM IR accel hands over against the machine instructions, "
                        "per kernel, instead")
    p.add_argument("--llvm-instructions", action="store_true",
                   help="instructions LLVM executes to serialize each kernel (valgrind)")
    p.add_argument("--first-select", action="store_true",
                   help="the first and second selection's CPU time per arch and type instead")
    p.add_argument("--pythonpath", help="with --first-select: time the accel package in "
                   "this directory instead")
    p.add_argument("--only-type", help="only the GEMMs of this input type")
    p.add_argument("--bf16-round", choices=BF16_ROUNDS,
                   help="round f32 to bf16 this way wherever the plan rounds to bf16")
    args = p.parse_args()
    global SHAPES
    if args.only_type:
        SHAPES = tuple(s for s in SHAPES if s[4] == args.only_type)
    if args.bf16_round:
        force_bf16_round(args.bf16_round)
    if args.first_select:
        first_select(args.repeat, args.pythonpath)
        return
    wmma_banks.ENABLED = not args.without_wmma_banks
    if args.ir_size:
        ir_size()
        return
    if args.llvm_instructions:
        llvm_instructions()
        return
    if args.stages or args.kinds:
        stages(args.repeat, args.assembly, args.kinds)
        return
    print(f"load average before: {load_average()}")
    for arch in ARCHES:  # warm-up: bindings, linker shim, each target's first use
        compile_gemm(arch, m=64, n=64, k=64, assembly=args.assembly)
    rows = {"best": [], "median": [], "best cpu": [], "median cpu": []}
    print(f"{'':42} {'best':>7} {'median':>7} {'cpu best':>9} {'cpu median':>10}  (ms)")
    for arch in ARCHES:
        for g, m, n, k, t in SHAPES:
            times, cpu = [], []
            for _ in range(args.repeat):
                start, start_cpu = time.perf_counter(), cpu_seconds()
                r = compile_gemm(arch, g=g, m=m, n=n, k=k, in_type=t, assembly=args.assembly)
                times.append(time.perf_counter() - start)
                cpu.append(cpu_seconds() - start_cpu)
            row = [min(times), statistics.median(times), min(cpu), statistics.median(cpu)]
            for key, v in zip(rows, row):
                rows[key].append(v * 1e3)
            meta = r.kernels[0].metadata
            print(f"{arch:8} g={g} m={m:<5} n={n:<6} k={k:<5} {t:5} "
                  + " ".join(f"{v * 1e3:{w}.1f}" for v, w in zip(row, (7, 7, 9, 10)))
                  + f"  {meta['perf_config']}  vgprs={meta['vgprs']}")
    med = {key: statistics.median(v) for key, v in rows.items()}
    print(f"median over {len(rows['best'])} kernels: best {med['best']:.1f} ms, "
          f"median {med['median']:.1f} ms (cpu: best {med['best cpu']:.1f}, "
          f"median {med['median cpu']:.1f})")
    print(f"median compile latency per kernel: {med['best']:.1f} ms (best of {args.repeat}; "
          f"target <= 100 ms)")
    print(f"load average after: {load_average()}")


def lowering_passes(arch: str) -> list[str]:
    """The kernel lowering's upstream passes, each a pipeline of its own (nested ones
    inside their gpu.module)."""
    out = []
    for element in split_top_level(kernel_lowering(arch)):
        if element.startswith("gpu.module(") and element.endswith(")"):
            out += [f"gpu.module({p})" for p in split_top_level(element[len("gpu.module("):-1])]
        else:
            out.append(element)
    return out


# The other kernel kinds, one module each (arch filled in): a fused elementwise chain
# over a [M] broadcast, a row reduction (softmax's sum), a transposing copy, and seed
# 003's grouped GEMM (its prep and main kernels).
OTHER_KINDS = (
    ("elementwise 1x2048x4096 f16",
     'func.func @f(%x: memref<1x2048x4096xf16>, %s: memref<2048xf32>, '
     '%o: memref<1x2048x4096xf16>) {\n  "accel.elementwise"(%x, %s, %o) {arch = "ARCH", '
     'operands = ["gmn", "m"], program = "%0 = mul %e0, %e1; %1 = add %0, 0.5"} : '
     '(memref<1x2048x4096xf16>, memref<2048xf32>, memref<1x2048x4096xf16>) -> ()\n'
     '  return\n}\n'),
    ("row sum 1x2048x4096 f16",
     'func.func @f(%x: memref<1x2048x4096xf16>, %o: memref<1x2048x1xf32>) {\n'
     '  "accel.elementwise"(%x, %o) {arch = "ARCH", operands = ["gmn"], program = "", '
     'reduce = "sum", n = 4096} : (memref<1x2048x4096xf16>, memref<1x2048x1xf32>) -> ()\n'
     '  return\n}\n'),
    ("copy transpose 1x1024x4096 f16",
     'func.func @f(%x: memref<1x4096x1024xf16>, %o: memref<1x1024x4096xf16>) {\n'
     '  "accel.copy"(%x, %o) {arch = "ARCH", shape = array<i64: 1, 1024, 4096>, '
     'input_map = affine_map<(d0, d1, d2) -> (d0, d2, d1)>, '
     'output_map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : '
     '(memref<1x4096x1024xf16>, memref<1x1024x4096xf16>) -> ()\n  return\n}\n'),
)
GROUPED = dict(groups=120, n=256, k=256, max_seq_len=7680, total_rows=921600, in_type="bf16")


def stages(repeat: int, assembly: bool, kinds: bool) -> None:
    """Per kernel, the best CPU time of each stage of a compile, run one by one: the
    GEMMs of SHAPES as compile_gemm makes them, or with `kinds` the other kernel kinds."""
    print(f"load average before: {load_average()}")
    for arch in ARCHES:  # warm-up, as for whole compiles
        compile_gemm(arch, m=64, n=64, k=64, assembly=assembly)
    names = ["text+select", "kernel IR"]
    passes = {arch: lowering_passes(arch) for arch in ARCHES}
    short = [p.split("(")[-1].split("{")[0].rstrip(")").replace("convert-", "")
             for p in passes[ARCHES[0]]]
    names += short + ["LLVM opt", "LLVM to ISA", "renumber", "serialize", "of it ld.lld"]
    width = [max(len(n), 6) for n in names]
    print(f"{'':42} {'tile':19} " + " ".join(f"{n:>{w}}" for n, w in zip(names, width))
          + "  (ms CPU)")
    rows = []
    for arch in ARCHES:
        pipeline = KernelPipeline(arch=arch)
        cases = []
        if kinds:
            cases += [(label, lambda text=text, arch=arch: text.replace("ARCH", arch))
                      for label, text in OTHER_KINDS]
            cases.append((f"grouped gemm {GROUPED['groups']} groups", lambda arch=arch:
                          grouped_gemm_module_text(arch, **GROUPED)))
        else:
            cases += [(f"g={g} m={m:<5} n={n:<6} k={k:<5} {t:5}",
                       lambda arch=arch, g=g, m=m, n=n, k=k, t=t: gemm_module_text(
                           arch, g=g, m=m, n=n, k=k, in_type=t, out_type=None,
                           trans_a=False, trans_b=False, a_layout="row", b_layout="row",
                           perf_config=None, accumulate=False))
                      for g, m, n, k, t in SHAPES]
        for label, make_text in cases:
            best, what = stage_times(pipeline, passes[arch], make_text, repeat, assembly)
            rows.append(best)
            print(f"{arch:8} {label:33} {what:19} "
                  + " ".join(f"{v * 1e3:{w}.1f}" for v, w in zip(best, width)))
    med = [statistics.median(col) for col in zip(*rows)]
    print(f"{'median over ' + str(len(rows)) + ' modules':62} "
          + " ".join(f"{v * 1e3:{w}.1f}" for v, w in zip(med, width)))
    # A compile is every stage but the separate runs (the link and the renumbering are
    # inside serialize).
    alone = ("LLVM opt", "LLVM to ISA", "renumber", "of it ld.lld")
    compile_stages = [i for i, nm in enumerate(names) if nm not in alone]
    print(f"median of a compile's stages summed: "
          f"{statistics.median(sum(r[i] for i in compile_stages) for r in rows) * 1e3:.1f} ms "
          f"a module (assembly {'on' if assembly else 'off'})")
    at = {nm: i for i, nm in enumerate(names)}
    python = [r[at["text+select"]] + r[at["kernel IR"]] + r[at["renumber"]] for r in rows]
    upstream = [sum(r[at[nm]] for nm in short) for r in rows]
    backend = [r[at["LLVM to ISA"]] - r[at["LLVM opt"]] for r in rows]
    print("medians: accel's Python (selection, Kernel IR, renumbering) "
          f"{statistics.median(python) * 1e3:.1f} ms; upstream MLIR lowering "
          f"{statistics.median(upstream) * 1e3:.1f} ms; LLVM translation and middle end "
          f"{med[at['LLVM opt']] * 1e3:.1f} ms; LLVM backend to assembly (ISA - opt) "
          f"{statistics.median(backend) * 1e3:.1f} ms; ld.lld {med[at['of it ld.lld']] * 1e3:.1f} ms")
    print(f"load average after: {load_average()}")


def stage_times(pipeline: KernelPipeline, passes: list[str], make_text, repeat: int,
                assembly: bool) -> tuple[list[float], str]:
    """The best CPU seconds of each stage over `repeat` compiles of `make_text()`'s
    module, and what it compiles to (the first gemm's tile, or the kernel count)."""
    best: list[float] = []
    for _ in range(repeat):
        times = []
        with shared_context():
            start = cpu_seconds()
            text = make_text()
            times.append(cpu_seconds() - start)
            start = cpu_seconds()
            module = ir.Module.parse(text)
            built = pipeline.to_kernel_ir(module)
            times.append(cpu_seconds() - start)
            for segment in passes:
                start = cpu_seconds()
                run_steps(module, [UpstreamSegment(segment, verify=False)])
                times.append(cpu_seconds() - start)
            lowered = str(module)
            for fmt in ("offloading", "isa"):
                alone = ir.Module.parse(lowered)
                start = cpu_seconds()
                run_steps(alone, [UpstreamSegment(f"gpu-module-to-binary{{format={fmt}}}",
                                                  verify=False)])
                times.append(cpu_seconds() - start)
            start = cpu_seconds()
            if wmma_banks.applies(pipeline.arch):
                for asm in binaries(alone).values():
                    wmma_banks.renumber(asm.decode())
            times.append(cpu_seconds() - start)
            start, start_link = cpu_seconds(), children_cpu_seconds()
            objects, _ = serialize(module, assembly, pipeline)
            times += [cpu_seconds() - start, children_cpu_seconds() - start_link]
        best = [min(b, x) for b, x in zip(best, times)] if best else times
    if built.gemms:
        cfg = built.gemms[0].config
        what = (f"{cfg.m_per_block}x{cfg.n_per_block}x{cfg.k_per_block} {cfg.mn_per_xdl}"
                + (" x2" if built.gemms[0].reduction is not None else ""))
    else:
        what = f"{len(objects)} kernel{'s' if len(objects) > 1 else ''}"
    return best, what


# An op of the lowered gpu.module: its name at the start of a line (after `%x = `).
_OP = re.compile(r"^\s*(?:%[^=]*=\s*)?((?:llvm|rocdl)\.[a-z0-9_.]+)", re.M)
# Not instructions of the LLVM IR: constants, globals, the function and its attributes.
_NOT_INSTRUCTIONS = ("llvm.mlir.", "llvm.func", "llvm.ptr", "llvm.struct", "llvm.array",
                     "llvm.mmra", "llvm.noalias", "llvm.align", "llvm.dereferenceable")
_SHUFFLE = re.compile(r"llvm\.shufflevector %\S+, %\S+ \[([^\]]*)\] : vector<(\d+)x")
# An instruction line of the assembly: a mnemonic, not a directive or a label.
_INSTRUCTION = re.compile(r"^\s+[a-z][a-z0-9_.]*(?:\s|$)", re.M)


def ir_size() -> None:
    """Per GEMM of SHAPES and arch: its kernels' LLVM dialect ops by name against their
    machine instructions, one row a kernel (a split-K GEMM has two)."""
    print(f"{'':44} {'kernel':9} {'LLVM ops':>8} {'shuffled':>8} {'widest':>6} "
          f"{'machine':>7} {'ratio':>5}  top ops")
    rows = []
    for arch in ARCHES:
        for g, m, n, k, t in SHAPES:
            with shared_context():
                module = lowered_gemm(arch, g, m, n, k, t)
                texts = {op.attributes["sym_name"].value: str(op)
                         for op in module.body.operations if op.operation.name == "gpu.module"}
                run_steps(module, [UpstreamSegment(LLVM_ASSEMBLY, verify=False)])
                assembly = {sym: asm.decode() for sym, asm in binaries(module).items()}
            for sym, text in texts.items():
                ops = Counter(name for name in _OP.findall(text)
                              if not name.startswith(_NOT_INSTRUCTIONS))
                shuffles = _SHUFFLE.findall(text)
                shuffled = sum(len(mask.split(",")) for mask, _ in shuffles)
                widest = max((int(w) for _, w in shuffles), default=0)
                machine = len(_INSTRUCTION.findall(assembly[sym]))
                total = sum(ops.values())
                rows.append((total, shuffled, machine))
                top = " ".join(f"{name.split('.', 1)[1]}:{c}" for name, c in ops.most_common(6))
                kind = "reduce" if sym.endswith("_reduce") else "gemm"
                print(f"{arch:8} g={g} m={m:<5} n={n:<6} k={k:<5} {t:5} {kind:9} {total:8} "
                      f"{shuffled:8} {widest:6} {machine:7} {total / machine:5.2f}  {top}")
    print(f"median over {len(rows)} kernels: LLVM ops "
          f"{statistics.median(r[0] for r in rows):.0f}, shuffled elements "
          f"{statistics.median(r[1] for r in rows):.0f}, machine instructions "
          f"{statistics.median(r[2] for r in rows):.0f}; total LLVM ops "
          f"{sum(r[0] for r in rows)}, shuffled {sum(r[1] for r in rows)}, machine "
          f"{sum(r[2] for r in rows)}")


def lowered_gemm(arch: str, g: int, m: int, n: int, k: int, t: str) -> ir.Module:
    """The GEMM's module as compile_gemm makes it, lowered to ROCDL (kernel_lowering)."""
    module = ir.Module.parse(gemm_module_text(
        arch, g=g, m=m, n=n, k=k, in_type=t, out_type=None, trans_a=False, trans_b=False,
        a_layout="row", b_layout="row", perf_config=None, accumulate=False))
    pipeline = KernelPipeline(arch=arch)
    pipeline.to_kernel_ir(module)
    run_steps(module, pipeline.kernel_steps())
    return module


# Run under callgrind with instrumentation off: parses each lowered module named on the
# command line, then for each prints `ready`, waits for a line on stdin (the parent has
# switched instrumentation on), serializes it, prints `done` and waits again (the parent
# has dumped the count and switched it off).
_COUNT_CHILD = """
import sys
from accel.api import shared_context
from accel.bindings import ir
from accel.pipelines.kernel import LLVM_ASSEMBLY
from accel.pipelines.textual import UpstreamSegment, run_steps
with shared_context():
    modules = [ir.Module.parse(open(path).read()) for path in sys.argv[1:]]
    for module in modules:
        print("ready", flush=True); sys.stdin.readline()
        run_steps(module, [UpstreamSegment(LLVM_ASSEMBLY, verify=False)])
        print("done", flush=True); sys.stdin.readline()
"""


def llvm_instructions() -> None:
    """Per GEMM of SHAPES and arch: the instructions LLVM executes serializing its lowered
    module to assembly (callgrind), and the kernels' machine instructions."""
    import tempfile
    print(f"load average before: {load_average()}")
    cases, machine = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for arch in ARCHES:
            for g, m, n, k, t in SHAPES:
                with shared_context():
                    module = lowered_gemm(arch, g, m, n, k, t)
                    path = os.path.join(tmp, f"{len(cases)}.mlir")
                    with open(path, "w") as f:
                        f.write(str(module))
                    run_steps(module, [UpstreamSegment(LLVM_ASSEMBLY, verify=False)])
                    machine.append(sum(len(_INSTRUCTION.findall(asm.decode()))
                                       for asm in binaries(module).values()))
                cases.append((f"{arch:8} g={g} m={m:<5} n={n:<6} k={k:<5} {t:5}", path))
        counts = []
        # The counts first: zip then resumes them past the last case, which ends the child.
        for count, (label, _), machine_instructions in zip(
                callgrind_counts(_COUNT_CHILD, [path for _, path in cases], tmp), cases, machine):
            counts.append(count)
            print(f"{label} {count / 1e6:8.1f} M LLVM instructions, "
                  f"{machine_instructions:5} machine instructions", flush=True)
    print(f"median over {len(counts)} GEMMs: {statistics.median(counts) / 1e6:.1f} M; "
          f"total {sum(counts) / 1e6:.1f} M LLVM instructions")
    print(f"load average after: {load_average()}")


def callgrind_counts(child_source: str, paths: list[str], tmp: str):
    """Run `child_source` (Python) on `paths` under callgrind with instrumentation off and
    yield, per path, the instructions counted while the child works on it. The child
    prints `ready` and waits for a line on stdin before each path's work (instrumentation
    is switched on), then prints `done` and waits again (the count is dumped and
    instrumentation switched off)."""
    out = os.path.join(tmp, "callgrind.out")
    child = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
         f"--log-file={out}.log", sys.executable, "-c", child_source, *paths],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def control(*flags: str) -> None:
        subprocess.run(["callgrind_control", *flags, str(child.pid)], check=True,
                       capture_output=True)

    for _ in paths:
        assert child.stdout.readline().strip() == "ready"
        control("--instr=on")
        child.stdin.write("\n"); child.stdin.flush()
        assert child.stdout.readline().strip() == "done"
        control("--dump")
        control("--instr=off")
        # Each dump holds the events since the previous one (a dump zeroes them): its
        # `totals` line (its `summary` wraps below zero after the first dump).
        dump = max((f for f in os.listdir(tmp) if f.startswith("callgrind.out.")
                    and not f.endswith(".log")), key=lambda f: int(f.rsplit(".", 1)[1]))
        with open(os.path.join(tmp, dump)) as f:
            yield int(re.search(r"^totals: (\d+)", f.read(), re.M).group(1))
        child.stdin.write("\n"); child.stdin.flush()
    child.wait()


def first_select(repeat: int, pythonpath: str | None) -> None:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (pythonpath, env.get("PYTHONPATH"))))
    print(f"load average before: {load_average()}")
    print(f"{'arch':<8} {'type':<11} {'first ms':>8} {'second ms':>9} {'candidates':>10}")
    for arch, in_type in FIRST_SELECT:
        runs = [subprocess.run([sys.executable, "-c", _FIRST_SELECT_CHILD, arch, in_type],
                               env=env, capture_output=True, text=True, check=True
                               ).stdout.split() for _ in range(repeat)]
        print(f"{arch:<8} {in_type:<11} {min(float(r[0]) for r in runs):>8.1f} "
              f"{min(float(r[1]) for r in runs):>9.1f} {runs[0][2]:>10}")
    print(f"load average after: {load_average()}")


def force_bf16_round(way: str) -> None:
    """Plan every f32 -> bf16 rounding `way` (the plan's rule still says where there is
    one)."""
    rule = plan_kernel.bf16_round

    def forced(*args):
        return None if rule(*args) is None else way
    plan_kernel.bf16_round = forced


def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def children_cpu_seconds() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def cpu_seconds() -> float:
    """User + system time of this process and its finished children (the linker)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
