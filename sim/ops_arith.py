"""arith and math: elementwise ops in the IR's own types.

Integers wrap (numpy array arithmetic is modular); f16 and bf16 ops compute in f32 and
round once to the 16-bit type, which is exact for + - * / (f32 carries more than
2*11+2 bits). Unsigned ops view the signless operands as unsigned. Division by zero is
poison in MLIR; the divisor is replaced by 1 so numpy stays quiet.
"""

from __future__ import annotations

import re

import numpy as np

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.sim.registry import op
from accel.sim.fp8 import decode
from accel.sim.types import UNSIGNED, is_float, is_fp8, mlir_name, value_type

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def _elementwise(fn_for_dtype):
    """Register helper: fn_for_dtype(result dtype, operand dtype) -> f(*arrays)."""

    def compile_fn(c, o):
        ins = [c.use(v) for v in o.operands]
        out = c.define(o.results[0])
        in_dt = value_type(o.operands[0].type, o.location).dtype
        res_dt = value_type(o.results[0].type, o.location).dtype
        f = fn_for_dtype(res_dt, in_dt)
        if len(ins) == 1:
            (a,) = ins

            def run1(st):
                r = st.regs
                r[out] = f(r[a])

            return run1
        if len(ins) == 2:
            a, b = ins

            def run2(st):
                r = st.regs
                r[out] = f(r[a], r[b])

            return run2

        def run(st):
            r = st.regs
            r[out] = f(*[r[i] for i in ins])

        return run

    return compile_fn


def _same(fn):
    return _elementwise(lambda res, src: fn)


def _unsigned(fn):
    """Apply fn to unsigned views and view the result back as signless."""

    def make(res, src):
        u = UNSIGNED[src]

        def f(*xs):
            return fn(*[x.view(u) for x in xs]).view(res)

        return f

    return _elementwise(make)


def _nonzero(b):
    return np.where(b == 0, np.ones((), b.dtype), b)


def _divsi(a, b):
    b = _nonzero(b)
    q = a // b
    # numpy floors; arith.divsi truncates toward zero.
    return q + ((q * b != a) & ((a < 0) != (b < 0))).astype(q.dtype)


def _ceildivsi(a, b):
    b = _nonzero(b)
    q = a // b
    return q + (q * b != a).astype(q.dtype)


op("arith.addi")(_same(np.add))
op("arith.subi")(_same(np.subtract))
op("arith.muli")(_same(np.multiply))
op("arith.andi")(_same(np.bitwise_and))
op("arith.ori")(_same(np.bitwise_or))
op("arith.xori")(_same(np.bitwise_xor))
op("arith.maxsi")(_same(np.maximum))
op("arith.minsi")(_same(np.minimum))
op("arith.divsi")(_same(_divsi))
op("arith.remsi")(_same(lambda a, b: np.fmod(a, _nonzero(b))))
op("arith.floordivsi")(_same(lambda a, b: a // _nonzero(b)))
op("arith.ceildivsi")(_same(_ceildivsi))
op("arith.shli")(_same(np.left_shift))
op("arith.shrsi")(_same(np.right_shift))
op("arith.maxui")(_unsigned(np.maximum))
op("arith.minui")(_unsigned(np.minimum))
op("arith.divui")(_unsigned(lambda a, b: a // _nonzero(b)))
op("arith.remui")(_unsigned(lambda a, b: a % _nonzero(b)))
op("arith.ceildivui")(_unsigned(_ceildivsi))
op("arith.shrui")(_unsigned(np.right_shift))

op("arith.addf")(_same(np.add))
op("arith.subf")(_same(np.subtract))
op("arith.mulf")(_same(np.multiply))
op("arith.divf")(_same(np.divide))
op("arith.remf")(_same(np.fmod))
op("arith.negf")(_same(np.negative))
op("arith.maxnumf")(_same(np.fmax))
op("arith.minnumf")(_same(np.fmin))
op("arith.maximumf")(_same(np.maximum))
op("arith.minimumf")(_same(np.minimum))
op("math.absi")(_same(np.abs))


def _via_f32(fn):
    """Transcendentals: evaluate in f32 (f64 for f64) and round to the result type,
    as the hardware's f32 units do for 16-bit types."""

    def make(res, src):
        wide = F64 if res == F64 else F32

        def f(*xs):
            return fn(*[x.astype(wide) for x in xs]).astype(res)

        return f

    return _elementwise(make)


for _name, _fn in {
    "math.absf": np.abs, "math.ceil": np.ceil, "math.floor": np.floor,
    "math.roundeven": np.rint, "math.trunc": np.trunc, "math.sqrt": np.sqrt,
    "math.rsqrt": lambda x: 1.0 / np.sqrt(x), "math.exp": np.exp, "math.exp2": np.exp2,
    "math.expm1": np.expm1, "math.log": np.log, "math.log2": np.log2,
    "math.log10": np.log10, "math.log1p": np.log1p, "math.tanh": np.tanh,
    "math.sin": np.sin, "math.cos": np.cos, "math.tan": np.tan, "math.atan": np.arctan,
    "math.powf": np.power, "math.copysign": np.copysign, "math.atan2": np.arctan2,
}.items():
    op(_name)(_via_f32(_fn))


def _fma(res, src):
    # The product of two f32 is exact in f64, so one f64 add and a final rounding
    # match a fused multiply-add except for rare double-rounding ties.
    def f(a, b, c):
        return (a.astype(F64) * b.astype(F64) + c.astype(F64)).astype(res)

    return f


op("math.fma")(_elementwise(_fma))

# arith.cmpi / cmpf predicates by their enum values (ArithBase.td).
_CMPI = {
    0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
    5: np.greater_equal, 6: "u<", 7: "u<=", 8: "u>", 9: "u>=",
}
_UCMP = {"u<": np.less, "u<=": np.less_equal, "u>": np.greater, "u>=": np.greater_equal}


@op("arith.cmpi")
def _cmpi(c, o):
    pred = ir.IntegerAttr(o.attributes["predicate"]).value
    fn = _CMPI[pred]
    a, b = (c.use(v) for v in o.operands)
    out = c.define(o.results[0])
    if isinstance(fn, str):
        u = UNSIGNED[value_type(o.operands[0].type).dtype]
        ufn = _UCMP[fn]

        def run_u(st):
            r = st.regs
            r[out] = ufn(r[a].view(u), r[b].view(u))

        return run_u

    def run(st):
        r = st.regs
        r[out] = fn(r[a], r[b])

    return run


def _unordered(x, y):
    return np.isnan(x) | np.isnan(y)


_CMPF = {
    0: lambda x, y: np.zeros(np.broadcast(x, y).shape, bool),
    1: np.equal, 2: np.greater, 3: np.greater_equal, 4: np.less, 5: np.less_equal,
    6: lambda x, y: np.not_equal(x, y) & ~_unordered(x, y),
    7: lambda x, y: ~_unordered(x, y),
    8: lambda x, y: np.equal(x, y) | _unordered(x, y),
    9: lambda x, y: ~np.less_equal(x, y), 10: lambda x, y: ~np.less(x, y),
    11: lambda x, y: ~np.greater_equal(x, y), 12: lambda x, y: ~np.greater(x, y),
    13: np.not_equal, 14: _unordered,
    15: lambda x, y: np.ones(np.broadcast(x, y).shape, bool),
}


@op("arith.cmpf")
def _cmpf(c, o):
    fn = _CMPF[ir.IntegerAttr(o.attributes["predicate"]).value]
    a, b = (c.use(v) for v in o.operands)
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        r[out] = fn(r[a], r[b])

    return run


@op("arith.select")
def _select(c, o):
    cond, a, b = (c.use(v) for v in o.operands)
    out = c.define(o.results[0])
    cond_rank = len(value_type(o.operands[0].type).shape)
    rank = len(value_type(o.results[0].type).shape)
    # A scalar i1 selects whole vectors: give it the value's trailing axes.
    pad = (1,) * (rank - cond_rank)

    def run(st):
        r = st.regs
        k = r[cond]
        r[out] = np.where(k.reshape(k.shape + pad), r[a], r[b])

    return run


def _astype(res, src):
    if res == np.dtype(np.bool_):
        return lambda x: (x & 1).astype(bool)      # trunci to i1 keeps the low bit
    if is_fp8(src):   # extf from fp8: the simulator's own decode of the bits
        name = mlir_name(src)
        return lambda x: decode(x, name).astype(res)
    return lambda x: x.astype(res)


def _extsi(res, src):
    if src == np.dtype(np.bool_):
        return lambda x: -(x.astype(res))          # i1 true sign-extends to -1
    return lambda x: x.astype(res)


def _zext(res, src):
    u = UNSIGNED[src]
    return lambda x: x.view(u).astype(res)


def _fptoui(res, src):
    u = UNSIGNED[res]
    return lambda x: x.astype(u).view(res)


def _bitcast(res, src):
    if res.itemsize != src.itemsize:
        raise AccelError("simulator: arith.bitcast between types of different widths")
    return lambda x: np.ascontiguousarray(x).view(res)


for _name, _make in {
    "arith.index_cast": _astype, "arith.trunci": _astype, "arith.extsi": _extsi,
    "arith.index_castui": _zext, "arith.extui": _zext, "arith.extf": _astype,
    "arith.truncf": _astype, "arith.sitofp": _astype, "arith.uitofp": _zext,
    "arith.fptosi": _astype, "arith.fptoui": _fptoui, "arith.bitcast": _bitcast,
}.items():
    op(_name)(_elementwise(_make))


# ---- constants -------------------------------------------------------------------

_HEX = re.compile(r"^0x[0-9a-fA-F]+$")


def _parse_scalar_token(tok: str, dtype: np.dtype):
    """One element of a printed dense attribute; non-finite floats print as bits."""
    tok = tok.strip()
    if tok in ("true", "false"):
        return tok == "true"
    if _HEX.match(tok) and is_float(dtype):
        bits = np.array([int(tok, 16)], dtype=UNSIGNED[np.dtype(f"i{dtype.itemsize}")])
        return bits.view(dtype)[0]
    return float(tok) if is_float(dtype) else int(tok, 0)


def _dense_from_text(text: str, dtype: np.dtype, shape, location):
    """Elements of `dense<...> : type` read from its printed form (used for bf16,
    which the bindings cannot hand to numpy)."""
    body = text[text.index("<") + 1:text.rindex(">", 0, text.rindex(" : "))]
    if body.startswith('"0x'):
        raw = bytes.fromhex(body[3:-1])
        flat = np.frombuffer(raw, dtype=dtype)
    else:
        toks = [t for t in body.replace("[", " ").replace("]", " ").split(",")]
        flat = np.array([_parse_scalar_token(t, dtype) for t in toks if t.strip()], dtype=dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if flat.size == 1:
        return np.full(shape, flat[0], dtype=dtype)
    if flat.size != n:
        raise AccelError(f"simulator: cannot read constant {text}", location=location)
    return flat.reshape(shape)


def dense_elements(attr, dtype: np.dtype, shape, location) -> np.ndarray:
    """The elements of a DenseElementsAttr as a numpy array of `dtype` and `shape`
    (also the initial value of a memref.global on the host)."""
    if attr.is_splat:
        return np.full(shape, _scalar_attr(attr.get_splat_value(), dtype), dtype=dtype)
    try:
        return np.array(attr).astype(dtype).reshape(shape)
    except (TypeError, ValueError, RuntimeError):
        return _dense_from_text(str(attr), dtype, shape, location)


def constant_value(attr, t, location) -> np.ndarray:
    """The per-thread value of a constant: shape (1, *vector shape)."""
    vt = value_type(t, location)
    if isinstance(attr, ir.DenseElementsAttr):
        arr = dense_elements(attr, vt.dtype, vt.shape, location)
    else:
        arr = np.array(_scalar_attr(attr, vt.dtype), dtype=vt.dtype)
    return arr.reshape((1,) + vt.shape)


def _scalar_attr(attr, dtype):
    if isinstance(attr, ir.BoolAttr):
        return bool(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        v = attr.value
        if dtype.kind == "i":
            # i32 constants may be printed unsigned-looking; keep the low bits.
            bits = dtype.itemsize * 8
            v &= (1 << bits) - 1
            if v >= 1 << (bits - 1):
                v -= 1 << bits
        return v
    if isinstance(attr, ir.FloatAttr):
        return attr.value
    raise AccelError(f"simulator: unsupported constant attribute {attr}")


@op("arith.constant")
def _constant(c, o):
    out = c.define(o.results[0])
    value = constant_value(o.attributes["value"], o.results[0].type, o.location)
    value.setflags(write=False)

    def run(st):
        st.regs[out] = value

    return run


def _byte_permute(s0, s1, sel):
    """v_perm_b32 (llvm.amdgcn.perm): byte i of the result is chosen by byte i of `sel`
    from the eight bytes {s0 (high), s1 (low)}: 0-7 a byte, 8-11 the sign bit of byte
    1 or 3 of s1 or s0 replicated, 12 zero, 13 and above 0xff (the ISA's table)."""
    u = np.uint32
    s0, s1, sel = s0.view(u), s1.view(u), sel.view(u)
    both = (s0.astype(np.uint64) << np.uint64(32)) | s1.astype(np.uint64)
    out = np.zeros(s0.shape, np.uint32)
    for i in range(4):
        b = (sel >> u(8 * i)) & u(0xFF)
        picked = ((both >> (b.astype(np.uint64) * np.uint64(8))) & np.uint64(0xFF)).astype(u)
        sign_bit = np.select([b == 8, b == 9, b == 10], [(s1 >> u(15)) & u(1), (s1 >> u(31)) & u(1),
                             (s0 >> u(15)) & u(1)], (s0 >> u(31)) & u(1))
        byte = np.where(b < 8, picked, np.where(b < 12, sign_bit * u(0xFF),
                                                np.where(b == 12, u(0), u(0xFF))))
        out |= byte.astype(u) << u(8 * i)
    return out.view(np.int32)


_INTRINSICS = {"llvm.amdgcn.perm": _byte_permute}


@op("llvm.call_intrinsic")
def _call_intrinsic(c, o):
    name = ir.StringAttr(o.attributes["intrin"]).value
    if name not in _INTRINSICS:
        raise AccelError(f"simulator: intrinsic {name} is outside the Kernel IR subset")
    fn = _INTRINSICS[name]
    ins = [c.use(v) for v in o.operands]
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        r[out] = fn(*[r[i] for i in ins])

    return run
